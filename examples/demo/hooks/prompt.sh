#!/bin/sh
# UserPromptSubmit: block prompts that carry a password; otherwise add context
# (plain stdout is context for this event).
payload=$(cat)
if printf '%s' "$payload" | grep -qi 'password'; then
  echo "prompts must not contain passwords" >&2
  exit 2
fi
echo "Reminder: this is the demo project; answer briefly."

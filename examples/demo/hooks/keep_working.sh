#!/bin/sh
# Stop: keep the agent working once. When stop_hook_active is true the agent is already
# continuing because of a Stop hook, so let it stop this time.
payload=$(cat)
if printf '%s' "$payload" | grep -Eq '"stop_hook_active": *true'; then
  exit 0
fi
printf '%s\n' '{"decision": "block", "reason": "Run the test suite and report the result before stopping."}'

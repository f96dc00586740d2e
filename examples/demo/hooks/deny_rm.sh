#!/bin/sh
# PreToolUse (Bash): refuse recursive forced deletes. The payload arrives on stdin.
payload=$(cat)
if printf '%s' "$payload" | grep -Eq '"command": *"[^"]*rm +-(rf|fr|r +-f|f +-r)'; then
  printf '%s\n' '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "rm -rf is not allowed in this project; delete files one by one"}}'
fi
exit 0

#!/bin/sh
# PreToolUse (every tool): add a line of context for the model.
cat >/dev/null
printf '%s\n' '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "This demo project keeps its sources in src/; never edit generated files."}}'

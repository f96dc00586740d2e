#!/usr/bin/env python3
"""Example resident hook: deny Bash commands that contain `rm -rf` (PreToolUse)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from resident import serve  # noqa: E402


def hook(event, payload):
    command = (payload.get("tool_input") or {}).get("command") or ""
    if "rm -rf" in command:
        return 0, {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "rm -rf is not allowed",
            }
        }
    return 0


if __name__ == "__main__":
    serve(hook)

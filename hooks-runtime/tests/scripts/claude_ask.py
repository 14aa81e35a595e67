#!/usr/bin/env python3
# A Claude Code PreToolUse hook that wants a human to confirm.
import json
import sys

json.load(sys.stdin)
print(json.dumps({
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "ask",
        "permissionDecisionReason": "pushing to main",
    }
}))

#!/usr/bin/env python3
# A Claude Code PreToolUse guard, as users write them: deny `rm -rf` in Bash.
import json
import sys

data = json.load(sys.stdin)
if data.get("hook_event_name") != "PreToolUse" or data.get("tool_name") != "Bash":
    sys.exit(0)
command = data.get("tool_input", {}).get("command", "")
if "rm -rf" in command:
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "Destructive command blocked: " + command,
        }
    }))
sys.exit(0)

#!/usr/bin/env python3
# A Claude Code PreToolUse hook that rewrites the tool input (updatedInput).
import json
import sys

data = json.load(sys.stdin)
tool_input = dict(data["tool_input"])
if tool_input.get("command", "").startswith("terraform apply"):
    tool_input["command"] = tool_input["command"].replace("terraform apply", "terraform plan", 1)
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "apply downgraded to plan",
            "updatedInput": tool_input,
        }
    }))

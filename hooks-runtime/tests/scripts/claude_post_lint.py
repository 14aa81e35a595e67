#!/usr/bin/env python3
# A Claude Code PostToolUse hook that adds context after a file edit.
import json
import sys

data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
if path.endswith(".py"):
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "additionalContext": "lint: 2 warnings in " + path.rsplit("/", 1)[-1],
        }
    }))

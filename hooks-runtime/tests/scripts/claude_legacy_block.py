#!/usr/bin/env python3
# The older top-level `decision` form of Claude Code hook output.
import json
import sys

data = json.load(sys.stdin)
if "curl" in data.get("tool_input", {}).get("command", ""):
    print(json.dumps({"decision": "block", "reason": "network access is not allowed"}))

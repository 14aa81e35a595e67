#!/usr/bin/env python3
# A Claude Code Stop hook: ask once to keep working, never loop.
import json
import sys

data = json.load(sys.stdin)
if data.get("stop_hook_active"):
    sys.exit(0)
print(json.dumps({"decision": "block", "reason": "Run the test suite before stopping."}))

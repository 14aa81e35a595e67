#!/bin/sh
# A native stop hook that always asks to resume and logs the payload's loop_count.
# $1: the file to append loop counts to.
python3 -c '
import json, sys
p = json.load(sys.stdin)
with open(sys.argv[1], "a") as f:
    f.write(str(p["loop_count"]) + "\n")
print(json.dumps({"decision": "resume", "reason": "keep going"}))
' "$1"

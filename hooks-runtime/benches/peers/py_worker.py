"""One program, two ways to run it (the worker bench): as a persistent
worker it answers each request line with its `request_id`; run one-shot it
reads its one payload line, answers `{}` and exits at end of input."""

import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    answer = {"request_id": request["request_id"]} if "request_id" in request else {}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()

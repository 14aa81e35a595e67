"""Peer runner for the shell hook benches: how a Python agent runtime runs a
hook (asyncio `create_subprocess_exec`, JSON payload on stdin, JSON result on
stdout), the way the AgentCanvas ADR describes it.

Usage: asyncio_runner.py PAYLOAD_BYTES exec ARGV... | shell COMMAND | noop

Started once; for every line on its stdin it runs the hook once (a fresh
process) with a payload of about PAYLOAD_BYTES bytes, parses the hook's
stdout as JSON when there is any, and answers one line with the exit code.
`noop` answers without running anything (the cost of this harness itself).
"""

import asyncio
import json
import sys


async def run_once(argv, payload):
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, _err = await asyncio.wait_for(proc.communicate(payload), timeout=30)
    except (BrokenPipeError, ConnectionResetError):
        out = b""
        await proc.wait()
    if out.strip():
        json.loads(out)
    return proc.returncode


async def main():
    size = int(sys.argv[1])
    mode = sys.argv[2]
    if mode == "exec":
        argv = sys.argv[3:]
    elif mode == "shell":
        argv = ["/bin/sh", "-c", sys.argv[3]]
    else:
        argv = None
    payload = json.dumps(
        {"phase": "before_tool", "tool_name": "bash", "tool_input": {"command": "x" * size}}
    ).encode() + b"\n"
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while await reader.readline():
        code = 0 if argv is None else await run_once(argv, payload)
        sys.stdout.write(f"{code}\n")
        sys.stdout.flush()


asyncio.run(main())

// Peer runner for the shell hook benches: how Claude Code runs a hook
// (Node `child_process.spawn` with a shell, JSON payload on stdin, JSON
// result on stdout).
//
// Usage: node_runner.js PAYLOAD_BYTES exec ARGV... | shell COMMAND | noop
//
// Started once; for every line on its stdin it runs the hook once (a fresh
// process) with a payload of about PAYLOAD_BYTES bytes, parses the hook's
// stdout as JSON when there is any, and answers one line with the exit
// code. `shell` spawns with `shell: true` (`/bin/sh -c`), as Claude Code
// does; `exec` spawns the argv without a shell; `noop` answers without
// running anything (the cost of this harness itself).
"use strict";
const { spawn } = require("child_process");
const readline = require("readline");

const size = Number(process.argv[2]);
const mode = process.argv[3];
const rest = process.argv.slice(4);
const payload =
  JSON.stringify({
    phase: "before_tool",
    tool_name: "bash",
    tool_input: { command: "x".repeat(size) },
  }) + "\n";

function runOnce() {
  return new Promise((resolve, reject) => {
    const child =
      mode === "shell"
        ? spawn(rest[0], { shell: true, stdio: ["pipe", "pipe", "pipe"] })
        : spawn(rest[0], rest.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
    const out = [];
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", () => {});
    child.stdin.on("error", () => {}); // EPIPE: the hook did not read its stdin
    child.on("error", reject);
    child.on("close", (code) => {
      const text = Buffer.concat(out).toString().trim();
      if (text) JSON.parse(text);
      resolve(code);
    });
    child.stdin.end(payload);
  });
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", async () => {
  const code = mode === "noop" ? 0 : await runOnce();
  process.stdout.write(`${code}\n`);
});

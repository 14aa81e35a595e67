#!/bin/sh
# after_tool audit logger: appends the (redacted) payload as one JSON line to
# $AUDIT_LOG (default .agent/audit.jsonl). Prints nothing: the run continues.
log=${AUDIT_LOG:-.agent/audit.jsonl}
mkdir -p "$(dirname "$log")"
payload=$(cat)
printf '%s\n' "$payload" | tr -d '\n' >> "$log"
printf '\n' >> "$log"

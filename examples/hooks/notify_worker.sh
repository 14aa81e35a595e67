#!/bin/sh
# notification logger, run as a persistent worker (`worker: true`): one
# request per line on stdin, the payload with `request_id` first; appends it
# to $NOTIFY_LOG (default .agent/notifications.jsonl) and answers a plain
# continue with the same `request_id`.
log=${NOTIFY_LOG:-.agent/notifications.jsonl}
mkdir -p "$(dirname "$log")"
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$log"
  id=${line#*\"request_id\":}
  id=${id%%[,\}]*}
  printf '{"request_id":%s}\n' "$id"
done

#!/bin/sh
# before_tool guard for the `bash` tool (native protocol).
# Reads the payload envelope on stdin; exit 2 blocks the call and stderr is
# the reason the model sees. Exit 0 with no output lets the call through.
payload=$(cat)
if printf '%s' "$payload" | grep -Eq '(curl|wget)[^|]*\|[[:space:]]*(sudo[[:space:]]+)?(ba|z)?sh'; then
    echo "piping a download into a shell is not allowed; download, inspect, then run" >&2
    exit 2
fi
if printf '%s' "$payload" | grep -Eq 'git[[:space:]]+push[^"]*(--force|-f([[:space:]]|$|\\|"))'; then
    echo "force-pushing is not allowed; push a new branch instead" >&2
    exit 2
fi
exit 0

#!/bin/sh
# after_tool hook for `write_file` (native protocol): asks the model to run the
# tests, naming the file it wrote when the payload carries `affected_paths`.
payload=$(cat)
path=$(printf '%s' "$payload" | tr -d '\n' | sed -n 's/.*"affected_paths"[[:space:]]*:[[:space:]]*\["\([^"\\]*\)".*/\1/p')
# Affected paths are absolute; name the file relative to the workspace root
# (the hook's working directory).
path=${path#"$(pwd -P)/"}
if [ -n "$path" ]; then
    msg="You changed $path. Run the tests that cover it before finishing."
else
    msg="You changed a file. Run the tests before finishing."
fi
printf '{"context_items":[{"role":"user","content":"%s"}]}\n' "$msg"

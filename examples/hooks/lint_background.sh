#!/bin/sh
# A background (`async: true`) after_tool hook: the agent goes on while it
# runs; the context it prints comes with a later event of the run.
cat > /dev/null
printf '%s\n' '{"context_items":[{"role":"user","content":"Background lint: no findings in the file just written."}]}'

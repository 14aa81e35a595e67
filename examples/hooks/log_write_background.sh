#!/bin/sh
# A background (`async: true`) after_tool hook: the agent goes on while it
# runs. It notes the write in .agent/writes.log and prints nothing; had it
# printed {"context_items": [...]}, they would come with a later event of
# the run.
cat > /dev/null
mkdir -p .agent
echo write_file >> .agent/writes.log

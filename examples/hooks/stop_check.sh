#!/bin/sh
# stop hook: while .agent/TODO has non-blank lines, ask the agent to keep
# working on the first one. Prints nothing (let it stop) otherwise.
cat > /dev/null
todo=.agent/TODO
if [ -f "$todo" ]; then
    next=$(grep -v '^[[:space:]]*$' "$todo" | head -n 1 | tr -d '"\\')
    if [ -n "$next" ]; then
        printf '{"decision":"resume","reason":"the task list is not done; next item: %s"}\n' "$next"
    fi
fi
exit 0

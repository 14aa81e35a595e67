#!/bin/sh
# A Claude Code PreToolUse hook (protocol: claude): denies commands using sudo.
# Claude Code sends {"hook_event_name": "PreToolUse", "tool_input": {...}, ...}.
input=$(cat)
if printf '%s' "$input" | grep -Eq '"command"[[:space:]]*:[[:space:]]*"([^"]*[[:space:];&|])?sudo[[:space:]]'; then
    printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"sudo is not allowed in this workspace"}}'
fi
exit 0

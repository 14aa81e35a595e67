#!/usr/bin/env bash
# A Claude Code PreToolUse hook in plain bash (no jq): refuse edits to .env files.
input=$(cat)
case "$input" in
  *'"file_path":'*'.env"'*)
    echo "Editing .env files is not allowed; ask the user to change secrets." >&2
    exit 2
    ;;
esac
exit 0

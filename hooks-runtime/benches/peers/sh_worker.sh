# One program, two ways to run it (the worker bench): as a persistent
# worker it answers each request line with its `request_id`; run one-shot
# it reads its one payload line, answers `{}` and exits at end of input.
while IFS= read -r line; do
  case $line in
  '{"request_id":'*)
    id=${line#*\"request_id\":}
    id=${id%%[,\}]*}
    printf '{"request_id":%s}\n' "$id"
    ;;
  *) echo '{}' ;;
  esac
done

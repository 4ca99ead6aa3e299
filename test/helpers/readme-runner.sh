# Sourced before the README's blocks by test/operations/readme.test.ts.
set -euo pipefail
pgids=()
cleanup() {
  for g in "${pgids[@]}"; do kill -TERM -- "-$g" 2>/dev/null || true; done
  sleep 1
  for g in "${pgids[@]}"; do kill -KILL -- "-$g" 2>/dev/null || true; done
}
trap cleanup EXIT
# Starts a long-running command in its own process group and returns once its output matches $1.
serve_until() {
  local pattern="$1"; shift
  local log; log=$(mktemp)
  setsid "$@" >"$log" 2>&1 < /dev/null &
  local pid=$!
  pgids+=("$pid")
  for _ in $(seq 1 240); do
    if grep -qE "$pattern" "$log"; then grep -E "$pattern" "$log" | head -n 1; return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then echo "README RUNNER: '$*' exited early:" >&2; cat "$log" >&2; return 1; fi
    sleep 0.5
  done
  echo "README RUNNER: '$*' did not print /$pattern/ within 120 s:" >&2; cat "$log" >&2; return 1
}
# npm as the README uses it: `npm ci` and `npm test` are what the test run already did;
# `npm start` serves in the background until it says it is listening.
npm() {
  case "${1:-}" in
    ci|test) echo "(README runner: 'npm $1' is what this test run already did)"; return 0 ;;
    start)
      local a
      for a in "$@"; do case "$a" in hash-token|--help|-h|--version) command npm "$@"; return ;; esac; done
      serve_until 'listening on' npm "$@" ;;
    *) command npm "$@" ;;
  esac
}
echo "README RUNNER: start"

# shellcheck shell=bash
# Lanes for .ci/run (sourced by it; bash 5.1 or later for `wait -n -p`).
# A stage is one timed command. A lane is a stage run in the background, its output in a log of its
# own that is printed whole when the lane ends, so lanes side by side never interleave their lines;
# every lane is waited for and its exit code kept, so any lane's failure fails the run.
# Each stage's name, start, end and exit code go to $CI_LOGS/stages, from which ci_summary prints a
# table at the end.

if ((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] < 501)); then
  echo ".ci/run needs bash 5.1 or later (wait -n -p); this is $BASH_VERSION" >&2
  exit 1
fi

CI_LOGS=$(mktemp -d "${TMPDIR:-/tmp}/ckg-ci.XXXXXX")
CI_T0=${EPOCHREALTIME//[!0-9]/}
CI_FAILED=()
declare -A CI_LANE_PID=()

# Seconds since the run started, one decimal (EPOCHREALTIME in microseconds, whatever the locale's point).
ci_clock() {
  local us=$((${EPOCHREALTIME//[!0-9]/} - CI_T0))
  printf '%6d.%d s' $((us / 1000000)) $((us / 100000 % 10))
}

# ci_stage NAME COMMAND...: runs COMMAND in this shell (what it exports stays), timed; its exit code.
ci_stage() {
  local name=$1 start rc=0
  shift
  start=${EPOCHREALTIME//[!0-9]/}
  echo "[$(ci_clock)] $name: $*"
  "$@" || rc=$?
  echo "$name $start ${EPOCHREALTIME//[!0-9]/} $rc" >> "$CI_LOGS/stages"
  echo "[$(ci_clock)] $name: exit $rc"
  return "$rc"
}

# ci_lane NAME COMMAND...: the stage in the background, its output in $CI_LOGS/NAME.log.
ci_lane() {
  local name=$1
  ci_stage "$@" > "$CI_LOGS/$name.log" 2>&1 &
  CI_LANE_PID[$name]=$!
  echo "[$(ci_clock)] $name: started in a lane of its own (log: $CI_LOGS/$name.log)"
}

# ci_join NAME...: waits for these lanes in the order they end and prints each one's log; a lane
# that failed is added to CI_FAILED (the run goes on, so every lane's result is seen).
ci_join() {
  local -A pending=()
  local name pid rc
  for name in "$@"; do pending[${CI_LANE_PID[$name]}]=$name; done
  while [ ${#pending[@]} -gt 0 ]; do
    pid=""
    if wait -n -p pid "${!pending[@]}"; then rc=0; else rc=$?; fi
    # No pid (wait unsets it): none of these lanes is a child of this shell any more (exit 127).
    [ -n "${pid:-}" ] || { echo "ci_join: cannot wait for ${pending[*]} (exit $rc)"; CI_FAILED+=("${pending[@]}"); return; }
    name=${pending[$pid]}
    unset "pending[$pid]"
    echo "======== $name: its log ========"
    cat "$CI_LOGS/$name.log"
    if [ "$rc" = 0 ]; then
      echo "======== $name: passed ========"
    else
      echo "======== $name: FAILED (exit $rc) ========"
      CI_FAILED+=("$name")
    fi
  done
}

# Every minute, the last line of each lane still running: a lane of ten minutes is not silent.
ci_progress() {
  local name
  while sleep 60; do
    for name in "${!CI_LANE_PID[@]}"; do
      grep -q "^$name " "$CI_LOGS/stages" 2>/dev/null && continue
      echo "[$(ci_clock)] $name: running; last said: $(tail -n 1 "$CI_LOGS/$name.log" | cut -c1-110)"
    done
  done
}

# The stages' table: when each ran (seconds from the start), how long, and its result. Then the
# failing lanes' last lines again, so they are found at the end of the output.
ci_summary() {
  echo
  echo "stages (seconds from the start of .ci/run)"
  awk -v t0="$CI_T0" '
    BEGIN { printf "  %-15s %8s %8s %9s  %s\n", "stage", "from", "to", "seconds", "result" }
    { printf "  %-15s %8.1f %8.1f %9.1f  %s\n", $1, ($2 - t0) / 1e6, ($3 - t0) / 1e6, ($3 - $2) / 1e6, ($4 == 0 ? "ok" : "FAILED (exit " $4 ")") }
  ' <(sort -k2,2n "$CI_LOGS/stages")
  local tenths=$(((${EPOCHREALTIME//[!0-9]/} - CI_T0) / 100000))
  echo "  total: $((tenths / 10)).$((tenths % 10)) s on $(nproc) cores"
  local name
  for name in "${CI_FAILED[@]}"; do
    echo
    echo "$name FAILED; the end of its log ($CI_LOGS/$name.log):"
    tail -n 40 "$CI_LOGS/$name.log"
  done
}

#!/usr/bin/env bash
# The suite's steadiness, measured (does it pass every time, also on a loaded machine?): a fresh clone of this repository's main, run 1 is
# `.ci/run` (engines, install, typecheck, lint, npm test), runs 2..5 are `npm test` under
# CKG_REQUIRE_ENGINES=1, and runs 3..5 with `stress-ng --cpu 2` hogging both cores. One line per run
# goes to $OUT/summary (exit code, seconds, stressed or not); each run's output to $OUT/run<N>.log.
#   bash scripts/repeat-tests.sh [out dir, default /tmp/ckg-repeat]
set -u
OUT="${1:-/tmp/ckg-repeat}"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
CLONE="$OUT/clone"
mkdir -p "$OUT" && rm -f "$OUT"/run*.log "$OUT/summary"
rm -rf "$CLONE" && git clone -q "$REPO" "$CLONE" && cd "$CLONE"
git log --oneline -1 > "$OUT/commit"
start=$(date +%s); bash .ci/run > "$OUT/run1.log" 2>&1; echo "run1 rc=$? $(( $(date +%s) - start ))s" >> "$OUT/summary"
export CKG_REQUIRE_ENGINES=1
for i in 2 3 4 5; do
  stress=""
  if [ "$i" -ge 3 ]; then stress-ng --cpu 2 --timeout 3600s > /dev/null 2>&1 & stress=$!; fi
  start=$(date +%s); npm test > "$OUT/run$i.log" 2>&1; rc=$?
  if [ -n "$stress" ]; then kill "$stress"; wait "$stress" 2> /dev/null; fi
  echo "run$i rc=$rc $(( $(date +%s) - start ))s${stress:+ stressed}" >> "$OUT/summary"
done

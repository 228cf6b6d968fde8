#!/usr/bin/env bash
# crash-loop.sh — kill the terminal close of a large plan with a real `kill -9` at a random
# moment, follow planseal's recovery path, and check that the plan ends CONFORMANT.
#
# usage: scripts/crash-loop.sh [ROUNDS] [TASKS]      (defaults: 200 rounds, a 400-task plan)
#   PLANSEAL=path/to/planseal   binary to use (default: target/debug/planseal, built if missing)
#   HARNESS=path/to/planseal-harness
#                               the test-support binary that writes the plans and checks JSON
#                               (default: target/debug/planseal-harness, built by
#                               `cargo build -p planseal-harness` first)
#   CLOSE=update|finalize       how the plan is closed: the terminal `planseal update` (default)
#                               or `planseal finalize --candidate` (the same transaction)
#
# Each round:
#   1. a fresh plan of TASKS tasks whose markdown is closed and whose state awaits the close;
#   2. the close starts in the background and gets `kill -9` after a random delay within the
#      close's measured duration;
#   3. the damage is checked: state.json and the receipt parse, and state.json never says
#      `completed` without a receipt or a marker next to it (else the round counts as corrupt);
#   4. the recovery path of docs/finalize.md: with a marker, `planseal recover`; without one,
#      `planseal recover` must say there is nothing to recover and `planseal unlock` clears the
#      dead owner's lock; then, unless the publication had already finished, the same close runs
#      again;
#   5. `planseal verify` must say CONFORMANT.
# Prints a tally; exits 1 unless every round ended CONFORMANT with nothing corrupt.
set -uo pipefail

rounds=${1:-200}
tasks=${2:-400}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${PLANSEAL:-$here/target/debug/planseal}
close_mode=${CLOSE:-update}
harness=${HARNESS:-}
if [ ! -x "$bin" ]; then
  (cd "$here" && cargo build --quiet) || exit 2
fi
if [ -z "$harness" ]; then
  # always built (a no-op when up to date): it is small, and a stale one would write old plans
  (cd "$here" && cargo build --quiet -p planseal-harness) || exit 2
  harness=$here/target/debug/planseal-harness
fi
plan=.dwp/plans/PLAN_demo_greeting
state=$plan/state.json
work=$(mktemp -d "${TMPDIR:-/tmp}/planseal-crash-loop.XXXXXX")
trap 'rm -rf "$work"' EXIT

fresh() { # fresh DIR
  rm -rf "$1" && mkdir -p "$1"
  "$harness" ready-plan "$1" "$tasks" >/dev/null
}

close_cmd() { # close_cmd DIR — the terminal close; `exec` so that a background job's pid is
  # planseal's own (the kill must hit the writer, not a subshell around it)
  if [ "$close_mode" = finalize ]; then
    exec "$bin" -C "$1" finalize "$plan" --candidate candidate.json
  else
    exec "$bin" -C "$1" update "$state" --task "$tasks" --status completed --worked "final review done"
  fi
}

is_completed() { grep -q '^  "status": "completed",$' "$1/$state"; }

# Calibrate: how long does an untouched close take?
fresh "$work/calibrate"
start=$(date +%s%N)
(close_cmd "$work/calibrate") >/dev/null 2>&1 || { echo "crash-loop: the close fails even without a kill" >&2; exit 2; }
span_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$span_ms" -lt 5 ] && span_ms=5
echo "crash-loop: $rounds rounds, $tasks-task plan, close via $close_mode takes ~${span_ms} ms; kills land in [0, $((span_ms * 11 / 10))] ms"

conformant=0 corrupt=0 failed=0 before_marker=0 with_marker=0 finished=0
for round in $(seq 1 "$rounds"); do
  dir="$work/round"
  fresh "$dir"
  delay_ms=$(( RANDOM % (span_ms * 11 / 10 + 1) ))
  close_cmd "$dir" >/dev/null 2>&1 &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null

  # damage check
  bad=""
  for f in "$dir/$state" "$dir/$plan/analysis_results/FINALIZATION.json"; do
    if [ -e "$f" ] && ! "$harness" json-check "$f" >/dev/null 2>&1; then bad="$f does not parse"; fi
  done
  if is_completed "$dir" && [ ! -e "$dir/$plan/analysis_results/FINALIZATION.json" ] && [ ! -e "$dir/$plan/.finalizing.json" ]; then
    bad="state completed without receipt or marker"
  fi
  if [ -n "$bad" ]; then
    corrupt=$((corrupt + 1)); echo "round $round (kill at ${delay_ms} ms): CORRUPT — $bad"; continue
  fi

  # recovery path
  ok=1
  if [ -e "$dir/$plan/.finalizing.json" ]; then
    with_marker=$((with_marker + 1))
    said=$("$bin" -C "$dir" recover "$plan" 2>&1) || { ok=0; echo "round $round: recover refused: $said"; }
  elif is_completed "$dir"; then
    # the publication finished (receipt written, marker removed); a kill before the lock was
    # released leaves only the lock, whose owner is dead
    finished=$((finished + 1))
    if [ -e "$dir/$state.lock" ]; then
      said=$("$bin" -C "$dir" recover "$plan" 2>&1)
      case "$said" in *"no interrupted publication"*) ;; *) ok=0; echo "round $round: recover said: $said" ;; esac
      "$bin" -C "$dir" unlock "$state" >/dev/null 2>&1 || ok=0
    fi
  else
    before_marker=$((before_marker + 1))
    said=$("$bin" -C "$dir" recover "$plan" 2>&1)
    case "$said" in *"no interrupted publication"*) ;; *) ok=0; echo "round $round: recover said: $said" ;; esac
    if [ -e "$dir/$state.lock" ]; then
      "$bin" -C "$dir" unlock "$state" >/dev/null 2>&1 || ok=0
    fi
    said=$( (close_cmd "$dir") 2>&1) || { ok=0; echo "round $round: the close failed again: $said"; }
  fi
  if [ "$ok" = 1 ] && "$bin" -C "$dir" verify 2>/dev/null | grep -q '^Verdict: CONFORMANT'; then
    conformant=$((conformant + 1))
  else
    failed=$((failed + 1))
    echo "round $round (kill at ${delay_ms} ms): not CONFORMANT after recovery"
    "$bin" -C "$dir" verify 2>&1 | grep -v '\[x\]' | head -5
  fi
  [ $((round % 20)) = 0 ] && echo "  … $round rounds: $conformant CONFORMANT, $corrupt corrupt, $failed failed"
done

echo "crash-loop: $conformant/$rounds CONFORMANT, $corrupt corrupt, $failed failed recovery" \
  "(killed before the marker: $before_marker, with the marker on disk: $with_marker, after the publication: $finished)"
[ "$conformant" = "$rounds" ] && [ "$corrupt" = 0 ]

#!/usr/bin/env bash
# Times Claude Code's hooks (release build) next to the commands they stand for, interleaved in
# the same run, on a generated published Full plan of N tasks (scripts/gen-plan.sh, default 500):
#
#   session-start   `planseal hook session-start` vs `planseal status`            target <= 1.2x
#   stop (none)     `planseal hook stop` vs `planseal status`, no plan claims
#                   completion (the plan's state.json says in_progress)            target <= 1.2x
#   stop (claimed)  `planseal hook stop` vs `planseal verify`, the plan says
#                   completed (and verifies, so the stop is not blocked)          target <= 1.2x
#
# Each hook gets the JSON Claude Code sends on stdin (session_id, transcript_path, cwd,
# hook_event_name, stop_hook_active); each command runs in the project folder. RUNS (default 40)
# runs of each, timed by python3 (wall clock, median). See docs/claude-code.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${PLANSEAL_BIN:-$PWD/target/release/planseal}
if [ ! -x "$bin" ]; then
  cargo build --release --quiet
fi
runs=${RUNS:-40}
n=${SIZE:-500}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# pair_ms STDIN_FILE DIR -- HOOK_ARGV -- REFERENCE_ARGV: interleaved runs, prints the two medians.
pair_ms() {
  python3 - "$runs" "$@" <<'PY'
import os, subprocess, sys, time
runs, stdin_file, cwd = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rest = sys.argv[5:]
split = rest.index("--")
hook, ref = rest[:split], rest[split + 1:]
def once(argv, feed):
    f = open(stdin_file, "rb") if feed else subprocess.DEVNULL
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    p.wait()
    if feed:
        f.close()
    return (time.perf_counter() - t0) * 1000
for _ in range(3):
    once(hook, True); once(ref, False)
h, r = [], []
for _ in range(runs):
    h.append(once(hook, True)); r.append(once(ref, False))
med = lambda xs: sorted(xs)[len(xs) // 2]
print("%.2f %.2f" % (med(h), med(r)))
PY
}

input() { # input DIR EVENT > file
  python3 -c 'import json,sys; print(json.dumps({"session_id": "8a3f6a2c-1b7e-4f0e-9d65-3c2b1a0f9e87", "transcript_path": "/tmp/t.jsonl", "cwd": sys.argv[1], "hook_event_name": sys.argv[2], "stop_hook_active": False}))' "$1" "$2"
}

claimed="$work/claimed"
open="$work/open"
scripts/gen-plan.sh "$n" "$claimed" >/dev/null
scripts/gen-plan.sh "$n" "$open" >/dev/null
# The open workspace: the same plan, its state.json saying in_progress (no completion claimed).
state=$(ls -d "$open"/.dwp/plans/*/state.json)
python3 - "$state" <<'PY'
import sys
p = sys.argv[1]
t = open(p).read().replace('"status": "completed",\n  "completed_count"', '"status": "in_progress",\n  "completed_count"', 1)
open(p, "w").write(t)
PY
input "$claimed" SessionStart >"$work/start.json"
input "$open" Stop >"$work/stop_open.json"
input "$claimed" Stop >"$work/stop_claimed.json"

# Sanity: the hooks pass here (exit 0), and the claimed plan is verified by the Stop hook.
"$bin" hook stop <"$work/stop_open.json" || { echo "hook stop blocked on the open plan" >&2; exit 1; }
"$bin" hook stop <"$work/stop_claimed.json" || { echo "hook stop blocked on the claimed plan" >&2; exit 1; }
"$bin" hook stop --json <"$work/stop_claimed.json" | grep -q '"verified": \[' || { echo "hook stop did not verify" >&2; exit 1; }

echo "Claude Code hooks on a generated $n-task plan ($runs interleaved runs each; medians in ms)"
printf '%-16s %9s %-18s %9s %8s %8s\n' hook hook_ms reference ref_ms ratio target
fail=0
row() { # row NAME REFNAME STDIN DIR HOOK... -- REF...
  local name=$1 refname=$2 stdin=$3 dir=$4
  shift 4
  read -r h r < <(pair_ms "$stdin" "$dir" -- "$@")
  ratio=$(awk -v a="$h" -v b="$r" 'BEGIN {printf "%.2f", a / b}')
  met=$(awk -v x="$ratio" 'BEGIN {print (x <= 1.2 ? "met" : "NOT met")}')
  [ "$met" = met ] || fail=1
  printf '%-16s %9s %-18s %9s %7sx %8s\n' "$name" "$h" "$refname" "$r" "$ratio" "<=1.2x $met"
}
row session-start "status" "$work/start.json" "$claimed" "$bin" hook session-start -- "$bin" status
row "stop (none)" "status" "$work/stop_open.json" "$open" "$bin" hook stop -- "$bin" status
row "stop (claimed)" "verify" "$work/stop_claimed.json" "$claimed" "$bin" hook stop -- "$bin" verify
[ "$fail" = 0 ] && echo "all Claude Code hook targets met" || echo "a Claude Code hook target is NOT met"

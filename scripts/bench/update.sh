#!/usr/bin/env bash
# Benchmark of `planseal update` on a generated 500-task plan.
#
# Measures, in the same run: the median wall time of one guarded update (task 500 gets a new gate
# record: parse 500 tasks, validate, lock, CAS, atomic write with fsync of file and folder,
# journal append with fsync), the same with fsync switched off (PLANSEAL_BENCH_NO_FSYNC=1, a
# switch only this benchmark uses), and a reference: Python's json.load + json.dump of the same
# file (the least the DWP helper does). Prints medians, the fsync share and the ratios; with
# strace installed also the fsync/fdatasync call count and time of one run.
# Usage: scripts/bench/update.sh [RUNS]   (PLANSEAL_BIN overrides the binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-25}"
bin="${PLANSEAL_BIN:-}"
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin="$PWD/target/release/planseal"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
plan="$work/.dwp/plans/PLAN_bench_update"
mkdir -p "$plan/analysis_results"

python3 - "$plan" <<'PY'
import json, sys
plan = sys.argv[1]
n = 500
tasks = []
for i in range(1, n + 1):
    t = {"id": i, "locator": {"kind": "inline", "value": f"#task-{i}"}, "title": f"Task {i} — generated",
         "status": "completed" if i < n else "in_progress", "gates": [],
         "started_at": "2026-10-05T09:00:00+00:00"}
    if i < n:
        t["gates"].append({"command": f"python3 -m unittest tests.t{i}", "passes": True,
                           "last_run": "2026-10-05T09:00:01.250000+00:00", "exit_code": 0,
                           "evidence": f"scope=unit; fp=abc1234+clean; ran={i}/{i}"})
        t["completed_at"] = "2026-10-05T09:00:02.500000+00:00"
        t["commit"] = f"{i:07x}"
        t["outcome"] = {"worked": "generated", "notes": "generated"}
    tasks.append(t)
state = {"schema": "https://deepworkplan.com/schema/plan-state/v2.json", "plan": "PLAN_bench_update",
         "updated_at": "2026-10-05T09:00:00+00:00", "status": "in_progress", "completed_count": n - 1,
         "task_count": n, "format": "lite", "materialization": "ready", "approval": "approved",
         "tasks": tasks}
open(f"{plan}/state.json", "w").write(json.dumps(state, indent=2, ensure_ascii=False) + "\n")
open(f"{plan}/README.md", "w").write("# Bench\n\nApproval: approved\n")
PY
size=$(wc -c < "$plan/state.json")

now_ns() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }


one_update() {

  "$bin" update "$plan/state.json" --task 500 --status in_progress \
    --gate "python3 -m unittest tests.bench_$(date +%s%N)|0|scope=bench; ran=1/1" > /dev/null
}

measure() { # $1 = value of PLANSEAL_BENCH_NO_FSYNC
  local times=()
  for _ in $(seq "$runs"); do
    local t0; t0=$(now_ns)
    PLANSEAL_BENCH_NO_FSYNC="$1" one_update
    local t1; t1=$(now_ns)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | median
}

full_us=$(measure 0)
nosync_us=$(measure 1)
ref_times=()
for _ in $(seq "$runs"); do
  t0=$(now_ns)
  python3 -c 'import json,sys; p=sys.argv[1]; s=json.load(open(p)); open(p+".ref","w").write(json.dumps(s, indent=2, ensure_ascii=False)+"\n")' "$plan/state.json"
  t1=$(now_ns)
  ref_times+=($(( (t1 - t0) / 1000 )))
done
ref_us=$(printf '%s\n' "${ref_times[@]}" | median)

gates=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tasks"][499]["gates"]))' "$plan/state.json")
journal=$(wc -l < "$plan/analysis_results/STATE_JOURNAL.ndjson")
echo "plan: 500 tasks, state.json $size bytes; $gates gate records appended, $journal journal lines"
echo "update (fsync on)       median ${full_us} us over $runs runs"
echo "update (fsync off)      median ${nosync_us} us"
echo "python json load+dump   median ${ref_us} us (reference: the least the helper does)"
awk -v f="$full_us" -v n="$nosync_us" -v r="$ref_us" 'BEGIN {
  share = (f - n) / f * 100; if (share < 0) share = 0;
  printf "fsync share of an update: %.0f%% (%.1f ms)\n", share, (f - n) / 1000;
  printf "ratio update/python reference: %.2f (fsync on), %.2f (fsync off)\n", f / r, n / r }'
if command -v strace > /dev/null; then

  strace -f -c -e trace=fsync,fdatasync -o "$work/strace.txt" "$bin" update "$plan/state.json" --task 500 \
    --status in_progress --gate "python3 -m unittest tests.strace|0|scope=bench; ran=1/1" > /dev/null || true
  echo "strace -c of one update (fsync family):"
  grep -E 'fsync|fdatasync|total' "$work/strace.txt" | sed 's/^/  /' || true
fi

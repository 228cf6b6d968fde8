#!/usr/bin/env bash
# Benchmark of `planseal merge-driver` on a generated 5,000-task DWP state.json (docs/merge.md).
#
# Three versions of one plan's state.json: the ancestor (tasks 1..4000 completed, 4001 in
# progress), ours (task 4001 completed with its commit, 4002 started, later) and theirs (task
# 4001 with another gate run and 50 completed tasks with a re-run of their gate). The driver
# merges them the way git runs it (ours copied into %A before each run, untimed) — parse the
# three, merge every task, check the merged state with every state-only rule, write %A.
#
# Reference, "reading the three versions": one process that reads and parses the same three
# files with the same JSON parser into the same values (`planseal-harness json-check O A B`),
# start-up included as it is for the driver. Target: merge ≤ 2 × reading. `cat` of the three
# files is shown for information.
#
# The runner (target/release/planseal-bench) interleaves the items round by round and gives the
# ratio as the median of the per-round ratios. Exit 1 when the target is missed.
# Usage: scripts/bench/merge.sh [RUNS]   (PLANSEAL_BIN overrides the binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-15}"
cargo build --release --quiet -p planseal -p planseal-harness
bin="${PLANSEAL_BIN:-$PWD/target/release/planseal}"
bench="$PWD/target/release/planseal-bench"
harness="$PWD/target/release/planseal-harness"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import copy, json, sys
work = sys.argv[1]
n, done = 5000, 4000
def at(minute, second=0):
    return f"2026-10-05T{9 + minute // 60:02d}:{minute % 60:02d}:{second:02d}+00:00"
def gate(i, minute, scope="unit"):
    return {"command": f"python3 -m unittest tests.t{i}", "passes": True, "last_run": at(minute, 1),
            "exit_code": 0, "evidence": f"scope={scope}; fp=abc1234+clean; ran={i % 50 + 1}/{i % 50 + 1}"}
tasks = []
for i in range(1, n + 1):
    t = {"id": i, "locator": {"kind": "inline", "value": f"#task-{i}"}, "title": f"Task {i} — generated",
         "status": "pending", "gates": []}
    if i <= done:
        t.update(status="completed", gates=[gate(i, 0), gate(i + 1, 0, "suite")],
                 started_at=at(0), completed_at=at(0, 2), commit=f"{i:07x}",
                 outcome={"worked": "generated", "notes": "generated"})
    elif i == done + 1:
        t.update(status="in_progress", gates=[gate(i, 0)], started_at=at(0))
    tasks.append(t)
base = {"schema": "https://deepworkplan.com/schema/plan-state/v2.json", "plan": "PLAN_bench_merge",
        "updated_at": at(1), "status": "in_progress", "completed_count": done, "task_count": n,
        "format": "lite", "materialization": "ready", "approval": "approved",
        "tasks": tasks,
        "checkpoint": {"task": done + 1, "step": "start", "at": at(1), "note": f"Task {done} closed. Next: Task {done + 1}."}}
ours = copy.deepcopy(base)
t = ours["tasks"][done]
t.update(status="completed", completed_at=at(10), commit="feedbee")
ours["tasks"][done + 1].update(status="in_progress", started_at=at(11))
ours.update(updated_at=at(11), completed_count=done + 1,
            checkpoint={"task": done + 2, "step": "start", "at": at(11), "note": f"Task {done + 1} closed. Next: Task {done + 2}."})
theirs = copy.deepcopy(base)
theirs["tasks"][done]["gates"].append(gate(done + 1, 5, "rerun"))
for i in range(50):
    theirs["tasks"][i]["gates"].append(gate(i + 1, 6, "rerun"))
theirs.update(updated_at=at(6))
for name, v in [("O.json", base), ("ours.json", ours), ("B.json", theirs)]:
    open(f"{work}/{name}", "w").write(json.dumps(v, indent=2, ensure_ascii=False) + "\n")
PY
cp "$work/ours.json" "$work/A.json"
path=.dwp/plans/PLAN_bench_merge/state.json
# Sanity: the merge is clean and really merged both sides.
(cd "$work" && "$bin" merge-driver O.json A.json B.json 7 "$path" base HEAD topic) \
  || { echo "the benchmark's merge is not clean" >&2; exit 2; }
python3 - "$work/A.json" <<'PY' || { echo "the merged state lacks a side's change" >&2; exit 2; }
import json, sys
s = json.load(open(sys.argv[1]))
assert s["tasks"][4000]["status"] == "completed" and len(s["tasks"][4000]["gates"]) == 2
assert len(s["tasks"][0]["gates"]) == 3 and s["completed_count"] == 4001
PY

cat >"$work/merge.spec" <<EOF
runs $runs
warmup 2
item merge
  dir $work
  prep cp $work/ours.json $work/A.json
  run $bin merge-driver O.json A.json B.json 7 $path base HEAD topic
item read
  dir $work
  run $harness json-check O.json ours.json B.json
item cat
  dir $work
  run cat O.json ours.json B.json
ratio merge = merge : read
ratio merge_cat = merge : cat
EOF
"$bench" rounds "$work/merge.spec" >"$work/merge.out"
field() { awk -F'\t' -v k="$1" -v n="$2" -v c="$3" '$1 == k && $2 == n {print $c}' "$work/merge.out"; }
size=$(wc -c <"$work/ours.json")
echo "state.json: 5,000 tasks, $size bytes per version; $runs interleaved rounds"
printf 'merge-driver            median %s ms (min %s, max %s)\n' "$(field item merge 4)" "$(field item merge 3)" "$(field item merge 5)"
printf 'read the three versions median %s ms (planseal-harness json-check: read + parse)\n' "$(field item read 4)"
printf 'cat the three versions  median %s ms (information)\n' "$(field item cat 4)"
printf 'ratio merge / read      min %s / median %s / max %s (target ≤ 2)\n' "$(field ratio merge 3)" "$(field ratio merge 4)" "$(field ratio merge 5)"
printf 'ratio merge / cat       median %s (information)\n' "$(field ratio merge_cat 4)"
awk -v m="$(field ratio merge 4)" 'BEGIN { exit (m + 0 <= 2 ? 0 : 1) }' \
  && echo "target met" || { echo "target missed"; exit 1; }

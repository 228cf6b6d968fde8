#!/usr/bin/env bash
# compare.sh — the same operations on the release binary of an older commit and of the work
# tree, interleaved (old, new, old, new, …) in one run so that both see the same machine load.
#
# usage: scripts/bench/compare.sh OLD_REV [ROUNDS]      (default: 31 rounds)
#
# The old commit is exported with `git archive` and built into target/bench-old (its own target
# folder, so the two builds never share artefacts). Inputs are generated once and copied fresh
# before every timed run of an operation that writes. For each operation it prints the median
# and the min–max of both builds and says whether the new median is within 10% of the old one
# or inside the old build's min–max (the restructuring's target: no operation got slower).
set -euo pipefail
old_rev=${1:?usage: compare.sh OLD_REV [ROUNDS]}
rounds=${2:-31}
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/planseal-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "building $old_rev into target/bench-old and the work tree into target/release …"
mkdir -p "$work/old-src"
git -C "$here" archive "$old_rev" | tar -x -C "$work/old-src"
cargo build --release --quiet --manifest-path "$work/old-src/Cargo.toml" \
  --target-dir "$here/target/bench-old" -p planseal
(cd "$here" && cargo build --release --quiet -p planseal -p planseal-harness)
old="$here/target/bench-old/release/planseal"
new="$here/target/release/planseal"
harness="$here/target/release/planseal-harness"

# --- inputs
"$here/scripts/gen-plan.sh" 500 "$work/v500" >/dev/null
"$here/scripts/gen-plan.sh" 5000 "$work/v5000" >/dev/null
verify500="$work/v500/.dwp/plans/PLAN_bench_500"
verify5000="$work/v5000/.dwp/plans/PLAN_bench_5000"
"$harness" ready-plan "$work/close500" 500 >/dev/null
mkdir -p "$work/update500/.dwp/plans/PLAN_bench_update/analysis_results"
python3 - "$work/update500/.dwp/plans/PLAN_bench_update" <<'PY'
import json, sys
plan, n = sys.argv[1], 500
tasks = []
for i in range(1, n + 1):
    t = {"id": i, "locator": {"kind": "inline", "value": f"#task-{i}"}, "title": f"Task {i}",
         "status": "completed" if i < n else "in_progress", "gates": [],
         "started_at": "2026-10-05T09:00:00+00:00"}
    if i < n:
        t["gates"].append({"command": f"python3 -m unittest tests.t{i}", "passes": True,
                           "last_run": "2026-10-05T09:00:01.250000+00:00", "exit_code": 0,
                           "evidence": f"scope=unit; ran={i}/{i}"})
        t["completed_at"] = "2026-10-05T09:00:02.500000+00:00"
        t["outcome"] = {"worked": "generated"}
    tasks.append(t)
state = {"schema": "https://deepworkplan.com/schema/plan-state/v2.json", "plan": "PLAN_bench_update",
         "updated_at": "2026-10-05T09:00:00+00:00", "status": "in_progress", "completed_count": n - 1,
         "task_count": n, "format": "lite", "materialization": "ready", "approval": "approved",
         "tasks": tasks}
open(f"{plan}/state.json", "w").write(json.dumps(state, indent=2, ensure_ascii=False) + "\n")
open(f"{plan}/README.md", "w").write("# Bench\n\nApproval: approved\n")
PY
mkdir -p "$work/gsd/.planning"
cp "$here/fixtures/gsd/check/clean.md" "$work/gsd/.planning/STATE.md"

# --- one timed run: prepare (untimed), then the command; prints microseconds
run_us() { # run_us BIN OP
  local bin=$1 op=$2 t0 t1
  local src=
  case $op in update-500) src=update500 ;; finalize-500) src=close500 ;; esac
  if [ -n "$src" ]; then
    rm -rf "$work/run"
    cp -a "$work/$src" "$work/run"
  fi
  t0=$(date +%s%N)
  case $op in
    verify-500) "$bin" verify "$verify500" ;;
    verify-5000) "$bin" verify "$verify5000" ;;
    update-500)
      "$bin" update "$work/run/.dwp/plans/PLAN_bench_update/state.json" --task 500 \
        --status in_progress --gate "python3 -m unittest tests.bench|0|scope=bench; ran=1/1" ;;
    finalize-500)
      "$bin" -C "$work/run" finalize .dwp/plans/PLAN_demo_greeting --candidate candidate.json ;;
    statusline) (cd "$work/gsd" && "$bin" gsd statusline) ;;
    version) "$bin" --version ;;
  esac >/dev/null 2>&1 || { echo "$op failed with $bin" >&2; exit 1; }
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000))
}

ops=(verify-500 verify-5000 update-500 finalize-500 statusline version)
printf '%-13s %12s %12s %20s %20s %8s  %s\n' operation old_med_ms new_med_ms old_min-max_ms new_min-max_ms new/old verdict
worse=0
for op in "${ops[@]}"; do
  run_us "$old" "$op" >/dev/null # warm the page cache for both
  run_us "$new" "$op" >/dev/null
  : >"$work/old.txt"
  : >"$work/new.txt"
  for ((r = 0; r < rounds; r++)); do
    run_us "$old" "$op" >>"$work/old.txt"
    run_us "$new" "$op" >>"$work/new.txt"
  done
  line=$(python3 - "$work/old.txt" "$work/new.txt" <<'PY'
import statistics, sys
old = [int(x) / 1000 for x in open(sys.argv[1])]
new = [int(x) / 1000 for x in open(sys.argv[2])]
mo, mn = statistics.median(old), statistics.median(new)
ok = mn <= mo * 1.10 or min(old) <= mn <= max(old)
print(f"{mo:12.2f} {mn:12.2f} {min(old):9.2f}-{max(old):<10.2f} {min(new):9.2f}-{max(new):<10.2f} {mn / mo:8.2f}  {'ok' if ok else 'SLOWER'}")
PY
)
  printf '%-13s %s\n' "$op" "$line"
  case $line in *SLOWER*) worse=$((worse + 1)) ;; esac
done
echo "$rounds interleaved rounds per operation; old = $old_rev ($(git -C "$here" rev-parse --short "$old_rev")), new = the work tree"
[ "$worse" -eq 0 ]

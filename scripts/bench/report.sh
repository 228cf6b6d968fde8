#!/usr/bin/env bash
# Times `planseal report PLAN_DIR` (release build) on generated, published Full plans of 500 and
# 5000 tasks (scripts/gen-plan.sh), next to `planseal verify PLAN_DIR` of the same plan in the same
# run, and prints the medians, the ratio and the size of the page written.
# Targets (docs/report.md): report within 2x verify of the same plan; the 5,000-task page under
# 4 MB. HUB=1 adds a workspace of 200 plans of 25 tasks (informational).
#
# RUNS (default 20) rounds, each timing verify then report (interleaved, so both see the same load
# of a shared machine), timed by python3 (wall clock and wait4's CPU time). Run through
# scripts/bench.sh, or directly with PLANSEAL_BIN pointing at a release binary.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${PLANSEAL_BIN:-$PWD/target/release/planseal}
if [ ! -x "$bin" ]; then
  cargo build --release --quiet
fi
runs=${RUNS:-20}
sizes=(${SIZES:-500 5000})
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Interleaved rounds: verify, report, verify, report, … Prints the median wall time and the
# median CPU time (user + system, from wait4) of each, in milliseconds.
interleaved_ms() { # interleaved_ms TARGET PAGE
  python3 - "$runs" "$bin" "$1" "$2" <<'PY'
import os, subprocess, sys, time
runs, bin, target, page = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
verify = [bin, "verify", target]
report = [bin, "report", target, "--out", page]
def once(argv):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return (time.perf_counter() - t0) * 1000, (ru.ru_utime + ru.ru_stime) * 1000
for _ in range(3):
    once(verify); once(report)
v, r = [], []
for _ in range(runs):
    v.append(once(verify)); r.append(once(report))
med = lambda xs: sorted(xs)[len(xs) // 2]
print("%.2f %.2f %.2f %.2f" % (med([w for w, _ in v]), med([w for w, _ in r]), med([c for _, c in v]), med([c for _, c in r])))
PY
}

echo "planseal report next to planseal verify of the same plans ($runs interleaved rounds; medians in ms)"
printf '%-14s %10s %10s %8s %13s %13s %11s\n' plans verify_ms report_ms ratio verify_cpu_ms report_cpu_ms page_bytes
status=0
row() { # row LABEL TARGET [RATIO_TARGET]
  local label=$1 target=$2 check=${3:-}
  "$bin" verify "$target" >/dev/null || { echo "verify of $label is not CONFORMANT" >&2; exit 2; }
  "$bin" report "$target" --out "$work/page.html" >/dev/null || { echo "report of $label failed" >&2; exit 2; }
  read -r v r vc rc < <(interleaved_ms "$target" "$work/page.html")
  local bytes ratio
  bytes=$(wc -c <"$work/page.html")
  ratio=$(awk -v a="$r" -v b="$v" 'BEGIN {printf "%.2f", a / b}')
  printf '%-14s %10s %10s %7sx %13s %13s %11s\n' "$label" "$v" "$r" "$ratio" "$vc" "$rc" "$bytes"
  if [ -n "$check" ]; then
    if awk -v x="$ratio" 'BEGIN {exit !(x <= 2.0)}'; then
      echo "  $label: report ${ratio}x verify (target <= 2x): met"
    else
      echo "  $label: report ${ratio}x verify (target <= 2x): NOT met"
      status=1
    fi
  fi
  if [ "$label" = "5000 tasks" ]; then
    if [ "$bytes" -lt 4194304 ]; then
      echo "  5000 tasks: page of $bytes bytes (target < 4 MB): met"
    else
      echo "  5000 tasks: page of $bytes bytes (target < 4 MB): NOT met"
      status=1
    fi
  fi
}
for n in "${sizes[@]}"; do
  dir=$(scripts/gen-plan.sh "$n" "$work/repo_$n")
  row "$n tasks" "$dir" check
done
if [ "${HUB:-0}" = 1 ]; then
  for i in $(seq -w 1 200); do
    scripts/gen-plan.sh --name "PLAN_hub_$i" 25 "$work/hub" >/dev/null
  done
  row "200 plans" "$work/hub"
fi
exit $status

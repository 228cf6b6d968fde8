#!/usr/bin/env bash
# Times `planseal status PLAN_DIR` (release build) on a generated, published Full plan of 500
# tasks (scripts/gen-plan.sh), next to one `cat` of the files status reads — state.json, the
# receipt and the files the receipt covers (the fingerprinted README, PROGRESS.md, PROMPTS.md,
# manifest.json, analysis_results/*.md and every task file) — in the same run, and prints the
# medians and the ratio. Target: status within 1.5x the cat floor (docs/status.md).
#
# RUNS (default 40) runs of each, interleaved, timed by python3 (wall clock and wait4's CPU time).
# Run through scripts/bench.sh, or directly with PLANSEAL_BIN pointing at a release binary.
# SIZES="500 5000" measures other sizes.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${PLANSEAL_BIN:-$PWD/target/release/planseal}
if [ ! -x "$bin" ]; then
  cargo build --release --quiet
fi
runs=${RUNS:-40}
sizes=(${SIZES:-500})
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Interleaved runs: status, cat, status, cat, … so both see the same load of a shared machine
# (timing one after the other lets a neighbour's burst land on one side only). Prints the median
# wall time and the median CPU time (user + system, from wait4) of each, in milliseconds.
interleaved_ms() { # interleaved_ms LISTFILE STATUS_ARGS...
  python3 - "$runs" "$@" <<'PY'
import os, subprocess, sys, time
runs, listfile, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
files = open(listfile).read().split("\n")[:-1]
def once(argv):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return (time.perf_counter() - t0) * 1000, (ru.ru_utime + ru.ru_stime) * 1000
for _ in range(3):
    once(cmd); once(["cat", *files])
s, c = [], []
for _ in range(runs):
    s.append(once(cmd)); c.append(once(["cat", *files]))
med = lambda xs: sorted(xs)[len(xs) // 2]
print("%.2f %.2f %.2f %.2f" % (med([w for w, _ in s]), med([w for w, _ in c]), med([u for _, u in s]), med([u for _, u in c])))
PY
}

echo "planseal status on generated published Full plans ($runs interleaved runs each; medians in ms)"
printf '%8s %8s %11s %9s %8s %14s %11s\n' tasks files status_ms cat_ms ratio status_cpu_ms cat_cpu_ms
worst=0
for n in "${sizes[@]}"; do
  dir=$(scripts/gen-plan.sh "$n" "$work/repo_$n")
  # the files status reads: state.json, the receipt, and the fingerprinted files it hashes
  files=("$dir/state.json" "$dir/analysis_results/FINALIZATION.json")
  for f in README.md PROGRESS.md PROMPTS.md manifest.json analysis_results/SECURITY_REVIEW.md analysis_results/SKILLS_CANDIDATES.md; do
    [ -e "$dir/$f" ] && files+=("$dir/$f")
  done
  for f in "$dir"/*.task_*.md; do files+=("$f"); done
  out=$("$bin" status "$dir") || { echo "status of the generated $n-task plan failed" >&2; exit 1; }
  grep -q 'receipt: matches' <<<"$out" || { echo "status did not check the receipt:" >&2; echo "$out" >&2; exit 1; }
  printf '%s\n' "${files[@]}" >"$work/files_$n"
  read -r s c scpu ccpu < <(interleaved_ms "$work/files_$n" "$bin" status "$dir")
  ratio=$(awk -v a="$s" -v b="$c" 'BEGIN {printf "%.2f", a / b}')
  printf '%8s %8s %11s %9s %8sx %13s %11s\n' "$n" "${#files[@]}" "$s" "$c" "$ratio" "$scpu" "$ccpu"
  [ "$n" = 500 ] && worst=$ratio
done
if [ "$worst" != 0 ]; then
  awk -v r="$worst" 'BEGIN {printf "500 tasks: status %.2fx the cat floor (target <= 1.5x): %s\n", r, (r <= 1.5 ? "met" : "NOT met")}'
fi

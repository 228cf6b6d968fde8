#!/usr/bin/env bash
# Times `planseal verify PLAN_DIR` (release build) on generated Full plans of 50, 500 and 5000
# tasks, next to `cat` of the same files — the I/O floor — in the same run, and prints the
# medians, the ratio to the floor and the scaling ratio 5000/500.
# Targets: 500 tasks < 20 ms wall; 5000 tasks within 12x the 500-task time.
#
# Uses hyperfine when installed (`apt-get install -y hyperfine`), otherwise a bash loop of RUNS
# runs (default 25) timed with the monotonic clock. Run through scripts/bench.sh, or directly
# with PLANSEAL_BIN pointing at a release binary.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${PLANSEAL_BIN:-$PWD/target/release/planseal}
if [ ! -x "$bin" ]; then
  cargo build --release --quiet
fi
runs=${RUNS:-25}
sizes=(${SIZES:-50 500 5000})
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# median in milliseconds of "$@" over $runs runs (after 3 warm-up runs)
median_ms() {
  if command -v hyperfine >/dev/null 2>&1; then
    rm -f "$work/h.json"
    hyperfine --warmup 3 --runs "$runs" --style none --export-json "$work/h.json" \
      --shell=none -- "$(printf '%q ' "$@")" >/dev/null 2>"$work/h.err" || { cat "$work/h.err" >&2; exit 1; }
    # median wall, then mean user+system CPU (steadier than wall when other jobs share the cores)
    python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["results"][0]; print("%.2f %.2f" % (r["median"]*1000, (r["user"]+r["system"])*1000))' "$work/h.json"
  else
    local i t0 t1 times=()
    for ((i = 0; i < 3; i++)); do "$@" >/dev/null 2>&1 || true; done
    for ((i = 0; i < runs; i++)); do
      t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
      times+=($(( (t1 - t0) / 1000 )))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.2f -\n", m / 1000}'
  fi
}

tool=$(command -v hyperfine >/dev/null 2>&1 && echo "hyperfine, $runs runs" || echo "bash loop, $runs runs")
echo "planseal verify on generated Full plans ($tool; medians in ms)"
printf '%8s %10s %12s %10s %10s %14s %11s\n' tasks files verify_ms cat_ms ratio verify_cpu_ms cat_cpu_ms
declare -A med
for n in "${sizes[@]}"; do
  dir=$(scripts/gen-plan.sh "$n" "$work/repo_$n")
  # the floor: list the plan folder and read every file in it (more than verify reads: it never
  # opens the gate logs, only looks them up) — one `find … -exec cat {} +` process tree
  nfiles=$(find "$dir" -type f | wc -l)
  code=0; "$bin" verify "$dir" >/dev/null || code=$?
  [ "$code" -eq 0 ] || { echo "verify of the generated $n-task plan exited $code" >&2; exit 1; }
  read -r v vcpu < <(median_ms "$bin" verify "$dir")
  read -r c ccpu < <(median_ms find "$dir" -type f -exec cat {} +)
  med[$n]=$v
  printf '%8s %10s %12s %10s %10s %14s %11s\n' "$n" "$nfiles" "$v" "$c" "$(awk -v a="$v" -v b="$c" 'BEGIN {printf "%.1fx", a / b}')" "$vcpu" "$ccpu"
done
if [ -n "${med[500]:-}" ] && [ -n "${med[5000]:-}" ]; then
  awk -v a="${med[5000]}" -v b="${med[500]}" 'BEGIN {printf "scaling 5000/500: %.1fx (target <= 12x)\n", a / b}'
  awk -v b="${med[500]}" 'BEGIN {printf "500 tasks: %.2f ms (target < 20 ms): %s\n", b, (b < 20 ? "met" : "NOT met")}'
fi

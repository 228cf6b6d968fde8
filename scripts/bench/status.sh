#!/usr/bin/env bash
# Times `planseal status PLAN_DIR` (release build) on a generated, published Full plan of 500
# tasks (scripts/gen-plan.sh), next to one `cat` of the files status reads — state.json, the
# receipt and the files the receipt covers (the fingerprinted README, PROGRESS.md, PROMPTS.md,
# manifest.json, analysis_results/*.md and every task file) — in the same run, and prints the
# medians and the ratio. Target: status within 1.5x the cat floor (docs/status.md).
#
# Uses hyperfine when installed, otherwise a bash loop of RUNS runs (default 25) timed with the
# monotonic clock. Run through scripts/bench.sh, or directly with PLANSEAL_BIN pointing at a
# release binary. SIZES="500 5000" measures other sizes.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${PLANSEAL_BIN:-$PWD/target/release/planseal}
if [ ! -x "$bin" ]; then
  cargo build --release --quiet
fi
runs=${RUNS:-25}
sizes=(${SIZES:-500})
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# median wall and mean CPU in milliseconds of "$@" over $runs runs (after 3 warm-up runs)
median_ms() {
  if command -v hyperfine >/dev/null 2>&1; then
    rm -f "$work/h.json"
    hyperfine --warmup 3 --runs "$runs" --style none --export-json "$work/h.json" \
      --shell=none -- "$(printf '%q ' "$@")" >/dev/null 2>"$work/h.err" || { cat "$work/h.err" >&2; exit 1; }
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
echo "planseal status on generated published Full plans ($tool; medians in ms)"
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
  read -r s scpu < <(median_ms "$bin" status "$dir")
  read -r c ccpu < <(median_ms cat "${files[@]}")
  ratio=$(awk -v a="$s" -v b="$c" 'BEGIN {printf "%.2f", a / b}')
  printf '%8s %8s %11s %9s %8sx %13s %11s\n' "$n" "${#files[@]}" "$s" "$c" "$ratio" "$scpu" "$ccpu"
  [ "$n" = 500 ] && worst=$ratio
done
if [ "$worst" != 0 ]; then
  awk -v r="$worst" 'BEGIN {printf "500 tasks: status %.2fx the cat floor (target <= 1.5x): %s\n", r, (r <= 1.5 ? "met" : "NOT met")}'
fi

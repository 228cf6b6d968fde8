#!/usr/bin/env bash
# Git history benchmark. Generates a repository of 10,000 commits with
# `git fast-import` (pinned dates; every 20th commit names a task of PLAN_bench; each commit
# changes one of 400 files in 20 folders), then measures in the same run:
#   1. the message scan: `planseal log PLAN_DIR`          vs  git log --format='%H %ct %s'
#   2. a file history:   `planseal log PLAN_DIR --file P` vs  git log --format=%H -- P
# without a commit-graph (as fast-import leaves it) and again with one. Uses hyperfine when
# installed, otherwise >= 20 timed runs each; prints medians and ratios (planseal / git).
# Usage: PLANSEAL_BIN=target/release/planseal scripts/bench/git.sh   (scripts/bench.sh sets it)
set -euo pipefail
bin=${PLANSEAL_BIN:-$(cd "$(dirname "$0")/../.." && pwd)/target/release/planseal}
commits=${BENCH_COMMITS:-10000}
runs=${BENCH_RUNS:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC

repo=$work/repo
git init -q --template= -b main "$repo"
python3 - "$commits" > "$work/stream" <<'PY'
import sys
n = int(sys.argv[1])
out = sys.stdout
t0 = 1791190800  # 2026-10-05T09:00:00Z
def data(b):
    out.write(f"data {len(b.encode())}\n{b}\n")
prev = None
for i in range(n):
    if (i + 1) % 20 == 0:
        msg = f"feat(part{i % 7}): change {i} - Task {(i + 1) // 20} of PLAN_bench"
    else:
        msg = f"chore: change {i}"
    out.write("commit refs/heads/main\n")
    out.write(f"mark :{i + 1}\n")
    out.write(f"committer Bench <bench@example.invalid> {t0 + 60 * i} +0000\n")
    data(msg)
    if prev:
        out.write(f"from :{prev}\n")
    if i == 0:
        out.write("M 100644 inline .gitignore\n")
        data(".dwp/\n")
        for d in range(20):
            for f in range(20):
                out.write(f"M 100644 inline src/d{d}/f{f}.txt\n")
                data(f"d{d} f{f} v0\n")
    else:
        k = i % 400
        out.write(f"M 100644 inline src/d{k // 20}/f{k % 20}.txt\n")
        data(f"d{k // 20} f{k % 20} v{i}\n")
    prev = i + 1
PY
git -C "$repo" fast-import --quiet < "$work/stream"
git -C "$repo" checkout -q main
plan=$repo/.dwp/plans/PLAN_bench
mkdir -p "$plan"
{
  echo "# Bench plan"; echo; echo "Plan Status: $((commits / 20))/$((commits / 20)) completed"; echo
  echo "## Task List"; echo
  for ((t = 1; t <= commits / 20; t++)); do echo "- [x] Task $t: step $t"; done
} > "$plan/README.md"
path=src/d3/f7.txt

# Sanity: both sides give the same answers.
ours=$("$bin" -C "$repo" log .dwp/plans/PLAN_bench --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(1 for t in d["tasks"] if t["commit"]))')
theirs=$(git -C "$repo" log --format='%s' | grep -c ' - Task [0-9]* of PLAN_bench$')
[ "$ours" = "$theirs" ] || { echo "task commits differ: planseal $ours, git $theirs" >&2; exit 1; }
diff <("$bin" -C "$repo" log .dwp/plans/PLAN_bench --file "$path" | cut -d' ' -f1) \
     <(git -C "$repo" log --format=%H -- "$path") >/dev/null \
  || { echo "file history differs from git log" >&2; exit 1; }
echo "repository: $commits commits, $((commits / 20)) task commits, $(git -C "$repo" ls-files | wc -l) files; file history of $path: $(git -C "$repo" log --format=%H -- "$path" | wc -l) versions"

median_ms() { # median of N runs of "$@", in milliseconds
  local times=()
  for ((r = 0; r < runs; r++)); do
    local s e
    s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N)
    times+=($(( (e - s) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.2f", m / 1000}'
}

hf_median_ms() { # hyperfine median wall time and mean user+system CPU of one command, in ms
  hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/hf.json" "$1" >/dev/null 2>&1
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.2f/%.2f" % (r["median"] * 1000, (r["user"] + r["system"]) * 1000))' "$work/hf.json"
}

measure() { # label planseal-cmd git-cmd
  local label=$1 ours=$2 theirs=$3 a b
  if command -v hyperfine >/dev/null; then
    a=$(hf_median_ms "$ours"); b=$(hf_median_ms "$theirs")
    printf '%-34s planseal %7s ms (cpu %7s)   git %7s ms (cpu %7s)   ratio %s (cpu %s)\n' "$label" \
      "${a%/*}" "${a#*/}" "${b%/*}" "${b#*/}" \
      "$(python3 -c "print('%.2f' % (${a%/*} / ${b%/*}))")" "$(python3 -c "print('%.2f' % (${a#*/} / ${b#*/}))")"
  else
    a=$(median_ms bash -c "$ours"); b=$(median_ms bash -c "$theirs")
    printf '%-34s planseal %8s ms   git %8s ms   ratio %s\n' "$label" "$a" "$b" \
      "$(python3 -c "print('%.2f' % ($a / $b))")"
  fi
}

tool=$(command -v hyperfine >/dev/null && echo "hyperfine, $runs runs; cpu = mean user+system" || echo "$runs runs, date +%s%N")
echo "medians ($tool; load average $(cut -d' ' -f1 /proc/loadavg)):"
for graph in no yes; do
  if [ $graph = yes ]; then git -C "$repo" commit-graph write --reachable --no-changed-paths 2>/dev/null; fi
  measure "message scan (commit-graph: $graph)" \
    "$bin -C $repo log .dwp/plans/PLAN_bench" \
    "git -C $repo log --format=%H%x20%ct%x20%s"
  measure "file history (commit-graph: $graph)" \
    "$bin -C $repo log .dwp/plans/PLAN_bench --file $path" \
    "git -C $repo log --format=%H -- $path"
done

#!/usr/bin/env bash
# statusline.sh — `planseal gsd statusline --stdin` (GSD's whole line) on its own, the rows of
# all.sh's start-up group that concern it, without the other groups' inputs:
#   whole line        : the segment alone (`--stdin --segment`) + `cat` of every file the whole
#                       line reads (config.json, STATE.md, the todos file, the update cache)
#                       target ≤ 1.5
#   whole, show_git   : the whole line without show_git (informational: what gix's status costs)
#   minimal JSON      : /bin/true, stdin {"workspace":{"current_dir":…}} only (target ≤ 2)
# Rounds are interleaved by the harness runner (target/release/planseal-bench).
# Usage: scripts/bench/statusline.sh   (RUNS=N rounds, default 300; GSD_HOOK=FILE adds the node hook)
set -euo pipefail
cd "$(dirname "$0")/../.."
here=$PWD
runs=${RUNS:-300}
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC
cargo build --release --quiet -p planseal -p planseal-harness
bin=${PLANSEAL_BIN:-$here/target/release/planseal}
bench=$here/target/release/planseal-bench
work=$(mktemp -d "${TMPDIR:-/tmp}/planseal-statusline.XXXXXX")
trap 'rm -rf "$work"' EXIT

. scripts/bench/lib/statusline-inputs.sh
statusline_inputs
printf '{"workspace":{"current_dir":"%s"}}\n' "$work/gsdw" >"$work/minimal.json"
export HOME=$work/home TMPDIR=$work/tmp

echo "whole line:      $("$bin" gsd statusline --stdin <"$work/whole.json" | cat -v)"
echo "with show_git:   $("$bin" gsd statusline --stdin <"$work/whole-git.json" | cat -v)"
[ -f "$work/tmp/claude-ctx-bench.json" ] || { echo "the whole line wrote no bridge file" >&2; exit 2; }
hook=${GSD_HOOK:-}
{
  echo "runs $runs"
  echo "warmup 20"
  echo "item whole"; echo "  stdin $work/whole.json"; echo "  run $bin gsd statusline --stdin"
  echo "item segment"; echo "  stdin $work/whole.json"; echo "  run $bin gsd statusline --stdin --segment"
  echo "item cat_whole"; echo "  run cat $whole_files"
  echo "item whole_git"; echo "  stdin $work/whole-git.json"; echo "  run $bin gsd statusline --stdin"
  echo "item minimal"; echo "  stdin $work/minimal.json"; echo "  run $bin gsd statusline --stdin"
  echo "item true"; echo "  stdin $work/minimal.json"; echo "  run /bin/true"
  if [ -n "$hook" ]; then echo "item node_hook"; echo "  stdin $work/whole.json"; echo "  run node $hook"; fi
  echo "ratio whole = whole : segment + cat_whole"
  echo "ratio whole_git = whole_git : whole"
  echo "ratio minimal = minimal : true"
  echo "ratio whole_true = whole : true"
  echo "ratio whole_git_true = whole_git : true"
  [ -n "$hook" ] && echo "ratio node_hook = whole : node_hook"
  true
} >"$work/statusline.spec"
"$bench" rounds "$work/statusline.spec" >"$work/statusline.out"
echo
echo "| figure | median ms (planseal / reference) | ratio min / median / max | target |"
echo "|---|---|---|---|"
awk -F'\t' '
  $1 == "ratio" {
    t["whole"] = "≤ 1.5"; t["minimal"] = "≤ 2"
    label["whole"] = "whole line : segment + cat of its files"
    label["whole_git"] = "whole line with show_git : without"
    label["minimal"] = "--stdin, only current_dir : /bin/true"
    label["whole_true"] = "whole line : /bin/true"
    label["whole_git_true"] = "whole line with show_git : /bin/true"
    label["node_hook"] = "whole line : GSD node hook"
    v = "info"
    if ($2 in t) { lim = substr(t[$2], 4) + 0; v = ($4 + 0 <= lim) ? "PASS" : "MISS" }
    printf "| %s | %.3f / %.3f | %.2f / **%.2f** / %.2f | %s %s |\n", label[$2], $6, $7, $3, $4, $5, ($2 in t ? t[$2] : "-"), v
  }' "$work/statusline.out"

#!/usr/bin/env bash
# Runs every benchmark under scripts/bench/ against the release binary. Each one generates its own
# inputs, measures planseal next to a reference in the same run (cat, git, node) and prints medians
# and ratios. Usage: scripts/bench.sh [NAME...]   (NAME = verify, update, git, gsd, linear, ...)
# `scripts/bench.sh all` prints the one table of every performance target (docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
export PLANSEAL_BIN="$PWD/target/release/planseal"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  # compare.sh needs a commit to compare with: run it as scripts/bench/compare.sh OLD_REV.
  # all.sh is the summary table, asked for by name.
  for f in scripts/bench/*.sh; do
    case "$(basename "$f")" in compare.sh | all.sh) ;; *) names+=("$(basename "$f" .sh)") ;; esac
  done
fi
for n in "${names[@]}"; do
  echo "== $n =="
  bash "scripts/bench/$n.sh"
  echo
done

#!/usr/bin/env bash
# Runs every benchmark under scripts/bench/ against the release binary. Each one generates its own
# inputs, measures planseal next to a reference in the same run (cat, git, node) and prints medians
# and ratios. Usage: scripts/bench.sh [NAME...]   (NAME = verify, update, git, gsd, linear, ...)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
export PLANSEAL_BIN="$PWD/target/release/planseal"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  # compare.sh needs a commit to compare with: run it as scripts/bench/compare.sh OLD_REV.
  for f in scripts/bench/*.sh; do
    [ "$(basename "$f")" = compare.sh ] || names+=("$(basename "$f" .sh)")
  done
fi
for n in "${names[@]}"; do
  echo "== $n =="
  bash "scripts/bench/$n.sh"
  echo
done

#!/usr/bin/env bash
# faults.sh — the fault suite (tests/faults): every writer run under `strace -e inject`, failing
# the N-th main-thread call of each write-path syscall with EIO, ENOSPC and SIGKILL (and EIO on
# sampled reads), plus a kill -9 loop of 100 rounds each for update and finalize. After every
# run: old-or-new bytes, a truthful exit code and message, the hinted recovery succeeds, no
# debris, the journal chain intact, verify as after a clean run.
#
# usage: scripts/faults.sh          the CI run: the full matrix for update and finalize, a
#                                   seeded sample of 50 runs for every other writer
#        scripts/faults.sh --all    every point of every writer, every read point included
#        scripts/faults.sh [--all] FILTER   only the tests whose name contains FILTER
#                                   (faults_update, faults_finalize, kill_loop_update, …)
# Prints each test's counts (points × faults, invariants held/failed, every broken one); exits
# 1 when an invariant broke. Needs strace (scripts/test installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
export PLANSEAL_FAULTS_ALL=0
if [ "${1:-}" = --all ]; then
  PLANSEAL_FAULTS_ALL=1
  shift
fi
command -v strace >/dev/null || { echo "faults.sh: strace is missing (apt-get install strace)" >&2; exit 2; }
start=$(date +%s)
status=0
cargo test --features failpoints --test faults "$@" -- --nocapture || status=$?
echo "faults.sh: $(( $(date +%s) - start )) s (PLANSEAL_FAULTS_ALL=$PLANSEAL_FAULTS_ALL)"
exit "$status"

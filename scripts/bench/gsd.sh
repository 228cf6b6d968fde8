#!/usr/bin/env bash
# `planseal gsd statusline` on a realistic STATE.md: median wall time of the whole process, next to
# a bare `node -e 0` in the same run (GSD's hook is a Node.js script, so it cannot start faster
# than that). Targets: under 2 ms, and at least 50x faster than the node baseline.
# Uses hyperfine when installed, else a timing loop. PLANSEAL_BIN overrides the binary.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${PLANSEAL_BIN:-$PWD/target/release/planseal}"
if [ ! -x "$BIN" ]; then
  cargo build --release --quiet
fi
RUNS="${RUNS:-300}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/proj/.planning" "$work/proj/src/deep"
# A STATE.md of the size GSD aims for (~80 lines): the schema's example frontmatter and a full body.
{
  cat <<'STATE'
---
gsd_state_version: '1.0'
milestone: v2.0
milestone_name: Code Quality
status: executing
active_phase: "4.5"
next_action: null
next_phases: null
progress:
  total_phases: 17
  completed_phases: 10
  total_plans: 84
  completed_plans: 47
  percent: 56
current_phase: "4"
current_phase_name: Observability
current_plan: "3"
last_updated: "2026-06-01T12:34:56.789Z"
last_activity: "2026-06-01"
stopped_at: "Phase 4 P3 execution complete"
paused_at: null
---
# Project State

## Project Reference

See: .planning/PROJECT.md
**Core value:** Plans that agents cannot silently corrupt.
**Current focus:** Phase 4 — Observability

## Current Position

Phase: 4 of 17 (Observability)
Plan: 3 of 6 in current phase
Status: Executing Phase 4
Last activity: 2026-06-01 — tracing spans wired into the store
Progress: [█████░░░░░] 56%

## Performance Metrics

| Phase | Plans | Total | Avg/Plan |
|-------|-------|-------|----------|
STATE
  for i in $(seq 1 10); do echo "| $i | 5 | 2h | 24m |"; done
  cat <<'STATE'

## Accumulated Context

### Decisions

- Parse STATE.md by hand, no YAML library
- Keep key order on every write
- Statusline must stay under 2 ms

### Pending Todos

3 pending in .planning/todos/pending/

### Blockers/Concerns

None yet.

## Session Continuity

Last session: 2026-06-01T12:34:56Z
Stopped at: Phase 4 plan 3 execution complete
Resume file: None
STATE
} > "$work/proj/.planning/STATE.md"
cd "$work/proj/src/deep"
export HOME="$work"
expected="v2.0 Code Quality [█████░░░░░] 56% · Phase 4.5 executing"
got="$("$BIN" gsd statusline)"
if [ "$got" != "$expected" ]; then
  echo "unexpected output: $got" >&2
  exit 1
fi
have_node=0
command -v node >/dev/null 2>&1 && have_node=1

if command -v hyperfine >/dev/null 2>&1; then
  # /bin/true shows the floor of starting any process on this machine right now.
  cmds=("$BIN gsd statusline" "/bin/true")
  [ "$have_node" = 1 ] && cmds+=("node -e 0")
  hyperfine -N --warmup 20 --runs "$RUNS" --export-json "$work/h.json" "${cmds[@]}" >/dev/null
  python3 - "$work/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
ps = r[0]["median"] * 1000
print(f"planseal gsd statusline  median {ps:.3f} ms  (target < 2 ms: {'ok' if ps < 2 else 'MISSED'})")
floor = r[1]["median"] * 1000
print(f"/bin/true (process floor) median {floor:.3f} ms")
if len(r) > 2:
    node = r[2]["median"] * 1000
    ratio = node / ps
    print(f"node -e 0                median {node:.3f} ms")
    print(f"ratio node/planseal      {ratio:.1f}x  (target >= 50x: {'ok' if ratio >= 50 else 'MISSED'})")
PY
else
  median_ms() {
    local -a times=()
    for _ in $(seq 1 "$RUNS"); do
      local s e
      s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N)
      times+=($(( e - s )))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]/1e6}'
  }
  ps=$(median_ms "$BIN" gsd statusline)
  echo "planseal gsd statusline  median ${ps} ms (loop timing, includes fork/exec of date)"
  if [ "$have_node" = 1 ]; then
    nd=$(median_ms node -e 0)
    echo "node -e 0                median ${nd} ms"
    awk -v a="$nd" -v b="$ps" 'BEGIN {printf "ratio node/planseal      %.1fx\n", a/b}'
  fi
fi

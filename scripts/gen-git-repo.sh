#!/usr/bin/env bash
# Generates a git repository of COMMITS commits (default 10,000) holding a published Full plan,
# and a copy of that plan outside git:
#   OUT/repo/                              `git fast-import` history with pinned dates; every 20th
#                                          commit names a task ("… - Task K of PLAN_bench"), each
#                                          commit changes one of 400 files in 20 folders
#   OUT/repo/.dwp/plans/PLAN_bench/        COMMITS/20 tasks (scripts/gen-plan.sh), every task
#                                          recording the commit that names it, sealed here with
#                                          `planseal finalize` (the receipt records HEAD)
#   OUT/outside/.dwp/plans/PLAN_bench/     the same plan, byte for byte, in a plain folder
# `planseal verify` of the first minus the second is what the git checks cost.
#
# Usage: PLANSEAL_BIN=target/release/planseal scripts/gen-git-repo.sh OUT [COMMITS]
set -euo pipefail
out=${1:?usage: gen-git-repo.sh OUT [COMMITS]}
commits=${2:-10000}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${PLANSEAL_BIN:-$here/target/release/planseal}
[ $((commits % 20)) -eq 0 ] && [ "$commits" -ge 40 ] || { echo "COMMITS must be a multiple of 20, at least 40" >&2; exit 2; }
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC
repo=$out/repo
rm -rf "$repo" "$out/outside" "$out/gen"
mkdir -p "$out"
git init -q --template= -b main "$repo"

# The history as one fast-import stream: no process per commit.
python3 - "$commits" <<'PY' | git -C "$repo" fast-import --quiet
import sys
n = int(sys.argv[1])
out = sys.stdout
start = 1791190800  # 2026-10-05T09:00:00Z, one commit a minute
def blob(text):
    out.write(f"data {len(text.encode())}\n{text}\n")
for i in range(n):
    out.write(f"commit refs/heads/main\nmark :{i + 1}\n")
    out.write(f"committer Bench <bench@example.invalid> {start + 60 * i} +0000\n")
    if (i + 1) % 20 == 0:
        blob(f"feat(part{i % 7}): change {i} - Task {(i + 1) // 20} of PLAN_bench")
    else:
        blob(f"chore: change {i}")
    if i == 0:
        out.write("M 100644 inline .gitignore\n")
        blob(".dwp/\n")
        for folder in range(20):
            for f in range(20):
                out.write(f"M 100644 inline src/d{folder}/f{f}.txt\n")
                blob(f"d{folder} f{f} v0\n")
    else:
        out.write(f"from :{i}\n")
        k = i % 400
        out.write(f"M 100644 inline src/d{k // 20}/f{k % 20}.txt\n")
        blob(f"d{k // 20} f{k % 20} v{i}\n")
PY
git -C "$repo" checkout -q main

# The plan: generated under its bench name, renamed to the name the task commits use, each
# task given its commit, then sealed in the repository.
tasks=$((commits / 20))
plan=$repo/.dwp/plans/PLAN_bench
"$here/scripts/gen-plan.sh" --name PLAN_bench "$tasks" "$repo" >/dev/null
git -C "$repo" log --format='%H %s' | python3 -c '
import json, re, sys
first = {}
for line in sys.stdin:
    sha, subject = line.rstrip("\n").split(" ", 1)
    m = re.search(r"- Task ([0-9]+) of PLAN_bench$", subject)
    if m:
        first.setdefault(int(m.group(1)), sha)
path = sys.argv[1]
state = json.load(open(path))
for t in state["tasks"]:
    t["commit"] = first[t["id"]]
open(path, "w").write(json.dumps(state, indent=2, ensure_ascii=False) + "\n")
' "$plan/state.json"
"$bin" -C "$repo" finalize .dwp/plans/PLAN_bench >/dev/null
mkdir -p "$out/outside/.dwp/plans"
cp -a "$plan" "$out/outside/.dwp/plans/PLAN_bench"
echo "$repo"

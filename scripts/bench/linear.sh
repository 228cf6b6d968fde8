#!/usr/bin/env bash
# linear.sh — no read-only command is superlinear in the size of what it reads.
#
# Generates each format at 1, 4 and 16 MB (SIZES_MB overrides), each in its own git repository
# with two commits (pinned dates; the second changes the file, so the history commands have
# something to compare):
#   gsd        .planning/STATE.md: frontmatter and a body of fields in all three spellings,
#              headings, table rows, decisions and blockers
#   dwp-state  a Lite plan of many tasks: state.json of the size (the README's records grow too)
#   dwp-md     a Full plan of 3 tasks whose README, first task file, PROGRESS.md and
#              SECURITY_REVIEW.md share the size
#   checkpoint docs/PROJECT-CHECKPOINT.md: story rows, decisions, sessions, next steps, and one
#              story file per 8 KiB of it
#   reversa    .reversa/state.json: long created_files and agents lists, many checkpoints
# then runs every read-only command on each (verify, status, diff, log, rebuild without --write,
# gsd check/status/statusline/sync/recover without --write, reversa status/history, checkpoint
# status/refresh/diff without --write), the sizes interleaved round by round so that all see the
# same machine load. Per command it prints the median wall and CPU time (user + system, from
# wait4) at each size and the ratio 16 MB / 1 MB. Targets, both ratios measured in this run:
#   - time(16 MB) / time(1 MB) <= 20 for every command (linear would be 16; a quadratic path is
#     256 or, with the old `gsd status`, a run that never ends — each run is cut at TIMEOUT);
#   - `gsd status` <= 20 x `gsd check` on the same file, at every size.
# The ratios use CPU time: on a shared machine it is steadier than wall time, and a command
# that waits (instead of computing) is caught by TIMEOUT. Exits 1 when a target is missed or a
# command fails (crashes, times out, or exits with a code other than at 1 MB).
#
# Usage: scripts/bench/linear.sh   (RUNS=3 rounds, TIMEOUT=120 s per run; PLANSEAL_BIN overrides
# the binary; KEEP=1 keeps the generated inputs and prints where)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${PLANSEAL_BIN:-$PWD/target/release/planseal}
if [ ! -x "$bin" ]; then
  cargo build --release --quiet
fi
runs=${RUNS:-3}
timeout=${TIMEOUT:-120}
sizes=${SIZES_MB:-1 4 16}
work=$(mktemp -d "${TMPDIR:-/tmp}/planseal-linear.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "inputs kept in $work"; else trap 'rm -rf "$work"' EXIT; fi
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC

# --- inputs: $work/<format>-<MB>/ , each a git repository
python3 - "$work" $sizes <<'PY'
import json, os, subprocess, sys

work, sizes = sys.argv[1], [int(s) for s in sys.argv[2:]]
MB = 1 << 20

def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)

def git(repo, *args, date="2026-10-05T09:00:00+00:00"):
    env = dict(os.environ, GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="bench@example.invalid",
               GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="bench@example.invalid",
               GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", "-C", repo, *args], check=True, env=env, stdout=subprocess.DEVNULL)

def commit(repo, message, date):
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", message, date=date)

def fill(lines, size, make):
    """Appends make(i) for i = 1, 2, … to lines until their text reaches size bytes."""
    total, i = sum(len(l) for l in lines), 0
    while total < size:
        i += 1
        piece = make(i)
        lines.append(piece)
        total += len(piece)
    return i

# GSD STATE.md
def gsd(root, size, second):
    head = """---
gsd_state_version: '1.0'
milestone: v2.0
milestone_name: Linear Growth
status: executing
active_phase: "4"
current_phase: "4"
current_phase_name: Observability
current_plan: "2"
last_activity: "2026-06-01"
stopped_at: "Phase 4 plan 2"
progress:
  total_phases: 8
  completed_phases: 3
  total_plans: 20
  completed_plans: 9
  percent: 45
---
# Project State

## Project Reference

**Core value:** Plans that agents cannot silently corrupt.
**Current focus:** Phase 4 — Observability

## Current Position

Phase: 4 of 8 (Observability)
Plan: 2 of 4 in current phase
Status: Executing Phase 4
Last activity: 2026-06-01 — tracing spans wired in
Progress: [█████░░░░░] 45%

## Performance Metrics

| Phase | Plans | Total | Avg/Plan |
|-------|-------|-------|----------|
"""
    tail = """
### Blockers/Concerns

- Waiting on the partner API quota

## Session Continuity

Last session: 2026-06-01T12:34:56Z
Stopped at: Phase 4 plan 2
Resume file: None
"""
    lines = [head]
    n = fill(lines, (size - len(tail)) // 2, lambda i: f"| {i} | 5 | 2h | 24m |\n| Metric {i} | {i * 3} |\n")
    lines.append("\n## Accumulated Context\n\n### Decisions\n\n")
    skip = 3 if second else 0  # the second commit drops decisions: gsd recover lists them as lost
    fill(lines, size - len(tail), lambda i: "" if i % 97 == skip and second else
         f"- **Decision {i}:** keep the statusline fast (item {i})\n"
         f"- [Phase {i % 8}]: plain decision {i} without a field\n"
         f"Note {i}: plain field {i}\n")
    lines.append(tail)
    write(f"{root}/.planning/STATE.md", "".join(lines))

# DWP: a Lite plan of many tasks (state.json of the size)
LITE_STATE = "https://deepworkplan.com/schema/plan-state/v2.json"
LITE_MANIFEST = "https://deepworkplan.com/schema/plan-manifest/v2.json"

def at(minutes):
    return f"2026-10-05T{9 + minutes // 60 % 12:02d}:{minutes % 60:02d}:00Z"

def lite_task(i, last):
    gates = [{"command": f"python3 -m unittest tests.t{i}_{k}", "passes": True,
              "last_run": at(i + k), "exit_code": 0, "evidence": f"scope=unit; ran={k + 1}/{k + 1}"}
             for k in range(3)]
    t = {"id": i, "locator": {"kind": "inline", "value": f"#task-{i}"},
         "title": "Final Review" if last else f"Step {i}",
         "status": "in_progress" if last else "completed", "gates": gates, "started_at": at(i)}
    if not last:
        t["completed_at"] = at(i + 3)
        t["outcome"] = {"worked": f"step {i} done", "notes": "generated"}
    return t

def lite_record(i, last, status):
    title = "Final Review" if last else f"Step {i}"
    goal = ("Close the plan with a security pass, a final-state validation and a skills "
            "reconciliation." if last else f"Complete generated step {i}.")
    return (f"## Task {i}: {title} {{#task-{i}}}\n\n### Goal\n\n{goal}\n\n### Context\n\n"
            f"Generated task {i}.\n\n### Touched Surface\n\n- `src/module_{i}.py`\n\n"
            f"### Acceptance Criteria\n\n- Step {i} is done.\n\n### Validation\n\n"
            f"`python3 -m unittest tests.t{i}_2`\n\n### Completion & Log\n\nStatus: {status}\n\n")

def dwp_state(root, size, second):
    plan = "PLAN_linear"
    d = f"{root}/.dwp/plans/{plan}"
    per_task = len(json.dumps(lite_task(7, False), indent=2)) + 8
    n = max(3, size // per_task)
    tasks = [lite_task(i, i == n) for i in range(1, n + 1)]
    if second:  # the second commit: one more gate record on the task in progress
        tasks[-1]["gates"].append({"command": "python3 -m unittest", "passes": True,
                                   "last_run": at(n + 5), "exit_code": 0, "evidence": "scope=full; ran=9/9"})
    state = {"schema": LITE_STATE, "plan": plan, "updated_at": at(n + 5), "status": "in_progress",
             "completed_count": n - 1, "task_count": n, "format": "lite",
             "materialization": "ready", "approval": "approved", "promotion": None,
             "checkpoint": {"task": n, "step": "final review", "at": at(n + 5), "note": "reviewing"},
             "blocked": None, "tasks": tasks}
    write(f"{d}/state.json", json.dumps(state, indent=2, ensure_ascii=False) + "\n")
    index = "".join(f"- [{' ' if i == n else 'x'}] Task {i}: {'Final Review' if i == n else f'Step {i}'}\n"
                    for i in range(1, n + 1))
    records = "".join(lite_record(i, i == n, "in_progress" if i == n else "completed")
                      for i in range(1, n + 1))
    write(f"{d}/README.md",
          f"# Plan: A generated Lite plan of {n} tasks\n\n**Standard:** DWP spec 4.0.1\n\n"
          f"Plan Format: Lite\n\nMaterialization: ready\n\nApproval: approved\n\n"
          f"Plan Status: {n - 1}/{n} completed\n\n## Goal\n\nMeasure every read-only command.\n\n"
          f"## Context\n\nGenerated by scripts/bench/linear.sh.\n\n{records}## Task List\n\n{index}")
    manifest(d, plan, n, "lite", LITE_MANIFEST, "4.0.1")
    write(f"{d}/PROGRESS.md", f"# Progress — {plan}\n\n## Active context\n\n- Active task: Task {n}.\n")
    write(f"{d}/PROMPTS.md", "# Prompts\n\n> Generated plan.\n")
    write(f"{d}/analysis_results/PLAN_ANALYSIS.md", "# Plan analysis\n\n- Generated.\n")

def manifest(d, plan, n, fmt, schema, spec):
    write(f"{d}/manifest.json", json.dumps({
        "schema": schema, "spec_version": spec, "name": plan, "archetype": "individual",
        "rigor": "standard", "created_at": "2026-10-05T09:00:00Z", "task_count": n,
        "plan_format": fmt}, indent=2) + "\n")

# DWP: a Full plan of 3 tasks whose markdown shares the size
FULL_STATE = "https://deepworkplan.com/schema/plan-state/v5.json"
FULL_MANIFEST = "https://deepworkplan.com/schema/plan-manifest/v5.json"

def prose(size, make):
    lines = []
    fill(lines, size, make)
    return "".join(lines)

def para(i):
    return (f"Paragraph {i}: the migration keeps every byte of step {i}; see `src/m{i}.py`.\n"
            f"- item {i} with a [link](docs/l{i}.md) and **bold** words\n"
            f"| cell {i} | value {i} |\n\n")

def dwp_md(root, size, second):
    plan = "PLAN_linear_md"
    d = f"{root}/.dwp/plans/{plan}"
    part = size // 4
    names = ["1.task_step_1.md", "2.task_step_2.md", "3.task_final_review.md"]
    titles = ["Step 1", "Step 2", "Final Review"]
    readme = (f"# Plan: A generated Full plan with large markdown\n\n## Goal\n\nMeasure every "
              f"read-only command.\n\n## Context\n\n{prose(part, para)}\n"
              "## Plan Variables\n\n- **Standard:** DWP spec 5.0.0\n- **Plan Format:** Full\n"
              "- **Approval:** approved\n\n## Task List\n\n"
              + "".join(f"- [{'x' if k < 2 else ' '}] Task {k + 1}: {titles[k]} — [{names[k]}]({names[k]})\n"
                        for k in range(3))
              + "\n## Plan Status\n\nPlan Status: 2/3 completed\n")
    write(f"{d}/README.md", readme)
    for k in range(3):
        context = prose(part, para) if k == 0 else f"Generated task {k + 1}."
        status = "completed" if k < 2 else "in_progress"
        write(f"{d}/{names[k]}",
              f"# Task {k + 1}: {titles[k]}\n\n## 1. Context\n\n{context}\nThe security pass, the "
              "final-state validation and the skills reconciliation are named here.\n\n"
              f"## 2. Goal\n\nComplete step {k + 1}.\n\n## 3. Touched Surface\n\n- `src/m{k}.py`\n\n"
              f"## 4. Acceptance Criteria\n\n- [ ] Step {k + 1} is done.\n\n## 5. Validation\n\n"
              f"```bash\npython3 -m pytest tests/test_{k}.py\n```\n\n## 6. Completion & Log\n\n"
              f"Status: {status}\nSummary: step {k + 1}.\n")
    progress = f"# Progress — {plan}\n\n## Task entries\n\n" + prose(part, lambda i: f"### Note {i}\n\n- Done {i}; gate green.\n")
    if second:
        progress += "\n### Reconciliation\n\n- Second commit.\n"
    write(f"{d}/PROGRESS.md", progress)
    write(f"{d}/PROMPTS.md", "# Prompts\n\n> Generated plan.\n")
    write(f"{d}/analysis_results/SECURITY_REVIEW.md", "# Security review\n\n" + prose(part, lambda i:
          f"- Finding {i}: low, resolved in step {i % 3 + 1}.\n| Low | {i} |\n")
          + "\nResult: 0 unresolved critical findings.\n")
    tasks = []
    for k in range(3):
        t = {"id": k + 1, "locator": {"kind": "file", "value": names[k]}, "title": titles[k],
             "status": "completed" if k < 2 else "in_progress",
             "gates": [{"command": f"python3 -m pytest tests/test_{k}.py", "passes": True,
                        "last_run": at(k + 1), "exit_code": 0, "evidence": "ran=3/3"}],
             "started_at": at(k)}
        if k < 2:
            t["completed_at"] = at(k + 2)
            t["outcome"] = {"worked": "generated"}
        tasks.append(t)
    state = {"schema": FULL_STATE, "plan": plan, "updated_at": at(9), "status": "in_progress",
             "completed_count": 2, "task_count": 3, "format": "full", "materialization": "ready",
             "approval": "approved", "promotion": None,
             "checkpoint": {"task": 3, "step": "review", "at": at(9), "note": "reviewing"},
             "blocked": None, "tasks": tasks}
    write(f"{d}/state.json", json.dumps(state, indent=2) + "\n")
    manifest(d, plan, 3, "full", FULL_MANIFEST, "5.0.0")

# checkpoint protocol
def checkpoint(root, size, second):
    head = ("# Project Checkpoint\n\n> Ultima atualizacao: 2026-03-02\n\n## Contexto Ativo\n\n"
            "Story 1.2 em andamento. Sem bloqueios.\n\n## Status das Stories\n\n"
            "| Story | Título | Status | Responsável |\n|-------|--------|--------|-------------|\n"
            "| 1.1 | Login | Done | @dev |\n| 1.2 | Logout | InProgress | @dev |\n")
    tail = ("\n## Ambiente Configurado\n\n- Deploy: fly.io\n\n## Último Trabalho Realizado\n\n"
            "### Sessão 2026-03-02\n\n**Story 1.2 — Logout** (InProgress):\n- rota criada\n"
            "- Arquivos: src/routes/logout.ts\n- Testes: 2 novos, 14 total\n\n"
            "## Próximos Passos\n\n- [ ] invalidar a sessão\n- [x] rota de logout\n\n"
            "## Git Recente\n- `0a1b2c3 feat: logout route`\n\nBranch: `main`\nArquivos modificados: 0\n\n"
            "## Ambiente Detectado\n\nKeys: DATABASE_URL\n")
    lines = [head]
    fill(lines, size // 2, lambda i: f"| 9.{i} | Story {i} | Done | @dev |\n")
    lines.append("\n## Decisões Tomadas\n\n")
    fill(lines, size - len(tail), lambda i: "" if second and i % 101 == 5 else
         f"- Decisão {i}: sessões em cookie httpOnly (item {i}).\n")
    lines.append(tail)
    write(f"{root}/docs/PROJECT-CHECKPOINT.md", "".join(lines))
    # story files grow with the checkpoint too (one per 8 KiB), each with its row above
    stories = [("1.1", "Done"), ("1.2", "InProgress")] + [(f"9.{i}", "Done") for i in range(1, size // 8192)]
    for sid, status in stories:
        write(f"{root}/docs/stories/epic-{sid.split('.')[0]}/{sid}.story.md",
              f"---\nid: {sid}\nstatus: {status}\n---\n# Story {sid}\n")

# Reversa
def reversa(root, size, second):
    n = max(4, size // 160)
    state = {"version": "1.0.0", "project": "linear", "user_name": "Ana", "chat_language": "pt-br",
             "doc_language": "Português", "answer_mode": "chat", "doc_level": "completo",
             "output_folder": "_reversa_sdd", "phase": "escavacao", "completed": ["reconhecimento"],
             "pending": ["escavacao", "interpretacao", "geracao", "revisao"],
             "engines": ["claude-code"],
             "agents": ["reversa", "reversa-scout"] + [f"reversa-agent-{i}" for i in range(n // 8)],
             "checkpoints": {f"step-{i}": {"completed_at": "2026-04-26T10:00:00Z",
                                           "files": [f"_reversa_sdd/m{i}.md"], "notes": f"módulo {i}"}
                             for i in range(n // 4)},
             "created_files": [f"_reversa_sdd/generated/file_{i}.md" for i in range(n // 2 + (1 if second else 0))],
             "forward_folder": "_forward", "redator_progress": {"modules_done": 3, "modules_total": n}}
    write(f"{root}/.reversa/state.json", json.dumps(state, indent=2, ensure_ascii=False) + "\n")
    write(f"{root}/_reversa_sdd/inventory.md", "# Inventário\n")

formats = {"gsd": gsd, "dwp-state": dwp_state, "dwp-md": dwp_md, "checkpoint": checkpoint, "reversa": reversa}
for name, make in formats.items():
    for mb in sizes:
        repo = f"{work}/{name}-{mb}"
        os.makedirs(repo)
        git(repo, "init", "-q", "-b", "main")
        write(f"{repo}/.env", "DATABASE_URL=postgres://bench:linear-secret-value@db/bench\n")
        write(f"{repo}/.gitignore", ".env\n")
        make(repo, mb * MB, False)
        commit(repo, "feat: the first version - Task 1 of PLAN_linear", "2026-10-05T09:00:00+00:00")
        make(repo, mb * MB, True)
        commit(repo, "chore: the second version - Task 2 of PLAN_linear", "2026-10-05T10:00:00+00:00")
PY

# --- the commands, per format: "label|arguments" (run with -C <the format's repository>)
commands() {
  case $1 in
    gsd) printf '%s\n' "gsd check|gsd check" "gsd status|gsd status" "gsd status --json|--json gsd status" \
      "gsd statusline|gsd statusline" "gsd sync|gsd sync" "gsd recover|gsd recover" "verify|verify" ;;
    dwp-state | dwp-md)
      local p=.dwp/plans/PLAN_linear
      [ "$1" = dwp-md ] && p=.dwp/plans/PLAN_linear_md
      printf '%s\n' "verify|verify" "verify --json|--json verify" "status|status $p" "diff|diff $p" \
        "diff --against|diff $p --against HEAD~1" "log|log $p" "rebuild|rebuild $p" ;;
    checkpoint) printf '%s\n' "checkpoint status|checkpoint status" "checkpoint refresh|checkpoint refresh" \
      "checkpoint diff|checkpoint diff --against HEAD~1" "verify|verify" ;;
    reversa) printf '%s\n' "reversa status|reversa status" "reversa history|reversa history" "verify|verify" ;;
  esac
}
for f in gsd dwp-state dwp-md checkpoint reversa; do
  while IFS='|' read -r label args; do printf '%s\t%s\t%s\n' "$f" "$label" "$args"; done < <(commands "$f")
done >"$work/commands.tsv"

echo "inputs: $(for f in gsd dwp-state dwp-md checkpoint reversa; do printf '%s ' "$f"; done)at $sizes MB; $runs rounds, sizes interleaved; medians; cut at ${timeout}s"
python3 - "$bin" "$work" "$runs" "$timeout" $sizes <<'PY'
import os, signal, subprocess, sys, time

bin_, work, runs, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
sizes = [int(s) for s in sys.argv[5:]]
small, big = sizes[0], sizes[-1]
rows = [line.rstrip("\n").split("\t") for line in open(f"{work}/commands.tsv")]

def once(repo, args):
    """(wall ms, cpu ms, exit code or None when cut off or killed by a signal)"""
    t0 = time.perf_counter()
    p = subprocess.Popen([bin_, "-C", repo, "--color", "never", *args],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline, status, ru = t0 + timeout, None, None
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            os.killpg(p.pid, signal.SIGKILL)
            _, status, ru = os.wait4(p.pid, 0)
            status = None
            break
        time.sleep(0.002)
    wall = (time.perf_counter() - t0) * 1000
    cpu = (ru.ru_utime + ru.ru_stime) * 1000
    code = os.waitstatus_to_exitcode(status) if status is not None else None
    return wall, cpu, (code if code is not None and code >= 0 else None)

med = lambda xs: sorted(xs)[len(xs) // 2]
failures, cpu_at = [], {}
head = "".join(f"{f'{mb} MB wall/cpu ms':>22}" for mb in sizes)
print(f"{'format':<11}{'command':<20}{head}{'ratio':>8}  exit")
for fmt, label, args in rows:
    argv = args.split()
    samples = {mb: [] for mb in sizes}
    codes = {}
    cut = False
    for _ in range(runs):
        for mb in sizes:
            wall, cpu, code = once(f"{work}/{fmt}-{mb}", argv)
            samples[mb].append((wall, cpu))
            codes.setdefault(mb, code)
            if code is None:
                cut = True
        if cut:
            break
    walls = {mb: med([w for w, _ in samples[mb]]) for mb in sizes}
    cpus = {mb: med([c for _, c in samples[mb]]) for mb in sizes}
    cpu_at[(fmt, label)] = cpus
    ratio = cpus[big] / max(cpus[small], 1.0)
    cells = "".join(f"{f'{walls[mb]:.0f}/{cpus[mb]:.0f}':>22}" for mb in sizes)
    shown = "/".join("cut" if codes[mb] is None else str(codes[mb]) for mb in sizes)
    print(f"{fmt:<11}{label:<20}{cells}{ratio:>8.1f}  {shown}", flush=True)
    if cut:
        failures.append(f"{fmt} {label}: cut off after {timeout:.0f} s or killed by a signal")
    elif len(set(codes.values())) != 1 or codes[small] not in (0, 1):
        failures.append(f"{fmt} {label}: exit codes {shown} (expected 0 or 1, the same at every size)")
    if ratio > 20:
        failures.append(f"{fmt} {label}: time({big} MB) / time({small} MB) = {ratio:.1f} > 20")
status, check = cpu_at.get(("gsd", "gsd status")), cpu_at.get(("gsd", "gsd check"))
if status and check:
    for mb in sizes:
        r = status[mb] / max(check[mb], 1.0)
        print(f"gsd status / gsd check at {mb} MB: {r:.1f} (target <= 20)")
        if r > 20:
            failures.append(f"gsd status is {r:.1f} x gsd check at {mb} MB (> 20)")
if failures:
    print("NOT met:\n  " + "\n  ".join(failures))
    sys.exit(1)
print(f"met: every command within 20 x from {small} MB to {big} MB, gsd status within 20 x gsd check")
PY

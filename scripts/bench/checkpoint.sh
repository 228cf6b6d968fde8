#!/usr/bin/env bash
# Times `planseal checkpoint context` (release build) — the session-start summary a SessionStart
# hook runs at every session — on a generated multi-project workspace: a checkpoint of ~120
# lines, N story files (default 500), PRD, ADR and memory files. Next to it, in the same run, one
# `cat` of the files context reads (the checkpoint, every story file, .project.yaml); the others
# are only stat'ed for staleness. Prints the medians and the ratio. Target: context within 1.5x
# the cat floor (docs/checkpoint.md).
#
# RUNS (default 40) interleaved runs of each, timed by python3 (wall clock and wait4's CPU time).
# SIZES="500 2000" measures other story counts. PLANSEAL_BIN overrides the binary.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${PLANSEAL_BIN:-$PWD/target/release/planseal}
if [ ! -x "$bin" ]; then
  cargo build --release --quiet
fi
runs=${RUNS:-40}
sizes=(${SIZES:-500})
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

interleaved_ms() { # interleaved_ms CWD LISTFILE CMD...
  python3 - "$runs" "$@" <<'PY'
import os, subprocess, sys, time
runs, cwd, listfile, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
files = open(listfile).read().split("\n")[:-1]
def once(argv):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return (time.perf_counter() - t0) * 1000, (ru.ru_utime + ru.ru_stime) * 1000
for _ in range(3):
    once(cmd); once(["cat", *files])
s, c = [], []
for _ in range(runs):
    s.append(once(cmd)); c.append(once(["cat", *files]))
med = lambda xs: sorted(xs)[len(xs) // 2]
print("%.2f %.2f %.2f %.2f" % (med([w for w, _ in s]), med([w for w, _ in c]), med([u for _, u in s]), med([u for _, u in c])))
PY
}

generate() { # generate DIR STORIES
  local root=$1 n=$2 p="$1/projects/demo"
  mkdir -p "$p/stories" "$p/prd" "$p/architecture" "$p/notes" "$root/projects/other"
  printf 'prefix: DEMO\nmemory:\n  - notes/memory.md\n' >"$p/.project.yaml"
  printf 'prefix: OTHER\n' >"$root/projects/other/.project.yaml"
  for i in $(seq 1 "$n"); do
    printf -- '---\nid: DEMO-%d.%d\nstatus: %s\n---\n# Story DEMO-%d.%d: feature %d\n\n## Acceptance\n\n- [ ] works\n- [ ] tested\n' \
      $((i / 10 + 1)) $((i % 10)) "$([ $((i % 50)) -eq 0 ] && echo InProgress || echo Done)" $((i / 10 + 1)) $((i % 10)) "$i" \
      >"$p/stories/DEMO-$i.md"
  done
  {
    printf '# Project Checkpoint\n\n> Ultima atualizacao: 2026-10-05\n\n## Contexto Ativo\n\nDEMO-5.0 em andamento na branch `feat/x`.\n\n'
    printf '## Status das Stories\n\n| Story | Status |\n|---|---|\n'
    for i in $(seq 1 40); do printf '| DEMO-%d.%d | Done |\n' $((i / 10 + 1)) $((i % 10)); done
    printf '\n## Decisoes Tomadas\n\n- Postgres\n- OIDC\n\n## Ambiente Configurado\n\n- staging\n\n## Ultimo Trabalho Realizado\n\n'
    for d in 05 04 03; do
      printf '### Sessão 2026-10-%s\n\n**Story DEMO-5.0 — feature 50** (InProgress):\n- a\n- b\n- Arquivos: src/a.rs\n- Testes: 2 novos, 40 total\n\n' "$d"
    done
    printf '## Proximos Passos\n\n- [ ] deploy\n- [ ] docs\n\n## Git Recente\n- `0a1b2c3 feat: x`\n\nBranch: `main`\nArquivos modificados: 0\n'
  } >"$p/PROJECT-CHECKPOINT.md"
  for f in prd/v1.md architecture/overview.md adr-001-db.md notes/memory.md; do echo doc >"$p/$f"; done
}

echo "planseal checkpoint context on generated workspaces ($runs interleaved runs each; medians in ms)"
printf '%8s %8s %12s %9s %8s %15s %11s\n' stories files context_ms cat_ms ratio context_cpu_ms cat_cpu_ms
worst=0
for n in "${sizes[@]}"; do
  root="$work/ws_$n"
  generate "$root" "$n"
  p="$root/projects/demo"
  files=("$p/PROJECT-CHECKPOINT.md" "$p/.project.yaml")
  for f in "$p"/stories/*.md; do files+=("$f"); done
  out=$("$bin" -C "$p" checkpoint context) || { echo "checkpoint context failed" >&2; exit 1; }
  grep -q '^Next steps:' <<<"$out" || { echo "unexpected output:" >&2; echo "$out" >&2; exit 1; }
  printf '%s\n' "${files[@]}" >"$work/files_$n"
  read -r s c scpu ccpu < <(interleaved_ms "$p" "$work/files_$n" "$bin" checkpoint context)
  ratio=$(awk -v a="$s" -v b="$c" 'BEGIN {printf "%.2f", a / b}')
  printf '%8s %8s %12s %9s %8s %15s %11s\n' "$n" "${#files[@]}" "$s" "$c" "$ratio" "$scpu" "$ccpu"
  worst=$(awk -v a="$ratio" -v b="$worst" 'BEGIN {print (a > b) ? a : b}')
done
verdict=$(awk -v r="$worst" 'BEGIN {print (r <= 1.5) ? "ok" : "MISSED"}')
echo "worst ratio context/cat: ${worst}x (target <= 1.5x: $verdict)"

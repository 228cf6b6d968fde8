#!/usr/bin/env bash
# Records the vectors of GSD's whole statusline (fixtures/vectors/gsd-statusline/) by running
# GSD's own hook, hooks/gsd-statusline.js, with node on each case.
#
# Each case is a folder:
#   stdin.json        the JSON Claude Code pipes in; @ROOT@ stands for the case's scratch folder
#   files/            laid out as the scratch folder before the run (home/ is HOME, work/ the
#                     projects, cwd/ the process's working directory)
#   env               extra environment lines (KEY=VALUE), optional
#   setup.sh          run with bash in the scratch folder after files/ is copied (git
#                     repositories, file times), optional
#   expected-stdout   what the hook printed, byte for byte (no trailing newline)
#   expected-tmp/     the temp folder after the run (the claude-ctx-<session>.json bridge file)
#
# Every run is pinned: HOME=<root>/home, TMPDIR=<root>/tmp, cwd=<root>/cwd, a cleared
# environment (PATH, LC_ALL=C, TZ=UTC), git's user and system configuration off, and the clock
# (Date.now) fixed at FAKE_EPOCH through a preloaded shim, so the bridge file's timestamp is
# stable. The hook never looks at NO_COLOR / FORCE_COLOR / TERM: each case is run with and
# without NO_COLOR=1 FORCE_COLOR=0 and the script fails if the two outputs differ.
#
# The hook: GSD_CORE_HOOK (default: hooks/gsd-statusline.js of the package) run inside the npm
# package @opengsd/gsd-core@1.11.0 (GSD_CORE_PKG: an unpacked package folder; default: `npm pack`
# into a temp folder), whose built gsd-core/bin/lib/*.cjs the hook requires. The vectors in the
# repository were recorded with the hook of gsd-core's git commit 636ec921 (open-gsd/gsd-core),
# which differs from the one in the 1.11.0 package only by a start-up build check.
#
# Usage: scripts/record-statusline-vectors.sh [OUT]   (default fixtures/vectors/gsd-statusline)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/fixtures/vectors/gsd-statusline}
export FAKE_EPOCH=1790000000
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

pkg=${GSD_CORE_PKG:-}
if [ -z "$pkg" ]; then
  (cd "$work" && npm pack --silent @opengsd/gsd-core@1.11.0 >/dev/null && tar xzf opengsd-gsd-core-1.11.0.tgz)
  pkg=$work/package
fi
hook=$pkg/hooks/gsd-statusline.js
if [ -n "${GSD_CORE_HOOK:-}" ]; then
  cp "$GSD_CORE_HOOK" "$pkg/hooks/gsd-statusline.recorded.js"
  hook=$pkg/hooks/gsd-statusline.recorded.js
fi
shim=$work/fixed-now.js
printf 'Date.now = () => Number(process.env.FAKE_EPOCH) * 1000;\n' > "$shim"

rm -rf "$out"
mkdir -p "$out"

# --- helpers used by the case definitions ---------------------------------------------------
cur=""
case_() { cur=$out/$1; mkdir -p "$cur/files"; }
stdin_() { printf '%s' "$1" > "$cur/stdin.json"; }
file_() { mkdir -p "$(dirname "$cur/files/$1")"; printf '%s' "$2" > "$cur/files/$1"; }
env_() { printf '%s\n' "$1" >> "$cur/env"; }
setup_() { printf '%s\n' "$1" >> "$cur/setup.sh"; }

STATE='---
milestone: v2.0
milestone_name: Launch
status: executing
active_phase: "4"
progress:
  completed_phases: 3
  total_phases: 8
  percent: 37
---
# State
'
PROJ='"workspace":{"current_dir":"@ROOT@/work/proj"}'
SONNET='"model":{"display_name":"Sonnet 4.5"}'
ctx() { printf '"context_window":{"remaining_percentage":%s}' "$1"; }
CACHE=home/.cache/gsd/gsd-update-check-opengsd-gsd-core.json
GITREPO='export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
git init -q --template= -b main work/proj
git -C work/proj add -A
git -C work/proj commit -q -m init'
GITCFG='{"statusline":{"show_git":true}}'

# --- the cases -----------------------------------------------------------------------------
# The context meter: remaining % → used % of the usable window (16.5 % autocompact buffer).
for rem in 100 80 60 58.5 58 57 46 45.5 45 33.5 33 20 16.5 10 0 -5 120 12.25; do
  case_ "ctx-remaining-${rem}"
  stdin_ "{$SONNET,$PROJ,\"session_id\":\"s-ctx\",$(ctx "$rem")}"
done
case_ ctx-remaining-string;   stdin_ "{$SONNET,$PROJ,\"session_id\":\"s-str\",$(ctx '"50"')}"
case_ ctx-remaining-null;     stdin_ "{$SONNET,$PROJ,\"session_id\":\"s-null\",$(ctx null)}"
case_ ctx-absent;             stdin_ "{$SONNET,$PROJ,\"session_id\":\"s-none\"}"
case_ ctx-no-session;         stdin_ "{$SONNET,$PROJ,$(ctx 70)}"
case_ ctx-session-traversal;  stdin_ "{$SONNET,$PROJ,\"session_id\":\"../evil\",$(ctx 70)}"
case_ ctx-session-slash;      stdin_ "{$SONNET,$PROJ,\"session_id\":\"a/b\",$(ctx 70)}"
case_ ctx-session-unicode;    stdin_ "{$SONNET,$PROJ,\"session_id\":\"sé-\\\"q\\\"\",$(ctx 70)}"
case_ acw-200k
stdin_ "{$SONNET,$PROJ,\"session_id\":\"s-acw\",\"context_window\":{\"remaining_percentage\":90,\"total_tokens\":1000000}}"
env_ CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000
case_ acw-over-total
stdin_ "{$SONNET,$PROJ,\"session_id\":\"s-acw2\",\"context_window\":{\"remaining_percentage\":40,\"total_tokens\":100000}}"
env_ CLAUDE_CODE_AUTO_COMPACT_WINDOW=250000
case_ acw-garbage;  stdin_ "{$SONNET,$PROJ,$(ctx 40)}"; env_ CLAUDE_CODE_AUTO_COMPACT_WINDOW=abc
case_ acw-no-total; stdin_ "{$SONNET,$PROJ,$(ctx 40)}"; env_ "CLAUDE_CODE_AUTO_COMPACT_WINDOW= 500000x"
for tok in 156342 999600 500 0 1234567; do
  case_ "tokens-$tok"
  stdin_ "{$SONNET,$PROJ,\"context_window\":{\"remaining_percentage\":70,\"current_usage\":{\"input_tokens\":$tok,\"output_tokens\":0}}}"
  file_ work/proj/.planning/config.json '{"statusline":{"show_context_tokens":true}}'
done
case_ tokens-flat-key-mixed
stdin_ "{$SONNET,$PROJ,\"context_window\":{\"remaining_percentage\":30,\"current_usage\":{\"input_tokens\":1000,\"cache_creation_input_tokens\":\"2000\",\"cache_read_input_tokens\":null,\"output_tokens\":500}}}"
file_ work/proj/.planning/config.json '{"statusline.show_context_tokens":true}'

# Model names and directories.
case_ model-missing;      stdin_ "{$PROJ}"
case_ model-1m-context;   stdin_ "{\"model\":{\"display_name\":\"Sonnet 4.5 (1M context)\"},$PROJ}"
case_ model-ctx-upper;    stdin_ "{\"model\":{\"display_name\":\"Opus 4  (200K  CTX)\"},$PROJ}"
case_ model-nested-paren; stdin_ "{\"model\":{\"display_name\":\"A (b) (c (1M context)\"},$PROJ}"
case_ model-unicode-long
stdin_ "{\"model\":{\"display_name\":\"Claudé 🚀 $(printf 'x%.0s' $(seq 1 120))\"},$PROJ}"
case_ model-empty;        stdin_ "{\"model\":{\"display_name\":\"\"},$PROJ}"
case_ dir-unicode;        stdin_ "{$SONNET,\"workspace\":{\"current_dir\":\"@ROOT@/work/проект-ü 🚀\"},$(ctx 55)}"
file_ "work/проект-ü 🚀/.planning/STATE.md" "$STATE"
case_ dir-long
long=$(printf 'd%.0s' $(seq 1 200))
stdin_ "{$SONNET,\"workspace\":{\"current_dir\":\"@ROOT@/work/$long\"}}"
case_ dir-trailing-slash; stdin_ "{$SONNET,\"workspace\":{\"current_dir\":\"@ROOT@/work/proj/\"}}"
file_ work/proj/.planning/STATE.md "$STATE"
case_ dir-missing-uses-cwd; stdin_ "{$SONNET}"
file_ cwd/.planning/STATE.md "$STATE"
case_ dir-relative;       stdin_ "{$SONNET,\"workspace\":{\"current_dir\":\"rel/proj\"},$(ctx 90)}"
file_ cwd/rel/proj/.planning/STATE.md "$STATE"
case_ empty-object;       stdin_ '{}'
case_ input-array;        stdin_ '[1,2]'
case_ dir-not-a-string;   stdin_ "{$SONNET,\"workspace\":{\"current_dir\":5},\"session_id\":\"s-num\",$(ctx 70)}"
case_ model-number;       stdin_ "{\"model\":{\"display_name\":42},$PROJ}"
case_ session-number;     stdin_ "{$SONNET,$PROJ,\"session_id\":12345,$(ctx 70.5)}"
case_ ctx-remaining-bool; stdin_ "{$SONNET,$PROJ,\"session_id\":\"s-bool\",$(ctx true)}"
case_ ctx-remaining-garbage; stdin_ "{$SONNET,$PROJ,\"session_id\":\"s-nan\",$(ctx '"lots"')}"

# The GSD state segment and its settings.
case_ state-full;         stdin_ "{$SONNET,$PROJ,$(ctx 75)}"; file_ work/proj/.planning/STATE.md "$STATE"
case_ state-walks-up;     stdin_ "{$SONNET,\"workspace\":{\"current_dir\":\"@ROOT@/work/proj/src/deep\"}}"
file_ work/proj/.planning/STATE.md "$STATE"; file_ work/proj/src/deep/.keep ''
case_ state-compact;      stdin_ "{$SONNET,$PROJ,$(ctx 75)}"; file_ work/proj/.planning/STATE.md "$STATE"
file_ work/proj/.planning/config.json '{"statusline":{"state_format":"compact"}}'
case_ state-front;        stdin_ "{$SONNET,$PROJ,$(ctx 25)}"; file_ work/proj/.planning/STATE.md "$STATE"
file_ work/proj/.planning/config.json '{"statusline":{"context_position":"front"}}'
case_ state-front-no-middle; stdin_ "{$SONNET,$PROJ,$(ctx 25)}"
file_ work/proj/.planning/config.json '{"statusline.context_position":"front"}'
case_ state-position-bogus; stdin_ "{$SONNET,$PROJ,$(ctx 25)}"; file_ work/proj/.planning/STATE.md "$STATE"
file_ work/proj/.planning/config.json '{"statusline":{"context_position":"middle"}}'
case_ state-config-malformed; stdin_ "{$SONNET,$PROJ,$(ctx 25)}"; file_ work/proj/.planning/STATE.md "$STATE"
file_ work/proj/.planning/config.json '{"statusline":{"state_format":"compact"'
case_ state-no-workstream; stdin_ "{$SONNET,$PROJ}"
file_ work/proj/.planning/workstreams/api/STATE.md "$STATE"; file_ work/proj/.planning/workstreams/ui/STATE.md "$STATE"
case_ state-workstream-env; stdin_ "{$SONNET,$PROJ}"; env_ GSD_WORKSTREAM=ui
file_ work/proj/.planning/workstreams/api/STATE.md "$STATE"
file_ work/proj/.planning/workstreams/ui/STATE.md $'---\nmilestone: v3\nstatus: planning\n---\n'
case_ state-stops-at-home; stdin_ "{$SONNET,\"workspace\":{\"current_dir\":\"@ROOT@/home/proj\"}}"
file_ .planning/STATE.md "$STATE"; file_ home/proj/.keep ''
case_ last-command
stdin_ "{$SONNET,$PROJ,\"transcript_path\":\"@ROOT@/home/t.jsonl\",$(ctx 62)}"
file_ work/proj/.planning/config.json '{"statusline":{"show_last_command":true}}'
file_ home/t.jsonl $'{"m":"<command-name>/gsd-old</command-name>"}\n{"m":"<command-name>/gsd-plan-phase</command-name> args"}\n'
case_ last-command-rejected
stdin_ "{$SONNET,$PROJ,\"transcript_path\":\"@ROOT@/home/t.jsonl\"}"
file_ work/proj/.planning/config.json '{"statusline":{"show_last_command":true}}'
file_ home/t.jsonl $'<command-name>/has space</command-name>\n'
case_ last-command-missing-transcript
stdin_ "{$SONNET,$PROJ,\"transcript_path\":\"@ROOT@/home/none.jsonl\"}"
file_ work/proj/.planning/config.json '{"statusline":{"show_last_command":true}}'

# Todos: the newest <session>*-agent-*.json in <claude dir>/todos, its in_progress item.
TODOS='[{"content":"a","status":"completed","activeForm":"Did a"},{"content":"b","status":"in_progress","activeForm":"Writing the parser ✍"},{"content":"c","status":"in_progress","activeForm":"Other"}]'
case_ todo-in-progress; stdin_ "{$SONNET,$PROJ,\"session_id\":\"sess1\",$(ctx 70)}"
file_ work/proj/.planning/STATE.md "$STATE"; file_ home/.claude/todos/sess1-agent-sess1.json "$TODOS"
case_ todo-newest-wins; stdin_ "{$SONNET,$PROJ,\"session_id\":\"sess1\"}"
file_ home/.claude/todos/sess1-agent-a.json "$TODOS"
file_ home/.claude/todos/sess1-agent-b.json '[{"status":"in_progress","activeForm":"Newest task"}]'
file_ home/.claude/todos/sess1-agent-c.txt '[{"status":"in_progress","activeForm":"not json name"}]'
file_ home/.claude/todos/sess2-agent-z.json '[{"status":"in_progress","activeForm":"other session"}]'
setup_ 'touch -d "2026-01-01 00:00:00" home/.claude/todos/sess1-agent-a.json
touch -d "2026-01-02 00:00:00" home/.claude/todos/sess1-agent-b.json
touch -d "2026-01-03 00:00:00" home/.claude/todos/sess1-agent-c.txt home/.claude/todos/sess2-agent-z.json'
case_ todo-none-in-progress; stdin_ "{$SONNET,$PROJ,\"session_id\":\"sess1\"}"
file_ work/proj/.planning/STATE.md "$STATE"
file_ home/.claude/todos/sess1-agent-sess1.json '[{"status":"pending","activeForm":"Later"}]'
case_ todo-empty-active-form; stdin_ "{$SONNET,$PROJ,\"session_id\":\"sess1\"}"
file_ work/proj/.planning/STATE.md "$STATE"
file_ home/.claude/todos/sess1-agent-sess1.json '[{"status":"in_progress","activeForm":""}]'
case_ todo-malformed; stdin_ "{$SONNET,$PROJ,\"session_id\":\"sess1\"}"
file_ work/proj/.planning/STATE.md "$STATE"; file_ home/.claude/todos/sess1-agent-sess1.json '[{"status":'
case_ todo-no-agent-marker; stdin_ "{$SONNET,$PROJ,\"session_id\":\"sess1\"}"
file_ home/.claude/todos/sess1.json "$TODOS"
case_ todo-claude-config-dir; stdin_ "{$SONNET,$PROJ,\"session_id\":\"sess1\"}"
env_ 'CLAUDE_CONFIG_DIR=@ROOT@/alt'
file_ alt/todos/sess1-agent-x.json '[{"status":"in_progress","activeForm":"From the other config dir"}]'
file_ home/.claude/todos/sess1-agent-x.json '[{"status":"in_progress","activeForm":"Not this one"}]'
case_ todo-active-form-number; stdin_ "{$SONNET,$PROJ,\"session_id\":\"sess1\"}"
file_ home/.claude/todos/sess1-agent-sess1.json '[{"status":"in_progress","activeForm":7}]'
case_ todo-null-item; stdin_ "{$SONNET,$PROJ,\"session_id\":\"sess1\"}"
file_ work/proj/.planning/STATE.md "$STATE"
file_ home/.claude/todos/sess1-agent-sess1.json '[null,{"status":"in_progress","activeForm":"never"}]'
case_ todo-no-session; stdin_ "{$SONNET,$PROJ}"
file_ home/.claude/todos/-agent-.json "$TODOS"

# The update cache.
case_ update-available; stdin_ "{$SONNET,$PROJ,$(ctx 70)}"
file_ "$CACHE" '{"package_name":"@opengsd/gsd-core","update_available":true,"installed":"1.0.0","latest":"1.1.0"}'
case_ update-stale-hooks; stdin_ "{$SONNET,$PROJ}"
file_ "$CACHE" '{"package_name":"@opengsd/gsd-core","update_available":false,"installed":"1.1.0","latest":"1.1.0","stale_hooks":["gsd-statusline.js"]}'
case_ update-dev-install; stdin_ "{$SONNET,$PROJ}"
file_ "$CACHE" '{"package_name":"@opengsd/gsd-core","update_available":1,"installed":"v2.0.0-beta.1","latest":"1.9.9","stale_hooks":["x"]}'
case_ update-latest-unknown; stdin_ "{$SONNET,$PROJ}"
file_ "$CACHE" '{"package_name":"@opengsd/gsd-core","installed":"9.0.0","latest":"unknown","stale_hooks":"y"}'
case_ update-foreign-package; stdin_ "{$SONNET,$PROJ}"
file_ "$CACHE" '{"package_name":"get-shit-done-cc","update_available":true}'
case_ update-malformed; stdin_ "{$SONNET,$PROJ}"; file_ "$CACHE" '{"package_name":'
case_ update-none; stdin_ "{$SONNET,$PROJ}"
file_ "$CACHE" '{"package_name":"@opengsd/gsd-core","update_available":"","stale_hooks":[]}'

# show_git through a scripted repository.
case_ git-clean; stdin_ "{$SONNET,$PROJ,$(ctx 70)}"
file_ work/proj/.planning/config.json "$GITCFG"; file_ work/proj/a.txt 'a'; setup_ "$GITREPO"
case_ git-dirty; stdin_ "{$SONNET,$PROJ,$(ctx 70)}"
file_ work/proj/.planning/config.json "$GITCFG"; file_ work/proj/a.txt 'a'; file_ work/proj/b.txt 'b'
setup_ "$GITREPO
printf changed > work/proj/a.txt
printf staged > work/proj/new.txt; git -C work/proj add new.txt
printf both > work/proj/b.txt; git -C work/proj add b.txt; printf both2 > work/proj/b.txt
mkdir -p work/proj/untracked-dir; printf 1 > work/proj/untracked-dir/x; printf 2 > work/proj/untracked-dir/y
printf u > work/proj/u.txt"
case_ git-deleted-and-ignored; stdin_ "{$SONNET,$PROJ}"
file_ work/proj/.planning/config.json "$GITCFG"; file_ work/proj/a.txt 'a'; file_ work/proj/.gitignore '*.log'
setup_ "$GITREPO
rm work/proj/a.txt; printf l > work/proj/x.log"
case_ git-detached; stdin_ "{$SONNET,$PROJ}"
file_ work/proj/.planning/config.json "$GITCFG"; file_ work/proj/a.txt 'a'
setup_ "$GITREPO
git -C work/proj checkout -q --detach HEAD"
case_ git-branch-slash; stdin_ "{$SONNET,$PROJ,$(ctx 20)}"
file_ work/proj/.planning/config.json "$GITCFG"; file_ work/proj/a.txt 'a'; file_ work/proj/.planning/STATE.md "$STATE"
setup_ "$GITREPO
git -C work/proj checkout -q -b feature/ünï"
case_ git-unborn; stdin_ "{$SONNET,$PROJ}"
file_ work/proj/.planning/config.json "$GITCFG"; file_ work/proj/a.txt 'a'
setup_ 'export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
git init -q --template= -b trunk work/proj'
case_ git-subdir; stdin_ "{$SONNET,\"workspace\":{\"current_dir\":\"@ROOT@/work/proj/sub\"}}"
file_ work/proj/sub/.planning/config.json "$GITCFG"; file_ work/proj/a.txt 'a'
setup_ "$GITREPO
printf z > work/proj/a.txt"
case_ git-ahead-behind; stdin_ "{$SONNET,$PROJ}"
file_ work/proj/.planning/config.json "$GITCFG"; file_ work/proj/a.txt 'a'
setup_ "$GITREPO
git -C work/proj branch base
git -C work/proj commit -q --allow-empty -m ahead1
git -C work/proj commit -q --allow-empty -m ahead2
git -C work/proj checkout -q base
git -C work/proj commit -q --allow-empty -m behind1
git -C work/proj checkout -q main
git -C work/proj branch -q --set-upstream-to=base"
case_ git-staged-rename; stdin_ "{$SONNET,$PROJ}"
file_ work/proj/.planning/config.json "$GITCFG"; file_ work/proj/a.txt $'hello world content here\nline2\nline3\n'
setup_ "$GITREPO
git -C work/proj mv a.txt b.txt"
case_ git-conflict; stdin_ "{$SONNET,$PROJ}"
file_ work/proj/.planning/config.json "$GITCFG"; file_ work/proj/a.txt $'base\n'
setup_ "$GITREPO
git -C work/proj checkout -q -b other
printf 'other\\n' >> work/proj/a.txt; git -C work/proj commit -q -am other
git -C work/proj checkout -q main
printf 'main\\n' >> work/proj/a.txt; git -C work/proj commit -q -am main
git -C work/proj merge -q other || true"
case_ git-not-a-repo; stdin_ "{$SONNET,$PROJ}"; file_ work/proj/.planning/config.json "$GITCFG"
case_ git-off; stdin_ "{$SONNET,$PROJ}"; file_ work/proj/a.txt 'a'; setup_ "$GITREPO
printf z > work/proj/a.txt"
case_ everything
stdin_ "{\"model\":{\"display_name\":\"Opus 4.1 (1M context)\"},$PROJ,\"session_id\":\"all\",\"transcript_path\":\"@ROOT@/home/t.jsonl\",\"context_window\":{\"remaining_percentage\":41.7,\"current_usage\":{\"input_tokens\":123456}}}"
file_ work/proj/.planning/config.json '{"statusline":{"show_git":true,"show_last_command":true,"show_context_tokens":true,"context_position":"front","state_format":"compact"}}'
file_ work/proj/.planning/STATE.md "$STATE"; file_ home/t.jsonl '<command-name>/gsd-execute-phase</command-name>'
file_ "$CACHE" '{"package_name":"@opengsd/gsd-core","update_available":true,"stale_hooks":["a"],"installed":"1.0.0","latest":"1.0.1"}'
setup_ "$GITREPO
printf z > work/proj/.planning/STATE.md"

# --- the runs -------------------------------------------------------------------------------
# materialize CASE ROOT: the scratch folder of a case.
materialize() {
  local c=$1 root=$2
  mkdir -p "$root/home" "$root/tmp" "$root/cwd" "$root/work"
  cp -a "$c/files/." "$root/"
  if [ -f "$c/setup.sh" ]; then (cd "$root" && bash "$c/setup.sh") >/dev/null 2>&1; fi
}
run_hook() {
  local c=$1 root=$2; shift 2
  local envs=(PATH=/usr/bin:/bin LC_ALL=C TZ=UTC HOME="$root/home" TMPDIR="$root/tmp"
    GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 FAKE_EPOCH="$FAKE_EPOCH" "$@")
  if [ -f "$c/env" ]; then
    while IFS= read -r line; do envs+=("${line//@ROOT@/$root}"); done < "$c/env"
  fi
  sed "s#@ROOT@#$root#g" "$c/stdin.json" |
    (cd "$root/cwd" && env -i "${envs[@]}" node --require "$shim" "$hook")
}
count=0
for c in "$out"/*/; do
  c=${c%/}
  r1=$work/r1; r2=$work/r2
  rm -rf "$r1" "$r2"
  materialize "$c" "$r1"
  run_hook "$c" "$r1" > "$c/expected-stdout"
  materialize "$c" "$r2"
  run_hook "$c" "$r2" NO_COLOR=1 FORCE_COLOR=0 > "$work/stdout-nocolor"
  # The scratch path differs between the two runs only where the hook prints it (it never does).
  cmp -s "$c/expected-stdout" "$work/stdout-nocolor" || { echo "$c: NO_COLOR changed the output" >&2; exit 1; }
  if [ -n "$(ls -A "$r1/tmp")" ]; then mkdir -p "$c/expected-tmp"; cp -a "$r1/tmp/." "$c/expected-tmp/"; fi
  count=$((count + 1))
done
echo "recorded $count vectors in $out"

# Sourced by scripts/bench/all.sh and scripts/bench/statusline.sh: the inputs of the whole
# statusline as Claude Code runs it, under $work — a session, a context meter with a token count,
# a todos file with no task in progress (so the GSD state is read too), GSD's update cache and
# config.json (whole.json); the same project in a small git repository with show_git on and a
# changed file (whole-git.json). Sets whole_files: every file the whole line reads, for `cat`.
statusline_inputs() {
  mkdir -p "$work/home/.claude/todos" "$work/home/.cache/gsd" "$work/tmp" "$work/gsdw/.planning"
  cp fixtures/gsd/check/clean.md "$work/gsdw/.planning/STATE.md"
  printf '{"statusline":{"show_context_tokens":true}}\n' >"$work/gsdw/.planning/config.json"
  printf '[{"content":"x","status":"pending","activeForm":"Later"}]' >"$work/home/.claude/todos/bench-agent-bench.json"
  printf '{"package_name":"@opengsd/gsd-core","update_available":true,"installed":"1.0.0","latest":"1.1.0"}' \
    >"$work/home/.cache/gsd/gsd-update-check-opengsd-gsd-core.json"
  whole_files="$work/gsdw/.planning/config.json $work/gsdw/.planning/STATE.md $work/home/.claude/todos/bench-agent-bench.json $work/home/.cache/gsd/gsd-update-check-opengsd-gsd-core.json"
  printf '{"model":{"display_name":"Opus 4.1 (1M context)"},"session_id":"bench","workspace":{"current_dir":"%s"},"context_window":{"remaining_percentage":61.5,"current_usage":{"input_tokens":123456}}}\n' \
    "$work/gsdw" >"$work/whole.json"
  cp -a "$work/gsdw" "$work/gsdgit"
  printf '{"statusline":{"show_git":true,"show_context_tokens":true}}\n' >"$work/gsdgit/.planning/config.json"
  git init -q --template= -b main "$work/gsdgit"
  git -C "$work/gsdgit" add -A
  git -C "$work/gsdgit" -c user.name=b -c user.email=b@example.com commit -q -m bench
  printf 'changed\n' >>"$work/gsdgit/.planning/STATE.md"
  sed "s#$work/gsdw#$work/gsdgit#" "$work/whole.json" >"$work/whole-git.json"
}

//! `planseal gsd sync`: derives the frontmatter from the body and the phase folders, keeps
//! unknown keys, their order, their quoting and hand-written values byte for byte, never writes
//! when nothing changes, keeps a deliberately edited key (drift) when its body line did not change
//! since the baseline, and writes only under GSD's lock.

use crate::support::gitrepo;
use crate::support::run::Planseal;
use serde_json::Value;
use std::path::Path;

const NOW: &str = "2026-07-01T10:00:00+00:00";

const BEFORE: &str = "---
gsd_state_version: '1.0'
milestone: v2.0
milestone_name: Code Quality
# reviewer notes stay where they are
owner: 'Ana' # hand-written
status: planning
custom_list: [a, \"b\"]
current_phase: \"1\"
progress:
  total_phases: 2
  percent: 10
zeta: last
---
# Project State

## Current Position

Phase: 2 of 2 (Build)
Plan: 1 of 2 in current phase
Status: Executing Phase 2
Last activity: 2026-06-02 — wired the parser

## Session Continuity

Stopped at: Phase 2 plan 1
Resume file: None
";

const AFTER: &str = "---
gsd_state_version: '1.0'
milestone: v2.0
milestone_name: Code Quality
current_phase: \"2\"
current_phase_name: Build
current_plan: \"1\"
status: executing
stopped_at: Phase 2 plan 1
last_updated: \"2026-07-01T10:00:00.000Z\"
last_activity: \"2026-06-02\"
progress:
  total_phases: 2
  completed_phases: 1
  total_plans: 3
  completed_plans: 2
  percent: 50
# reviewer notes stay where they are
owner: 'Ana' # hand-written
custom_list: [a, \"b\"]
zeta: last
---
# Project State

## Current Position

Phase: 2 of 2 (Build)
Plan: 1 of 2 in current phase
Status: Executing Phase 2
Last activity: 2026-06-02 — wired the parser

## Session Continuity

Stopped at: Phase 2 plan 1
Resume file: None
";

fn project(state: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(".planning");
    for f in [
        "phases/01-a/01-PLAN.md",
        "phases/01-a/01-SUMMARY.md",
        "phases/02-b/01-PLAN.md",
        "phases/02-b/01-SUMMARY.md",
        "phases/02-b/02-PLAN.md",
    ] {
        std::fs::create_dir_all(p.join(f).parent().unwrap()).unwrap();
        std::fs::write(p.join(f), "---\nstatus: active\n---\n").unwrap();
    }
    std::fs::write(p.join("STATE.md"), state).unwrap();
    dir
}

fn sync(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Planseal::new()
        .cwd(dir)
        .clock(NOW)
        .env("HOME", "/nonexistent-home")
        .args(["gsd", "sync"])
        .args(args)
        .output();
    (out.status.code().unwrap(), out.stdout, out.stderr)
}

fn state(dir: &Path) -> String {
    std::fs::read_to_string(dir.join(".planning/STATE.md")).unwrap()
}

fn journal_lines(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join(".planning/STATE.md.journal.ndjson"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

#[test]
fn shows_the_diff_without_writing() {
    let dir = project(BEFORE);
    let (code, out, _) = sync(dir.path(), &[]);
    assert_eq!(code, 0);
    assert!(out.contains("\n-status: planning\n"), "{out}");
    assert!(out.contains("\n+status: executing\n"), "{out}");
    assert!(out.contains("\n-  percent: 10\n"), "{out}");
    assert!(out.contains("not written (pass --write to apply)"), "{out}");
    assert_eq!(state(dir.path()), BEFORE);
    assert_eq!(journal_lines(dir.path()), 0);
}

#[test]
fn write_keeps_unknown_keys_order_and_hand_written_values() {
    let dir = project(BEFORE);
    let (code, out, err) = sync(dir.path(), &["--write"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("written: .planning/STATE.md"), "{out}");
    assert_eq!(state(dir.path()), AFTER);
    assert!(!dir.path().join(".planning/STATE.md.lock").exists());
    let journal =
        std::fs::read_to_string(dir.path().join(".planning/STATE.md.journal.ndjson")).unwrap();
    let entry: Value = serde_json::from_str(journal.lines().next().unwrap()).unwrap();
    assert_eq!(entry["operation"], "gsd sync");
    assert_eq!(entry["sources"]["status"], "Status: Executing Phase 2");
    // The body is byte for byte what it was.
    let body = |t: &str| t.split_once("\n---\n").unwrap().1.to_string();
    assert_eq!(body(&state(dir.path())), body(BEFORE));
}

#[test]
fn nothing_to_change_means_no_write() {
    let dir = project(AFTER);
    let before_meta = std::fs::metadata(dir.path().join(".planning/STATE.md"))
        .unwrap()
        .modified()
        .unwrap();
    let (code, out, _) = sync(dir.path(), &["--write"]);
    assert_eq!(code, 0);
    assert!(out.contains("nothing to write"), "{out}");
    assert_eq!(state(dir.path()), AFTER);
    assert_eq!(journal_lines(dir.path()), 0);
    let after_meta = std::fs::metadata(dir.path().join(".planning/STATE.md"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before_meta, after_meta);
}

#[test]
fn hand_edited_key_with_unchanged_body_line_is_kept_as_drift() {
    let dir = project(BEFORE);
    assert_eq!(sync(dir.path(), &["--write"]).0, 0);
    // A person sets the frontmatter status on purpose; the body's Status line is untouched.
    let edited = AFTER.replace("status: executing\n", "status: verifying\n");
    std::fs::write(dir.path().join(".planning/STATE.md"), &edited).unwrap();
    let (code, out, _) = sync(dir.path(), &["--json", "--write"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["changed"], false);
    assert_eq!(v["written"], false);
    assert_eq!(v["drift"][0]["key"], "status");
    assert_eq!(v["drift"][0]["frontmatter"], "verifying");
    assert_eq!(v["drift"][0]["derived"], "executing");
    assert_eq!(state(dir.path()), edited);
    assert_eq!(journal_lines(dir.path()), 1);
    // Once the body line changes, the body wins again.
    let moved = edited.replace("Status: Executing Phase 2", "Status: Ready to plan");
    std::fs::write(dir.path().join(".planning/STATE.md"), &moved).unwrap();
    assert_eq!(sync(dir.path(), &["--write"]).0, 0);
    assert_eq!(
        state(dir.path()),
        moved.replace("status: verifying\n", "status: planning\n")
    );
}

#[test]
fn git_head_is_the_baseline_without_a_journal() {
    let mut repo = gitrepo::FixtureRepo::new();
    let committed = AFTER.replace("status: executing\n", "status: verifying\n");
    repo.write(".planning/STATE.md", &committed);
    repo.commit("state");
    let (code, out, _) = sync(repo.path(), &["--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["baseline"], "git HEAD");
    assert_eq!(v["drift"][0]["key"], "status");
    assert_eq!(v["changed"], false);
}

#[test]
fn live_lock_is_refused_and_dead_lock_taken_over() {
    let dir = project(BEFORE);
    let lock = dir.path().join(".planning/STATE.md.lock");
    // A live writer: this test process.
    std::fs::write(&lock, std::process::id().to_string()).unwrap();
    let (code, _, err) = sync(dir.path(), &["--write", "--lock-wait", "0"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with("lock-present:"), "{err}");
    assert_eq!(state(dir.path()), BEFORE);
    assert!(lock.exists());
    // A writer that died: its pid no longer runs.
    std::fs::write(&lock, "4194000").unwrap();
    let (code, _, err) = sync(dir.path(), &["--write", "--lock-wait", "0"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(state(dir.path()), AFTER);
    assert!(!lock.exists());
}

#[test]
fn creates_frontmatter_and_refuses_unclosed_one() {
    let dir = project("# State\n\nStatus: Ready to plan\n");
    std::fs::remove_dir_all(dir.path().join(".planning/phases")).unwrap();
    assert_eq!(sync(dir.path(), &["--write"]).0, 0);
    assert_eq!(
        state(dir.path()),
        "---\ngsd_state_version: \"1.0\"\nstatus: planning\nlast_updated: \"2026-07-01T10:00:00.000Z\"\n---\n# State\n\nStatus: Ready to plan\n"
    );
    let unclosed = "---\nstatus: planning\n# State\nStatus: Executing\n";
    std::fs::write(dir.path().join(".planning/STATE.md"), unclosed).unwrap();
    let (code, _, err) = sync(dir.path(), &["--write"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("shape-error:"), "{err}");
    assert_eq!(state(dir.path()), unclosed);
}

/// Regression: the printer hid `.env` values in the JSON *text*, so a value such as `true` or
/// `null` replaced a bare literal and `--json` printed invalid JSON. Values are now hidden in
/// the document's strings only.
#[test]
fn regression_json_stays_valid_with_env_values_that_are_json_literals() {
    let dir = project(BEFORE);
    std::fs::write(
        dir.path().join(".env"),
        "DEBUG=true\nLEVEL=null\nLIMIT=false\nTOKEN=executing\n",
    )
    .unwrap();
    let (code, out, err) = sync(dir.path(), &["--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(doc["changed"], Value::Bool(true));
    // A `.env` value inside a string is still hidden.
    assert!(!out.contains("executing"), "{out}");
    assert!(out.contains("[redacted .env value]"), "{out}");
}

//! `planseal hook session-start`, Claude Code's SessionStart hook: its stdout is exactly what
//! `planseal status` prints, followed by what `planseal checkpoint context` prints when the
//! project has a checkpoint — the same renderers — for the project named by the hook input's
//! `cwd`; nothing at all where there is no plan; and malformed input is an error (exit 1).

use crate::support::fs::copy_dir;
use crate::support::gitrepo::project_root;
use crate::support::run::{Planseal, Run};
use std::path::Path;

fn start_input(cwd: &Path) -> String {
    serde_json::json!({
        "session_id": "8a3f6a2c-1b7e-4f0e-9d65-3c2b1a0f9e87",
        "transcript_path": "/home/dev/.claude/projects/-work-app/8a3f6a2c.jsonl",
        "cwd": cwd,
        "hook_event_name": "SessionStart",
        "source": "startup",
    })
    .to_string()
}

fn run_in(dir: &Path, args: &[&str], stdin: &str) -> Run {
    Planseal::new().cwd(dir).args(args).stdin(stdin).output()
}

fn fixture(rel: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&project_root().join(rel), tmp.path());
    tmp
}

#[test]
fn plans_only_print_what_status_prints() {
    let tmp = fixture("fixtures/dwp/good");
    let hook = run_in(
        &std::env::temp_dir(),
        &["hook", "session-start"],
        &start_input(tmp.path()),
    );
    assert_eq!(hook.code, 0, "{}", hook.stderr);
    let status = run_in(tmp.path(), &["status"], "");
    assert!(status.stdout.contains("Plan: PLAN_csv_export"));
    assert_eq!(hook.stdout, status.stdout);
}

#[test]
fn a_checkpoint_adds_checkpoint_context() {
    let tmp = fixture("fixtures/checkpoint/legacy-good");
    let hook = run_in(
        tmp.path(),
        &["hook", "session-start"],
        &start_input(tmp.path()),
    );
    assert_eq!(hook.code, 0, "{}", hook.stderr);
    let status = run_in(tmp.path(), &["status"], "");
    let context = run_in(tmp.path(), &["checkpoint", "context"], "");
    assert!(context.stdout.contains("Next steps:"), "{}", context.stdout);
    assert_eq!(hook.stdout, format!("{}{}", status.stdout, context.stdout));
    // --json: the same text in the envelope.
    let json = run_in(
        tmp.path(),
        &["hook", "session-start", "--json"],
        &start_input(tmp.path()),
    );
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["result"], "ok");
    assert_eq!(v["additional_context"], hook.stdout);
}

#[test]
fn nothing_to_show_prints_nothing_and_bad_input_is_exit_1() {
    let empty = tempfile::tempdir().unwrap();
    let run = run_in(empty.path(), &["hook", "session-start"], "");
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "", "")
    );
    let run = run_in(empty.path(), &["hook", "session-start"], "{\"cwd\": 7}");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("hook-input-malformed: "),
        "{}",
        run.stderr
    );
}

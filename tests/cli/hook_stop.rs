//! `planseal hook stop`, Claude Code's Stop hook, fed the JSON Claude Code sends: it blocks
//! (exit 2, reason and fixing command on stderr) on an interrupted publication, a lock whose
//! owner is gone, and a plan that says completed while verify finds it NOT CONFORMANT; it passes
//! (exit 0, silent) on plans in progress and on completed plans that verify; it never blocks
//! when `stop_hook_active` is true; and its own errors (malformed stdin, an unreadable
//! state.json) are exit 1, never 2 and never a silent pass.

use crate::snapshots::broken_variant;
use crate::support::fs::copy_dir;
use crate::support::gitrepo::project_root;
use crate::support::run::{Planseal, Run};
use std::path::Path;

/// The hook input exactly as Claude Code sends it to a Stop hook.
fn stop_input(cwd: &Path, active: bool) -> String {
    serde_json::json!({
        "session_id": "8a3f6a2c-1b7e-4f0e-9d65-3c2b1a0f9e87",
        "transcript_path": "/home/dev/.claude/projects/-work-app/8a3f6a2c-1b7e-4f0e-9d65-3c2b1a0f9e87.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": active,
    })
    .to_string()
}

/// Runs the hook from another folder: the input's `cwd` names the project.
fn stop(_project: &Path, stdin: impl Into<Vec<u8>>) -> Run {
    Planseal::new()
        .cwd(std::env::temp_dir())
        .args(["hook", "stop"])
        .stdin(stdin)
        .output()
}

fn good() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&project_root().join("fixtures/dwp/good"), tmp.path());
    tmp
}

fn assert_blocks(run: &Run, plan: &str, fix: &str) {
    assert_eq!(run.code, 2, "stdout {}\nstderr {}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .starts_with("planseal: the plan state is not ready to stop on:\n"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("- {plan}: ")),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("  fix: {fix}\n")),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn an_interrupted_publication_blocks_with_recover() {
    let tmp = broken_variant("marker-present");
    let run = stop(tmp.path(), stop_input(tmp.path(), false));
    assert_blocks(
        &run,
        "PLAN_csv_export_done",
        "planseal recover .dwp/plans/PLAN_csv_export_done",
    );
    assert!(run.stderr.contains(".finalizing.json"), "{}", run.stderr);
}

#[test]
fn a_lock_whose_owner_is_gone_blocks_with_unlock() {
    let tmp = good();
    crate::support::chain::dead_writers_lock(&tmp.path().join(".dwp/plans/PLAN_log_rotation"));
    let run = stop(tmp.path(), stop_input(tmp.path(), false));
    assert_blocks(
        &run,
        "PLAN_log_rotation",
        "planseal unlock .dwp/plans/PLAN_log_rotation",
    );
    assert!(
        run.stderr.contains("held by a writer that is gone"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_completed_plan_that_does_not_verify_blocks_with_its_findings() {
    for case in ["receipt-missing", "security-review-missing"] {
        let tmp = broken_variant(case);
        let run = stop(tmp.path(), stop_input(tmp.path(), false));
        let plan = std::fs::read_dir(tmp.path().join(".dwp/plans"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .file_name()
            .into_string()
            .unwrap();
        assert_blocks(&run, &plan, &format!("planseal verify .dwp/plans/{plan}"));
        assert!(run.stderr.contains("NOT CONFORMANT"), "{}", run.stderr);
        // The same plan under `planseal verify`: NOT CONFORMANT indeed.
        let verify = Planseal::new().cwd(tmp.path()).arg("verify").output();
        assert_eq!(verify.code, 1, "{case}: {}", verify.stdout);
    }
}

#[test]
fn stop_hook_active_never_blocks() {
    for case in ["marker-present", "receipt-missing"] {
        let tmp = broken_variant(case);
        let run = stop(tmp.path(), stop_input(tmp.path(), true));
        assert_eq!(run.code, 0, "{case}: {}", run.stderr);
        assert_eq!(run.stderr, "");
    }
}

#[test]
fn plans_in_progress_and_completed_plans_that_verify_pass() {
    // good/ holds plans in progress and completed, published plans that verify.
    let tmp = good();
    let run = stop(tmp.path(), stop_input(tmp.path(), false));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
    let json = Planseal::new()
        .cwd(tmp.path())
        .args(["hook", "stop", "--json"])
        .stdin(stop_input(tmp.path(), false))
        .output();
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["result"], "ok");
    assert_eq!(v["decision"], "pass");
    assert_eq!(
        v["verified"],
        serde_json::json!(["PLAN_cli_color_flag_done", "PLAN_csv_export_done"]),
        "only the plans that claim completion are verified"
    );
    // A plan in progress with a NOT CONFORMANT finding: not claimed complete, not blocked.
    let tmp = broken_variant("completed-without-gates");
    let run = stop(tmp.path(), stop_input(tmp.path(), false));
    assert_eq!(run.code, 0, "{}", run.stderr);
    // A folder with no plan at all, and empty stdin (the working folder is the project).
    let empty = tempfile::tempdir().unwrap();
    let run = Planseal::new()
        .cwd(empty.path())
        .args(["hook", "stop"])
        .stdin("")
        .output();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
}

#[test]
fn malformed_input_and_unreadable_plans_are_errors_not_blocks() {
    let tmp = broken_variant("marker-present");
    for stdin in [
        "not json".to_string(),
        "[1, 2]".to_string(),
        "{\"stop_hook_active\": \"yes\"}".to_string(),
        format!("{{\"cwd\": {:?}}}", tmp.path().join("no-such-folder")),
        "x".repeat(2 << 20),
    ] {
        let run = stop(tmp.path(), stdin.clone());
        assert_eq!(
            run.code,
            1,
            "{}: {}",
            &stdin[..stdin.len().min(40)],
            run.stderr
        );
        assert!(!run.stderr.is_empty());
    }
    let run = stop(tmp.path(), "not json");
    assert!(
        run.stderr.starts_with("hook-input-malformed: "),
        "{}",
        run.stderr
    );
    // An unreadable state.json (a folder where the file should be): reported, exit 1.
    let tmp = good();
    let state = tmp.path().join(".dwp/plans/PLAN_log_rotation/state.json");
    std::fs::remove_file(&state).unwrap();
    std::fs::create_dir(&state).unwrap();
    let run = stop(tmp.path(), stop_input(tmp.path(), false));
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("planseal: error: "), "{}", run.stderr);
}

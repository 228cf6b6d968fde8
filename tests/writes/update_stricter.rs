//! Where `planseal update` is deliberately stricter than the DWP helper (`docs/update.md`), and the
//! helper-compatible command line (abbreviated long options, exit codes, output).

use crate::support::update::*;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;

fn update(s: &Scratch, args: &[&str]) -> Run {
    let state = format!(".dwp/plans/{}/state.json", s.plan);
    planseal()
        .arg("update")
        .arg(&state)
        .args(args)
        .cwd(s.root())
        .clock("2026-11-02T10:00:00+00:00")
        .output()
}

fn base(fixture: &str, folder: &str) -> Scratch {
    let dir = vectors().join(fixture);
    let plan = std::fs::read_dir(dir.join(folder))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("PLAN_")
        })
        .unwrap();
    let s = Scratch::new(&plan);
    let _ = std::fs::remove_file(s.plan_dir().join("analysis_results/FINALIZATION.json"));
    s
}

fn refused(out: &Run, kind: &str) {
    assert_eq!(out.status.code(), Some(1), "{}", stderr(out));
    assert!(
        stderr(out).starts_with(&format!("{kind}:")),
        "expected {kind}: {}",
        stderr(out)
    );
}

fn journal_last(s: &Scratch) -> Value {
    let text = std::fs::read_to_string(s.journal()).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

/// A leftover marker does not stop ordinary updates in the helper; planseal refuses
/// every update while `.finalizing.json` exists.
#[test]
fn leftover_marker_refuses_an_ordinary_update() {
    let s = base("A_lite_v2", "fixture");
    std::fs::write(s.plan_dir().join(".finalizing.json"), b"{}").unwrap();
    let before = s.state();
    let out = update(&s, &["--task", "1", "--status", "in_progress"]);
    refused(&out, "marker-present");
    assert!(stderr(&out).contains("planseal recover"));
    assert_eq!(s.state(), before);
}

/// Check 8 of `docs/update.md`: on v2/v5 a reopen needs the reason *and* an amendment record in the
/// task log dated no earlier than the task's completion; the reason is journaled.
#[test]
fn reopen_needs_an_amendment_record_on_v5() {
    let s = base("B_full_v5", "lifecycle/snapshots/after-task1");
    let before = s.state();
    let reopen = [
        "--task",
        "1",
        "--status",
        "in_progress",
        "--reopen-reason",
        "criterion 2 changed: jitter must be capped",
    ];
    refused(&update(&s, &reopen), "reopen-without-amendment");
    let task_file = s.plan_dir().join("1.task_backoff_schedule.md");
    let log = std::fs::read_to_string(&task_file).unwrap();
    // A backdated amendment (before completed_at, 2026-10-12) does not count.
    std::fs::write(
        &task_file,
        format!("{log}\n### Amendment 1 — 2026-10-01\n\nOriginal criterion: x\n"),
    )
    .unwrap();
    refused(&update(&s, &reopen), "reopen-without-amendment");
    assert_eq!(s.state(), before);
    std::fs::write(
        &task_file,
        format!(
            "{log}\n### Amendment 1 — 2026-11-02\n\nOriginal criterion: delays grow without bound\nObserved: no cap\nDisposition: revised criterion\nRevised criterion: delays are capped at 300 s\nReason: operator request\nAuthority: user\nAffected tasks: 1\nEvidence invalidated: t1-unittest\nEvidence preserved: none\n"
        ),
    )
    .unwrap();
    let out = update(&s, &reopen);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let state: Value = serde_json::from_slice(&s.state()).unwrap();
    assert_eq!(state["tasks"][0]["status"], "in_progress");
    assert_eq!(state["completed_count"], 0);
    let entry = journal_last(&s);
    assert_eq!(
        entry["reason"],
        "criterion 2 changed: jitter must be capped"
    );
    assert_eq!(entry["from"], "completed");
    assert_eq!(entry["to"], "in_progress");
}

/// Without a reason the helper's own refusal comes first.
#[test]
fn reopen_without_reason_is_refused_before_the_amendment_rule() {
    let s = base("B_full_v5", "lifecycle/snapshots/after-task1");
    refused(
        &update(&s, &["--task", "1", "--status", "pending"]),
        "reopen-without-reason",
    );
}

/// v1 plans: the amendment rule is only an advisory.
#[test]
fn reopen_on_v1_without_amendment_is_an_advisory() {
    let s = base("D_v1", "lifecycle/snapshots/after-task1");
    let out = update(
        &s,
        &[
            "--task",
            "1",
            "--status",
            "in_progress",
            "--reopen-reason",
            "env prefix renamed",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("advisory: reopen-without-amendment"),
        "{}",
        stderr(&out)
    );
    assert_eq!(journal_last(&s)["reason"], "env prefix renamed");
}

/// v2/v5 approval absent ⇒ the README `Approval:` line ⇒ pending (the helper
/// treats absent as approved).
#[test]
fn absent_approval_falls_back_to_the_readme_then_to_pending() {
    let s = base("A_lite_v2", "fixture");
    let mut state: Value = serde_json::from_slice(&s.state()).unwrap();
    state.as_object_mut().unwrap().remove("approval");
    std::fs::write(s.state_path(), planseal::jsonfmt::to_python_pretty(&state)).unwrap();
    // README says `Approval: approved`.
    let out = update(&s, &["--task", "1", "--status", "in_progress"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("approval-from-readme"),
        "{}",
        stderr(&out)
    );
    // Without the README line the plan counts as pending.
    let s = base("A_lite_v2", "fixture");
    std::fs::write(s.state_path(), planseal::jsonfmt::to_python_pretty(&state)).unwrap();
    let readme = std::fs::read_to_string(s.plan_dir().join("README.md")).unwrap();
    std::fs::write(
        s.plan_dir().join("README.md"),
        readme.replace("Approval: approved\n", ""),
    )
    .unwrap();
    let before = s.state();
    let out = update(&s, &["--task", "1", "--status", "in_progress"]);
    refused(&out, "not-approved");
    assert!(stderr(&out).contains("pending"), "{}", stderr(&out));
    assert_eq!(s.state(), before);
}

/// Check 14 of `docs/update.md`: both the first-two-pipes and the last-two-pipes splits give an
/// integer middle field and disagree.
#[test]
fn ambiguous_gate_spec_is_refused_with_a_gate_json_hint() {
    let s = base("A_lite_v2", "fixture");
    let out = update(
        &s,
        &[
            "--task",
            "1",
            "--status",
            "in_progress",
            "--gate",
            "check|1|a|0|ok",
        ],
    );
    refused(&out, "gate-spec-ambiguous");
    assert!(stderr(&out).contains("--gate-json"));
}

#[test]
fn abbreviated_options_work_like_the_helpers_parser() {
    let s = base("A_lite_v2", "fixture");
    let out = update(
        &s,
        &[
            "--ta",
            "1",
            "--stat",
            "in_progress",
            "--co",
            "49a4d7e",
            "--ag",
            "runner",
            "--mod",
            "m-1",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "task 1 → in_progress · 0/3 completed · plan in_progress\n"
    );
    let state: Value = serde_json::from_slice(&s.state()).unwrap();
    assert_eq!(state["tasks"][0]["commit"], "49a4d7e");
    assert_eq!(
        state["updated_by"],
        serde_json::json!({"agent": "runner", "model": "m-1"})
    );
    // `--stat=…` form too
    let out = update(
        &s,
        &[
            "--task=1",
            "--stat=in_progress",
            "--checkpoint-s",
            "reading",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let state: Value = serde_json::from_slice(&s.state()).unwrap();
    assert_eq!(state["checkpoint"]["step"], "reading");
}

#[test]
fn ambiguous_or_global_prefixes_are_usage_errors() {
    let s = base("A_lite_v2", "fixture");
    let before = s.state();
    for bad in [
        vec!["--task", "1", "--status", "in_progress", "--check", "x"], // --checkpoint-step / -note
        vec!["--task", "1", "--status", "in_progress", "--gat", "x|0|y"], // --gate / --gate-json
        vec!["--task", "1", "--status", "in_progress", "--js"],         // global flags: exact only
        vec!["--task", "1", "--status", "done"],
        vec!["--status", "in_progress"],
    ] {
        let out = update(&s, &bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
    assert_eq!(s.state(), before);
}

#[test]
fn json_output_and_permission_bits_kept() {
    let s = base("A_lite_v2", "fixture");
    std::fs::set_permissions(s.state_path(), std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = update(&s, &["--task", "1", "--status", "in_progress", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["result"], "applied");
    assert_eq!(doc["to"], "in_progress");
    assert_eq!(doc["after_sha256"].as_str().unwrap(), sha256(&s.state()));
    // The helper leaves state.json at 0600; planseal keeps the file's bits.
    let mode = std::fs::metadata(s.state_path())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o644);
}

#[test]
fn lock_of_the_python_helper_excludes_planseal() {
    let s = base("A_lite_v2", "fixture");
    std::fs::create_dir(s.plan_dir().join("state.json.lock")).unwrap();
    let out = update(&s, &["--task", "1", "--status", "in_progress"]);
    refused(&out, "lock-present");
    assert!(stderr(&out).contains("unknown owner"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--force --reason"),
        "{}",
        stderr(&out)
    );
}

/// Regression: a gate citing `log=state.json` made the receipt seal the hash from before the
/// publication (verify failed right after "published and verified"), and a folder was accepted
/// as a gate log and silently left out of the receipt. Both are refused at `update` time.
#[test]
fn a_gate_log_that_is_a_publication_file_or_a_folder_is_refused() {
    for (log, kind) in [
        ("state.json", "log-pointer-publication-file"),
        (
            "./analysis_results/FINALIZATION.json",
            "log-pointer-publication-file",
        ),
        (
            "analysis_results/STATE_JOURNAL.ndjson",
            "log-pointer-publication-file",
        ),
        ("analysis_results", "log-pointer-not-a-file"),
    ] {
        let s = base("A_lite_v2", "fixture");
        let before = std::fs::read(s.plan_dir().join("state.json")).unwrap();
        let out = update(
            &s,
            &[
                "--task",
                "1",
                "--status",
                "in_progress",
                "--gate",
                &format!("python3 -m unittest|0|ran=3/3; log={log}"),
            ],
        );
        refused(&out, kind);
        assert!(
            stderr(&out).contains(log.trim_start_matches("./")),
            "{}",
            stderr(&out)
        );
        assert_eq!(
            std::fs::read(s.plan_dir().join("state.json")).unwrap(),
            before,
            "{log}: nothing written"
        );
    }
}

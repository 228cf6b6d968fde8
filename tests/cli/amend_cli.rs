//! `planseal amend`: the nine-label record appended to the task's log, mirrored in PROGRESS.md,
//! and applied to state.json (invalidated runs marked, a completed task reopened). Refusals and
//! dry runs write nothing.

use crate::support::fs::{copy_dir, tree};
use crate::support::run::{Planseal, Run};
use crate::support::{stderr, stdout};
use std::path::{Path, PathBuf};

const PLAN: &str = ".dwp/plans/PLAN_webhook_retry_backoff";
const NOW: &str = "2026-11-02T10:00:00+00:00";

/// Fixture B after publication (four Full tasks, every gate citing a log), without its receipt.
fn published() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join(PLAN);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "fixtures/vectors/dwp/B_full_v5/lifecycle/snapshots/final/PLAN_webhook_retry_backoff",
        ),
        &plan,
    );
    let _ = std::fs::remove_file(plan.join("analysis_results/FINALIZATION.json"));
    (dir, plan)
}

fn run(root: &Path, args: &[&str]) -> Run {
    Planseal::new().cwd(root).clock(NOW).args(args).output()
}

fn state(plan: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(plan.join("state.json")).unwrap()).unwrap()
}

fn amend_args<'a>(task: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "amend",
        PLAN,
        "--task",
        task,
        "--criterion",
        "Operators can read the retry settings in docs/configuration.md",
        "--observed",
        "the table omits the jitter cap",
        "--disposition",
        "revised-criterion",
        "--revised",
        "the table lists every retry setting, the jitter cap included",
        "--reason",
        "the operator review found the gap",
        "--authority",
        "user",
    ];
    args.extend_from_slice(extra);
    args
}

fn gate_commands(plan: &Path, task: usize) -> Vec<(String, String)> {
    state(plan)["tasks"][task - 1]["gates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["command"].as_str().unwrap().to_string(),
                g["evidence"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn amending_a_completed_task_appends_the_record_marks_its_runs_and_reopens_it() {
    let (dir, plan) = published();
    let before = tree(&plan);
    let (command, evidence) = gate_commands(&plan, 4)[0].clone();
    let out = run(
        dir.path(),
        &amend_args(
            "4",
            &["--invalidates", &command, "--preserves", "t1-unittest"],
        ),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "PLAN_webhook_retry_backoff: Amendment 1 of task 4 (2026-11-02) recorded in 4.task_final_review.md, README.md, PROGRESS.md, state.json; 1 gate record(s) marked invalidated; task 4 reopened (in_progress)\n"
    );
    let after = tree(&plan);
    let changed: Vec<&str> = after
        .keys()
        .filter(|k| before.get(*k) != after.get(*k))
        .map(String::as_str)
        .collect();
    assert_eq!(
        changed,
        [
            "4.task_final_review.md",
            "PROGRESS.md",
            "README.md",
            "analysis_results/STATE_JOURNAL.ndjson",
            "state.json"
        ]
    );
    // The task file: its old bytes, then the record.
    let old = String::from_utf8(before["4.task_final_review.md"].clone().unwrap()).unwrap();
    let new = String::from_utf8(after["4.task_final_review.md"].clone().unwrap()).unwrap();
    assert_eq!(
        new,
        format!(
            "{}\n\n### Amendment 1 — 2026-11-02\n\nOriginal criterion: Operators can read the retry settings in docs/configuration.md\nObserved: the table omits the jitter cap\nDisposition: revised criterion\nRevised criterion: the table lists every retry setting, the jitter cap included\nReason: the operator review found the gap\nAuthority: user\nAffected tasks: Task 4\nEvidence invalidated: `{command}`\nEvidence preserved: `t1-unittest`\n",
            old.trim_end_matches('\n')
        )
    );
    let progress = String::from_utf8(after["PROGRESS.md"].clone().unwrap()).unwrap();
    assert!(progress.ends_with(&format!("\n## Amendment — 2026-11-02\n\n- Amendment 1 of Task 4: revised criterion — the operator review found the gap (authority: user)\n- Affected tasks: Task 4\n- Evidence invalidated: `{command}`\n")), "{progress}");
    // state.json: the run is history now, the task open again; no key was added.
    let s = state(&plan);
    assert_eq!(s["tasks"][3]["status"], "in_progress");
    assert_eq!(s["status"], "in_progress");
    assert_eq!(
        s["tasks"][3]["gates"][0]["evidence"],
        format!("invalidated by refine (Amendment 1): {evidence}")
    );
    assert_eq!(s["tasks"][3]["gates"][0].as_object().unwrap().len(), 5);
    let journal = String::from_utf8(
        after["analysis_results/STATE_JOURNAL.ndjson"]
            .clone()
            .unwrap(),
    )
    .unwrap();
    let line: serde_json::Value = serde_json::from_str(journal.lines().last().unwrap()).unwrap();
    assert_eq!(line["operation"], "amend");
    assert_eq!(line["amendment"], 1);
    assert_eq!(line["from"], "completed");
    assert_eq!(line["to"], "in_progress");
    // verify reads the record as a real one, mirrored.
    let verify = run(dir.path(), &["verify", PLAN]);
    let report = stdout(&verify);
    assert!(
        !report.contains("amendment-incomplete") && !report.contains("not mirrored"),
        "{report}"
    );
    // A second amendment takes the next number.
    let again = run(dir.path(), &amend_args("4", &[]));
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(
        stdout(&again).contains("Amendment 2 of task 4"),
        "{}",
        stdout(&again)
    );
}

#[test]
fn an_open_task_only_gets_its_runs_marked() {
    let (dir, plan) = published();
    // Reopen task 4 with an amendment first, then amend it again while it is open.
    let first = run(dir.path(), &amend_args("4", &[]));
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let (command, _) = gate_commands(&plan, 4)[1].clone();
    let out = run(dir.path(), &amend_args("4", &["--invalidates", &command]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stdout(&out).contains("reopened"), "{}", stdout(&out));
    assert!(
        gate_commands(&plan, 4)[1]
            .1
            .starts_with("invalidated by refine (Amendment 2): "),
        "{:?}",
        gate_commands(&plan, 4)
    );
    // Completing it again now needs a fresh run of that command.
    let close = run(
        dir.path(),
        &[
            "update",
            &format!("{PLAN}/state.json"),
            "--task",
            "4",
            "--status",
            "completed",
        ],
    );
    assert_eq!(close.status.code(), Some(1), "{}", stderr(&close));
    assert!(
        stderr(&close).starts_with("evidence-invalidated-by-refine:"),
        "{}",
        stderr(&close)
    );
}

#[test]
fn refusals_and_dry_runs_write_nothing() {
    let (dir, plan) = published();
    let before = tree(&plan);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            amend_args("4", &["--invalidates", "no such gate"]),
            "gate-not-recorded:",
        ),
        (amend_args("9", &[]), "unknown-task:"),
        (amend_args("4", &["--affects", "7"]), "unknown-task:"),
        // Task 2 is under completed tasks 3 and 4, which the amendment does not name.
        (amend_args("2", &[]), "reopen-leaves-later-completed:"),
        (
            amend_args("4", &["--expected-sha256", "ab"]),
            "stale-snapshot:",
        ),
    ];
    for (args, kind) in cases {
        let out = run(dir.path(), &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).starts_with(kind), "{args:?}: {}", stderr(&out));
    }
    let mut deferred = amend_args("3", &[]);
    let at = deferred
        .iter()
        .position(|a| *a == "revised-criterion")
        .unwrap();
    deferred[at] = "deferred-requirement";
    let out = run(dir.path(), &deferred);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("a deferred requirement moves the criterion to another task"),
        "{}",
        stderr(&out)
    );
    let dry = run(dir.path(), &amend_args("4", &["--dry-run"]));
    assert_eq!(dry.status.code(), Some(0), "{}", stderr(&dry));
    assert!(
        stdout(&dry).contains("+### Amendment 1 — 2026-11-02\n"),
        "{}",
        stdout(&dry)
    );
    assert!(stdout(&dry).ends_with("nothing written (--dry-run)\n"));
    assert_eq!(tree(&plan), before);
    // The affected later tasks named: accepted.
    let named = run(
        dir.path(),
        &amend_args("2", &["--affects", "2", "--affects", "3", "--affects", "4"]),
    );
    assert_eq!(named.status.code(), Some(0), "{}", stderr(&named));
    assert_eq!(state(&plan)["tasks"][1]["status"], "in_progress");
}

#[test]
fn an_amendment_is_never_backdated() {
    let (dir, plan) = published();
    let first = run(dir.path(), &amend_args("4", &[]));
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let before = tree(&plan);
    let out = Planseal::new()
        .cwd(dir.path())
        .clock("2026-11-01T10:00:00+00:00")
        .args(amend_args("4", &[]))
        .output();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("amendment-backdated:"),
        "{}",
        stderr(&out)
    );
    assert_eq!(tree(&plan), before);
}

/// The bug: `amend` reopened a completed task in state.json but left its README box ticked and
/// `Plan Status` counting it, so the plan read as done in the markdown and open in the state —
/// NOT CONFORMANT for `verify` and for the DWP helper's checker alike. The reopen now unticks
/// the box and recounts `Plan Status` (in the README itself for a Lite plan), before state.json.
#[test]
fn an_amendment_that_reopened_a_task_left_its_readme_box_ticked() {
    // Full: task 4 of fixture B, published.
    let (dir, plan) = published();
    let out = run(dir.path(), &amend_args("4", &[]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let readme = std::fs::read_to_string(plan.join("README.md")).unwrap();
    assert!(
        readme.contains(
            "- [ ] Task 4: Final Review — [4.task_final_review.md](./4.task_final_review.md)\n"
        ),
        "{readme}"
    );
    assert!(readme.contains("Plan Status: 3/4 completed\n"), "{readme}");
    let verify = run(dir.path(), &["verify", PLAN]);
    assert!(
        !stdout(&verify).contains("README ticks task"),
        "{}",
        stdout(&verify)
    );

    // Lite: task 1 of fixture A, right after its completion; the record is in the README too.
    let dir = tempfile::tempdir().unwrap();
    let lite = dir.path().join(".dwp/plans/PLAN_http_rate_limit");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "fixtures/vectors/dwp/A_lite_v2/lifecycle/snapshots/after-task1/PLAN_http_rate_limit",
        ),
        &lite,
    );
    let out = run(
        dir.path(),
        &[
            "amend",
            ".dwp/plans/PLAN_http_rate_limit",
            "--task",
            "1",
            "--criterion",
            "After 0.2 s of fake time exactly one more permit is available.",
            "--observed",
            "the refill test advanced the clock by 0.25 s",
            "--disposition",
            "failed-gate",
            "--reason",
            "the test must advance exactly 0.2 s",
            "--authority",
            "evidence",
            "--invalidates",
            "t1-unittest",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("recorded in README.md, PROGRESS.md, state.json"),
        "{}",
        stdout(&out)
    );
    let readme = std::fs::read_to_string(lite.join("README.md")).unwrap();
    assert!(
        readme.contains("- [ ] Task 1: Token bucket limiter\n"),
        "{readme}"
    );
    assert!(readme.contains("Plan Status: 0/3 completed\n"), "{readme}");
    assert!(
        readme.contains("### Amendment 1 — 2026-11-02\n"),
        "{readme}"
    );
    assert_eq!(state(&lite)["tasks"][0]["status"], "in_progress");
    let verify = run(dir.path(), &["verify", ".dwp/plans/PLAN_http_rate_limit"]);
    assert_eq!(verify.status.code(), Some(0), "{}", stdout(&verify));
}

#[test]
fn amend_json_documents_are_in_the_envelope() {
    let (dir, plan) = published();
    let mut args = vec!["--json"];
    args.extend(amend_args("4", &["--dry-run"]));
    let dry = crate::support::run::json(&stdout(&run(dir.path(), &args)));
    assert_eq!(dry["result"], "ok");
    let mut args = vec!["--json"];
    args.extend(amend_args("9", &[]));
    let refused = run(dir.path(), &args);
    assert_eq!(refused.status.code(), Some(1));
    let doc = crate::support::run::json(&stdout(&refused));
    assert_eq!(doc["result"], "refused");
    assert_eq!(doc["kind"], "unknown-task");
    let mut args = vec!["--json"];
    args.extend(amend_args("4", &[]));
    let applied = run(dir.path(), &args);
    assert_eq!(applied.status.code(), Some(0), "{}", stderr(&applied));
    assert_eq!(
        crate::support::run::json(&stdout(&applied))["result"],
        "applied"
    );
    assert_eq!(state(&plan)["tasks"][3]["status"], "in_progress");
}

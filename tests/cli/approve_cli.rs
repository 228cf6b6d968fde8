//! `planseal approve`: the user's approval written where the plan's rules read it — state.json
//! `approval` and the README `Approval:` line — with the approver named only in PROGRESS.md and
//! the journal. Every other byte is kept; refusals and dry runs write nothing.

use crate::support::fs::{copy_dir, tree};
use crate::support::run::{Planseal, Run};
use crate::support::{stderr, stdout};
use std::path::{Path, PathBuf};

const NOW: &str = "2026-10-05T09:00:00+00:00";
const PLAN: &str = ".dwp/plans/PLAN_http_rate_limit";
const JOURNAL: &str = "analysis_results/STATE_JOURNAL.ndjson";

/// Fixture A's plan before any work, with its approval taken back to pending in both places.
fn pending_plan(readme_line: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join(PLAN);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/vectors/dwp/A_lite_v2/fixture/PLAN_http_rate_limit"),
        &plan,
    );
    let state = std::fs::read_to_string(plan.join("state.json")).unwrap();
    let state = state.replace("\"approval\": \"approved\"", "\"approval\": \"pending\"");
    std::fs::write(plan.join("state.json"), state).unwrap();
    let readme = std::fs::read_to_string(plan.join("README.md")).unwrap();
    std::fs::write(
        plan.join("README.md"),
        readme.replace("Approval: approved", readme_line),
    )
    .unwrap();
    (dir, plan)
}

fn run(root: &Path, args: &[&str]) -> Run {
    Planseal::new().cwd(root).clock(NOW).args(args).output()
}

fn read(plan: &Path, rel: &str) -> String {
    std::fs::read_to_string(plan.join(rel)).unwrap()
}

#[test]
fn approve_sets_state_and_readme_and_names_the_approver_only_in_progress_and_the_journal() {
    let (dir, plan) = pending_plan("Approval: pending");
    let before = tree(&plan);
    // Pending: work cannot start.
    let refused = run(
        dir.path(),
        &[
            "update",
            &format!("{PLAN}/state.json"),
            "--task",
            "1",
            "--status",
            "in_progress",
        ],
    );
    assert!(
        stderr(&refused).starts_with("not-approved"),
        "{}",
        stderr(&refused)
    );

    let out = run(dir.path(), &["approve", PLAN, "--by", "Ana Lima"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "PLAN_http_rate_limit: approval set pending → approved (README.md, PROGRESS.md, state.json)\n"
    );
    let after = tree(&plan);
    // Exactly these files changed (plus the journal, new in analysis_results/).
    let changed: Vec<&str> = after
        .keys()
        .filter(|k| before.get(*k) != after.get(*k))
        .map(String::as_str)
        .collect();
    assert_eq!(changed, ["PROGRESS.md", "README.md", JOURNAL, "state.json"]);
    let old_readme = String::from_utf8(before["README.md"].clone().unwrap()).unwrap();
    assert_eq!(
        read(&plan, "README.md"),
        old_readme.replace("Approval: pending", "Approval: approved")
    );
    let old_progress = String::from_utf8(before["PROGRESS.md"].clone().unwrap()).unwrap();
    assert_eq!(
        read(&plan, "PROGRESS.md"),
        format!(
            "{old_progress}\n## Approval — 2026-10-05\n\n- Plan approved by Ana Lima (recorded by planseal approve)\n- approval: pending → approved\n"
        )
    );
    let old_state = String::from_utf8(before["state.json"].clone().unwrap()).unwrap();
    let new_state = read(&plan, "state.json");
    assert_eq!(
        new_state,
        old_state
            .replace("\"approval\": \"pending\"", "\"approval\": \"approved\"")
            .replace(
                "\"updated_at\": \"2026-10-05T08:40:00Z\"",
                "\"updated_at\": \"2026-10-05T09:00:00+00:00\""
            )
    );
    assert!(!new_state.contains("Ana Lima"));
    let journal = read(&plan, JOURNAL);
    let line: serde_json::Value = serde_json::from_str(journal.lines().last().unwrap()).unwrap();
    assert_eq!(line["operation"], "approve");
    assert_eq!(line["approved_by"], "Ana Lima");
    assert_eq!(line["to"], "approved");

    // Approved: work starts; and approving again changes nothing.
    let started = run(
        dir.path(),
        &[
            "update",
            &format!("{PLAN}/state.json"),
            "--task",
            "1",
            "--status",
            "in_progress",
        ],
    );
    assert_eq!(started.status.code(), Some(0), "{}", stderr(&started));
    let settled = tree(&plan);
    let again = run(dir.path(), &["approve", PLAN, "--by", "Ana Lima"]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(
        stdout(&again),
        "PLAN_http_rate_limit: already approved; nothing written\n"
    );
    assert_eq!(tree(&plan), settled);
}

#[test]
fn pre_approval_writes_its_reason_into_a_plan_variables_row_and_keeps_crlf() {
    let (dir, plan) = pending_plan("| Approval | pending |");
    // A CRLF README: the edited row keeps its line ending.
    let readme = read(&plan, "README.md").replace('\n', "\r\n");
    std::fs::write(plan.join("README.md"), &readme).unwrap();
    let out = run(
        dir.path(),
        &[
            "approve",
            PLAN,
            "--by",
            "Ana Lima",
            "--pre",
            "routine change, trusted repo",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["result"], "applied");
    assert_eq!(doc["approval"], "pre_approved");
    assert_eq!(
        read(&plan, "README.md"),
        readme.replace(
            "| Approval | pending |",
            "| Approval | pre-approved (routine change, trusted repo) |"
        )
    );
    assert!(read(&plan, "state.json").contains("\"approval\": \"pre_approved\""));
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let (dir, plan) = pending_plan("Approval: pending");
    let before = tree(&plan);
    let out = run(
        dir.path(),
        &["approve", PLAN, "--by", "Ana Lima", "--dry-run"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("PLAN_http_rate_limit: approval would set pending → approved"),
        "{text}"
    );
    assert!(
        text.contains("-Approval: pending\n+Approval: approved\n"),
        "{text}"
    );
    assert!(
        text.contains("-  \"approval\": \"pending\",\n+  \"approval\": \"approved\",\n"),
        "{text}"
    );
    assert!(text.ends_with("nothing written (--dry-run)\n"), "{text}");
    assert_eq!(tree(&plan), before);
}

#[test]
fn refusals_leave_every_file_byte_identical() {
    let (dir, plan) = pending_plan("Approval: pending");
    let before = tree(&plan);
    let stale = run(
        dir.path(),
        &[
            "approve",
            PLAN,
            "--by",
            "Ana Lima",
            "--expected-sha256",
            &"0".repeat(64),
        ],
    );
    assert_eq!(stale.status.code(), Some(1));
    assert!(
        stderr(&stale).starts_with("stale-snapshot:"),
        "{}",
        stderr(&stale)
    );
    let empty = run(dir.path(), &["approve", PLAN, "--by", "  "]);
    assert_eq!(empty.status.code(), Some(1));
    assert!(
        stderr(&empty).contains("--by must be one line"),
        "{}",
        stderr(&empty)
    );
    let two_lines = run(
        dir.path(),
        &["approve", PLAN, "--by", "Ana", "--pre", "a\nb"],
    );
    assert_eq!(two_lines.status.code(), Some(1));
    let missing_by = run(dir.path(), &["approve", PLAN]);
    assert_eq!(missing_by.status.code(), Some(2));
    assert!(
        stderr(&missing_by).contains("--by"),
        "{}",
        stderr(&missing_by)
    );
    assert_eq!(tree(&plan), before);
}

#[test]
fn a_published_plan_is_not_approved_again() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join(PLAN);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/vectors/dwp/A_lite_v2/lifecycle/snapshots/final/PLAN_http_rate_limit"),
        &plan,
    );
    let state = read(&plan, "state.json")
        .replace("\"approval\": \"approved\"", "\"approval\": \"pending\"");
    std::fs::write(plan.join("state.json"), state).unwrap();
    let before = tree(&plan);
    let out = run(dir.path(), &["approve", PLAN, "--by", "Ana Lima"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("plan-completed:"),
        "{}",
        stderr(&out)
    );
    assert_eq!(tree(&plan), before);
}

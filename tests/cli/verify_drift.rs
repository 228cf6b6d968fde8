//! `planseal verify` takes drift from git: commits naming a task the
//! state does not call completed, or a task number the plan does not have, are advisories with a
//! hint to `rebuild`; in a shallow clone what lies beyond the boundary is `history truncated`,
//! never a failure; a plan outside git gets no git finding.

use crate::support;
use crate::support::plans::{self, Case, PLAN_A};
use crate::support::{planseal, stdout};

const GIT_IDS: [&str; 6] = [
    "commit-names-incomplete-task",
    "commit-names-unknown-task",
    "completed-task-without-commit",
    "completed-task-not-in-history",
    "history-truncated",
    "commit-drift",
];

/// Runs `verify --json` on the case's plan; returns the exit code, the verdict and the findings.
fn verify(case: &Case) -> (Option<i32>, String, Vec<serde_json::Value>) {
    let before = plans::snapshot_files(&case.plan);
    let out = planseal(&case.root, &["--json", "verify", &case.plan_rel()]);
    assert_eq!(
        plans::snapshot_files(&case.plan),
        before,
        "verify is read-only"
    );
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("one JSON document");
    let verdict = doc["verdict"].as_str().expect("verdict").to_string();
    let findings = doc["sections"][0]["findings"]
        .as_array()
        .expect("findings")
        .clone();
    (out.status.code(), verdict, findings)
}

fn with_id<'a>(findings: &'a [serde_json::Value], id: &str) -> Vec<&'a serde_json::Value> {
    findings.iter().filter(|f| f["id"] == id).collect()
}

fn git_findings(findings: &[serde_json::Value]) -> Vec<String> {
    findings
        .iter()
        .filter_map(|f| f["id"].as_str())
        .filter(|id| GIT_IDS.contains(id))
        .map(str::to_string)
        .collect()
}

/// Drops `commit` from tasks `tasks` of state.json and removes the receipt (plan A is a 2.x
/// plan: a missing receipt is an advisory there), so that only the commit rule can fail.
fn strip_commits(case: &Case, tasks: &[usize]) {
    let path = case.plan.join("state.json");
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("state")).expect("json");
    for &i in tasks {
        v["tasks"][i - 1]
            .as_object_mut()
            .expect("task")
            .remove("commit");
    }
    let mut text = serde_json::to_string_pretty(&v).expect("json");
    text.push('\n');
    std::fs::write(&path, text).expect("write");
    std::fs::remove_file(case.plan.join("analysis_results/FINALIZATION.json")).expect("receipt");
}

#[test]
fn a_commit_naming_a_pending_task_is_an_advisory_pointing_to_rebuild() {
    // A after task 1, in the repository holding all three task commits: git is ahead of the state.
    let (tmp, root) = support::gitrepo::vector_repo(
        "A_lite_v2",
        None,
        Some(&plans::snapshot("A_lite_v2", PLAN_A, "after-task1")),
    );
    let case = Case {
        tmp,
        plan: root.join(".dwp/plans").join(PLAN_A),
        root,
    };
    let (code, verdict, findings) = verify(&case);
    let drift = with_id(&findings, "commit-names-incomplete-task");
    let tasks: Vec<u64> = drift
        .iter()
        .map(|f| f["task"].as_u64().expect("task"))
        .collect();
    assert_eq!(tasks, [2, 3], "{findings:#?}");
    for f in &drift {
        assert_eq!(f["severity"], "advisory");
        assert!(
            f["message"]
                .as_str()
                .expect("message")
                .contains("but state.json says it is pending"),
            "{f}"
        );
        assert_eq!(
            f["hint"],
            format!(
                "run `planseal rebuild {}` to see how state.json would be reconciled",
                case.plan_rel()
            )
        );
    }
    // Advisories never change the verdict: the plan is otherwise conformant.
    assert_eq!(verdict, "CONFORMANT", "{findings:#?}");
    assert_eq!(code, Some(0));
    // The text form shows the advisory and its hint.
    let text = stdout(&planseal(&case.root, &["verify", &case.plan_rel()]));
    assert!(
        text.contains("  [~] commit 0684d92 names task 2, but state.json says it is pending (SHOULD)\n      hint: run `planseal rebuild .dwp/plans/PLAN_http_rate_limit` to see how state.json would be reconciled\n"),
        "{text}"
    );
    // The closing advisory stays last.
    assert_eq!(
        findings.last().expect("findings")["id"],
        "semantic-review-required"
    );
}

#[test]
fn a_commit_naming_a_task_number_the_plan_lacks_is_an_advisory() {
    let case = plans::renamed_task_numbers();
    let (code, verdict, findings) = verify(&case);
    let unknown = with_id(&findings, "commit-names-unknown-task");
    assert_eq!(unknown.len(), 1, "{findings:#?}");
    assert_eq!(unknown[0]["severity"], "advisory");
    assert_eq!(unknown[0]["task"], 4);
    let message = unknown[0]["message"].as_str().expect("message");
    assert!(
        message.contains("names task 4, which the plan does not have (3 task(s))"),
        "{message}"
    );
    assert!(message.contains("chore(release): tag 0.4.0 - Task 4 of PLAN_http_rate_limit"));
    assert!(
        unknown[0]["hint"]
            .as_str()
            .expect("hint")
            .contains("planseal rebuild")
    );
    assert_eq!(unknown[0]["plan"], PLAN_A);
    assert_eq!((verdict.as_str(), code), ("CONFORMANT", Some(0)));
}

#[test]
fn a_clean_plan_reports_that_git_agrees() {
    let case = plans::clean_a();
    let (code, verdict, findings) = verify(&case);
    assert_eq!(git_findings(&findings), ["commit-drift"], "{findings:#?}");
    assert_eq!(with_id(&findings, "commit-drift")[0]["severity"], "pass");
    assert_eq!((verdict.as_str(), code), ("CONFORMANT", Some(0)));
}

#[test]
fn a_completed_task_without_a_commit_fails_in_a_full_clone() {
    // The reference for the shallow case below: the same edit with the whole history readable.
    let case = plans::clean_a();
    strip_commits(&case, &[1, 2]);
    let (code, verdict, findings) = verify(&case);
    let failures: Vec<u64> = with_id(&findings, "completed-task-without-commit")
        .iter()
        .map(|f| {
            assert_eq!(f["severity"], "fail", "{f}");
            f["task"].as_u64().expect("task")
        })
        .collect();
    // One failure per task: the drift advisory repeating it is left out.
    assert_eq!(failures, [1, 2], "{findings:#?}");
    assert_eq!((verdict.as_str(), code), ("NOT CONFORMANT", Some(1)));
}

#[test]
fn a_shallow_clone_reports_truncated_history_and_never_fails_on_it() {
    let case = plans::shallow();
    let (code, verdict, findings) = verify(&case);
    let truncated: Vec<u64> = with_id(&findings, "history-truncated")
        .iter()
        .map(|f| {
            assert_eq!(f["severity"], "advisory", "{f}");
            assert!(
                f["hint"]
                    .as_str()
                    .expect("hint")
                    .contains("git fetch --unshallow")
            );
            f["task"].as_u64().expect("task")
        })
        .collect();
    // Only task 3's commit is in the clone: tasks 1 and 2's commits, then the gate revisions
    // (fp=) of tasks 1–3, lie beyond the boundary.
    assert_eq!(truncated, [1, 2, 1, 2, 3], "{findings:#?}");
    assert!(with_id(&findings, "completed-task-without-commit").is_empty());
    assert_eq!((verdict.as_str(), code), ("CONFORMANT", Some(0)));

    // Tasks 1 and 2 without a recorded commit (as `rebuild` leaves them in this clone): their
    // commits lie beyond the boundary, so the commit rule is an advisory here, not a failure.
    strip_commits(&case, &[1, 2]);
    let (code, verdict, findings) = verify(&case);
    assert!(
        findings.iter().all(|f| f["severity"] != "fail"),
        "{findings:#?}"
    );
    assert!(with_id(&findings, "completed-task-without-commit").is_empty());
    assert_eq!(with_id(&findings, "history-truncated").len(), 5);
    assert_eq!(
        findings.last().expect("findings")["id"],
        "semantic-review-required"
    );
    assert_eq!((verdict.as_str(), code), ("CONFORMANT", Some(0)));
}

#[test]
fn a_plan_outside_git_gets_no_git_finding() {
    let case = plans::no_git();
    let (code, verdict, findings) = verify(&case);
    assert!(git_findings(&findings).is_empty(), "{findings:#?}");
    assert_eq!((verdict.as_str(), code), ("CONFORMANT", Some(0)));
}

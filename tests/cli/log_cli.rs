//! `planseal log` on the fixture repositories of `tests/support/plans.rs`.

use crate::support;
use crate::support::plans::{self, Case};
use crate::support::{planseal, stdout};

fn log(case: &Case, extra: &[&str]) -> (Option<i32>, String) {
    let rel = case.plan_rel();
    let mut args = vec!["log", rel.as_str()];
    args.extend_from_slice(extra);
    let before = plans::snapshot_files(&case.root.join(".dwp"));
    let out = planseal(&case.root, &args);
    // log is read-only.
    assert_eq!(plans::snapshot_files(&case.root.join(".dwp")), before);
    (out.status.code(), stdout(&out))
}

fn json(case: &Case) -> serde_json::Value {
    let (code, text) = log(case, &["--json"]);
    assert_eq!(code, Some(0));
    serde_json::from_str(&text).expect("one JSON document")
}

fn difference_kinds(v: &serde_json::Value) -> Vec<(String, u64)> {
    v["differences"]
        .as_array()
        .expect("differences")
        .iter()
        .map(|d| {
            (
                d["kind"].as_str().expect("kind").to_string(),
                d["task"].as_u64().expect("task"),
            )
        })
        .collect()
}

#[test]
fn clean_plan_shows_which_commit_completed_each_task() {
    let case = plans::clean();
    let (code, text) = log(&case, &["--exit-code"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        text,
        "Plan: PLAN_webhook_retry_backoff (branch main at 84568ad)
  [x] task 1  completed  181b2b7  2026-10-12T13:14:00+00:00  feat(backoff): capped exponential schedule with full jitter - Task 1 of PLAN_webhook_retry_backoff
  [x] task 2  completed  f948e3c  2026-10-12T13:54:00+00:00  feat(deliver): retry transient delivery failures - Task 2 of PLAN_webhook_retry_backoff
  [x] task 3  completed  9c3786d  2026-10-12T14:34:00+00:00  docs(retries): document retry settings for operators - Task 3 of PLAN_webhook_retry_backoff
  [x] task 4  completed  84568ad  2026-10-12T15:14:00+00:00  docs(changelog): note delivery retries after final review - Task 4 of PLAN_webhook_retry_backoff
No differences between git and the plan.
"
    );
    let v = json(&case);
    assert_eq!(
        v["repository"]["head"],
        "84568addaaf667b18d41a68fef7060463b97343c"
    );
    assert_eq!(
        v["tasks"][0]["commit"]["id"],
        "181b2b756f52d42a27ec2d46e95d2d33f2f747b9"
    );
    assert_eq!(
        v["tasks"][0]["recorded_commit"],
        v["tasks"][0]["commit"]["id"]
    );
    assert_eq!(
        v["tasks"][3]["commit"]["committed_at"],
        "2026-10-12T15:14:00+00:00"
    );
    assert_eq!(difference_kinds(&v), vec![]);
}

#[test]
fn deleted_state_every_commit_names_a_task_the_state_does_not_hold() {
    let case = plans::deleted_state();
    let (code, text) = log(&case, &["--exit-code"]);
    assert_eq!(code, Some(1));
    assert!(text.contains("  note: state.json is missing\n"), "{text}");
    assert!(text.contains("  [x] task 2  -  f948e3c  2026-10-12T13:54:00+00:00  feat(deliver)"));
    let v = json(&case);
    assert_eq!(
        difference_kinds(&v),
        (1..=4)
            .map(|n| ("commit-names-incomplete-task".to_string(), n))
            .collect::<Vec<_>>()
    );
    // Without --exit-code a report command exits 0 even with differences.
    assert_eq!(log(&case, &[]).0, Some(0));
}

#[test]
fn stale_state_two_tasks_behind() {
    let case = plans::stale_state();
    let (code, text) = log(&case, &["--exit-code"]);
    assert_eq!(code, Some(1));
    assert!(text.contains("  [x] task 3  pending    9c3786d"), "{text}");
    assert!(text.ends_with(
        "Differences (2):
  ! commit-names-incomplete-task: commit 9c3786d names task 3, but state.json says pending
  ! commit-names-incomplete-task: commit 84568ad names task 4, but state.json says pending
"
    ));
}

#[test]
fn hand_edited_state_ahead_of_the_markdown() {
    let case = plans::state_ahead();
    let (_, text) = log(&case, &[]);
    // README leaves task 2 unticked while state.json calls it completed and git has its commit.
    assert!(
        text.contains("  [ ] task 2  completed  0684d92  2026-10-05T09:44:00+00:00"),
        "{text}"
    );
    let v = json(&case);
    assert_eq!(v["tasks"][1]["readme_checked"], false);
    assert_eq!(v["tasks"][1]["state_status"], "completed");
    assert_eq!(
        difference_kinds(&v),
        vec![("commit-names-incomplete-task".to_string(), 3)]
    );
}

#[test]
fn renamed_task_numbers_commit_names_a_task_that_does_not_exist() {
    let case = plans::renamed_task_numbers();
    let (code, text) = log(&case, &["--exit-code"]);
    assert_eq!(code, Some(1));
    assert!(
        text.contains("names task 4, which the plan does not have"),
        "{text}"
    );
    let v = json(&case);
    assert_eq!(
        difference_kinds(&v),
        vec![("commit-names-unknown-task".to_string(), 4)]
    );
    let d = &v["differences"][0];
    assert_eq!(
        d["commit"]["subject"],
        "chore(release): tag 0.4.0 - Task 4 of PLAN_http_rate_limit"
    );
}

#[test]
fn merges_task_commits_on_a_merged_branch_are_found() {
    let case = plans::merges();
    let v = json(&case);
    let subjects: Vec<&str> = v["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|t| {
            t["commit"]["subject"]
                .as_str()
                .expect("every task has a commit")
        })
        .collect();
    assert_eq!(
        subjects,
        [
            "feat(ratelimit): token bucket - Task 1 of PLAN_http_rate_limit",
            "feat(client): pacing - Task 2 of PLAN_http_rate_limit",
            "docs(changelog): final review - Task 3 of PLAN_http_rate_limit",
        ]
    );
    let reference = support::gitrepo::git(&case.root, &["log", "--format=%H", "--grep=Task 1 of"]);
    assert_eq!(v["tasks"][0]["commit"]["id"], reference.trim());
}

#[test]
fn shallow_clone_says_history_is_truncated() {
    let case = plans::shallow();
    let (code, text) = log(&case, &["--exit-code"]);
    // Tasks beyond the boundary are not differences: their commits just cannot be read.
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("(branch main at 8ec9422, shallow clone)"));
    assert!(
        text.contains("  [x] task 1  completed  no commit names it before the shallow boundary\n")
    );
    assert!(text.contains("history truncated"));
    let v = json(&case);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["repository"]["shallow"], true);
}

#[test]
fn no_git_lists_the_plan_without_history() {
    let case = plans::no_git();
    let (code, text) = log(&case, &["--exit-code"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        text,
        "Plan: PLAN_http_rate_limit (not in a git repository)
  [x] task 1  completed
  [x] task 2  completed
  [x] task 3  completed
"
    );
    assert_eq!(json(&case)["repository"], serde_json::Value::Null);
}

#[test]
fn a_folder_that_is_no_plan_is_a_usage_error() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = planseal(tmp.path(), &["log", "nowhere"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(support::stderr(&out).contains("nowhere: not a folder"));
    std::fs::create_dir(tmp.path().join("empty")).expect("mkdir");
    let out = planseal(tmp.path(), &["log", "empty"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(support::stderr(&out).contains("neither README.md nor state.json"));
}

#[test]
fn file_history_of_a_file_equals_git_log() {
    let case = plans::merges();
    for file in ["src/client.py", "README.md", "CHANGELOG.md"] {
        let out = planseal(&case.root, &["log", &case.plan_rel(), "--file", file]);
        assert_eq!(out.status.code(), Some(0));
        let ours: Vec<String> = stdout(&out)
            .lines()
            .map(|l| l.split(' ').next().expect("hash").to_string())
            .collect();
        assert_eq!(
            ours,
            support::gitrepo::git_log_path(&case.root, file, false),
            "{file}"
        );
    }
    let out = planseal(
        &case.root,
        &[
            "--json",
            "log",
            &case.plan_rel(),
            "--file",
            "src/client.py",
            "--max-count",
            "1",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(v["path"], "src/client.py");
    assert_eq!(v["versions"].as_array().expect("list").len(), 1);
    assert_eq!(
        v["versions"][0]["subject"],
        "feat(client): pacing - Task 2 of PLAN_http_rate_limit"
    );
    let case = plans::no_git();
    let out = planseal(&case.root, &["log", &case.plan_rel(), "--file", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(support::stderr(&out).contains("not in a git repository"));
}

#[test]
fn tasks_ticked_in_the_readme_without_a_commit_are_listed() {
    // A's published markdown in its repository built through task 1 only: the README ticks
    // tasks 2 and 3 but no commit names them.
    let (tmp, root) = support::gitrepo::vector_repo(
        "A_lite_v2",
        Some(1),
        Some(&plans::snapshot("A_lite_v2", plans::PLAN_A, "final")),
    );
    let case = Case {
        tmp,
        plan: root.join(".dwp/plans").join(plans::PLAN_A),
        root,
    };
    let (code, text) = log(&case, &["--exit-code"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("  [x] task 1  completed  49a4d7e  "),
        "{text}"
    );
    assert!(
        text.ends_with(
            "Differences (2):
  ! completed-without-commit: task 2 is completed in README.md but no commit names it
  ! completed-without-commit: task 3 is completed in README.md but no commit names it
"
        ),
        "{text}"
    );
    let v = json(&case);
    assert_eq!(
        difference_kinds(&v),
        vec![
            ("completed-without-commit".to_string(), 2),
            ("completed-without-commit".to_string(), 3)
        ]
    );
    assert_eq!(v["differences"][0]["commit"], serde_json::Value::Null);
    // The state still records the vector's commits for tasks 2 and 3; git has none of them.
    assert_eq!(
        v["tasks"][1]["recorded_commit"],
        "0684d9243279d0b1599a7fc80aa427b40a85634e"
    );
    assert_eq!(v["tasks"][1]["commit"], serde_json::Value::Null);
    // Without --exit-code a report command exits 0 even with differences.
    assert_eq!(log(&case, &[]).0, Some(0));
}

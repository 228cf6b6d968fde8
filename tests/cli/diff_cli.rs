//! `planseal diff` on the fixture repositories of `tests/support/plans.rs`: state.json vs the markdown,
//! `--against REV` on a plan whose `.dwp/` is committed, `--candidate FILE`; text, JSON and
//! markdown; `--exit-code`.

use crate::support;
use crate::support::plans::{self, Case, PLAN_A};
use crate::support::{planseal, stderr, stdout};

fn diff(case: &Case, extra: &[&str]) -> (Option<i32>, String) {
    let rel = case.plan_rel();
    let mut args = vec!["diff", rel.as_str()];
    args.extend_from_slice(extra);
    let before = plans::snapshot_files(&case.plan);
    let out = planseal(&case.root, &args);
    assert_eq!(
        plans::snapshot_files(&case.plan),
        before,
        "diff is read-only"
    );
    (out.status.code(), stdout(&out))
}

fn json(case: &Case, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["--json"];
    args.extend_from_slice(extra);
    let (code, text) = diff(case, &args);
    assert_eq!(code, Some(0));
    serde_json::from_str(&text).expect("one JSON document")
}

fn fields(v: &serde_json::Value) -> Vec<(Option<u64>, String, String)> {
    v["disagreements"]
        .as_array()
        .expect("list")
        .iter()
        .map(|d| {
            (
                d["task"].as_u64(),
                d["field"].as_str().expect("field").to_string(),
                d["direction"].as_str().expect("direction").to_string(),
            )
        })
        .collect()
}

#[test]
fn clean_plans_have_no_differences() {
    for case in [plans::clean(), plans::clean_a(), plans::no_git()] {
        let (code, text) = diff(&case, &["--exit-code"]);
        assert_eq!(code, Some(0), "{text}");
        assert!(
            text.ends_with("— state.json vs the markdown\nNo differences.\n"),
            "{text}"
        );
    }
    // What a shallow clone cannot tell is a note, never a difference.
    let case = plans::shallow();
    let (code, text) = diff(&case, &["--exit-code"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.ends_with("No differences.\n"), "{text}");
    let v = json(&case, &[]);
    assert!(v.get("git").is_none(), "{v}");
    assert!(
        v["notes"].as_array().is_some_and(|n| n
            .iter()
            .all(|n| n.as_str().is_some_and(|s| s.contains("shallow")))),
        "{v}"
    );
}

#[test]
fn a_commit_naming_a_task_the_plan_lacks_is_a_git_disagreement() {
    let case = plans::renamed_task_numbers();
    let (code, text) = diff(&case, &["--exit-code"]);
    assert_eq!(code, Some(1), "{text}");
    let v = json(&case, &[]);
    assert_eq!(v["disagreements"], serde_json::json!([]));
    let ids: Vec<(&str, Option<u64>)> = v["git"]
        .as_array()
        .expect("git rows")
        .iter()
        .map(|g| (g["id"].as_str().expect("id"), g["task"].as_u64()))
        .collect();
    assert_eq!(ids, [("commit-names-unknown-task", Some(4))], "{v}");
    assert_eq!(v["git"][0]["severity"], "advisory");
}

#[test]
fn stale_state_markdown_ahead_per_task() {
    let case = plans::stale_state();
    let (code, text) = diff(&case, &["--exit-code"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        text,
        "Plan: PLAN_webhook_retry_backoff — state.json vs the markdown
  ! README ticks task 3, state.json says pending [markdown-ahead]
  ! task 3's log says Status: completed, state.json says pending [markdown-ahead]
  ! README ticks task 4, state.json says pending [markdown-ahead]
  ! task 4's log says Status: completed, state.json says pending [markdown-ahead]
  ! README says Plan Status: 4/4, state.json has 2/4 completed [markdown-ahead]
Git:
  ! commit 9c3786d names task 3, but state.json says it is pending [commit-names-incomplete-task]
    hint: run `planseal rebuild .dwp/plans/PLAN_webhook_retry_backoff` to see how state.json would be reconciled
  ! commit 84568ad names task 4, but state.json says it is pending [commit-names-incomplete-task]
    hint: run `planseal rebuild .dwp/plans/PLAN_webhook_retry_backoff` to see how state.json would be reconciled
7 difference(s).
"
    );
    // Without --exit-code a report command exits 0.
    assert_eq!(diff(&case, &[]).0, Some(0));
}

#[test]
fn state_ahead_of_the_markdown() {
    let case = plans::state_ahead();
    let v = json(&case, &[]);
    assert_eq!(
        fields(&v),
        [
            (Some(2), "status".to_string(), "state-ahead".to_string()),
            (Some(2), "log-status".to_string(), "state-ahead".to_string()),
            (None, "plan-status".to_string(), "state-ahead".to_string()),
        ]
    );
    assert_eq!(v["disagreements"][0]["state"], "completed");
    assert_eq!(v["disagreements"][0]["markdown"], "[ ]");
    assert_eq!(v["mode"], "state-vs-markdown");
}

#[test]
fn deleted_and_corrupt_state() {
    for case in [plans::deleted_state(), plans::merges()] {
        let v = json(&case, &[]);
        assert_eq!(
            fields(&v),
            [(None, "state.json".to_string(), "markdown-ahead".to_string())]
        );
        assert!(
            v["disagreements"][0]["message"]
                .as_str()
                .expect("msg")
                .contains("state.json is missing")
        );
    }
    let case = plans::clean();
    std::fs::write(case.plan.join("state.json"), b"{\"sche").expect("write");
    let (code, text) = diff(&case, &["--exit-code"]);
    assert_eq!(code, Some(1));
    assert!(text.contains("state.json does not parse"), "{text}");
}

#[test]
fn markdown_format_for_a_pull_request() {
    let case = plans::state_ahead();
    let (_, text) = diff(&case, &["--format", "markdown"]);
    assert_eq!(
        text,
        "### planseal diff: PLAN_http_rate_limit — state.json vs the markdown

| task | field | state.json | markdown | direction |
|---|---|---|---|---|
| 2 | status | completed | [ ] | state-ahead |
| 2 | log-status | completed | Status: pending | state-ahead |
| plan | plan-status | 2/3 | Plan Status: 1/3 | state-ahead |

**Git**

- commit 8ec9422 names task 3, but state.json says it is pending (`commit-names-incomplete-task`)

"
    );
}

/// A's repository with the plan committed after task 1, and the work tree at the published plan.
fn tracked_plan() -> Case {
    let (tmp, root) = support::gitrepo::vector_repo(
        "A_lite_v2",
        None,
        Some(&plans::snapshot("A_lite_v2", PLAN_A, "after-task1")),
    );
    support::gitrepo::git(&root, &["add", "-f", ".dwp"]);
    let out = support::gitrepo::git_command(&root)
        .env("GIT_AUTHOR_DATE", "2026-10-05T11:00:00+00:00")
        .env("GIT_COMMITTER_DATE", "2026-10-05T11:00:00+00:00")
        .args([
            "commit",
            "-q",
            "--no-gpg-sign",
            "-m",
            "docs: commit the plan after task 1",
        ])
        .output()
        .expect("git");
    assert!(out.status.success());
    let plan = root.join(".dwp/plans").join(PLAN_A);
    plans::copy_dir(&plans::snapshot("A_lite_v2", PLAN_A, "final"), &plan);
    Case { tmp, root, plan }
}

#[test]
fn against_a_revision_shows_semantic_and_text_changes() {
    let case = tracked_plan();
    let (code, text) = diff(&case, &["--against", "HEAD", "--exit-code"]);
    assert_eq!(code, Some(1));
    assert!(
        text.starts_with("Plan: PLAN_http_rate_limit — changes since HEAD\nState changes:\n"),
        "{text}"
    );
    assert!(text.contains("  + task 2: pending → completed [status-moved]\n"));
    assert!(text.contains("  + completed_count: 1 → 3 [count-changed]\n"));
    assert!(text.contains("File README.md (modified):\n--- a/README.md\n+++ b/README.md\n"));
    assert!(text.contains("\n-- [ ] Task 2"), "{text}");
    assert!(text.contains("\n+- [x] Task 2"), "{text}");
    assert!(text.contains("File analysis_results/FINALIZATION.json (added):\n--- /dev/null\n"));
    let v = json(&case, &["--against", "HEAD"]);
    assert_eq!(v["mode"], "against");
    let kinds: Vec<&str> = v["state_changes"]
        .as_array()
        .expect("list")
        .iter()
        .map(|c| c["kind"].as_str().expect("kind"))
        .collect();
    assert!(
        kinds.contains(&"status-moved")
            && kinds.contains(&"gate-added")
            && kinds.contains(&"count-changed"),
        "{kinds:?}"
    );
    let files: Vec<&str> = v["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().expect("path"))
        .collect();
    assert_eq!(
        files,
        [
            "README.md",
            "PROGRESS.md",
            "state.json",
            "analysis_results/SECURITY_REVIEW.md",
            "analysis_results/SKILLS_CANDIDATES.md",
            "analysis_results/FINALIZATION.json"
        ]
    );
}

#[test]
fn against_shows_backwards_moves_and_removed_fields() {
    let case = tracked_plan();
    // Commit the published plan, then put the after-task1 state back.
    support::gitrepo::git(&case.root, &["add", "-f", ".dwp"]);
    let out = support::gitrepo::git_command(&case.root)
        .env("GIT_AUTHOR_DATE", "2026-10-05T12:00:00+00:00")
        .env("GIT_COMMITTER_DATE", "2026-10-05T12:00:00+00:00")
        .args([
            "commit",
            "-q",
            "--no-gpg-sign",
            "-m",
            "docs: published plan",
        ])
        .output()
        .expect("git");
    assert!(out.status.success());
    std::fs::copy(
        plans::snapshot("A_lite_v2", PLAN_A, "after-task1").join("state.json"),
        case.plan.join("state.json"),
    )
    .expect("copy");
    let v = json(&case, &["--against", "HEAD"]);
    let changes: Vec<(String, Option<u64>, String)> = v["state_changes"]
        .as_array()
        .expect("list")
        .iter()
        .map(|c| {
            (
                c["kind"].as_str().expect("k").to_string(),
                c["task"].as_u64(),
                c["field"].as_str().expect("f").to_string(),
            )
        })
        .collect();
    assert!(
        changes.contains(&("status-moved-backwards".into(), Some(3), "status".into())),
        "{changes:?}"
    );
    assert!(changes.contains(&("field-removed".into(), Some(3), "commit".into())));
    assert!(changes.contains(&("gate-removed".into(), Some(3), "gates".into())));
    assert!(changes.contains(&("count-changed".into(), None, "completed_count".into())));
}

#[test]
fn against_an_untracked_plan_or_unknown_revision_is_an_error() {
    let case = plans::clean();
    let out = planseal(
        &case.root,
        &["diff", &case.plan_rel(), "--against", "HEAD~1"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("the plan is not tracked by git there"),
        "{}",
        stderr(&out)
    );
    let out = planseal(&case.root, &["diff", &case.plan_rel(), "--against", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("`nope` is not a revision"));
    let case = plans::no_git();
    let out = planseal(&case.root, &["diff", &case.plan_rel(), "--against", "HEAD"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not in a git repository"));
}

#[test]
fn candidate_vs_current_state() {
    let case = plans::clean_a();
    let cand = case.root.join("candidate.json");
    std::fs::copy(
        plans::vector_dir("A_lite_v2").join("lifecycle/states/10-complete-task2.state.json"),
        &cand,
    )
    .expect("copy");
    let (code, text) = diff(&case, &["--candidate", "candidate.json", "--exit-code"]);
    assert_eq!(code, Some(1));
    assert!(
        text.starts_with("Plan: PLAN_http_rate_limit — candidate candidate.json vs state.json\n")
    );
    assert!(
        text.contains("  - task 3: completed → pending (backwards) [status-moved-backwards]\n"),
        "{text}"
    );
    assert!(
        text.contains("  - status: completed → in_progress (backwards) [status-moved-backwards]\n"),
        "{text}"
    );
    assert!(text.contains("File state.json (modified):\n--- a/state.json\n+++ b/state.json\n"));
    // The current bytes as candidate: nothing to publish that differs.
    std::fs::copy(case.plan.join("state.json"), &cand).expect("copy");
    let (code, text) = diff(&case, &["--candidate", "candidate.json", "--exit-code"]);
    assert_eq!(code, Some(0));
    assert!(text.ends_with("No differences.\n"));
    std::fs::write(&cand, b"{not json").expect("write");
    let out = planseal(
        &case.root,
        &["diff", &case.plan_rel(), "--candidate", "candidate.json"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("the candidate is not valid JSON"));
}

fn git_ids(v: &serde_json::Value) -> Vec<(String, Option<u64>, String)> {
    v["git"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|g| {
                    (
                        g["id"].as_str().expect("id").to_string(),
                        g["task"].as_u64(),
                        g["severity"].as_str().expect("severity").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_completed_task_whose_commit_is_gone_is_a_git_disagreement() {
    // The branch reset past task 4's commit: it still exists, but HEAD no longer reaches it.
    let case = plans::clean();
    support::gitrepo::git(&case.root, &["reset", "-q", "--hard", "HEAD~1"]);
    let (code, text) = diff(&case, &["--exit-code"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("Git:\n"), "{text}");
    let rows = git_ids(&json(&case, &[]));
    assert!(
        rows.contains(&("commit-not-ancestor".into(), Some(4), "fail".into())),
        "{rows:?}"
    );
    assert!(rows.iter().all(|(_, task, _)| *task == Some(4)), "{rows:?}");

    // A state that records a commit the repository does not have.
    let case = plans::clean();
    let path = case.plan.join("state.json");
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("state")).expect("json");
    v["tasks"][2]["commit"] = "0123456789abcdef0123456789abcdef01234567".into();
    std::fs::write(&path, serde_json::to_vec_pretty(&v).expect("json")).expect("write");
    let rows = git_ids(&json(&case, &[]));
    assert!(
        rows.contains(&("commit-missing".into(), Some(3), "fail".into())),
        "{rows:?}"
    );
    let (_, text) = diff(&case, &[]);
    assert!(
        text.contains("hint: ")
            && text.contains("`planseal rebuild .dwp/plans/PLAN_webhook_retry_backoff`"),
        "the hint names the plan as given: {text}"
    );
}

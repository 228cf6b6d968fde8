//! The git cross-checks finalize requires and the drift verify reports, each on a
//! fixture repository (recorded vector A, built with pinned dates) that makes it fire.

use crate::support::gitrepo::{git, git_command, project_root, vector_repo};
use planseal::dwp::history::{drift_findings, git_cross_checks, task_commits};
use planseal::dwp::model::{State, parse_json};
use planseal::recovery::git::Repo;
use planseal::report::{Finding, Severity};
use serde_json::Value;
use std::path::{Path, PathBuf};

const PLAN: &str = "PLAN_http_rate_limit";

fn snapshot(name: &str) -> PathBuf {
    project_root()
        .join("fixtures/vectors/dwp/A_lite_v2/lifecycle/snapshots")
        .join(name)
        .join(PLAN)
}

/// Vector A's repository with the published plan in `.dwp/plans/` (git-ignored).
fn published() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let (tmp, root) = vector_repo("A_lite_v2", None, Some(&snapshot("final")));
    let plan = root.join(".dwp/plans").join(PLAN);
    (tmp, root, plan)
}

fn read_state(plan: &Path) -> State {
    let bytes = std::fs::read(plan.join("state.json")).expect("state");
    State::from_value(&parse_json(&bytes).expect("json"))
}

fn edit_state(plan: &Path, edit: impl FnOnce(&mut Value)) -> State {
    let path = plan.join("state.json");
    let mut v: Value = serde_json::from_slice(&std::fs::read(&path).expect("state")).expect("json");
    edit(&mut v);
    std::fs::write(&path, serde_json::to_vec_pretty(&v).expect("json")).expect("write");
    read_state(plan)
}

fn ids(findings: &[Finding], severity: Severity) -> Vec<(String, Option<u64>)> {
    findings
        .iter()
        .filter(|f| f.severity == severity)
        .map(|f| (f.id.clone(), f.task))
        .collect()
}

fn fails(findings: &[Finding]) -> Vec<(String, Option<u64>)> {
    ids(findings, Severity::Fail)
}

#[test]
fn a_clean_published_plan_passes_every_git_check() {
    let (_tmp, _root, plan) = published();
    let state = read_state(&plan);
    let checks = git_cross_checks(&plan, &state, None);
    assert_eq!(fails(&checks), vec![]);
    assert_eq!(ids(&checks, Severity::Advisory), vec![]);
    let passes: Vec<String> = checks.iter().map(|f| f.id.clone()).collect();
    assert_eq!(passes, ["task-commits", "fp-revisions", "worktree-clean"]);
    let drift = drift_findings(&plan, &state);
    assert_eq!(
        drift
            .iter()
            .map(|f| (f.id.as_str(), f.severity))
            .collect::<Vec<_>>(),
        [
            ("task-commits", Severity::Pass),
            ("fp-revisions", Severity::Pass),
            ("commit-drift", Severity::Pass)
        ]
    );
}

#[test]
fn task_commits_of_the_vector_plan() {
    let (_tmp, root, _plan) = published();
    let repo = Repo::discover(&root).expect("read").expect("repo");
    let commits = task_commits(&repo, PLAN).expect("walk");
    assert_eq!(commits.walked, 4);
    assert_eq!(
        commits.latest(2).map(|c| c.id.as_str()),
        Some("0684d9243279d0b1599a7fc80aa427b40a85634e")
    );
    assert!(
        task_commits(&repo, "PLAN_other")
            .expect("walk")
            .by_task
            .is_empty()
    );
}

#[test]
fn a_missing_commit_fails() {
    let (_tmp, _root, plan) = published();
    let state = edit_state(&plan, |v| {
        v["tasks"][1]["commit"] = "0123456789abcdef0123456789abcdef01234567".into();
    });
    let checks = git_cross_checks(&plan, &state, None);
    assert_eq!(
        fails(&checks),
        vec![("commit-missing".to_string(), Some(2))]
    );
    let f = checks
        .iter()
        .find(|f| f.id == "commit-missing")
        .expect("finding");
    assert!(
        f.message
            .contains("0123456789abcdef0123456789abcdef01234567")
    );
    assert!(
        f.hint
            .as_deref()
            .unwrap_or_default()
            .contains("planseal rebuild")
    );
}

#[test]
fn a_commit_unreachable_after_a_branch_reset_fails() {
    let (_tmp, root, plan) = published();
    git(&root, &["reset", "-q", "--hard", "HEAD~1"]);
    let state = read_state(&plan);
    let checks = git_cross_checks(&plan, &state, None);
    assert_eq!(
        fails(&checks),
        vec![("commit-not-ancestor".to_string(), Some(3))]
    );
    // verify's view of a plan in progress: the same check, as an advisory (one finding for
    // the task, not a second drift advisory).
    let drift = drift_findings(&plan, &state);
    assert_eq!(
        ids(&drift, Severity::Advisory),
        vec![("commit-not-ancestor".to_string(), Some(3))]
    );
}

#[test]
fn a_subject_naming_another_task_fails() {
    let (_tmp, _root, plan) = published();
    let state = edit_state(&plan, |v| {
        // Task 2 records the base commit, whose subject names no task.
        v["tasks"][1]["commit"] = "f52b629ec708".into();
    });
    let checks = git_cross_checks(&plan, &state, None);
    assert_eq!(
        fails(&checks),
        vec![("commit-subject-mismatch".to_string(), Some(2))]
    );
}

#[test]
fn two_tasks_sharing_a_commit_fail() {
    let (_tmp, _root, plan) = published();
    let state = edit_state(&plan, |v| {
        v["tasks"][2]["commit"] = "0684d9243279d0b1599a7fc80aa427b40a85634e".into();
    });
    let checks = git_cross_checks(&plan, &state, None);
    assert_eq!(
        fails(&checks),
        vec![
            ("commit-subject-mismatch".to_string(), Some(3)),
            ("commit-shared".to_string(), Some(2)),
        ]
    );
    let shared = checks
        .iter()
        .find(|f| f.id == "commit-shared")
        .expect("finding");
    assert!(shared.message.contains("tasks 2, 3"), "{}", shared.message);
}

#[test]
fn a_missing_fp_revision_fails() {
    let (_tmp, _root, plan) = published();
    let state = edit_state(&plan, |v| {
        v["tasks"][0]["gates"][0]["evidence"] =
            "scope=tests/test_ratelimit.py; fp=deadbee+dirty; ran=4/4; log=analysis_results/gates/t1-unittest.log".into();
    });
    let checks = git_cross_checks(&plan, &state, None);
    assert_eq!(
        fails(&checks),
        vec![("fp-revision-missing".to_string(), Some(1))]
    );
}

#[test]
fn untracked_and_modified_files_fail_but_the_plan_and_candidate_do_not() {
    let (_tmp, root, plan) = published();
    let state = read_state(&plan);
    std::fs::write(root.join("notes.txt"), "scratch\n").expect("write");
    std::fs::write(root.join("candidate.json"), "{}\n").expect("write");
    std::fs::write(plan.join("scratch.md"), "inside the plan\n").expect("write");
    let mut readme = std::fs::read_to_string(root.join("README.md")).expect("read");
    readme.push_str("\nedited\n");
    std::fs::write(root.join("README.md"), readme).expect("write");
    let checks = git_cross_checks(&plan, &state, Some(&root.join("candidate.json")));
    let dirty: Vec<&str> = checks
        .iter()
        .filter(|f| f.id == "worktree-dirty")
        .map(|f| f.file.as_deref().unwrap_or_default())
        .collect();
    assert_eq!(dirty, ["README.md", "notes.txt"]);
    assert!(
        checks
            .iter()
            .any(|f| f.message.contains("README.md (modified)"))
    );
    assert!(
        checks
            .iter()
            .any(|f| f.message.contains("notes.txt (untracked)"))
    );
    // Without naming the candidate, it is one more untracked file.
    let checks = git_cross_checks(&plan, &state, None);
    assert_eq!(
        checks.iter().filter(|f| f.id == "worktree-dirty").count(),
        3
    );
}

#[test]
fn a_tracked_dwp_folder_is_an_advisory() {
    let (_tmp, root, plan) = published();
    git(&root, &["add", "-f", ".dwp"]);
    let out = git_command(&root)
        .env("GIT_AUTHOR_DATE", "2026-10-05T11:00:00+00:00")
        .env("GIT_COMMITTER_DATE", "2026-10-05T11:00:00+00:00")
        .args([
            "commit",
            "-q",
            "--no-gpg-sign",
            "-m",
            "docs: commit the plan",
        ])
        .output()
        .expect("git");
    assert!(out.status.success());
    let state = read_state(&plan);
    let checks = git_cross_checks(&plan, &state, None);
    assert_eq!(fails(&checks), vec![]);
    assert_eq!(
        ids(&checks, Severity::Advisory),
        vec![("dwp-tracked".to_string(), None)]
    );
}

#[test]
fn drift_commits_naming_incomplete_and_unknown_tasks() {
    // The plan as it was after task 1, in the repository that already has every task commit.
    let (_tmp, root) = vector_repo("A_lite_v2", None, Some(&snapshot("after-task1")));
    let plan = root.join(".dwp/plans").join(PLAN);
    let out = git_command(&root)
        .env("GIT_AUTHOR_DATE", "2026-10-05T11:00:00+00:00")
        .env("GIT_COMMITTER_DATE", "2026-10-05T11:00:00+00:00")
        .args([
            "commit",
            "-q",
            "--allow-empty",
            "--no-gpg-sign",
            "-m",
            "chore: stray - Task 7 of PLAN_http_rate_limit",
        ])
        .output()
        .expect("git");
    assert!(out.status.success());
    let state = read_state(&plan);
    let drift = drift_findings(&plan, &state);
    assert_eq!(
        ids(&drift, Severity::Advisory),
        vec![
            ("commit-names-incomplete-task".to_string(), Some(2)),
            ("commit-names-incomplete-task".to_string(), Some(3)),
            ("commit-names-unknown-task".to_string(), Some(7)),
        ]
    );
    assert!(
        drift
            .iter()
            .filter(|f| f.severity != Severity::Pass)
            .all(|f| {
                f.hint
                    .as_deref()
                    .unwrap_or_default()
                    .contains("planseal rebuild")
            })
    );
    assert!(drift.iter().all(|f| f.severity != Severity::Fail));
}

#[test]
fn a_shallow_clone_gives_advisories_never_failures() {
    let (_tmp, root, plan) = published();
    let parent = tempfile::tempdir().expect("tmp");
    git(
        parent.path(),
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            &format!("file://{}", root.display()),
            "shallow",
        ],
    );
    let shallow = parent.path().join("shallow");
    let copy = shallow.join(".dwp/plans").join(PLAN);
    copy_dir(&plan, &copy);
    let state = read_state(&copy);
    let checks = git_cross_checks(&copy, &state, None);
    assert_eq!(fails(&checks), vec![]);
    let truncated: Vec<Option<u64>> = checks
        .iter()
        .filter(|f| f.id == "history-truncated")
        .map(|f| f.task)
        .collect();
    // Tasks 1 and 2 lie beyond the boundary (their commits and their fp= revisions).
    assert!(
        truncated.contains(&Some(1)) && truncated.contains(&Some(2)),
        "{truncated:?}"
    );
    assert!(checks.iter().all(|f| f.severity != Severity::Fail));
    let drift = drift_findings(&copy, &state);
    assert_eq!(
        ids(&drift, Severity::Advisory),
        vec![
            // Their commits, then the gate revisions (fp=) of tasks 1–3.
            ("history-truncated".to_string(), Some(1)),
            ("history-truncated".to_string(), Some(2)),
            ("history-truncated".to_string(), Some(1)),
            ("history-truncated".to_string(), Some(2)),
            ("history-truncated".to_string(), Some(3)),
        ]
    );
}

#[test]
fn no_git_means_no_git_findings() {
    let tmp = tempfile::tempdir().expect("tmp");
    let plan = tmp.path().join(PLAN);
    copy_dir(&snapshot("final"), &plan);
    let state = read_state(&plan);
    assert!(git_cross_checks(&plan, &state, None).is_empty());
    assert!(drift_findings(&plan, &state).is_empty());
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

//! The git cross-checks at publication: `planseal finalize` refuses on each failing git
//! cross-check, on fixture repositories built from recorded vector A with pinned dates
//! (`build-repo.sh`); accepts a dirty tree only with `--allow-dirty --reason`, recorded in the
//! receipt; and without git says the git checks are not applicable.

use crate::support::finalize::*;
use crate::support::gitrepo::{git, git_command};
use serde_json::Value;
use std::path::{Path, PathBuf};

const FIXTURE: &str = "A_lite_v2";
const PLAN: &str = "PLAN_http_rate_limit";

/// Vector A's repository (every task commit) holding the ready-to-publish plan (git-ignored),
/// with the recorded terminal candidate at the root as `candidate.json` (untracked on purpose:
/// the candidate file is exempt from the clean-tree check).
struct Repo {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Repo {
    fn new() -> Self {
        let (tmp, root) = vector_a_ready_with_candidate();
        Self { _tmp: tmp, root }
    }
    fn plan(&self) -> PathBuf {
        self.root.join(".dwp/plans").join(PLAN)
    }
    fn edit_candidate(&self, edit: impl FnOnce(&mut Value)) {
        let path = self.root.join("candidate.json");
        let mut v: Value = serde_json::from_slice(&read(&path)).unwrap();
        edit(&mut v);
        let mut bytes = serde_json::to_vec_pretty(&v).unwrap();
        bytes.push(b'\n');
        std::fs::write(path, bytes).unwrap();
    }
    fn finalize(&self, extra: &[&str]) -> Run {
        let plan = format!(".dwp/plans/{PLAN}");
        let mut args = vec!["finalize", plan.as_str(), "--candidate", "candidate.json"];
        args.extend(extra);
        run_in(&self.root, &args)
    }
    fn receipt(&self) -> Option<Value> {
        std::fs::read(self.plan().join("analysis_results/FINALIZATION.json"))
            .ok()
            .map(|b| serde_json::from_slice(&b).unwrap())
    }
    fn state(&self) -> Vec<u8> {
        read(self.plan().join("state.json"))
    }
}

/// Refused with `kind`, nothing written.
fn assert_git_refusal(repo: &Repo, kind: &str, extra_ids: &[&str]) {
    let before = repo.state();
    let out = repo.finalize(&[]);
    assert_refused(&out, kind);
    for id in extra_ids {
        assert!(stderr(&out).contains(id), "{id} in {}", stderr(&out));
    }
    assert_eq!(repo.state(), before);
    assert!(repo.receipt().is_none());
    assert!(!repo.plan().join(".finalizing.json").exists());
    assert!(!repo.plan().join("state.json.lock").exists());
}

#[test]
fn a_clean_repository_publishes_and_the_receipt_records_git() {
    let repo = Repo::new();
    let out = repo.finalize(&[]);
    assert_ok(&out);
    let receipt = repo.receipt().unwrap();
    let head = git(&repo.root, &["rev-parse", "HEAD"]);
    assert_eq!(receipt["git"]["head"], head.trim());
    assert_eq!(receipt["git"]["branch"], "main");
    assert_eq!(receipt["git"]["clean"], true);
    let passed: Vec<&str> = receipt["checks_passed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for id in ["task-commits", "fp-revisions", "worktree-clean"] {
        assert!(passed.contains(&id), "{id} in {passed:?}");
    }
    assert_eq!(receipt["exceptions"], serde_json::json!([]));
    // sealing again (the candidate file gone: it was only exempt as the candidate) gives the
    // same bytes
    std::fs::remove_file(repo.root.join("candidate.json")).unwrap();
    let first = read(repo.plan().join("analysis_results/FINALIZATION.json"));
    assert_ok(&run_in(
        &repo.root,
        &["finalize", &format!(".dwp/plans/{PLAN}")],
    ));
    assert_eq!(
        read(repo.plan().join("analysis_results/FINALIZATION.json")),
        first
    );
}

#[test]
fn a_missing_commit_is_refused() {
    let repo = Repo::new();
    repo.edit_candidate(|v| {
        v["tasks"][1]["commit"] = "0123456789abcdef0123456789abcdef01234567".into();
    });
    assert_git_refusal(&repo, "commit-missing", &[]);
}

#[test]
fn a_commit_unreachable_after_a_branch_reset_is_refused() {
    let repo = Repo::new();
    git(&repo.root, &["reset", "-q", "--hard", "HEAD~1"]);
    assert_git_refusal(&repo, "commit-not-ancestor", &[]);
}

#[test]
fn a_subject_naming_another_task_is_refused() {
    let repo = Repo::new();
    let base = git(&repo.root, &["rev-list", "--max-parents=0", "HEAD"]);
    repo.edit_candidate(|v| v["tasks"][1]["commit"] = base.trim().into());
    assert_git_refusal(&repo, "commit-subject-mismatch", &[]);
}

#[test]
fn two_tasks_sharing_a_commit_are_refused() {
    let repo = Repo::new();
    repo.edit_candidate(|v| {
        let shared = v["tasks"][1]["commit"].clone();
        v["tasks"][2]["commit"] = shared;
    });
    assert_git_refusal(&repo, "commit-subject-mismatch", &["commit-shared"]);
}

#[test]
fn a_missing_fp_revision_is_refused() {
    let repo = Repo::new();
    repo.edit_candidate(|v| {
        let ev = v["tasks"][0]["gates"][0]["evidence"]
            .as_str()
            .unwrap()
            .to_string();
        let start = ev.find("fp=").unwrap() + 3;
        let end = start + ev[start..].find('+').unwrap();
        v["tasks"][0]["gates"][0]["evidence"] =
            format!("{}deadbee{}", &ev[..start], &ev[end..]).into();
    });
    assert_git_refusal(&repo, "fp-revision-missing", &[]);
}

#[test]
fn an_untracked_file_is_refused_unless_accepted_with_a_reason() {
    let repo = Repo::new();
    std::fs::write(repo.root.join("notes.txt"), "scratch\n").unwrap();
    assert_git_refusal(&repo, "worktree-dirty", &["notes.txt"]);

    // --allow-dirty needs --reason (usage error, exit 2)
    let out = repo.finalize(&["--allow-dirty"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    let out = repo.finalize(&[
        "--allow-dirty",
        "--reason",
        "scratch notes, not part of the change",
    ]);
    assert_ok(&out);
    let receipt = repo.receipt().unwrap();
    assert_eq!(receipt["git"]["clean"], false);
    assert_eq!(
        receipt["exceptions"],
        serde_json::json!([{
            "kind": "worktree-dirty",
            "reason": "scratch notes, not part of the change",
            "subjects": ["notes.txt"],
        }])
    );
}

#[test]
fn a_modified_tracked_file_is_refused() {
    let repo = Repo::new();
    let readme = repo.root.join("README.md");
    let mut text = std::fs::read_to_string(&readme).unwrap();
    text.push_str("\nedited after the last commit\n");
    std::fs::write(&readme, text).unwrap();
    assert_git_refusal(&repo, "worktree-dirty", &["README.md"]);
}

#[test]
fn a_tracked_dwp_folder_is_an_advisory_and_publishes() {
    let repo = Repo::new();
    git(&repo.root, &["add", "-f", ".dwp"]);
    let out = git_command(&repo.root)
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
        .unwrap();
    assert!(out.status.success());
    let out = repo.finalize(&[]);
    assert_ok(&out);
    assert!(stderr(&out).contains("tracked by git"), "{}", stderr(&out));
}

#[test]
fn without_git_the_checks_are_not_applicable() {
    let ws = Workspace::ready_to_publish(FIXTURE, PLAN);
    ws.place("lifecycle/publication/02-state.json", "candidate.json");
    assert!(!Path::new(&ws.root().join(".git")).exists());
    let out = ws.run(&["finalize", &ws.plan_rel(), "--candidate", "candidate.json"]);
    assert_ok(&out);
    assert!(
        stderr(&out).contains("git checks not applicable"),
        "{}",
        stderr(&out)
    );
    let receipt: Value =
        serde_json::from_slice(&ws.file("analysis_results/FINALIZATION.json").unwrap()).unwrap();
    assert_eq!(receipt["git"], Value::Null);
}

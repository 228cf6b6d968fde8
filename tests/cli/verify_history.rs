//! `planseal verify` checks a plan against git and against what writers left, on scripted
//! repositories with pinned dates: the cross-checks finalize requires (failures for a published
//! plan, advisories but a missing commit for a plan in progress), a published plan whose HEAD
//! was reset, a squash-merged task commit, a lost state.json, a manifest edited after
//! materialisation, and a killed writer's lock, temp file and staging folder — each with the
//! command that clears it, and every file byte-identical after verify.

use crate::support;
use crate::support::gitrepo::{git, vector_repo};
use crate::support::plans::{self, Case, PLAN_A, PLAN_B};
use std::path::Path;

/// `verify --json` on the case's plan, checking that it changed no byte of the plan or of the
/// repository's git folder; returns the exit code, the verdict and the findings.
fn verify(case: &Case) -> (Option<i32>, String, Vec<serde_json::Value>) {
    let before = (plans::snapshot_files(&case.plan), git_dir_files(&case.root));
    let out = support::planseal(&case.root, &["--json", "verify", &case.plan_rel()]);
    assert_eq!(
        (plans::snapshot_files(&case.plan), git_dir_files(&case.root)),
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

fn git_dir_files(root: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let dir = root.join(".git");
    if dir.is_dir() {
        plans::snapshot_files(&dir)
    } else {
        Vec::new()
    }
}

fn with_id<'a>(findings: &'a [serde_json::Value], id: &str) -> Vec<&'a serde_json::Value> {
    findings.iter().filter(|f| f["id"] == id).collect()
}

fn failures(findings: &[serde_json::Value]) -> Vec<(String, Option<u64>)> {
    findings
        .iter()
        .filter(|f| f["severity"] == "fail")
        .map(|f| {
            (
                f["id"].as_str().expect("id").to_string(),
                f["task"].as_u64(),
            )
        })
        .collect()
}

fn edit_state(plan: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = plan.join("state.json");
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("state")).expect("json");
    edit(&mut v);
    let mut text = serde_json::to_string_pretty(&v).expect("json");
    text.push('\n');
    std::fs::write(&path, text).expect("write state");
}

/// B, published, then re-sealed by planseal so that its receipt records HEAD (`git.head`).
fn resealed_b() -> Case {
    let case = plans::clean();
    let out = support::planseal(&case.root, &["finalize", &case.plan_rel()]);
    assert_eq!(out.status.code(), Some(0), "{}{}", out.stdout, out.stderr);
    // finalize re-verifies under its own lock: that lock is no finding of its own.
    assert!(!out.stdout.contains("state.json.lock"), "{}", out.stdout);
    case
}

#[test]
fn published_plan_then_reset_hard_fails_and_says_head_no_longer_contains_the_publication() {
    let case = resealed_b();
    let (code, verdict, findings) = verify(&case);
    assert_eq!(
        (code, verdict.as_str()),
        (Some(0), "CONFORMANT"),
        "{findings:#?}"
    );
    assert_eq!(with_id(&findings, "published-head-contained").len(), 1);

    git(&case.root, &["reset", "-q", "--hard", "HEAD~1"]);
    let (code, verdict, findings) = verify(&case);
    assert_eq!(
        failures(&findings),
        [
            ("commit-not-ancestor".to_string(), Some(4)),
            ("published-head-not-contained".to_string(), None),
        ],
        "{findings:#?}"
    );
    assert_eq!((code, verdict.as_str()), (Some(1), "NOT CONFORMANT"));
    // The receipt compares file hashes only: the reset is not a receipt mismatch.
    assert!(with_id(&findings, "receipt-mismatch").is_empty());
    assert!(with_id(&findings, "semantic-review-required").is_empty());
    let head = &with_id(&findings, "published-head-not-contained")[0];
    assert_eq!(
        head["message"],
        "HEAD no longer contains the commit 84568addaaf6 the plan was published at (was the branch reset or rebased?)"
    );
    assert_eq!(
        head["hint"],
        format!(
            "if a reset dropped it by mistake, fast-forward back to it: `git merge --ff-only 84568addaaf6`; if the new history is meant, re-seal the plan with `planseal finalize {}`",
            case.plan_rel()
        )
    );
    let task = &with_id(&findings, "commit-not-ancestor")[0];
    assert_eq!(
        task["hint"],
        "if a reset dropped it by mistake, fast-forward back to it: `git merge --ff-only 84568ad`"
    );
    // The text form.
    let text = support::stdout(&support::planseal(
        &case.root,
        &["verify", &case.plan_rel()],
    ));
    assert!(
        text.contains("  [ ] task 4: commit 84568ad is not reachable from HEAD (was the branch reset or rebased?)\n"),
        "{text}"
    );
}

#[test]
fn a_state_recording_a_commit_that_does_not_exist_fails_commit_missing() {
    // A plan in progress (A after task 1) whose task 1 records a commit no repository has.
    let (tmp, root) = vector_repo(
        "A_lite_v2",
        None,
        Some(&plans::snapshot("A_lite_v2", PLAN_A, "after-task1")),
    );
    let case = Case {
        tmp,
        plan: root.join(".dwp/plans").join(PLAN_A),
        root,
    };
    edit_state(&case.plan, |v| {
        v["tasks"][0]["commit"] = "0123456789abcdef0123456789abcdef01234567".into();
    });
    let (code, verdict, findings) = verify(&case);
    assert_eq!(
        failures(&findings),
        [("commit-missing".to_string(), Some(1))],
        "{findings:#?}"
    );
    let f = &with_id(&findings, "commit-missing")[0];
    assert_eq!(
        f["message"],
        "task 1: commit 0123456789abcdef0123456789abcdef01234567 does not exist in this repository"
    );
    // Its subject is unknown, so no commit is said to carry it: the hint names the commit that
    // names the task.
    assert_eq!(
        f["hint"],
        format!(
            "commit 49a4d7e names task 1: if it completed the task, record it — run `planseal rebuild {}` to see how state.json would be reconciled",
            case.plan_rel()
        )
    );
    assert!(with_id(&findings, "commit-rewritten").is_empty());
    assert_eq!((code, verdict.as_str()), (Some(1), "NOT CONFORMANT"));
}

#[test]
fn in_progress_a_reset_is_an_advisory_not_a_failure() {
    // A after task 1 with task 2 recorded by hand: then the branch loses task 2's commit.
    let case = plans::state_ahead();
    std::fs::remove_file(case.plan.join("analysis_results/FINALIZATION.json")).ok();
    git(&case.root, &["reset", "-q", "--hard", "HEAD~2"]);
    let (_code, _verdict, findings) = verify(&case);
    let f = &with_id(&findings, "commit-not-ancestor");
    assert_eq!(f.len(), 1, "{findings:#?}");
    assert_eq!(f[0]["severity"], "advisory");
    assert_eq!(f[0]["task"], 2);
}

#[test]
fn a_squash_merged_task_commit_is_commit_rewritten_not_a_failure() {
    // Vector A's repository through task 1; task 2 made on a branch and squash-merged into
    // main with the same subject; task 3 on main. state.json still records the branch's commit.
    let (tmp, root) = vector_repo(
        "A_lite_v2",
        Some(1),
        Some(&plans::snapshot("A_lite_v2", PLAN_A, "final")),
    );
    let dated = |args: &[&str], when: &str| {
        let out = support::gitrepo::git_command(&root)
            .env("GIT_AUTHOR_DATE", when)
            .env("GIT_COMMITTER_DATE", when)
            .args(args)
            .output()
            .expect("git");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let subject2 =
        "feat(client): pace requests and honour Retry-After - Task 2 of PLAN_http_rate_limit";
    git(&root, &["checkout", "-q", "-b", "feature"]);
    std::fs::write(root.join("pacing.txt"), "pace\n").expect("write");
    git(&root, &["add", "pacing.txt"]);
    dated(
        &["commit", "-q", "--no-gpg-sign", "-m", subject2],
        "2026-10-05T09:44:00+00:00",
    );
    let branch_commit = git(&root, &["rev-parse", "HEAD"]).trim().to_string();
    git(&root, &["checkout", "-q", "main"]);
    std::fs::write(root.join("unrelated.txt"), "x\n").expect("write");
    git(&root, &["add", "unrelated.txt"]);
    dated(
        &[
            "commit",
            "-q",
            "--no-gpg-sign",
            "-m",
            "docs: unrelated change on main",
        ],
        "2026-10-05T09:50:00+00:00",
    );
    git(&root, &["merge", "-q", "--squash", "feature"]);
    dated(
        &["commit", "-q", "--no-gpg-sign", "-m", subject2],
        "2026-10-05T09:55:00+00:00",
    );
    let squash = git(&root, &["rev-parse", "HEAD"]).trim().to_string();
    git(&root, &["branch", "-q", "-D", "feature"]);
    dated(
        &[
            "commit",
            "-q",
            "--allow-empty",
            "--no-gpg-sign",
            "-m",
            "docs(changelog): record rate limiting and final review - Task 3 of PLAN_http_rate_limit",
        ],
        "2026-10-05T10:14:00+00:00",
    );
    let task3 = git(&root, &["rev-parse", "HEAD"]).trim().to_string();
    let case = Case {
        tmp,
        plan: root.join(".dwp/plans").join(PLAN_A),
        root,
    };
    // A is a 2.x plan: without its receipt the plan is in progress as verify sees it.
    std::fs::remove_file(case.plan.join("analysis_results/FINALIZATION.json")).expect("receipt");
    edit_state(&case.plan, |v| {
        v["tasks"][1]["commit"] = branch_commit.clone().into();
        v["tasks"][2]["commit"] = task3.clone().into();
    });
    let (code, verdict, findings) = verify(&case);
    assert_eq!(failures(&findings), [], "{findings:#?}");
    assert_eq!((code, verdict.as_str()), (Some(0), "CONFORMANT"));
    let rewritten = with_id(&findings, "commit-rewritten");
    assert_eq!(rewritten.len(), 1, "{findings:#?}");
    let f = rewritten[0];
    assert_eq!(f["severity"], "advisory");
    assert_eq!(f["task"], 2);
    assert_eq!(
        f["message"],
        format!(
            "task 2: commit {} is not reachable from HEAD, but commit {} on HEAD's history carries the task now (a squash or rebase merge): \"{subject2}\"",
            &branch_commit[..7],
            &squash[..7]
        )
    );
    assert_eq!(
        f["hint"],
        format!(
            "record commit {} for task 2: run `planseal rebuild {}` to see how state.json would be reconciled",
            &squash[..7],
            case.plan_rel()
        )
    );
    // finalize stays strict about the same commit: the recorded one must be HEAD's.
    let out = support::planseal(
        &case.root,
        &["--json", "finalize", &case.plan_rel(), "--dry-run"],
    );
    assert_ne!(out.status.code(), Some(0), "{}", out.stdout);
    assert!(out.stdout.contains("commit-not-ancestor"), "{}", out.stdout);
}

#[test]
fn a_v5_plan_whose_state_json_was_deleted_fails_state_missing() {
    let case = plans::deleted_state();
    let (code, verdict, findings) = verify(&case);
    assert_eq!(
        failures(&findings),
        [("state-missing".to_string(), None)],
        "{findings:#?}"
    );
    let f = &with_id(&findings, "state-missing")[0];
    assert_eq!(
        f["message"],
        "state.json is missing, but the plan had a state layer: manifest.json is a v5 manifest"
    );
    assert_eq!(
        f["hint"],
        format!(
            "rebuild it from the markdown, git and the journal: `planseal rebuild {0}` to see it, `planseal rebuild {0} --write` to write it",
            case.plan_rel()
        )
    );
    assert_eq!((code, verdict.as_str()), (Some(1), "NOT CONFORMANT"));

    // Outside git the same, from the manifest alone; a receipt alone says so too.
    let tmp = tempfile::tempdir().expect("tmp");
    let plan = tmp.path().join(".dwp/plans").join(PLAN_B);
    plans::copy_dir(&case.plan, &plan);
    let nogit = Case {
        root: tmp.path().to_path_buf(),
        plan,
        tmp,
    };
    let (code, _, findings) = verify(&nogit);
    assert_eq!(failures(&findings), [("state-missing".to_string(), None)]);
    assert_eq!(code, Some(1));
    std::fs::remove_file(nogit.plan.join("manifest.json")).expect("manifest");
    let (_, _, findings) = verify(&nogit);
    assert_eq!(
        with_id(&findings, "state-missing")[0]["message"],
        "state.json is missing, but the plan had a state layer: a publication receipt (analysis_results/FINALIZATION.json) is present"
    );
}

#[test]
fn a_missing_manifest_beside_a_v5_state_points_to_rebuild_manifest() {
    let case = plans::clean();
    std::fs::remove_file(case.plan.join("manifest.json")).expect("manifest");
    let (code, _, findings) = verify(&case);
    let f = &with_id(&findings, "manifest-missing");
    assert_eq!(f.len(), 1, "{findings:#?}");
    assert_eq!(f[0]["severity"], "fail");
    assert_eq!(
        f[0]["hint"],
        format!(
            "restore manifest.json as it was created: `planseal rebuild {} --manifest` (from git)",
            case.plan_rel()
        )
    );
    assert_eq!(code, Some(1));
}

/// A's plan after task 1, committed with the repository (`.dwp/` tracked), in a repository of
/// its own with pinned dates.
fn tracked_plan() -> (support::gitrepo::FixtureRepo, Case) {
    let mut r = support::gitrepo::FixtureRepo::new();
    r.write("src/lib.py", "base\n");
    r.commit("chore: base");
    let plan = r.path().join(".dwp/plans").join(PLAN_A);
    plans::copy_dir(&plans::snapshot("A_lite_v2", PLAN_A, "after-task1"), &plan);
    r.commit("docs: materialise PLAN_http_rate_limit");
    let root = r.path().to_path_buf();
    let tmp = tempfile::tempdir().expect("tmp");
    (r, Case { tmp, root, plan })
}

#[test]
fn a_manifest_edited_and_committed_mid_plan_fails_naming_the_fields() {
    let (mut r, case) = tracked_plan();
    let (_, _, findings) = verify(&case);
    assert_eq!(
        with_id(&findings, "manifest-unaltered").len(),
        1,
        "{findings:#?}"
    );

    let path = case.plan.join("manifest.json");
    let text = std::fs::read_to_string(&path).expect("manifest");
    let text = text
        .replace("\"rigor\": \"standard\"", "\"rigor\": \"deep\"")
        .replace("\"task_count\": 3", "\"task_count\": 4");
    std::fs::write(&path, text).expect("write");
    r.commit("chore: widen the plan");
    let (code, verdict, findings) = verify(&case);
    let f = &with_id(&findings, "manifest-altered");
    assert_eq!(f.len(), 1, "{findings:#?}");
    assert_eq!(f[0]["severity"], "fail");
    let message = f[0]["message"].as_str().expect("message");
    assert!(
        message.contains(": rigor, task_count changed, and PROGRESS.md records no migration"),
        "{message}"
    );
    assert!(
        f[0]["hint"]
            .as_str()
            .expect("hint")
            .contains("--manifest --from ")
    );
    assert_eq!((code, verdict.as_str()), (Some(1), "NOT CONFORMANT"));

    // A migration entry in PROGRESS.md makes it a recorded change.
    let progress = case.plan.join("PROGRESS.md");
    let mut text = std::fs::read_to_string(&progress).expect("progress");
    text.push_str("\n- 2026-10-05: manifest migration: rigor raised to deep, a fourth task\n");
    std::fs::write(&progress, text).expect("write");
    let (_, _, findings) = verify(&case);
    assert!(with_id(&findings, "manifest-altered").is_empty());
    assert_eq!(
        with_id(&findings, "manifest-migrated")[0]["severity"],
        "advisory"
    );
}

fn dead_pid() -> u32 {
    let mut child = support::run::hermetic("true").spawn().expect("spawn");
    let pid = child.id();
    child.wait().expect("wait");
    pid
}

fn owner_record(pid: u32, token: &str) -> String {
    serde_json::json!({
        "pid": pid,
        "host": planseal::recovery::store::process::host_name(),
        "process_start": null,
        "operation": "update task 2 → completed",
        "token": token,
        "tool": "planseal 0.1.0",
        "acquired_at": "2026-10-05T09:30:00+00:00",
    })
    .to_string()
}

#[test]
fn a_killed_writers_lock_temp_file_and_staging_folder_are_named_and_the_hints_clear_them() {
    let case = plans::no_git();
    let pid = dead_pid();
    let lock = case.plan.join("state.json.lock");
    std::fs::create_dir(&lock).expect("lock");
    std::fs::write(lock.join("owner.json"), owner_record(pid, "a1b2c3")).expect("owner");
    let temp = format!(".state.json.{pid}.a1b2c3.tmp");
    std::fs::write(case.plan.join(&temp), "{\"half\":").expect("temp");
    let staging = case.plan.join("state.json.lock.staging-d4e5f6");
    std::fs::create_dir(&staging).expect("staging");
    std::fs::write(staging.join("owner.json"), owner_record(pid, "d4e5f6")).expect("owner");

    let (code, verdict, findings) = verify(&case);
    assert_eq!((code, verdict.as_str()), (Some(1), "NOT CONFORMANT"));
    assert_eq!(failures(&findings), [("stale-lock".to_string(), None)]);
    // Named first: every other hint's command is refused until the lock goes.
    assert_eq!(findings[0]["id"], "stale-lock");
    assert_eq!(
        findings[0]["hint"],
        format!(
            "run `planseal unlock {} --reason TEXT` (the owner is provably dead), then follow the other hints",
            case.plan_rel()
        )
    );
    let debris = with_id(&findings, "writer-debris");
    let files: Vec<&str> = debris
        .iter()
        .map(|f| f["file"].as_str().expect("file"))
        .collect();
    assert_eq!(files, [temp.as_str(), "state.json.lock.staging-d4e5f6"]);
    assert_eq!(
        debris[1]["hint"],
        format!(
            "`rm -r {}/state.json.lock.staging-d4e5f6` (it never was a lock; the next write removes it too)",
            case.plan_rel()
        )
    );
    assert_eq!(
        debris[0]["hint"],
        format!(
            "`planseal unlock {} --reason TEXT` removes it with the dead writer's lock",
            case.plan_rel()
        )
    );

    // Following the hints, in order, reaches CONFORMANT.
    let out = support::planseal(
        &case.root,
        &["unlock", &case.plan_rel(), "--reason", "writer killed"],
    );
    assert_eq!(out.status.code(), Some(0), "{}{}", out.stdout, out.stderr);
    // The dead writer's staging folder goes with its lock and its temp file.
    assert!(!lock.exists() && !case.plan.join(&temp).exists() && !staging.exists());
    let (code, verdict, findings) = verify(&case);
    assert_eq!((code, verdict.as_str()), (Some(0), "CONFORMANT"));
    assert!(with_id(&findings, "writer-debris").is_empty());
}

#[test]
fn an_empty_lock_is_never_called_stale() {
    let case = plans::no_git();
    std::fs::create_dir(case.plan.join("state.json.lock")).expect("lock");
    let (code, verdict, findings) = verify(&case);
    assert!(with_id(&findings, "stale-lock").is_empty());
    let f = &with_id(&findings, "empty-lock");
    assert_eq!(f.len(), 1, "{findings:#?}");
    assert_eq!(f[0]["severity"], "advisory");
    assert_eq!(
        f[0]["hint"],
        format!(
            "first check that no DWP helper (`update-state.py`, `finalize_plan.py`) is running; then `planseal unlock {} --force --reason TEXT`",
            case.plan_rel()
        )
    );
    assert_eq!((code, verdict.as_str()), (Some(0), "CONFORMANT"));
}

#[test]
fn a_live_writers_lock_is_held_not_stale() {
    let case = plans::no_git();
    let lock = case.plan.join("state.json.lock");
    std::fs::create_dir(&lock).expect("lock");
    // This test process is alive (its start time unknown to the record: judged alive).
    std::fs::write(
        lock.join("owner.json"),
        owner_record(std::process::id(), "feed01"),
    )
    .expect("owner");
    let (code, _, findings) = verify(&case);
    assert!(with_id(&findings, "stale-lock").is_empty());
    assert_eq!(with_id(&findings, "lock-held").len(), 1, "{findings:#?}");
    assert_eq!(code, Some(0));
}

#[test]
fn a_committed_state_json_deleted_from_the_work_tree_fails_state_missing() {
    // Only git remembers the state layer: the manifest is gone too, no receipt, no journal.
    let (_r, case) = tracked_plan();
    assert!(
        !case
            .plan
            .join("analysis_results/FINALIZATION.json")
            .exists()
    );
    std::fs::remove_file(case.plan.join("state.json")).expect("state");
    std::fs::remove_file(case.plan.join("manifest.json")).expect("manifest");
    let (code, verdict, findings) = verify(&case);
    assert_eq!(
        failures(&findings),
        [("state-missing".to_string(), None)],
        "{findings:#?}"
    );
    let message = with_id(&findings, "state-missing")[0]["message"]
        .as_str()
        .expect("message")
        .to_string();
    assert!(
        message.starts_with(
            "state.json is missing, but the plan had a state layer: git holds a committed state.json (commit "
        ),
        "{message}"
    );
    assert_eq!((code, verdict.as_str()), (Some(1), "NOT CONFORMANT"));
}

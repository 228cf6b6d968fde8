//! `planseal status`: the resume view on fixture plans (in progress with a checkpoint, blocked, a
//! lock left by a dead writer, an interrupted publication, published and then edited — in a
//! repository whose `.dwp/` is ignored or tracked) and on GSD, Reversa and checkpoint
//! workspaces; text, `--json`, `--exit-code`, and every file byte-identical afterwards. Also
//! `diff --since-publication` on the published cases.

use crate::support::finalize::{Workspace, copy_dir};
use crate::support::gitrepo::{git, project_root, vector_repo};
use crate::support::plans::{self, PLAN_B};
use crate::support::run::Run;
use crate::support::{planseal, stdout};
use planseal::recovery::store::LockOwner;
use serde_json::Value;
use std::path::Path;

const AFTER_TASK1: &str = "lifecycle/snapshots/after-task1/PLAN_webhook_retry_backoff";
const PLAN_REL: &str = ".dwp/plans/PLAN_webhook_retry_backoff";

/// Runs planseal in `root`, checking that nothing under it changed.
fn run_ro(root: &Path, args: &[&str]) -> Run {
    let before = plans::snapshot_files(root);
    let out = planseal(root, args);
    assert_eq!(
        plans::snapshot_files(root),
        before,
        "`planseal {}` is read-only",
        args.join(" ")
    );
    out
}

fn json_of(root: &Path, args: &[&str]) -> Value {
    let mut argv = vec!["--json"];
    argv.extend_from_slice(args);
    let out = run_ro(root, &argv);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    serde_json::from_str(&stdout(&out)).expect("one JSON document")
}

fn in_progress() -> Workspace {
    Workspace::from_folder("B_full_v5", PLAN_B, AFTER_TASK1)
}

fn edit_state(ws: &Workspace, edit: impl FnOnce(&mut Value)) {
    let path = ws.plan_dir().join("state.json");
    let mut v: Value = serde_json::from_slice(&std::fs::read(&path).expect("state")).expect("json");
    edit(&mut v);
    let mut text = serde_json::to_string_pretty(&v).expect("json");
    text.push('\n');
    std::fs::write(&path, text).expect("write state");
}

#[test]
fn a_plan_in_progress_shows_its_checkpoint_and_the_next_update() {
    let ws = in_progress();
    let out = run_ro(ws.root(), &["status", "--exit-code"]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert_eq!(
        stdout(&out),
        "Plan: PLAN_webhook_retry_backoff (.dwp/plans/PLAN_webhook_retry_backoff)
  status: in_progress — 1/4 completed, 0 in progress, 0 blocked, 0 skipped, 3 pending
  current task: 2 — Retry loop in the deliverer [pending]
  checkpoint: task 2, step start (at 2026-10-12T13:15:01.250000+00:00)
    note: Task 1 closed. Next: Task 2.
  approval: approved
  lock: none
  marker: none
  receipt: none (not published)
  next: planseal update .dwp/plans/PLAN_webhook_retry_backoff/state.json --task 2 --status in_progress

Nothing needs action.
"
    );
    // A proposal awaiting approval: approval comes first.
    edit_state(&ws, |v| v["approval"] = "pending".into());
    let v = json_of(ws.root(), &["status"]);
    assert_eq!(v["plans"][0]["approval"], "pending");
    assert!(
        v["plans"][0]["next"][0]
            .as_str()
            .is_some_and(|n| n.starts_with("get the plan approved")),
        "{v}"
    );
    edit_state(&ws, |v| v["approval"] = "approved".into());
    // Started: the next step is to complete it.
    edit_state(&ws, |v| {
        v["tasks"][1]["status"] = "in_progress".into();
    });
    let v = json_of(ws.root(), &["status", PLAN_REL]);
    let p = &v["plans"][0];
    assert_eq!(p["current_task"]["id"], 2);
    assert_eq!(p["counts"]["in_progress"], 1);
    assert_eq!(p["checkpoint"]["step"], "start");
    assert_eq!(p["receipt"], "none");
    assert_eq!(p["attention"], serde_json::json!([]));
    assert!(
        p["next"][0]
            .as_str()
            .expect("next")
            .starts_with("planseal update .dwp/plans/PLAN_webhook_retry_backoff/state.json --task 2 --status completed"),
        "{p}"
    );
}

#[test]
fn a_blocked_task_needs_action_and_names_what_it_needs() {
    let ws = in_progress();
    edit_state(&ws, |v| {
        v["status"] = "blocked".into();
        v["tasks"][1]["status"] = "blocked".into();
        v["blocked"] = serde_json::json!({
            "task": 2, "reason": "the staging queue is down",
            "since": "2026-10-12T14:00:00+00:00", "needs": "ops to restart the queue"
        });
    });
    let out = run_ro(ws.root(), &["status", "--exit-code"]);
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    let text = stdout(&out);
    assert!(
        text.contains(
            "  blocker: task 2: the staging queue is down\n    needs: ops to restart the queue\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("  needs action: task 2 is blocked\n"),
        "{text}"
    );
    assert!(
        text.contains("  next: planseal update .dwp/plans/PLAN_webhook_retry_backoff/state.json --task 2 --status in_progress --resolve-blocker   (once it has ops to restart the queue)\n"),
        "{text}"
    );
    assert!(text.ends_with("1 need(s) action.\n"), "{text}");
    // Without --exit-code a report command exits 0.
    assert_eq!(run_ro(ws.root(), &["status"]).status.code(), Some(0));
    let v = json_of(ws.root(), &["status"]);
    assert_eq!(
        v["plans"][0]["blocker"]["needs"],
        "ops to restart the queue"
    );
    assert_eq!(v["plans"][0]["current_task"]["status"], "blocked");
}

#[test]
fn a_lock_left_by_a_dead_writer_is_named_with_its_unlock() {
    let ws = in_progress();
    let mut owner = LockOwner::for_this_process("update task 2 → in_progress", "planseal test");
    let mut child = std::process::Command::new("true")
        .spawn()
        .expect("true runs");
    owner.pid = child.id();
    child.wait().expect("true ends");
    let lock = ws.plan_dir().join("state.json.lock");
    std::fs::create_dir(&lock).expect("lock dir");
    std::fs::write(
        lock.join("owner.json"),
        serde_json::to_vec_pretty(&owner).expect("owner JSON"),
    )
    .expect("owner record");
    let out = run_ro(ws.root(), &["status", "--exit-code"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains(&format!(
            "  lock: .dwp/plans/PLAN_webhook_retry_backoff/state.json.lock — held by pid {}",
            owner.pid
        )),
        "{text}"
    );
    assert!(text.contains("owner is dead"), "{text}");
    assert!(
        text.contains("  next: planseal unlock .dwp/plans/PLAN_webhook_retry_backoff\n"),
        "{text}"
    );
    let v = json_of(ws.root(), &["status"]);
    let l = &v["plans"][0]["lock"];
    assert_eq!(l["owner"], "dead");
    assert_eq!(l["pid"], owner.pid);
    assert_eq!(l["host"], owner.host.as_str());
    // An empty lock directory is what the DWP helper holds while it works: never called dead.
    std::fs::remove_file(lock.join("owner.json")).expect("empty the lock");
    let v = json_of(ws.root(), &["status"]);
    assert_eq!(v["plans"][0]["lock"]["owner"], "unknown");
    let next = v["plans"][0]["next"][0].as_str().expect("next");
    assert!(
        next.contains("--force --reason") && next.contains("update-state.py"),
        "{next}"
    );
}

#[test]
fn an_interrupted_publication_points_to_recover() {
    let ws = in_progress();
    std::fs::write(ws.plan_dir().join(".finalizing.json"), b"{}\n").expect("marker");
    let out = run_ro(ws.root(), &["status", "--exit-code"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("  marker: present (a publication was interrupted)\n"),
        "{text}"
    );
    assert!(
        text.contains("  next: planseal recover .dwp/plans/PLAN_webhook_retry_backoff\n"),
        "{text}"
    );
    assert_eq!(json_of(ws.root(), &["status"])["plans"][0]["marker"], true);
}

#[test]
fn a_missing_state_points_to_rebuild_and_nothing_found_is_a_usage_error() {
    let ws = in_progress();
    std::fs::remove_file(ws.plan_dir().join("state.json")).expect("delete");
    let v = json_of(ws.root(), &["status"]);
    assert_eq!(v["plans"][0]["state"], "missing");
    assert_eq!(
        v["plans"][0]["next"][0],
        "planseal rebuild .dwp/plans/PLAN_webhook_retry_backoff"
    );
    // A state.json that cannot be read (here a folder) is no view: exit 2, as UNVERIFIED.
    std::fs::create_dir(ws.plan_dir().join("state.json")).expect("a folder");
    let out = run_ro(ws.root(), &["status"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stdout(&out).contains("  needs action: state.json cannot be read: "),
        "{}",
        stdout(&out)
    );
    let empty = tempfile::tempdir().expect("tmp");
    let out = planseal(empty.path(), &["status"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stderr.contains("nothing to show"), "{}", out.stderr);
}

/// B published by planseal in its vector repository (`.dwp/` git-ignored): a receipt with
/// per-file hashes and `git.head`.
fn published_by_planseal() -> (tempfile::TempDir, std::path::PathBuf) {
    let ready = project_root()
        .join("fixtures/vectors/dwp/B_full_v5/lifecycle/snapshots/ready-to-publish")
        .join(PLAN_B);
    let (tmp, root) = vector_repo("B_full_v5", None, Some(&ready));
    let candidate = tmp.path().join("candidate.json");
    std::fs::copy(
        project_root().join("fixtures/vectors/dwp/B_full_v5/lifecycle/publication/02-state.json"),
        &candidate,
    )
    .expect("candidate");
    let out = planseal(
        &root,
        &[
            "finalize",
            PLAN_REL,
            "--candidate",
            candidate.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "finalize: {}{}",
        out.stdout,
        out.stderr
    );
    (tmp, root)
}

#[test]
fn published_then_edited_names_the_file_and_diff_shows_hashes_when_untracked() {
    let (_tmp, root) = published_by_planseal();
    let v = json_of(&root, &["status", PLAN_REL]);
    assert_eq!(v["plans"][0]["receipt"], "matches", "{v}");
    assert_eq!(v["plans"][0]["next"], serde_json::json!([]));
    let (code, text) = {
        let out = run_ro(
            &root,
            &["diff", PLAN_REL, "--since-publication", "--exit-code"],
        );
        (out.status.code(), stdout(&out))
    };
    assert_eq!(code, Some(0), "{text}");
    assert!(text.ends_with("No differences.\n"), "{text}");

    let readme = root.join(PLAN_REL).join("README.md");
    let mut bytes = std::fs::read(&readme).expect("README");
    bytes.extend_from_slice(b"\nA line added after publication.\n");
    std::fs::write(&readme, bytes).expect("edit README");
    let out = run_ro(&root, &["status", "--exit-code", PLAN_REL]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("  receipt: changed since publication\n    README.md changed\n"),
        "{text}"
    );
    assert!(
        text.contains("  next: planseal diff .dwp/plans/PLAN_webhook_retry_backoff --since-publication\n  then: planseal finalize .dwp/plans/PLAN_webhook_retry_backoff\n"),
        "{text}"
    );
    // .dwp/ is git-ignored: git holds no published copy, so hashes only, and said so.
    let out = run_ro(
        &root,
        &["diff", PLAN_REL, "--since-publication", "--exit-code"],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("  ~ README.md modified (hashes only)\n"),
        "{text}"
    );
    assert!(
        text.contains("note: hashes only for README.md: git holds no copy"),
        "{text}"
    );
    let v = json_of(&root, &["diff", PLAN_REL, "--since-publication"]);
    let rows: Vec<(&str, &str)> = v["published"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["change"] != "unchanged")
        .map(|r| (r["path"].as_str().unwrap(), r["change"].as_str().unwrap()))
        .collect();
    assert_eq!(rows, [("README.md", "modified")]);
    assert_eq!(v["files"], serde_json::json!([]));
}

#[test]
fn published_and_tracked_then_edited_shows_the_line_diff() {
    let (_tmp, root) = published_by_planseal();
    git(&root, &["add", "-f", ".dwp"]);
    let out = crate::support::gitrepo::git_command(&root)
        .env("GIT_AUTHOR_DATE", "2026-10-12T16:00:00+00:00")
        .env("GIT_COMMITTER_DATE", "2026-10-12T16:00:00+00:00")
        .args([
            "commit",
            "-q",
            "--no-gpg-sign",
            "-m",
            "chore: keep the plan",
        ])
        .output()
        .expect("git");
    assert!(out.status.success());
    let readme = root.join(PLAN_REL).join("README.md");
    let text = std::fs::read_to_string(&readme).expect("README");
    std::fs::write(
        &readme,
        format!("{text}\nA line added after publication.\n"),
    )
    .expect("edit README");
    let out = run_ro(
        &root,
        &["diff", PLAN_REL, "--since-publication", "--exit-code"],
    );
    assert_eq!(out.status.code(), Some(1));
    let shown = stdout(&out);
    assert!(
        shown.contains("  ~ README.md modified (published bytes from git "),
        "{shown}"
    );
    assert!(
        shown.contains("File README.md (modified):\n--- a/README.md\n+++ b/README.md\n"),
        "{shown}"
    );
    assert!(
        shown.contains("+A line added after publication.\n"),
        "{shown}"
    );
    assert!(!shown.contains("hashes only"), "{shown}");
}

#[test]
fn diff_since_publication_needs_a_receipt() {
    let ws = in_progress();
    let out = run_ro(ws.root(), &["diff", PLAN_REL, "--since-publication"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stderr.contains("never published"), "{}", out.stderr);
}

#[test]
fn gsd_reversa_and_checkpoint_workspaces_are_shown_too() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    git(root, &["init", "-q", "--template=", "-b", "main", "."]);
    std::fs::create_dir_all(root.join(".planning")).expect("mkdir");
    std::fs::copy(
        project_root().join("fixtures/gsd/check/clean.md"),
        root.join(".planning/STATE.md"),
    )
    .expect("gsd");
    copy_dir(
        &project_root().join("fixtures/reversa/good-in-progress/.reversa"),
        &root.join(".reversa"),
    );
    copy_dir(
        &project_root().join("fixtures/checkpoint/legacy-good/docs"),
        &root.join("docs"),
    );
    let out = run_ro(root, &["status", "--exit-code"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", out.stdout, out.stderr);
    let text = stdout(&out);
    assert!(text.contains("GSD: .planning/STATE.md\n"), "{text}");
    assert!(text.contains("Reversa: .reversa/state.json\n"), "{text}");
    assert!(
        text.contains("Checkpoint: docs/PROJECT-CHECKPOINT.md\n"),
        "{text}"
    );
    let v = json_of(root, &["status"]);
    let systems: Vec<&str> = v["others"]
        .as_array()
        .expect("others")
        .iter()
        .map(|o| o["system"].as_str().expect("system"))
        .collect();
    assert_eq!(systems, ["gsd", "reversa", "checkpoint"]);
    assert_eq!(v["plans"], serde_json::json!([]));
    assert_eq!(v["others"][0]["next"][0], "planseal gsd status");
}

#[test]
fn a_helper_receipt_on_a_tracked_plan_gets_its_file_hashes_from_git() {
    // B published by the DWP helper (a receipt without per-file hashes), its .dwp/ committed.
    let case = plans::clean();
    git(&case.root, &["add", "-f", ".dwp"]);
    let out = crate::support::gitrepo::git_command(&case.root)
        .env("GIT_AUTHOR_DATE", "2026-10-12T16:00:00+00:00")
        .env("GIT_COMMITTER_DATE", "2026-10-12T16:00:00+00:00")
        .args([
            "commit",
            "-q",
            "--no-gpg-sign",
            "-m",
            "chore: keep the plan",
        ])
        .output()
        .expect("git");
    assert!(out.status.success());
    let progress = case.plan.join("PROGRESS.md");
    let text = std::fs::read_to_string(&progress).expect("PROGRESS.md");
    std::fs::write(&progress, format!("{text}\nEdited after publication.\n")).expect("edit");
    let out = run_ro(
        &case.root,
        &["diff", PLAN_REL, "--since-publication", "--exit-code"],
    );
    assert_eq!(out.status.code(), Some(1));
    let shown = stdout(&out);
    assert!(
        shown.contains("  ~ PROGRESS.md modified (published bytes from git "),
        "{shown}"
    );
    assert!(shown.contains("+Edited after publication.\n"), "{shown}");
    assert!(!shown.contains("artifacts_sha256"), "{shown}");
    // Untracked again: the helper's receipt compares the fingerprinted files as one.
    let case = plans::clean();
    std::fs::write(case.plan.join("PROGRESS.md"), "edited\n").expect("edit");
    let out = run_ro(
        &case.root,
        &["diff", PLAN_REL, "--since-publication", "--exit-code"],
    );
    assert_eq!(out.status.code(), Some(1));
    let shown = stdout(&out);
    assert!(
        shown.contains("  ~ artifacts_sha256 modified (hashes only)\n"),
        "{shown}"
    );
    assert!(
        shown.contains("note: the receipt records no per-file hashes"),
        "{shown}"
    );
}

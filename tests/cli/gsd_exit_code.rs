//! `--exit-code` on the GSD report commands: `gsd status` and `gsd recover` exit 0
//! when they ran, and with `--exit-code` exit 1 when they found a disagreement, a failing check or
//! a lost piece.

use crate::support::gitrepo;
use crate::support::run::Planseal;
use std::path::Path;

fn planseal(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Planseal::new()
        .cwd(dir)
        .env("HOME", "/nonexistent-home")
        .clock("2026-10-05T10:00:00+00:00")
        .args(args)
        .output();
    (out.status.code().unwrap(), out.stdout)
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/gsd/check/{name}")),
    )
    .unwrap()
}

fn project(state: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".planning")).unwrap();
    std::fs::write(dir.path().join(".planning/STATE.md"), state).unwrap();
    dir
}

#[test]
fn status_exit_code_follows_disagreements() {
    let dir = project(&fixture("clean.md"));
    // The frontmatter lacks keys the body gives: a disagreement.
    let (code, out) = planseal(dir.path(), &["gsd", "status"]);
    assert_eq!(code, 0, "without --exit-code a report exits 0: {out}");
    assert!(out.contains("disagreements:\n  current_plan:"), "{out}");
    for args in [
        &["gsd", "status", "--exit-code"][..],
        &["--json", "gsd", "status", "--exit-code"][..],
    ] {
        assert_eq!(planseal(dir.path(), args).0, 1, "{args:?}");
    }
    // Once synced, frontmatter and body agree: --exit-code exits 0.
    assert_eq!(planseal(dir.path(), &["gsd", "sync", "--write"]).0, 0);
    let (code, out) = planseal(dir.path(), &["gsd", "status", "--exit-code"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("disagreements: none\n"), "{out}");
    assert_eq!(
        planseal(dir.path(), &["--json", "gsd", "status", "--exit-code"]).0,
        0
    );
}

#[test]
fn status_exit_code_follows_a_failing_check_too() {
    let dir = project(&fixture("clean.md"));
    assert_eq!(planseal(dir.path(), &["gsd", "sync", "--write"]).0, 0);
    // A NUL byte in the body fails `gsd check` without touching what sync derives.
    let path = dir.path().join(".planning/STATE.md");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("note\0\n");
    std::fs::write(&path, text).unwrap();
    assert_eq!(planseal(dir.path(), &["gsd", "check"]).0, 1);
    let (code, out) = planseal(dir.path(), &["gsd", "status", "--exit-code"]);
    assert!(out.contains("disagreements: none\n"), "{out}");
    assert_eq!(code, 1, "{out}");
    assert_eq!(planseal(dir.path(), &["gsd", "status"]).0, 0);
}

const V1: &str = "---
gsd_state_version: '1.0'
status: executing
owner: Ana
---
# Project State

## Current Position

Status: Executing Phase 2
";

const V2: &str = "---
gsd_state_version: '1.0'
status: executing
---
# Project State

## Current Position

Status: Executing Phase 2
";

#[test]
fn recover_exit_code_follows_lost_pieces() {
    let mut repo = gitrepo::FixtureRepo::new();
    repo.write(".planning/STATE.md", V1);
    repo.commit("state: with owner");
    // Nothing lost yet.
    assert_eq!(
        planseal(repo.path(), &["gsd", "recover", "--exit-code"]).0,
        0
    );
    repo.write(".planning/STATE.md", V2);
    repo.commit("state: owner dropped");
    let (code, out) = planseal(repo.path(), &["gsd", "recover"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("key:owner"), "{out}");
    assert_eq!(
        planseal(repo.path(), &["gsd", "recover", "--exit-code"]).0,
        1
    );
    assert_eq!(
        planseal(repo.path(), &["--json", "gsd", "recover", "--exit-code"]).0,
        1
    );
    // Restoring everything leaves nothing lost.
    let (code, out) = planseal(
        repo.path(),
        &["gsd", "recover", "--write", "--all", "--exit-code"],
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        planseal(repo.path(), &["gsd", "recover", "--exit-code"]).0,
        0
    );
}

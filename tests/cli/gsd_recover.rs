//! `planseal gsd recover` on a fixture git repository (git CLI, pinned dates) whose history loses
//! a section, a frontmatter key, a decision and a blocker: the listing with stable ids, restoring
//! picked pieces through the store with every other byte kept, `--all`, `--from`, refusals.

use crate::support::gitrepo;
use crate::support::run::Planseal;
use serde_json::Value;
use std::path::Path;

const V1: &str = "---
gsd_state_version: '1.0'
status: executing
owner: Ana
---
# Project State

## Current Position

Phase: 2 of 4 (Parser)
Status: Executing Phase 2

## Accumulated Context

### Decisions

- Parse STATE.md by hand, no YAML library
- Keep key order on write

### Blockers/Concerns

- Waiting on the release key

## Session Continuity

Stopped at: Phase 2 plan 1
Resume file: None
";

/// A concurrent writer rewrote the file: the key `owner`, one decision and the whole
/// Blockers/Concerns section are gone; the status moved on.
const V2: &str = "---
gsd_state_version: '1.0'
status: verifying
---
# Project State

## Current Position

Phase: 2 of 4 (Parser)
Status: Verifying Phase 2

## Accumulated Context

### Decisions

- Parse STATE.md by hand, no YAML library

## Session Continuity

Stopped at: Phase 2 plan 2
Resume file: None
";

fn repo() -> gitrepo::FixtureRepo {
    let mut repo = gitrepo::FixtureRepo::new();
    repo.write(".planning/STATE.md", V1);
    repo.commit("state: phase 2 started");
    repo.write(".planning/STATE.md", V2);
    repo.commit("state: rewritten by a concurrent writer");
    repo
}

fn recover(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Planseal::new()
        .cwd(dir)
        .env("HOME", "/nonexistent-home")
        .clock("2026-10-05T10:00:00+00:00")
        .args(["gsd", "recover"])
        .args(args)
        .output();
    (out.status.code().unwrap(), out.stdout, out.stderr)
}

fn state(dir: &Path) -> String {
    std::fs::read_to_string(dir.join(".planning/STATE.md")).unwrap()
}

#[test]
fn lists_what_history_lost_with_stable_ids() {
    let repo = repo();
    let (code, out, err) = recover(repo.path(), &["--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let ids: Vec<&str> = v["lost"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "section:Blockers/Concerns",
            "key:owner",
            "decision:2-074618",
            "blocker:1-c1fd0e"
        ]
    );
    assert_eq!(v["versions_read"], 2);
    assert_eq!(v["lost"][2]["label"], "Keep key order on write");
    assert_eq!(v["lost"][0]["subject"], "state: phase 2 started");
    assert_eq!(v["lost"][0]["date"], "2026-10-05T09:00:00+00:00");
    assert_eq!(state(repo.path()), V2, "listing never writes");
    let (_, text, _) = recover(repo.path(), &[]);
    assert!(
        text.contains("  section:Blockers/Concerns  Blocker"),
        "{text}"
    );
    assert!(
        text.contains("restore with: planseal gsd recover --write --pick ID"),
        "{text}"
    );
}

#[test]
fn restores_picked_pieces_keeping_every_other_byte() {
    let repo = repo();
    let (code, out, err) = recover(
        repo.path(),
        &[
            "--write",
            "--pick",
            "section:Blockers/Concerns",
            "decision:2-074618",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("restored into .planning/STATE.md"), "{out}");
    let expected = V2
        .replace(
            "- Parse STATE.md by hand, no YAML library\n",
            "- Parse STATE.md by hand, no YAML library\n- Keep key order on write\n",
        )
        .replace(
            "## Session Continuity",
            "### Blockers/Concerns\n\n- Waiting on the release key\n\n## Session Continuity",
        );
    assert_eq!(state(repo.path()), expected);
    assert!(!repo.path().join(".planning/STATE.md.lock").exists());
    let journal = std::fs::read_to_string(crate::support::fs::journal_of(
        repo.path(),
        ".planning/STATE.md",
    ))
    .unwrap();
    let entry: Value = serde_json::from_str(journal.trim()).unwrap();
    assert_eq!(entry["operation"], "gsd recover");
    assert_eq!(entry["restored"][1], "decision:2-074618");
    // What is left to recover now is only the key.
    let (_, out, _) = recover(repo.path(), &["--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["lost"].as_array().unwrap().len(), 1);
    assert_eq!(v["lost"][0]["id"], "key:owner");
}

#[test]
fn all_restores_everything_lost() {
    let repo = repo();
    assert_eq!(recover(repo.path(), &["--write", "--all"]).0, 0);
    let text = state(repo.path());
    assert!(
        text.starts_with("---\ngsd_state_version: '1.0'\nstatus: verifying\nowner: Ana\n---\n"),
        "{text}"
    );
    assert!(text.contains("- Keep key order on write\n"));
    assert!(text.contains("### Blockers/Concerns\n\n- Waiting on the release key\n"));
    assert!(
        text.contains("Stopped at: Phase 2 plan 2\n"),
        "current values are kept"
    );
    let (_, out, _) = recover(repo.path(), &[]);
    assert!(out.contains("nothing lost"), "{out}");
}

#[test]
fn from_compares_with_one_revision() {
    let repo = repo();
    let (code, out, _) = recover(repo.path(), &["--json", "--from", "HEAD"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["lost"].as_array().unwrap().len(), 0);
    let (code, out, _) = recover(repo.path(), &["--json", "--from", "HEAD~1"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["lost"].as_array().unwrap().len(), 4);
    let (code, _, err) = recover(repo.path(), &["--from", "no-such-rev"]);
    assert_eq!(code, 2);
    assert!(err.contains("no-such-rev"), "{err}");
}

#[test]
fn refusals_change_nothing() {
    let repo = repo();
    let (code, _, err) = recover(repo.path(), &["--write", "--pick", "section:Nope"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("unknown-piece:"), "{err}");
    assert_eq!(state(repo.path()), V2);
    let (code, _, _) = recover(repo.path(), &["--write"]);
    assert_eq!(code, 2, "--write needs --pick or --all");
    let lock = repo.path().join(".planning/STATE.md.lock");
    std::fs::write(&lock, std::process::id().to_string()).unwrap();
    let (code, _, err) = recover(repo.path(), &["--write", "--all", "--lock-wait", "0"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("lock-present:"), "{err}");
    assert_eq!(state(repo.path()), V2);
    let plain = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(plain.path().join(".planning")).unwrap();
    std::fs::write(plain.path().join(".planning/STATE.md"), V2).unwrap();
    let (code, _, err) = recover(plain.path(), &[]);
    assert_eq!(code, 1);
    assert!(err.starts_with("no-git:"), "{err}");
}

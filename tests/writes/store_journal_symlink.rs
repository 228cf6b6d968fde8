//! The journal and the receipt are never written through a symlink that leads out of the plan
//! folder: `update`, `finalize` and `recover` refuse with `symlink-escape` and write nothing
//! (not the plan, not the outside file). A symlinked state.json is replaced by the rename, its
//! target never written.

use crate::support::finalize::*;
use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::Path;

const JOURNAL: &str = "analysis_results/STATE_JOURNAL.ndjson";

fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path.strip_prefix(base).unwrap().display().to_string();
            let kind = entry.file_type().unwrap();
            if kind.is_symlink() {
                out.insert(
                    format!("{rel}@"),
                    std::fs::read_link(&path)
                        .unwrap()
                        .display()
                        .to_string()
                        .into_bytes(),
                );
            } else if kind.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                walk(base, &path, out);
            } else {
                out.insert(rel, read(&path));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn assert_symlink_refusal(
    out: &Run,
    ws: &Workspace,
    outside: &Path,
    before: &BTreeMap<String, Vec<u8>>,
    outside_before: &BTreeMap<String, Vec<u8>>,
) {
    assert_refused(out, "symlink-escape");
    assert!(
        stderr(out).contains("nothing was written"),
        "{}",
        stderr(out)
    );
    assert_eq!(&snapshot(ws.root()), before);
    assert_eq!(&snapshot(outside), outside_before);
}

/// A ready-to-publish plan whose journal file is a symlink to a file outside.
fn journal_linked_out() -> (Workspace, tempfile::TempDir) {
    let (fixture, plan) = FIXTURES[0];
    let ws = Workspace::ready_to_publish(fixture, plan);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("x"), b"outside\n").unwrap();
    let journal = ws.plan_dir().join(JOURNAL);
    std::fs::create_dir_all(journal.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&journal);
    symlink(outside.path().join("x"), &journal).unwrap();
    (ws, outside)
}

/// The same plan with its whole `analysis_results` folder a symlink to a folder outside.
fn results_linked_out() -> (Workspace, tempfile::TempDir) {
    let (fixture, plan) = FIXTURES[0];
    let ws = Workspace::ready_to_publish(fixture, plan);
    let outside = tempfile::tempdir().unwrap();
    let results = ws.plan_dir().join("analysis_results");
    if results.exists() {
        copy_dir(&results, outside.path());
        std::fs::remove_dir_all(&results).unwrap();
    }
    symlink(outside.path(), &results).unwrap();
    (ws, outside)
}

fn ordinary_update(ws: &Workspace) -> Run {
    let state = format!("{}/state.json", ws.plan_rel());
    // task 3 of the ready-to-publish plan is in progress: blocking it is an ordinary write
    ws.run(&[
        "update",
        &state,
        "--task",
        "3",
        "--status",
        "blocked",
        "--block-reason",
        "waiting for review",
    ])
}

#[test]
fn update_refuses_a_journal_symlinked_out_of_the_plan() {
    let (ws, outside) = journal_linked_out();
    let before = snapshot(ws.root());
    let outside_before = snapshot(outside.path());
    let out = ordinary_update(&ws);
    assert_symlink_refusal(&out, &ws, outside.path(), &before, &outside_before);
    assert!(!ws.exists("state.json.lock"));

    // a whole analysis_results folder outside: the cited gate logs are refused first
    // (log-pointer-outside-plan), and again nothing is written on either side
    let (ws, outside) = results_linked_out();
    let before = snapshot(ws.root());
    let outside_before = snapshot(outside.path());
    let out = ordinary_update(&ws);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(snapshot(ws.root()), before);
    assert_eq!(snapshot(outside.path()), outside_before);
}

#[test]
fn finalize_refuses_a_journal_or_receipt_folder_symlinked_out() {
    for setup in [journal_linked_out, results_linked_out] {
        let (ws, outside) = setup();
        ws.place("lifecycle/publication/02-state.json", "candidate.json");
        let before = snapshot(ws.root());
        let outside_before = snapshot(outside.path());
        let out = ws.run(&["finalize", &ws.plan_rel(), "--candidate", "candidate.json"]);
        assert_symlink_refusal(&out, &ws, outside.path(), &before, &outside_before);
    }
}

#[test]
fn recover_refuses_before_acting_when_the_journal_leads_out() {
    let (fixture, plan) = FIXTURES[0];
    let ws = Workspace::from_folder(
        fixture,
        plan,
        &format!("interrupted/before_publish/plan-after-interruption/{plan}"),
    );
    ws.place("interrupted/candidate.json", "candidate.json");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("x"), b"outside\n").unwrap();
    let journal = ws.plan_dir().join(JOURNAL);
    std::fs::create_dir_all(journal.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&journal);
    symlink(outside.path().join("x"), &journal).unwrap();
    let before = snapshot(ws.root());
    let outside_before = snapshot(outside.path());
    for extra in [&["--rollback"][..], &["--candidate", "candidate.json"][..]] {
        let mut args = vec!["recover", ws.plan_rel().leak() as &str];
        args.extend(extra);
        let out = ws.run(&args);
        assert_symlink_refusal(&out, &ws, outside.path(), &before, &outside_before);
    }
}

#[test]
fn the_store_never_appends_through_a_symlink_and_replaces_a_symlinked_target() {
    use planseal::recovery::store::{Durability, Journal, write_atomic};
    let plan = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("x");
    std::fs::write(&target, b"outside\n").unwrap();

    // without a root: a symlinked journal file is still never followed
    let link = plan.path().join("j.ndjson");
    symlink(&target, &link).unwrap();
    let err = Journal::new(&link)
        .append(&serde_json::json!({"n": 1}), Durability::NoSync)
        .unwrap_err();
    assert_eq!(err.kind(), "symlink-escape");
    assert_eq!(read(&target), b"outside\n");

    // with the plan as root: a folder leading out is refused
    let dir_link = plan.path().join("analysis_results");
    symlink(outside.path(), &dir_link).unwrap();
    let err = Journal::inside(plan.path(), dir_link.join("J.ndjson"))
        .append(&serde_json::json!({"n": 1}), Durability::NoSync)
        .unwrap_err();
    assert_eq!(err.kind(), "symlink-escape");
    assert!(!outside.path().join("J.ndjson").exists());

    // the atomic write replaces the link itself; the file it pointed to keeps its bytes
    let state = plan.path().join("state.json");
    symlink(&target, &state).unwrap();
    write_atomic(&state, b"new\n", Durability::NoSync).unwrap();
    assert!(
        !std::fs::symlink_metadata(&state)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(read(&state), b"new\n");
    assert_eq!(read(&target), b"outside\n");
}

//! Issue 13 item 3: truth after the commit point. A writer's I/O error before its commit point
//! is exit 3 with nothing applied (old bytes, no temp file, no lock); a failure after it (the
//! folder sync after the rename, the journal, the rest of a publication) is never a plain
//! error: the change stays, its journal line is appended, and the run ends with 4,
//! `"result": "applied-unconfirmed"`, saying what was not confirmed and what finishes it.
//!
//! The faults are the store's fault points (`FAILPOINTS=store.fsync_dir=return(EIO)`, …; needs
//! `--features failpoints`), which make one system call fail with the chosen errno.
#![cfg(feature = "failpoints")]

use crate::support::finalize::{FIXTURES, Workspace};
use crate::support::update::*;
use serde_json::Value;
use std::path::Path;

const CLOCK: &str = "2026-10-05T09:06:00+00:00";
const STATE: &str = ".dwp/plans/PLAN_http_rate_limit/state.json";

/// An ordinary transition of fixture A: one file and one journal line.
fn block_task1(s: &Scratch, faults: Option<&str>, json: bool) -> Run {
    let mut cmd = planseal()
        .args([
            "update",
            STATE,
            "--task",
            "1",
            "--status",
            "blocked",
            "--block-reason",
            "needs an API key",
        ])
        .cwd(s.root())
        .clock(CLOCK);
    if json {
        cmd = cmd.arg("--json");
    }
    if let Some(spec) = faults {
        cmd = cmd.env("FAILPOINTS", spec);
    }
    cmd.output()
}

/// Every file under `dir` that is a temp file of the store (`.<name>.<pid>.<token>.tmp`) or a
/// lock.
fn debris(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".tmp") || name.ends_with(".lock") {
                out.push(e.path().display().to_string());
            } else if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
        }
    }
    out
}

fn read_or_empty(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_default()
}

#[test]
fn folder_fsync_failure_after_rename_is_applied_unconfirmed_exit_4_with_journal_line() {
    // The bytes a run without faults writes (same clock ⇒ same bytes, journal line included).
    let reference = Scratch::a_task1_in_progress();
    let old_state = reference.state();
    let old_journal = read_or_empty(&reference.journal());
    let ok = block_task1(&reference, None, false);
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    let new_state = reference.state();
    let new_journal = read_or_empty(&reference.journal());
    assert_ne!(old_state, new_state);
    assert_eq!(
        new_journal[old_journal.len()..]
            .iter()
            .filter(|&&b| b == b'\n')
            .count(),
        1
    );

    for json in [true, false] {
        let s = Scratch::a_task1_in_progress();
        let out = block_task1(&s, Some("store.fsync_dir=return(EIO)"), json);
        assert_eq!(out.status.code(), Some(4), "json={json}: {}", stderr(&out));
        // The change is in place, byte for byte, and so is its journal line.
        assert_eq!(s.state(), new_state, "json={json}");
        assert_eq!(read_or_empty(&s.journal()), new_journal, "json={json}");
        assert_eq!(debris(&s.plan_dir()), Vec::<String>::new());
        let err = stderr(&out);
        assert!(
            err.contains(
                "applied-unconfirmed: the change is in place, but its folder could not be synced (fsync folder "
            ),
            "{err}"
        );
        assert!(err.contains("Input/output error"), "{err}");
        assert!(err.contains("do not run the command again"), "{err}");
        assert!(!err.contains("error:"), "never a plain error: {err}");
        if json {
            let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
            assert_eq!(doc["result"], "applied-unconfirmed");
            assert_eq!(doc["applied"], "applied");
            assert_eq!(doc["task"], 1);
            assert_eq!(doc["to"], "blocked");
            let first = &doc["unconfirmed"][0];
            assert_eq!(first["kind"], "folder-sync");
            assert_eq!(
                first["path"],
                s.plan_dir().canonicalize().unwrap().display().to_string()
            );
            assert!(
                first["reason"].as_str().unwrap().contains("os error 5"),
                "{doc}"
            );
        } else {
            assert!(
                stdout(&out).starts_with("task 1 → blocked"),
                "{}",
                stdout(&out)
            );
        }
    }
}

/// The journal itself failing after the rename: said so, exit 4, the change stays.
#[test]
fn journal_failure_after_rename_is_applied_unconfirmed_naming_the_journal() {
    let s = Scratch::a_task1_in_progress();
    let journal = s.journal();
    let old_journal = read_or_empty(&journal);
    let old_state = s.state();
    let out = block_task1(&s, Some("store.journal_write=return(EIO)"), true);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert_eq!(read_or_empty(&journal), old_journal, "no line was written");
    assert_ne!(s.state(), old_state, "the change is in place");
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["result"], "applied-unconfirmed");
    assert_eq!(doc["unconfirmed"][0]["kind"], "journal-line");
    assert!(
        doc["unconfirmed"][0]["path"]
            .as_str()
            .unwrap()
            .ends_with("STATE_JOURNAL.ndjson"),
        "{doc}"
    );
    assert!(
        stderr(&out).contains("its journal line in"),
        "{}",
        stderr(&out)
    );
    assert!(!s.plan_dir().join("state.json.lock").exists());
}

#[test]
fn io_error_before_commit_point_exits_3_and_leaves_no_temp() {
    for point in [
        "store.create_temp",
        "store.write_temp",
        "store.fsync_temp",
        "store.rename",
    ] {
        for errno in ["EIO", "ENOSPC", "EACCES"] {
            let s = Scratch::a_task1_in_progress();
            let old_state = s.state();
            let old_journal = read_or_empty(&s.journal());
            let what = format!("{point}={errno}");
            let out = block_task1(&s, Some(&format!("{point}=return({errno})")), true);
            assert_eq!(out.status.code(), Some(3), "{what}: {}", stderr(&out));
            assert_eq!(s.state(), old_state, "{what}: state.json untouched");
            assert_eq!(
                read_or_empty(&s.journal()),
                old_journal,
                "{what}: no journal line"
            );
            assert_eq!(debris(&s.plan_dir()), Vec::<String>::new(), "{what}");
            let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
            assert_eq!(doc["result"], "error", "{what}");
            assert!(
                doc["hint"]
                    .as_str()
                    .unwrap()
                    .starts_with("nothing was applied"),
                "{what}: {doc}"
            );
            let message = doc["message"].as_str().unwrap();
            let reason = match errno {
                "EIO" => "Input/output error",
                "ENOSPC" => "No space left on device",
                _ => "Permission denied",
            };
            assert!(message.contains(reason), "{what}: {message}");
        }
    }
}

/// The finalization before its commit point: the marker cannot be written, so nothing is.
#[test]
fn finalize_io_error_writing_the_marker_exits_3_and_writes_nothing() {
    let (fixture, plan) = FIXTURES[0];
    let ws = Workspace::ready_to_publish(fixture, plan);
    ws.place("lifecycle/publication/02-state.json", "candidate.json");
    let before = ws.state();
    let out = finalize(&ws, Some("store.write_temp=return(ENOSPC)"));
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(ws.state(), before);
    assert!(!ws.exists(".finalizing.json"));
    assert!(!ws.exists("analysis_results/FINALIZATION.json"));
    assert_eq!(debris(&ws.plan_dir()), Vec::<String>::new());
}

fn finalize(ws: &Workspace, faults: Option<&str>) -> Run {
    let mut cmd = planseal()
        .args([
            "finalize",
            &ws.plan_rel(),
            "--candidate",
            "candidate.json",
            "--json",
        ])
        .cwd(ws.root());
    if let Some(spec) = faults {
        cmd = cmd.env("FAILPOINTS", spec);
    }
    cmd.output()
}

/// Issue 13 item 3: ENOSPC creating the state temp file after the marker (and EIO re-reading the
/// plan after it) used to leave the marker behind with a bare OS error (or exit 4 "committed"):
/// before state.json is replaced the publication is rolled back — no marker, no temp file, no
/// lock, exit 3, "nothing was applied".
#[test]
fn finalize_io_error_after_marker_before_state_rename_rolls_back_exit_3() {
    let (fixture, plan) = FIXTURES[0];
    for spec in [
        "store.write_temp=1*off->return(ENOSPC)",
        "store.create_temp=1*off->return(EIO)",
        "store.rename=1*off->return(EIO)",
        "finalize.recheck_read=return(EIO)",
    ] {
        let ws = Workspace::ready_to_publish(fixture, plan);
        ws.place("lifecycle/publication/02-state.json", "candidate.json");
        let before = ws.state();
        let out = finalize(&ws, Some(spec));
        assert_eq!(out.status.code(), Some(3), "{spec}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("nothing was applied"),
            "{spec}: {}",
            stderr(&out)
        );
        assert_eq!(ws.state(), before, "{spec}");
        assert!(!ws.exists(".finalizing.json"), "{spec}");
        assert!(!ws.exists("analysis_results/FINALIZATION.json"), "{spec}");
        assert!(
            !ws.exists("analysis_results/STATE_JOURNAL.ndjson"),
            "{spec}"
        );
        assert_eq!(debris(&ws.plan_dir()), Vec::<String>::new(), "{spec}");
    }
}

/// Past the state.json rename the publication is committed: an error writing the receipt, or
/// reading the plan back for the re-check (EIO on .git/HEAD used to end in exit 1
/// `plan-changed-after-publication` with state.json already replaced), is exit 4
/// applied-unconfirmed, the marker kept, `planseal recover PLAN` named; recover then reaches
/// exactly the bytes of a clean run.
#[test]
fn finalize_error_after_state_rename_is_applied_unconfirmed_and_recover_finishes_it() {
    for (fixture, plan) in FIXTURES {
        // The reference publication, without faults.
        let reference = Workspace::ready_to_publish(fixture, plan);
        reference.place("lifecycle/publication/02-state.json", "candidate.json");
        let ok = finalize(&reference, None);
        assert_eq!(ok.status.code(), Some(0), "{fixture}: {}", stderr(&ok));

        for spec in [
            // the receipt: the third temp file of the run
            "store.write_temp=2*off->return(ENOSPC)",
            "finalize.reverify_read=return(EIO)",
        ] {
            let ws = Workspace::ready_to_publish(fixture, plan);
            ws.place("lifecycle/publication/02-state.json", "candidate.json");
            let out = finalize(&ws, Some(spec));
            assert_eq!(
                out.status.code(),
                Some(4),
                "{fixture} {spec}: {}",
                stderr(&out)
            );
            let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
            assert_eq!(doc["result"], "applied-unconfirmed", "{doc}");
            assert_eq!(doc["applied"], "applied");
            assert_eq!(doc["outcome"], "published");
            let left = &doc["unconfirmed"][0];
            assert_eq!(left["kind"], "unfinished");
            assert!(left["path"].as_str().unwrap().ends_with(".finalizing.json"));
            let hint = left["hint"].as_str().unwrap();
            assert!(hint.contains("`planseal recover "), "{hint}");
            assert!(
                stderr(&out).contains("is left for the recovery to finish"),
                "{}",
                stderr(&out)
            );
            // Exactly what is left: the marker, state.json already the candidate; no temp, no
            // lock.
            assert!(ws.exists(".finalizing.json"));
            assert_eq!(ws.state(), reference.state(), "{fixture} {spec}");
            assert_eq!(debris(&ws.plan_dir()), Vec::<String>::new());

            // The command the hint names finishes it: the bytes of the reference publication.
            let rec = planseal()
                .args(["recover", &ws.plan_rel()])
                .cwd(ws.root())
                .output();
            assert_eq!(rec.status.code(), Some(0), "{fixture}: {}", stderr(&rec));
            assert!(!ws.exists(".finalizing.json"));
            assert_eq!(ws.state(), reference.state(), "{fixture}");
            let receipt = "analysis_results/FINALIZATION.json";
            assert_eq!(
                std::fs::read(ws.plan_dir().join(receipt)).unwrap(),
                std::fs::read(reference.plan_dir().join(receipt)).unwrap(),
                "{fixture} {spec}: {receipt}"
            );
            let verify = planseal().args(["verify"]).cwd(ws.root()).output();
            assert_eq!(
                verify.status.code(),
                Some(0),
                "{fixture}: {}",
                stdout(&verify)
            );
        }
    }
}

/// `recover` reports what it could not confirm through the writers' outcome: a folder sync
/// failing after it finished a publication used to exit 0 as if confirmed; it is exit 4
/// applied-unconfirmed now, the publication finished.
#[test]
fn recover_unconfirmed_folder_sync_exits_4_applied_unconfirmed() {
    let (fixture, plan) = FIXTURES[0];
    let ws = Workspace::ready_to_publish(fixture, plan);
    ws.place("lifecycle/publication/02-state.json", "candidate.json");
    let out = finalize(&ws, Some("finalize.after_marker=return"));
    assert_eq!(out.status.code(), Some(137), "{}", stderr(&out));
    let rec = planseal()
        .args(["recover", &ws.plan_rel(), "--json"])
        .cwd(ws.root())
        .env("FAILPOINTS", "store.fsync_dir=return(EIO)")
        .output();
    assert_eq!(rec.status.code(), Some(4), "{}", stderr(&rec));
    let doc: Value = serde_json::from_str(&stdout(&rec)).unwrap();
    assert_eq!(doc["result"], "applied-unconfirmed", "{doc}");
    // The stale lock's journal line (its folder sync failed), then the publication's folders.
    let kinds: Vec<&str> = doc["unconfirmed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["journal-line", "folder-sync", "folder-sync"],
        "{doc}"
    );
    assert!(!ws.exists(".finalizing.json"));
    let verify = planseal().args(["verify"]).cwd(ws.root()).output();
    assert_eq!(verify.status.code(), Some(0), "{}", stdout(&verify));
}

/// The folder sync failing after every rename of a publication: published, exit 4.
#[test]
fn finalize_folder_fsync_failure_is_published_unconfirmed() {
    let (fixture, plan) = FIXTURES[0];
    let ws = Workspace::ready_to_publish(fixture, plan);
    ws.place("lifecycle/publication/02-state.json", "candidate.json");
    let out = finalize(&ws, Some("store.fsync_dir=return(EIO)"));
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["result"], "applied-unconfirmed");
    assert_eq!(doc["applied"], "applied");
    assert_eq!(doc["outcome"], "published");
    // Each folder once; the new journal's folder sync also leaves its line unconfirmed.
    let kinds: Vec<(&str, &str)> = doc["unconfirmed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            let path = u["path"].as_str().unwrap();
            let name = Path::new(path).file_name().unwrap().to_str().unwrap();
            (u["kind"].as_str().unwrap(), name)
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("folder-sync", plan),
            ("folder-sync", "analysis_results"),
            ("journal-line", "STATE_JOURNAL.ndjson"),
        ],
        "{doc}"
    );
    assert!(!ws.exists(".finalizing.json"));
    assert!(ws.exists("analysis_results/FINALIZATION.json"));
    assert_eq!(debris(&ws.plan_dir()), Vec::<String>::new());
    let verify = planseal().args(["verify"]).cwd(ws.root()).output();
    assert_eq!(verify.status.code(), Some(0), "{}", stdout(&verify));
}

/// Issue 13 items 3/4: `recover` after a killed finalizer removes the dead writer's lock (and
/// journals it) before it publishes; an I/O error after that used to exit 3 "nothing applied"
/// (or, past its own state.json rename, exit 3 with state.json replaced). Both are exit 4
/// applied-unconfirmed now, the marker kept and `planseal recover PLAN` named; running it
/// finishes the publication.
#[test]
fn recover_failing_after_removing_the_stale_lock_is_applied_unconfirmed_and_rerun_finishes() {
    let (fixture, plan) = FIXTURES[0];
    let reference = Workspace::ready_to_publish(fixture, plan);
    reference.place("lifecycle/publication/02-state.json", "candidate.json");
    let ok = finalize(&reference, None);
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    for spec in [
        // before recover's state.json rename: its first temp file
        "store.write_temp=return(ENOSPC)",
        // after it: the re-check cannot read state.json back
        "finalize.reverify_read=return(EIO)",
    ] {
        let ws = Workspace::ready_to_publish(fixture, plan);
        ws.place("lifecycle/publication/02-state.json", "candidate.json");
        let out = finalize(&ws, Some("finalize.after_marker=return"));
        assert_eq!(out.status.code(), Some(137), "{}", stderr(&out));
        let rec = planseal()
            .args(["recover", &ws.plan_rel(), "--json"])
            .cwd(ws.root())
            .env("FAILPOINTS", spec)
            .output();
        assert_eq!(rec.status.code(), Some(4), "{spec}: {}", stderr(&rec));
        let doc: Value = serde_json::from_str(&stdout(&rec)).unwrap();
        assert_eq!(doc["result"], "applied-unconfirmed", "{doc}");
        let unfinished = doc["unconfirmed"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["kind"] == "unfinished")
            .unwrap_or_else(|| panic!("{spec}: {doc}"));
        assert!(
            unfinished["hint"]
                .as_str()
                .unwrap()
                .contains("`planseal recover "),
            "{doc}"
        );
        assert!(ws.exists(".finalizing.json"), "{spec}");
        assert_eq!(debris(&ws.plan_dir()), Vec::<String>::new(), "{spec}");
        let again = planseal()
            .args(["recover", &ws.plan_rel()])
            .cwd(ws.root())
            .output();
        assert_eq!(again.status.code(), Some(0), "{spec}: {}", stderr(&again));
        assert!(!ws.exists(".finalizing.json"));
        assert_eq!(ws.state(), reference.state(), "{spec}");
        let verify = planseal().args(["verify"]).cwd(ws.root()).output();
        assert_eq!(verify.status.code(), Some(0), "{spec}: {}", stdout(&verify));
    }
}

/// The fault suite found it: recover removing the dead finalizer's lock renamed it away and then
/// could not empty the released folder (ENOSPC), and reported exit 3 "nothing was applied" with
/// the lock already gone. The rename is the removal: recover finishes the publication, reports
/// the leftover as not confirmed (exit 4) with the `planseal unlock` that removes it.
#[test]
fn recover_whose_stale_lock_cannot_be_emptied_is_applied_unconfirmed_not_exit_3() {
    let (fixture, plan) = FIXTURES[0];
    let reference = Workspace::ready_to_publish(fixture, plan);
    reference.place("lifecycle/publication/02-state.json", "candidate.json");
    assert_eq!(finalize(&reference, None).status.code(), Some(0));
    let ws = Workspace::ready_to_publish(fixture, plan);
    ws.place("lifecycle/publication/02-state.json", "candidate.json");
    let out = finalize(&ws, Some("finalize.after_marker=return"));
    assert_eq!(out.status.code(), Some(137), "{}", stderr(&out));
    assert!(ws.exists("state.json.lock"), "the killed finalizer's lock");
    let rec = planseal()
        .args(["recover", &ws.plan_rel(), "--json"])
        .cwd(ws.root())
        .env("FAILPOINTS", "store.empty_released=1*return(ENOSPC)")
        .output();
    assert_eq!(rec.status.code(), Some(4), "{}", stderr(&rec));
    let doc: Value = serde_json::from_str(&stdout(&rec)).unwrap();
    assert_eq!(doc["result"], "applied-unconfirmed", "{doc}");
    let left = doc["unconfirmed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["kind"] == "lock-release")
        .unwrap_or_else(|| panic!("{doc}"));
    assert!(
        left["path"].as_str().unwrap().ends_with(".released"),
        "{doc}"
    );
    assert!(
        left["hint"].as_str().unwrap().contains("`planseal unlock "),
        "{doc}"
    );
    assert!(
        !ws.exists(".finalizing.json"),
        "the publication is finished"
    );
    assert!(!ws.exists("state.json.lock"));
    assert_eq!(ws.state(), reference.state());
    let released = |ws: &Workspace| {
        std::fs::read_dir(ws.plan_dir())
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().ends_with(".released")
            })
            .count()
    };
    assert_eq!(
        released(&ws),
        1,
        "the folder that could not be emptied is left"
    );
    let unlock = planseal()
        .args(["unlock", &format!("{}/state.json", ws.plan_rel())])
        .cwd(ws.root())
        .output();
    assert_eq!(unlock.status.code(), Some(0), "{}", stderr(&unlock));
    assert_eq!(released(&ws), 0, "unlock removed it");
    assert_eq!(debris(&ws.plan_dir()), Vec::<String>::new());
    let verify = planseal().args(["verify"]).cwd(ws.root()).output();
    assert_eq!(verify.status.code(), Some(0), "{}", stdout(&verify));
}

/// FAULTS.md: EIO reading state.json, the README or a task file in `update` used to exit 2 like
/// a usage error; a writer's I/O error before its commit point is exit 3, "nothing was
/// applied", naming the file, every file as it was.
#[test]
fn update_unreadable_input_exits_3_nothing_applied() {
    let s = Scratch::a_task1_in_progress();
    let before = s.state();
    let out = block_task1(&s, Some("update.read_state=return(EIO)"), false);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("state.json: cannot read: "), "{err}");
    assert!(err.contains("nothing was applied"), "{err}");
    assert_eq!(s.state(), before);
    assert_eq!(debris(s.root()), Vec::<String>::new());
}

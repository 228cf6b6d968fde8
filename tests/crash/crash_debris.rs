//! Issue 13 item 4, no debris: a writer killed inside lock acquisition or release, or in the
//! middle of the finalization transaction, leaves nothing that only `--force` or a hand clears.
//! Each test compares the bytes of every file with a run that was not killed.
//!
//! Needs the crash points: `cargo test --features failpoints --test crash crash_debris`.
#![cfg(feature = "failpoints")]

use crate::support::fs::tree;
use crate::support::update::{Run, Scratch, planseal, stderr};
use serde_json::Value;
use std::collections::BTreeMap;

const CLOCK: &str = "2026-10-05T09:06:00+00:00";
const STATE: &str = ".dwp/plans/PLAN_http_rate_limit/state.json";

/// Appends a gate record to task 1 (`n` tells two runs apart), with `failpoint` armed.
fn gate_update(s: &Scratch, n: u32, failpoint: Option<&str>) -> Run {
    let gate = format!("python3 -m unittest tests.test_ratelimit_{n}|0|ran=4/4; scope=tests");
    let mut cmd = planseal()
        .args(["update", STATE, "--task", "1", "--status", "in_progress"])
        .args(["--gate", gate.as_str()])
        .cwd(s.root())
        .clock(CLOCK);
    if let Some(spec) = failpoint {
        cmd = cmd.env("FAILPOINTS", spec);
    }
    cmd.output()
}

fn assert_ok(out: &Run) {
    assert_eq!(out.status.code(), Some(0), "{}{}", out.stdout, stderr(out));
}

/// `writer-debris` findings of `verify --json`, by file, and every finding id.
fn verify_findings(root: &std::path::Path) -> (Vec<String>, Vec<String>) {
    let out = planseal().args(["verify", "--json"]).cwd(root).output();
    let doc: Value = serde_json::from_str(&out.stdout).expect("verify --json");
    let mut debris = Vec::new();
    let mut ids = Vec::new();
    for s in doc["sections"].as_array().unwrap() {
        for f in s["findings"].as_array().unwrap() {
            let id = f["id"].as_str().unwrap().to_string();
            if id == "writer-debris" {
                debris.push(f["file"].as_str().unwrap().to_string());
            }
            ids.push(id);
        }
    }
    (debris, ids)
}

/// `tree` without the entries at or under `rel`.
fn without(
    mut t: BTreeMap<String, Option<Vec<u8>>>,
    rel: &str,
) -> BTreeMap<String, Option<Vec<u8>>> {
    t.retain(|k, _| k != rel && !k.starts_with(&format!("{rel}/")));
    t
}

/// The one leftover in the plan folder whose name ends with `suffix`, relative to the root.
fn the_leftover(s: &Scratch, pred: impl Fn(&str) -> bool) -> String {
    let plan = s.plan_dir();
    let found: Vec<String> = std::fs::read_dir(&plan)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| pred(n))
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    plan.join(&found[0])
        .strip_prefix(s.root())
        .unwrap()
        .display()
        .to_string()
}

#[test]
fn writer_killed_inside_lock_release_leaves_no_empty_lock() {
    for point in [
        "store.release_after_rename",
        "store.release_after_record_removal",
    ] {
        let reference = Scratch::a_task1_in_progress();
        assert_ok(&gate_update(&reference, 1, None));
        let s = Scratch::a_task1_in_progress();
        let out = gate_update(&s, 1, Some(&format!("{point}=return")));
        assert_eq!(out.status.code(), Some(137), "{point}: {}", stderr(&out));
        // Regression: the owner record went first, then the folder: a kill between the two left
        // an empty `state.json.lock/` that only `unlock --force` cleared.
        assert!(!s.plan_dir().join("state.json.lock").exists(), "{point}");
        let released = the_leftover(&s, |n| {
            n.starts_with(".state.json.lock.") && n.ends_with(".released")
        });
        assert_eq!(
            without(tree(s.root()), &released),
            tree(reference.root()),
            "{point}: applied, and nothing but the released folder is left"
        );
        let (debris, ids) = verify_findings(s.root());
        let name = released.rsplit('/').next().unwrap();
        assert_eq!(debris, [name], "{point}");
        assert!(
            !ids.iter().any(|i| i == "empty-lock" || i == "stale-lock"),
            "{point}: {ids:?}"
        );
        // The next writer removes it.
        assert_ok(&gate_update(&s, 2, None));
        assert_ok(&gate_update(&reference, 2, None));
        assert_eq!(tree(s.root()), tree(reference.root()), "{point}");
    }
}

#[test]
fn writer_killed_before_owner_record_leaves_no_staging_folder_after_next_writer() {
    let untouched = Scratch::a_task1_in_progress();
    let s = Scratch::a_task1_in_progress();
    let out = gate_update(&s, 1, Some("store.acquire_after_staging=return"));
    assert_eq!(out.status.code(), Some(137), "{}", stderr(&out));
    let staging = the_leftover(&s, |n| n.starts_with("state.json.lock.staging-"));
    assert_eq!(
        tree(&s.root().join(&staging)),
        BTreeMap::new(),
        "no record yet"
    );
    assert_eq!(without(tree(s.root()), &staging), tree(untouched.root()));
    assert!(!s.plan_dir().join("state.json.lock").exists());
    let (debris, _) = verify_findings(s.root());
    assert_eq!(debris, [staging.rsplit('/').next().unwrap()]);
    // Regression: nothing in an empty staging folder said who made it, so it stayed forever;
    // its name now carries its maker's pid and start time.
    assert_ok(&gate_update(&s, 1, None));
    assert_ok(&gate_update(&untouched, 1, None));
    assert_eq!(tree(s.root()), tree(untouched.root()));
}

mod finalizer {
    use super::*;
    use crate::support::finalize::{FIXTURES, Planseal, Workspace, json};

    fn fresh() -> Workspace {
        let (fixture, plan) = FIXTURES[1];
        let ws = Workspace::ready_to_publish(fixture, plan);
        ws.place("lifecycle/publication/02-state.json", "candidate.json");
        ws
    }

    fn finalize(ws: &Workspace, spec: Option<&str>) -> Run {
        let steps = json(ws.vectors().join("lifecycle/steps.json"));
        let last = steps["steps"].as_array().unwrap().last().unwrap().clone();
        let plan = ws.plan_rel();
        let mut cmd = Planseal::new()
            .args(["finalize", plan.as_str(), "--candidate", "candidate.json"])
            .cwd(ws.root())
            .clock(last["fake_clock_start"].as_str().unwrap());
        if let Some(spec) = spec {
            cmd = cmd.env("FAILPOINTS", spec);
        }
        cmd.output()
    }

    fn temp_files(ws: &Workspace) -> Vec<String> {
        tree(&ws.plan_dir())
            .into_keys()
            .filter(|k| k.rsplit('/').next().unwrap().starts_with('.') && k.ends_with(".tmp"))
            .collect()
    }

    fn journal(ws: &Workspace) -> Vec<Value> {
        String::from_utf8(
            ws.file("analysis_results/STATE_JOURNAL.ndjson")
                .unwrap_or_default(),
        )
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
    }

    fn run_ok(ws: &Workspace, args: &[&str]) -> Run {
        let out = ws.run(args);
        assert_ok(&out);
        out
    }

    /// Regression (17 of 100 kill rounds): a finalizer killed with its marker's or its
    /// receipt's temp file written left it forever; `unlock` removed only state.json's.
    #[test]
    fn killed_finalizer_marker_and_receipt_temps_are_removed() {
        let reference = fresh();
        assert_ok(&finalize(&reference, None));
        let state_rel = |ws: &Workspace| format!("{}/state.json", ws.plan_rel());
        // The first write is the marker's, the third the receipt's (after state.json's).
        for (skip, temp) in [
            (0, "..finalizing.json."),
            (2, "analysis_results/.FINALIZATION.json."),
        ] {
            let ws = fresh();
            let out = finalize(
                &ws,
                Some(&format!("store.after_temp_write={skip}*off->return")),
            );
            assert_eq!(out.status.code(), Some(137), "{}", stderr(&out));
            let temps = temp_files(&ws);
            assert_eq!(temps.len(), 1, "{temps:?}");
            assert!(temps[0].starts_with(temp), "{temps:?}");
            let (debris, _) = verify_findings(ws.root());
            assert_eq!(debris, temps);
            if skip == 0 {
                // No marker yet: recover has nothing to finish but removes the dead temp file;
                // unlock removes the lock; the close runs again.
                let out = run_ok(&ws, &["recover", &ws.plan_rel()]);
                assert!(
                    out.stdout.contains("no interrupted publication"),
                    "{}",
                    out.stdout
                );
                assert_eq!(temp_files(&ws), Vec::<String>::new(), "recover swept it");
                run_ok(&ws, &["unlock", &state_rel(&ws)]);
                assert_ok(&finalize(&ws, None));
            } else {
                // unlock removes the lock and, beside the journal, the receipt's temp file.
                let out = run_ok(&ws, &["unlock", &state_rel(&ws)]);
                assert!(out.stdout.contains(".FINALIZATION.json."), "{}", out.stdout);
                assert_eq!(temp_files(&ws), Vec::<String>::new(), "unlock swept it");
                run_ok(&ws, &["recover", &ws.plan_rel()]);
            }
            let (debris, _) = verify_findings(ws.root());
            assert_eq!(debris, Vec::<String>::new());
            assert_eq!(ws.state(), reference.state());
            assert_eq!(
                ws.file("analysis_results/FINALIZATION.json"),
                reference.file("analysis_results/FINALIZATION.json")
            );
            assert!(!ws.exists("state.json.lock") && !ws.exists(".finalizing.json"));
        }
    }

    /// Regression: a finalizer killed after its journal line and before removing its marker
    /// had its publication journaled a second time by `recover`.
    #[test]
    fn recover_does_not_journal_a_publication_twice() {
        let reference = fresh();
        assert_ok(&finalize(&reference, None));
        let ws = fresh();
        let before = journal(&ws).len();
        let out = finalize(&ws, Some("finalize.before_marker_removal=return"));
        assert_eq!(out.status.code(), Some(137), "{}", stderr(&out));
        assert!(ws.exists(".finalizing.json"));
        assert_eq!(
            journal(&ws).len(),
            before + 1,
            "the publication line is written"
        );
        run_ok(&ws, &["recover", &ws.plan_rel()]);
        let lines = journal(&ws);
        let publications: Vec<&Value> = lines
            .iter()
            .filter(|l| l.get("receipt").is_some())
            .collect();
        assert_eq!(publications.len(), 1, "{lines:#?}");
        assert_eq!(publications[0], &journal(&reference)[before]);
        let ops: Vec<&str> = lines[before..]
            .iter()
            .map(|l| l["operation"].as_str().unwrap())
            .collect();
        assert_eq!(ops, ["finalize", "recover: remove stale lock"]);
        assert_eq!(ws.state(), reference.state());
        assert!(!ws.exists(".finalizing.json") && !ws.exists("state.json.lock"));
        let out = ws.run(&["verify"]);
        assert!(out.stdout.contains("Verdict: CONFORMANT"), "{}", out.stdout);
    }
}

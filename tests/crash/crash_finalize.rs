//! Crash tests of the finalization transaction (`docs/finalize.md`): the process is
//! ended like `kill -9` at every step of the transaction and at every hit of the store's crash
//! points, then the documented recovery path is followed:
//! - before the marker: `verify` reports only the stale state (README ticks the last task,
//!   state.json does not), `recover` says there is no interrupted publication, `unlock` clears
//!   the dead owner's lock, and running the same publication again publishes;
//! - from the marker on: `recover`, then `verify`, ends CONFORMANT with a valid receipt.
//!
//! After every crash: state.json is never `completed` without a receipt or a marker.
//!
//! Needs the crash points: `cargo test --features failpoints --test crash crash_finalize`.
#![cfg(feature = "failpoints")]

use crate::support::finalize::*;
use planseal::dwp::publish::Step;
use serde_json::Value;

/// How the publication is started: `planseal finalize --candidate` with the recorded terminal
/// state, or the recorded terminal `update` (with its recorded clock), which hands its candidate
/// to the same transaction.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Close {
    Finalize,
    Update,
}

impl Close {
    fn args(self, ws: &Workspace) -> Vec<String> {
        match self {
            Close::Finalize => vec![
                "finalize".into(),
                ws.plan_rel(),
                "--candidate".into(),
                "candidate.json".into(),
            ],
            Close::Update => {
                let steps = json(ws.vectors().join("lifecycle/steps.json"));
                let last = steps["steps"].as_array().unwrap().last().unwrap().clone();
                let mut args = vec!["update".to_string()];
                for a in last["argv"].as_array().unwrap().iter().skip(1) {
                    args.push(a.as_str().unwrap().to_string());
                }
                args
            }
        }
    }
    fn clock(self, ws: &Workspace) -> String {
        let steps = json(ws.vectors().join("lifecycle/steps.json"));
        let last = steps["steps"].as_array().unwrap().last().unwrap().clone();
        last["fake_clock_start"].as_str().unwrap().to_string()
    }
    /// Runs the close, with the crash point `spec` armed when given.
    fn run(self, ws: &Workspace, spec: Option<&str>) -> Run {
        let mut cmd = Planseal::new()
            .args(self.args(ws))
            .cwd(ws.root())
            .clock(self.clock(ws));
        if let Some(spec) = spec {
            cmd = cmd.env("FAILPOINTS", spec);
        }
        cmd.output()
    }
}

/// Failing finding ids of `verify --json`.
fn failing_ids(ws: &Workspace) -> Vec<String> {
    let out = ws.run(&["verify", "--json"]);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    let mut ids = Vec::new();
    for s in doc["sections"].as_array().unwrap() {
        for f in s["findings"].as_array().unwrap() {
            if f["severity"] == "fail" {
                ids.push(f["id"].as_str().unwrap().to_string());
            }
        }
    }
    ids
}

/// The invariant: state.json completed ⇒ a receipt or a marker next to it.
fn assert_never_completed_unsealed(ws: &Workspace, what: &str) {
    let state: Value = serde_json::from_slice(&ws.state()).expect("state.json is whole JSON");
    if state["status"] == "completed" {
        assert!(
            ws.exists("analysis_results/FINALIZATION.json") || ws.exists(".finalizing.json"),
            "{what}: state completed without receipt or marker"
        );
    }
}

/// Follows the recovery path for whatever the crash left and checks the end state.
fn recover_and_verify(ws: &Workspace, close: Close, stale_ids: &[String], what: &str) {
    let state: Value = serde_json::from_slice(&ws.state()).unwrap();
    if ws.exists(".finalizing.json") {
        let out = ws.run(&["recover", &ws.plan_rel()]);
        assert_ok(&out);
    } else if state["status"] == "completed" {
        // published and sealed; only the dead owner's lock is left
        // A sealed plan verifies but for the dead owner's lock, which verify names.
        let expected: Vec<String> = if ws.exists("state.json.lock") {
            vec!["stale-lock".to_string()]
        } else {
            Vec::new()
        };
        assert_eq!(failing_ids(ws), expected, "{what}: a sealed plan verifies");
        let out = ws.run(&["recover", &ws.plan_rel()]);
        assert!(
            stdout(&out).contains("no interrupted publication"),
            "{what}"
        );
        let state_rel = format!("{}/state.json", ws.plan_rel());
        assert_ok(&ws.run(&["unlock", &state_rel]));
    } else {
        // before the marker: the dead writer's lock (named first, when it is left) and the
        // stale state, and nothing to recover
        let mut expected: Vec<String> = Vec::new();
        if ws.exists("state.json.lock") {
            expected.push("stale-lock".to_string());
        }
        expected.extend(stale_ids.iter().map(|s| s.to_string()));
        assert_eq!(
            failing_ids(ws),
            expected,
            "{what}: verify sees the stale lock and the stale state"
        );
        let out = ws.run(&["recover", &ws.plan_rel()]);
        assert_ok(&out);
        assert!(
            stdout(&out).contains("no interrupted publication"),
            "{what}"
        );
        if ws.exists("state.json.lock") {
            let state_rel = format!("{}/state.json", ws.plan_rel());
            let out = ws.run(&["unlock", &state_rel]);
            assert_ok(&out);
        }
        assert_ok(&close.run(ws, None));
    }
    let out = ws.run(&["verify"]);
    assert_ok(&out);
    assert!(
        stdout(&out).contains("Verdict: CONFORMANT"),
        "{what}: {}",
        stdout(&out)
    );
    let recorded = ws.vectors().join("lifecycle/publication");
    assert_eq!(ws.state(), read(recorded.join("02-state.json")), "{what}");
    assert_receipt_extends(
        &ws.file("analysis_results/FINALIZATION.json").unwrap(),
        &read(recorded.join("03-receipt.FINALIZATION.json")),
    );
    assert!(
        !ws.exists(".finalizing.json") && !ws.exists("state.json.lock"),
        "{what}"
    );
}

fn fresh(fixture: &str, plan: &str) -> Workspace {
    let ws = Workspace::ready_to_publish(fixture, plan);
    ws.place("lifecycle/publication/02-state.json", "candidate.json");
    ws
}

const FIXTURES_UNDER_TEST: [(&str, &str); 2] = [FIXTURES[0], FIXTURES[1]];

#[test]
fn a_crash_at_every_step_of_the_transaction_is_recoverable() {
    crash_at_every_step(Close::Finalize, &FIXTURES_UNDER_TEST);
}

/// The same through the terminal `update` (the helper's entry point): before the marker, the
/// recovery is to run the same `update` again.
#[test]
fn a_crash_at_every_step_of_the_terminal_update_is_recoverable() {
    crash_at_every_step(Close::Update, &FIXTURES);
}

fn crash_at_every_step(close: Close, fixtures: &[(&str, &str)]) {
    for &(fixture, plan) in fixtures {
        let stale = failing_ids(&fresh(fixture, plan));
        assert!(
            !stale.is_empty(),
            "{fixture}: ready-to-publish is stale by design"
        );
        for step in Step::ALL {
            let ws = fresh(fixture, plan);
            let before = ws.state();
            let out = close.run(&ws, Some(&format!("{}=return", step.name())));
            let what = format!("{close:?} {fixture} @ {}", step.name());
            assert_eq!(out.status.code(), Some(137), "{what}: {}", stderr(&out));
            assert_eq!(
                ws.exists(".finalizing.json"),
                step.marker_written(),
                "{what}"
            );
            assert!(
                ws.exists("state.json.lock"),
                "{what}: a killed owner leaves its lock"
            );
            if matches!(step, Step::AfterLock | Step::AfterValidation) {
                assert_eq!(
                    ws.state(),
                    before,
                    "{what}: nothing published before the marker"
                );
            }
            if step == Step::AfterMarker && close == Close::Update {
                // through the recorded terminal update, the marker carries the recorded hashes
                assert_marker_extends(
                    &ws.file(".finalizing.json").unwrap(),
                    &read(
                        ws.vectors()
                            .join("lifecycle/publication/01-marker.finalizing.json"),
                    ),
                );
            }
            assert_never_completed_unsealed(&ws, &what);
            recover_and_verify(&ws, close, &stale, &what);
        }
    }
}

/// The store's crash points inside the transaction's writes (marker, state, receipt, journal,
/// lock), at every hit: `N*off->return` lets the first N hits pass.
#[test]
fn a_crash_at_every_hit_of_the_store_points_is_recoverable() {
    let (fixture, plan) = FIXTURES[1];
    let stale = failing_ids(&fresh(fixture, plan));
    let mut crashes = 0;
    for point in [
        "store.after_lock",
        "store.after_temp_write",
        "store.after_rename",
        "store.after_journal_append",
    ] {
        for skip in 0.. {
            let ws = fresh(fixture, plan);
            let spec = format!("{point}={skip}*off->return");
            let out = Close::Finalize.run(&ws, Some(&spec));
            let what = format!("{fixture} @ {spec}");
            if out.status.code() == Some(0) {
                assert!(skip > 0, "{what}: the point was never reached");
                break;
            }
            assert_eq!(out.status.code(), Some(137), "{what}: {}", stderr(&out));
            crashes += 1;
            assert_never_completed_unsealed(&ws, &what);
            recover_and_verify(&ws, Close::Finalize, &stale, &what);
        }
    }
    assert!(crashes >= 8, "{crashes} store crashes");
}

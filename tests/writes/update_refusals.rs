//! Every writer refusal probe of the vectors (`refusals/refusals.json`, tool `writer`) run
//! through `planseal update`: exit code, refusal kind (first word of stderr and the `kind` of the
//! `--json` output), state.json byte-identical, no lock or marker left behind by planseal.
//! The two recorded cases where planseal answers differently on purpose are pinned by
//! their own tests below.

use crate::support::update::*;
use serde_json::Value;
use std::path::Path;

/// Probes whose recorded refusal planseal deliberately does not reproduce.
const DELIBERATE: &[&str] = &["gate-exit-code-not-integer", "plan-identity-mismatch"];

fn scratch_for(fixture_dir: &Path, probe: &Value) -> Scratch {
    let scratch = Scratch::new(&fixture_dir.join(probe["base"].as_str().unwrap()));
    let _ = std::fs::remove_file(
        scratch
            .plan_dir()
            .join("analysis_results/FINALIZATION.json"),
    );
    for op in probe["setup"].as_array().unwrap() {
        let path = scratch.root().join(op["path"].as_str().unwrap());
        match op["op"].as_str().unwrap() {
            "write" => {
                let bytes = std::fs::read(fixture_dir.join(op["from"].as_str().unwrap())).unwrap();
                assert_eq!(sha256(&bytes), op["sha256"].as_str().unwrap());
                std::fs::write(&path, bytes).unwrap();
            }
            "delete" => std::fs::remove_file(&path).unwrap(),
            "mkdir" => std::fs::create_dir_all(&path).unwrap(),
            other => panic!("unknown setup op {other}"),
        }
    }
    scratch
}

fn run_probe(fixture_dir: &Path, clock: &str, probe: &Value, json: bool) -> (Scratch, Run) {
    let scratch = scratch_for(fixture_dir, probe);
    let mut argv: Vec<Value> = probe["argv"].as_array().unwrap().clone();
    if json {
        argv.push(Value::from("--json"));
    }
    let out = run_update(&argv, &scratch.cwd(probe["cwd"].as_str().unwrap()), clock);
    (scratch, out)
}

fn probes(fixture: &str) -> usize {
    let dir = vectors().join(fixture);
    let doc = read_json(&dir.join("refusals/refusals.json"));
    let clock = doc["fake_clock_start"].as_str().unwrap();
    let mut checked = 0;
    for probe in doc["probes"].as_array().unwrap() {
        let case = probe["case"].as_str().unwrap();
        let kind = probe["kind"].as_str().unwrap();
        if probe["tool"] != "writer" || DELIBERATE.contains(&kind) {
            continue; // finalizer probes: tests/writes/finalize_vectors.rs; deliberate ones: below
        }
        for json in [false, true] {
            let (scratch, out) = run_probe(&dir, clock, probe, json);
            let code = probe["exit_code"].as_i64().unwrap() as i32;
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(code), "{fixture} {case}: {err}");
            assert_eq!(
                sha256(&scratch.state()),
                probe["state_sha256_after"].as_str().unwrap(),
                "{fixture} {case}: state.json changed"
            );
            let lock = scratch.plan_dir().join("state.json.lock");
            assert_eq!(
                lock.exists(),
                probe["lock_present_after"].as_bool().unwrap(),
                "{fixture} {case}: lock"
            );
            assert_eq!(
                scratch.plan_dir().join(".finalizing.json").exists(),
                probe["marker_present_after"].as_bool().unwrap(),
                "{fixture} {case}: marker"
            );
            assert!(
                !scratch
                    .plan_dir()
                    .join("analysis_results/FINALIZATION.json")
                    .exists(),
                "{fixture} {case}: receipt written"
            );
            if code == 2 {
                assert!(
                    !err.is_empty(),
                    "{fixture} {case}: usage error without a message"
                );
                continue;
            }
            assert_eq!(
                err.split(':').next().unwrap(),
                kind,
                "{fixture} {case}: {err}"
            );
            assert!(err.contains("hint:"), "{fixture} {case}: no hint in {err}");
            if json {
                let doc: Value = serde_json::from_str(&out.stdout).unwrap();
                assert_eq!(doc["result"], "refused");
                assert_eq!(doc["kind"], kind, "{fixture} {case}");
            } else {
                assert!(out.stdout.is_empty(), "{fixture} {case}: stdout not empty");
            }
        }
        checked += 1;
    }
    checked
}

#[test]
fn refusal_probes_a_lite_v2() {
    assert!(probes("A_lite_v2") >= 40);
}

#[test]
fn refusal_probes_b_full_v5() {
    assert!(probes("B_full_v5") >= 40);
}

#[test]
fn refusal_probes_d_v1() {
    assert!(probes("D_v1") >= 40);
}

fn probe(fixture: &str, case: &str) -> (std::path::PathBuf, String, Value) {
    let dir = vectors().join(fixture);
    let doc = read_json(&dir.join("refusals/refusals.json"));
    let clock = doc["fake_clock_start"].as_str().unwrap().to_string();
    let p = doc["probes"]
        .as_array()
        .unwrap()
        .iter()
        .chain(doc["accepted_probes"].as_array().into_iter().flatten())
        .find(|p| p["case"] == case)
        .unwrap_or_else(|| panic!("{fixture}: no probe {case}"))
        .clone();
    (dir, clock, p)
}

/// Deliberate difference (the helper's `--gate` breaks on commands with `|`): the helper refuses
/// `gate-exit-code-not-integer` because it splits on the first two pipes; planseal takes the
/// split whose middle field is an integer, so the command keeps its pipe and the record is
/// appended.
#[test]
fn deliberate_difference_gate_with_a_pipe_in_the_command_is_accepted() {
    for fixture in ["A_lite_v2", "B_full_v5", "D_v1"] {
        let (dir, clock, p) = probe(fixture, "gate-pipe-in-plain-gate");
        assert_eq!(p["kind"], "gate-exit-code-not-integer");
        let spec = p["argv"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .as_str()
            .unwrap()
            .to_string();
        let (scratch, out) = run_probe(&dir, &clock, &p, false);
        assert_eq!(out.status.code(), Some(0), "{fixture}: {}", stderr(&out));
        let state: Value = serde_json::from_slice(&scratch.state()).unwrap();
        let gate = state["tasks"][0]["gates"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        let (command, rest) = spec.rsplit_once('|').unwrap().0.rsplit_once('|').unwrap();
        assert_eq!(gate["command"], command, "{fixture}");
        assert!(
            command.contains(" | "),
            "{fixture}: the command keeps its pipe"
        );
        assert_eq!(gate["exit_code"].as_i64().unwrap().to_string(), rest);
        assert_eq!(gate["passes"], true);
    }
}

/// Deliberate difference (the helper's terminal close run from inside the plan folder fails its
/// identity check): the helper refuses `plan-identity-mismatch` for A and B (it compares the folder
/// name of the relative argument `state.json`); planseal canonicalises the path, so the close
/// publishes as it does from the repository root (D's helper accepts it too).
#[test]
fn deliberate_difference_terminal_close_from_inside_the_plan_folder_publishes() {
    for (fixture, recorded_kind) in [
        ("A_lite_v2", Some("plan-identity-mismatch")),
        ("B_full_v5", Some("plan-identity-mismatch")),
        ("D_v1", None),
    ] {
        let (dir, clock, p) = probe(fixture, "terminal-from-inside-plan-dir");
        assert_eq!(p["kind"].as_str(), recorded_kind);
        let (scratch, out) = run_probe(&dir, &clock, &p, false);
        assert_eq!(out.status.code(), Some(0), "{fixture}: {}", stderr(&out));
        let task = p["argv"][3].as_str().unwrap();
        assert_eq!(
            stdout(&out),
            format!("task {task} → completed · plan completed and verified\n")
        );
        let state: Value = serde_json::from_slice(&scratch.state()).unwrap();
        assert_eq!(state["status"], "completed");
        let receipt = read_json(
            &scratch
                .plan_dir()
                .join("analysis_results/FINALIZATION.json"),
        );
        assert_eq!(
            receipt["state_sha256"].as_str().unwrap(),
            sha256(&scratch.state())
        );
        if let Some(after) = p
            .get("state_sha256_after")
            .filter(|_| recorded_kind.is_none())
        {
            // D: the helper accepted it too; same clock, same bytes.
            assert_eq!(sha256(&scratch.state()), after.as_str().unwrap());
        }
    }
}

//! The recorded refusal probes of the DWP helpers (vectors README §6), replayed against the
//! model: what the helper refused when validating the state as read or the candidate is found
//! by `semantics` + `gates`; what it accepted at that stage raises no failure here.

use crate::support::fs::copy_dir;
use planseal::dwp::check::gates::{parse_gate_spec, state_gate_findings};
use planseal::dwp::check::semantics::{CheckMode, check_state, derive_status, validate_candidate};
use planseal::dwp::model::schema::validate_state;
use planseal::dwp::model::{State, parse_json};
use planseal::report::Severity;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const FIXTURES: [&str; 3] = ["A_lite_v2", "B_full_v5", "D_v1"];

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vectors/dwp")
}

/// A repository root holding the probe's plan with its setup applied.
struct Materialized {
    _root: tempfile::TempDir,
    plan_dir: PathBuf,
    root_dir: PathBuf,
}

fn materialize(fixture: &str, probe: &Value) -> Materialized {
    let fixture_dir = vectors().join(fixture);
    let base = fixture_dir.join(probe["base"].as_str().unwrap());
    let plan_name = base.file_name().unwrap().to_owned();
    let root = tempfile::tempdir().unwrap();
    let plan_dir = root.path().join(".dwp/plans").join(&plan_name);
    copy_dir(&base, &plan_dir);
    for op in probe["setup"].as_array().unwrap() {
        let path = root.path().join(op["path"].as_str().unwrap());
        match op["op"].as_str().unwrap() {
            "write" => {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::copy(fixture_dir.join(op["from"].as_str().unwrap()), &path).unwrap();
            }
            "delete" => std::fs::remove_file(&path).unwrap(),
            "mkdir" => std::fs::create_dir_all(&path).unwrap(),
            other => panic!("unknown op {other}"),
        }
    }
    Materialized {
        root_dir: root.path().to_path_buf(),
        _root: root,
        plan_dir,
    }
}

fn probes() -> Vec<(&'static str, Value)> {
    FIXTURES
        .iter()
        .flat_map(|f| {
            let bytes = std::fs::read(vectors().join(f).join("refusals/refusals.json")).unwrap();
            let doc = parse_json(&bytes).unwrap();
            doc["probes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (*f, p.clone()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Failures of the state as a writer reads it: shape, semantics (as read) and gate rules.
fn input_failures(plan_dir: &Path) -> Vec<String> {
    let bytes = std::fs::read(plan_dir.join("state.json")).unwrap();
    let value = parse_json(&bytes).unwrap();
    let state = State::from_value(&value);
    let mut ids: Vec<String> = validate_state(&value)
        .iter()
        .filter(|i| i.is_error())
        .map(|_| "shape-error".to_string())
        .collect();
    ids.extend(
        check_state(&state, CheckMode::AsRead)
            .into_iter()
            .chain(state_gate_findings(&state, Some(plan_dir)))
            .filter(|f| f.severity == Severity::Fail)
            .map(|f| f.id),
    );
    ids
}

#[test]
fn input_validation_refusals_are_found() {
    let mut seen = 0;
    for (fixture, probe) in probes() {
        if probe["stage"] != "input-validation" {
            continue;
        }
        let kind = probe["kind"].as_str().unwrap();
        if kind == "unsupported-schema" {
            continue; // covered by dwp_model_vectors
        }
        let m = materialize(fixture, &probe);
        let ids = input_failures(&m.plan_dir);
        assert!(
            ids.iter().any(|id| id == kind),
            "{fixture} {}: expected {kind}, got {ids:?}",
            probe["case"]
        );
        seen += 1;
    }
    assert!(seen >= 15, "{seen}");
}

#[test]
fn states_the_helper_accepted_as_input_raise_no_failure() {
    let mut seen = 0;
    for (fixture, probe) in probes() {
        let stage = probe["stage"].as_str().unwrap();
        if ![
            "transition",
            "gates",
            "completion",
            "candidate-validation",
            "write",
        ]
        .contains(&stage)
        {
            continue;
        }
        let m = materialize(fixture, &probe);
        let ids = input_failures(&m.plan_dir);
        assert!(ids.is_empty(), "{fixture} {}: {ids:?}", probe["case"]);
        seen += 1;
    }
    assert!(seen >= 60, "{seen}");
}

/// Builds the candidate an update would write for the gate probes: the task's status, the
/// `--gate` / `--gate-json` records appended, counts and status recomputed.
fn candidate_from_argv(plan_dir: &Path, argv: &[&str]) -> Value {
    let bytes = std::fs::read(plan_dir.join("state.json")).unwrap();
    let mut state = parse_json(&bytes).unwrap();
    let arg = |name: &str| argv.iter().position(|a| *a == name).map(|i| argv[i + 1]);
    let task_id: usize = arg("--task").unwrap().parse().unwrap();
    let status = arg("--status").unwrap();
    let task = &mut state["tasks"][task_id - 1];
    task["status"] = json!(status);
    if task.get("gates").is_none() {
        task["gates"] = json!([]);
    }
    for (i, a) in argv.iter().enumerate() {
        let record = match *a {
            "--gate" => {
                let spec = parse_gate_spec(argv[i + 1]).unwrap();
                json!({"command": spec.command, "passes": spec.passes(),
                       "last_run": "2026-11-02T10:00:00+00:00", "exit_code": spec.exit_code,
                       "evidence": spec.evidence})
            }
            "--gate-json" => serde_json::from_str(argv[i + 1]).unwrap(),
            _ => continue,
        };
        task["gates"].as_array_mut().unwrap().push(record);
    }
    let statuses: Vec<_> = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| planseal::dwp::model::TaskStatus::parse(t["status"].as_str().unwrap()).unwrap())
        .collect();
    let completed = statuses
        .iter()
        .filter(|s| **s == planseal::dwp::model::TaskStatus::Completed)
        .count();
    state["completed_count"] = json!(completed);
    state["status"] = json!(derive_status(&statuses, false).as_str());
    state
}

#[test]
fn candidate_validation_refusals_are_found() {
    let mut seen = 0;
    for (fixture, probe) in probes() {
        if probe["stage"] != "candidate-validation" {
            continue;
        }
        let kind = probe["kind"].as_str().unwrap();
        let m = materialize(fixture, &probe);
        let argv: Vec<&str> = probe["argv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let candidate = candidate_from_argv(&m.plan_dir, &argv);
        let ids: Vec<String> = validate_candidate(&candidate, &m.plan_dir)
            .into_iter()
            .map(|f| f.id)
            .collect();
        let expected = if kind == "shape-error" {
            "state-shape-error"
        } else {
            kind
        };
        assert!(
            ids.iter().any(|id| id == expected),
            "{fixture} {}: expected {expected}, got {ids:?}",
            probe["case"]
        );
        // nothing else is wrong with these candidates
        assert!(
            ids.iter().all(|id| id == expected),
            "{fixture} {}: {ids:?}",
            probe["case"]
        );
        seen += 1;
    }
    assert_eq!(seen, 21);
}

#[test]
fn finalizer_candidate_without_done_checkpoint() {
    let mut seen = 0;
    for (fixture, probe) in probes() {
        if probe["case"] != "finalizer-candidate-checkpoint-not-done" {
            continue;
        }
        let m = materialize(fixture, &probe);
        let bytes = std::fs::read(m.root_dir.join("candidate.json")).unwrap();
        let candidate = parse_json(&bytes).unwrap();
        let ids: Vec<String> = validate_candidate(&candidate, &m.plan_dir)
            .into_iter()
            .map(|f| f.id)
            .collect();
        assert_eq!(ids, ["terminal-checkpoint-missing"], "{fixture}");
        seen += 1;
    }
    assert_eq!(seen, 3);
}

#[test]
fn recorded_lifecycle_states_are_valid() {
    for fixture in FIXTURES {
        let dir = vectors().join(fixture).join("lifecycle/states");
        let final_plan =
            std::fs::read_dir(vectors().join(fixture).join("lifecycle/snapshots/final"))
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path();
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        for path in names {
            let value = parse_json(&std::fs::read(&path).unwrap()).unwrap();
            // every state the helper wrote passed its strict candidate validation
            let findings = validate_candidate(&value, &final_plan);
            assert!(findings.is_empty(), "{}: {findings:#?}", path.display());
        }
    }
}

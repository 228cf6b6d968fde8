//! The model, schema and semantics against the recorded DWP vectors: every state and manifest
//! the helpers wrote validates cleanly, and every recorded refusal of the state as read is found.

use planseal::dwp::model::schema::{validate_manifest, validate_state};
use planseal::dwp::model::{Era, JsonError, PlanFile, State, parse_json, state_era};
use serde_json::Value;
use std::path::{Path, PathBuf};

const FIXTURES: [&str; 3] = ["A_lite_v2", "B_full_v5", "D_v1"];

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vectors/dwp")
}

fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_json(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every state.json / manifest.json / candidate the helpers wrote or were given.
fn recorded_documents() -> Vec<(PathBuf, PlanFile)> {
    let mut out = Vec::new();
    for fixture in FIXTURES {
        let root = vectors().join(fixture);
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    if !path.ends_with("blobs") {
                        stack.push(path);
                    }
                    continue;
                }
                let name = path.file_name().unwrap().to_string_lossy().to_string();
                if name == "manifest.json" {
                    out.push((path, PlanFile::Manifest));
                } else if name == "state.json"
                    || name.ends_with(".state.json")
                    || name.starts_with("candidate")
                    || name == "02-state.json"
                {
                    out.push((path, PlanFile::State));
                }
            }
        }
    }
    out
}

#[test]
fn every_recorded_document_validates_cleanly() {
    let docs = recorded_documents();
    assert!(docs.len() > 100, "found only {} documents", docs.len());
    for (path, kind) in docs {
        let value = read_json(&path);
        let issues = match kind {
            PlanFile::State => validate_state(&value),
            PlanFile::Manifest => validate_manifest(&value),
        };
        assert!(issues.is_empty(), "{}: {issues:#?}", path.display());
    }
}

#[test]
fn eras_of_the_fixtures() {
    for (fixture, era) in [
        ("A_lite_v2", Era::V2),
        ("B_full_v5", Era::V5),
        ("D_v1", Era::V1),
    ] {
        let dir = std::fs::read_dir(vectors().join(fixture).join("fixture"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("PLAN_")
            })
            .unwrap();
        let state = read_json(&dir.join("state.json"));
        assert_eq!(state_era(&state), Ok(era));
        assert_eq!(State::from_value(&state).era, Some(era));
    }
}

struct Probe {
    fixture: &'static str,
    case: String,
    kind: String,
    details: Vec<String>,
    state_blob: Option<PathBuf>,
    raw: Value,
}

fn probes() -> Vec<Probe> {
    let mut out = Vec::new();
    for fixture in FIXTURES {
        let root = vectors().join(fixture);
        let doc = read_json(&root.join("refusals/refusals.json"));
        for p in doc["probes"].as_array().unwrap() {
            let state_blob = p["setup"].as_array().unwrap().iter().find_map(|s| {
                let path = s["path"].as_str()?;
                (s["op"] == "write" && path.ends_with("/state.json"))
                    .then(|| root.join(s["from"].as_str().unwrap()))
            });
            out.push(Probe {
                fixture,
                case: p["case"].as_str().unwrap().to_string(),
                kind: p["kind"].as_str().unwrap().to_string(),
                details: p["details"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_str().unwrap().to_string())
                    .collect(),
                state_blob,
                raw: p.clone(),
            });
        }
    }
    out
}

fn shape_errors(value: &Value) -> usize {
    validate_state(value)
        .iter()
        .filter(|i| i.is_error())
        .count()
}

#[test]
fn shape_error_probes_of_the_state_as_read_are_caught() {
    let mut seen = 0;
    for probe in probes().iter().filter(|p| p.kind == "shape-error") {
        let Some(blob) = &probe.state_blob else {
            continue;
        };
        let value = read_json(blob);
        let n = shape_errors(&value);
        // the helper reported one label per schema error; we must find at least as many
        assert!(
            n >= probe.details.len().max(1),
            "{} {}: {n} issue(s), {:?}",
            probe.fixture,
            probe.case,
            validate_state(&value)
        );
        seen += 1;
    }
    assert_eq!(
        seen, 6,
        "A, B and D state-unexpected-field + D's three v1 probes"
    );
}

/// `gate-json-extra-field`: the candidate is the base state with the `--gate-json` record
/// appended to task 1 (and task 1 started).
#[test]
fn gate_json_extra_field_probes_are_caught() {
    let mut seen = 0;
    for probe in probes()
        .iter()
        .filter(|p| p.case == "gate-json-extra-field")
    {
        let argv: Vec<&str> = probe.raw["argv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let i = argv.iter().position(|a| *a == "--gate-json").unwrap();
        let record: Value = serde_json::from_str(argv[i + 1]).unwrap();
        let base = vectors()
            .join(probe.fixture)
            .join(probe.raw["base"].as_str().unwrap());
        let mut state = read_json(&base.join("state.json"));
        let task = &mut state["tasks"][0];
        task["status"] = Value::from("in_progress");
        match task.get_mut("gates").and_then(Value::as_array_mut) {
            Some(gates) => gates.push(record),
            None => task["gates"] = Value::Array(vec![record]),
        }
        let issues = validate_state(&state);
        assert!(
            issues
                .iter()
                .any(|i| i.path == "$.tasks[0].gates[0]" && i.problem == "unknown field `retries`"),
            "{}: {issues:#?}",
            probe.fixture
        );
        seen += 1;
    }
    assert_eq!(seen, 3);
}

#[test]
fn other_probe_states_have_the_right_shape() {
    for probe in probes() {
        let Some(blob) = &probe.state_blob else {
            continue;
        };
        let bytes = std::fs::read(blob).unwrap();
        match probe.kind.as_str() {
            "shape-error" => {}
            "state-unreadable" | "state-unparseable" => {
                let err = parse_json(&bytes).unwrap_err();
                assert!(
                    matches!(err, JsonError::Empty | JsonError::Truncated { .. }),
                    "{}: {err:?}",
                    probe.case
                );
            }
            "unsupported-schema" => {
                let value = parse_json(&bytes).unwrap();
                assert!(state_era(&value).is_err(), "{}", probe.case);
                let issues = validate_state(&value);
                assert_eq!(issues.len(), 1);
                assert_eq!(issues[0].path, "$.schema");
            }
            _ => {
                let value = parse_json(&bytes).unwrap();
                assert_eq!(
                    validate_state(&value),
                    vec![],
                    "{} {}",
                    probe.fixture,
                    probe.case
                );
            }
        }
    }
}

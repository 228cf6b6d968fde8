//! A 5000-task plan goes through the whole reading chain (parse, schema, semantics, gates with
//! log pointers on disk, fingerprint) with the right answer; the time is printed for
//! `--nocapture` runs (timings are not asserted: the machine is shared).

use planseal::dwp::check::gates::state_gate_findings;
use planseal::dwp::check::semantics::{CheckMode, check_state};
use planseal::dwp::model::fingerprint::{artifact_names, artifacts_sha256};
use planseal::dwp::model::schema::validate_state;
use planseal::dwp::model::{State, parse_json};
use serde_json::json;
use std::time::Instant;

const TASKS: usize = 5000;

#[test]
fn five_thousand_tasks() {
    let plan = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(plan.path().join("analysis_results/gates")).unwrap();
    std::fs::write(plan.path().join("analysis_results/gates/suite.log"), "ok\n").unwrap();
    let tasks: Vec<_> = (1..=TASKS)
        .map(|id| {
            json!({
                "id": id,
                "locator": {"kind": "file", "value": format!("{id}.task_step_{id}.md")},
                "title": format!("Step {id}"),
                "status": "completed",
                "started_at": "2026-10-12T13:00:00+00:00",
                "gates": [
                    {"command": "make test", "passes": false, "last_run": "2026-10-12T13:01:00+00:00", "exit_code": 1,
                     "evidence": "ran=10; failures=1; log=analysis_results/gates/suite.log"},
                    {"command": "make test", "passes": true, "last_run": "2026-10-12T13:02:00+00:00", "exit_code": 0,
                     "evidence": "scope=unit; fp=6037c9f+clean; ran=12/12; log=analysis_results/gates/suite.log"}
                ],
                "completed_at": "2026-10-12T13:03:00+00:00",
                "commit": "6037c9f",
                "outcome": {"tried": ["a"], "failed": [], "worked": "b", "notes": "c"}
            })
        })
        .collect();
    let doc = json!({
        "schema": "https://deepworkplan.com/schema/plan-state/v5.json",
        "plan": "PLAN_big", "updated_at": "2026-10-12T14:00:00+00:00", "status": "completed",
        "completed_count": TASKS, "task_count": TASKS, "format": "full", "materialization": "ready",
        "approval": "approved", "promotion": null,
        "checkpoint": {"task": TASKS, "step": "done", "at": "2026-10-12T14:00:00+00:00", "note": "Plan completed."},
        "blocked": null, "tasks": tasks
    });
    let bytes = serde_json::to_vec_pretty(&doc).unwrap();

    let start = Instant::now();
    let value = parse_json(&bytes).unwrap();
    let parsed = start.elapsed();
    let issues = validate_state(&value);
    let state = State::from_value(&value);
    let mut findings = check_state(&state, CheckMode::Strict);
    findings.extend(state_gate_findings(&state, Some(plan.path())));
    let judged = start.elapsed();
    let fp = artifacts_sha256(plan.path(), &artifact_names(&state)).unwrap();
    let total = start.elapsed();

    assert!(issues.is_empty(), "{:?}", &issues[..issues.len().min(3)]);
    assert!(
        findings.is_empty(),
        "{:?}",
        &findings[..findings.len().min(3)]
    );
    assert_eq!(fp.files.len(), TASKS + 6);
    eprintln!(
        "{TASKS} tasks, {} KiB: parse {:?}, parse+schema+semantics+gates {:?}, with fingerprint {:?}",
        bytes.len() / 1024,
        parsed,
        judged,
        total
    );
}

//! GSD's state rules against the recorded vectors of its own library: status normalisation
//! (also through `planseal gsd status --json`), the derived progress percent and the template
//! default test.

use crate::support::run::Planseal;
use planseal::gsd::rules::{compute_progress_percent, is_template_default, normalize_status};
use serde_json::Value;
use std::path::Path;

fn vectors() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vectors/gsd/vectors.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn normalize_state_status_vectors() {
    let cases = vectors()["normalizeStateStatus"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(cases.len(), 23);
    for c in &cases {
        let input = c["input"].as_str().unwrap();
        let paused = c["paused_at"].as_str();
        assert_eq!(
            normalize_status(input, paused),
            c["expected"].as_str().unwrap(),
            "{c}"
        );
    }
}

#[test]
fn normalize_state_status_vectors_through_status_command() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("STATE.md");
    for c in vectors()["normalizeStateStatus"].as_array().unwrap() {
        let paused = match c["paused_at"].as_str() {
            Some(p) => format!("paused_at: \"{p}\"\n"),
            None => String::new(),
        };
        let text = format!(
            "---\ngsd_state_version: '1.0'\n{paused}---\n## Current Position\n\nStatus: {}\n",
            c["input"].as_str().unwrap()
        );
        std::fs::write(&file, text).unwrap();
        let out = Planseal::new()
            .args(["--json", "gsd", "status"])
            .arg(&file)
            .output();
        assert_eq!(out.status.code(), Some(0));
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["status"]["normalized"], c["expected"], "{c}");
    }
}

#[test]
fn compute_progress_percent_vectors() {
    let cases = vectors()["computeProgressPercent"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(cases.len(), 11);
    for c in &cases {
        let n = |k: &str| c[k].as_u64();
        assert_eq!(
            compute_progress_percent(
                n("completed_plans"),
                n("total_plans"),
                n("completed_phases"),
                n("total_phases")
            ),
            c["expected"].as_u64(),
            "{c}"
        );
    }
}

#[test]
fn is_state_template_default_vectors() {
    let cases = vectors()["isStateTemplateDefault"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(cases.len(), 14);
    for c in &cases {
        assert_eq!(
            is_template_default(c["field"].as_str().unwrap(), c["value"].as_str()),
            c["is_template_default"].as_bool().unwrap(),
            "{c}"
        );
    }
}

#[test]
fn status_reports_fields_percent_and_disagreements() {
    let dir = tempfile::tempdir().unwrap();
    let planning = dir.path().join(".planning");
    std::fs::create_dir_all(planning.join("phases/01-a")).unwrap();
    std::fs::create_dir_all(planning.join("phases/02-b/plans")).unwrap();
    std::fs::write(planning.join("phases/01-a/01-PLAN.md"), "x").unwrap();
    std::fs::write(planning.join("phases/01-a/01-SUMMARY.md"), "x").unwrap();
    // A plan in plans/, and a superseded plan that does not count.
    std::fs::write(planning.join("phases/02-b/plans/01.md"), "x").unwrap();
    std::fs::write(
        planning.join("phases/02-b/00-PLAN.md"),
        "---\nstatus: superseded\n---\n",
    )
    .unwrap();
    std::fs::write(
        planning.join("STATE.md"),
        "---\ngsd_state_version: '1.0'\nmilestone: v1\nstatus: planning\nprogress:\n  total_plans: 84\n  completed_plans: 47\n  total_phases: 17\n  completed_phases: 10\n  percent: 59\n---\n## Current Position\n\nPhase: 1 of 1 (A)\n**Status:** Executing Phase 1\n| Last activity | 2026-06-01 |\n",
    )
    .unwrap();
    let out = Planseal::new()
        .cwd(dir.path())
        .env("HOME", "/nonexistent-home")
        .args(["--json", "gsd", "status"])
        .output();
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["file"], ".planning/STATE.md");
    assert_eq!(v["status"]["normalized"], "executing");
    assert_eq!(v["percent"]["frontmatter"], "59");
    assert_eq!(v["percent"]["from_counters"], 56);
    assert_eq!(v["percent"]["from_phase_folders"], 50);
    assert_eq!(v["phases"]["total_plans"], 2);
    assert_eq!(v["phases"]["completed_phases"], 1);
    let styles: Vec<&str> = v["body_fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["style"].as_str().unwrap())
        .collect();
    assert_eq!(styles, ["plain", "bold", "table"]);
    let keys: Vec<&str> = v["disagreements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["key"].as_str().unwrap())
        .collect();
    assert!(
        keys.contains(&"status") && keys.contains(&"progress.percent"),
        "{keys:?}"
    );
    assert_eq!(
        v["statusline"]["full"],
        "v1 [█████░░░░░] 59% · planning · A (1/1)"
    );
}

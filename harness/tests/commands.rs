//! The two commands scripts/crash-loop.sh runs.

use std::process::Command;

fn harness(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_planseal-harness"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn ready_plan_writes_the_plan_and_its_candidate() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_str().unwrap();
    let out = harness(&["ready-plan", dir, "5"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        ".dwp/plans/PLAN_demo_greeting/state.json\n"
    );
    let plan = tmp.path().join(".dwp/plans/PLAN_demo_greeting");
    for f in [
        "state.json",
        "README.md",
        "5.task_final_review.md",
        "4.task_step_4.md",
    ] {
        assert!(plan.join(f).is_file(), "{f}");
    }
    let candidate = tmp.path().join("candidate.json");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&candidate).unwrap()).unwrap();
    assert_eq!(v["status"], "completed");
    assert_eq!(v["tasks"].as_array().unwrap().len(), 5);
    assert_eq!(
        harness(&["json-check", candidate.to_str().unwrap()])
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn json_check_says_1_for_a_cut_document_and_2_for_no_file() {
    let tmp = tempfile::tempdir().unwrap();
    let cut = tmp.path().join("cut.json");
    std::fs::write(&cut, "{\"a\": [1, 2").unwrap();
    assert_eq!(
        harness(&["json-check", cut.to_str().unwrap()])
            .status
            .code(),
        Some(1)
    );
    let missing = tmp.path().join("missing.json");
    assert_eq!(
        harness(&["json-check", missing.to_str().unwrap()])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(harness(&["ready-plan", ".", "many"]).status.code(), Some(2));
    assert_eq!(harness(&[]).status.code(), Some(2));
}

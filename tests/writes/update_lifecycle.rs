//! Every recorded lifecycle step of fixtures A, B and D replayed through `planseal update`
//! (vectors README §5 "Replaying a step"): state.json bytes, stdout and exit code must equal what
//! the DWP helper produced with the same fixed clock.

use crate::support::update::*;

/// Replays the non-terminal steps of one fixture; returns how many were checked.
fn replay(fixture: &str) -> usize {
    let root = vectors().join(fixture);
    let lifecycle = root.join("lifecycle");
    let steps = read_json(&lifecycle.join("steps.json"));
    let plan = steps["plan"].as_str().unwrap();
    let final_plan = lifecycle.join("snapshots/final").join(plan);
    let mut previous = std::fs::read(lifecycle.join("states/00-initial.state.json")).unwrap();
    let mut checked = 0;
    for step in steps["steps"].as_array().unwrap() {
        let name = step["step"].as_str().unwrap();
        let expected = std::fs::read(lifecycle.join(step["state_file"].as_str().unwrap())).unwrap();
        if step.get("publication").is_some() {
            // The terminal step publishes through the finalization transaction: see
            // `terminal_step_publishes_*` below (it needs the ready-to-publish markdown).
            previous = expected;
            continue;
        }
        let scratch = Scratch::new(&final_plan);
        let _ = std::fs::remove_file(
            scratch
                .plan_dir()
                .join("analysis_results/FINALIZATION.json"),
        );
        std::fs::write(scratch.state_path(), &previous).unwrap();
        let out = run_update(
            step["argv"].as_array().unwrap(),
            &scratch.cwd(step["cwd"].as_str().unwrap()),
            step["fake_clock_start"].as_str().unwrap(),
        );
        assert_eq!(
            out.status.code(),
            Some(step["exit_code"].as_i64().unwrap() as i32),
            "{fixture} {name}: stderr {}",
            stderr(&out)
        );
        assert_eq!(
            stdout(&out),
            step["stdout"].as_str().unwrap(),
            "{fixture} {name}"
        );
        let got = scratch.state();
        assert!(
            got == expected,
            "{fixture} {name}: state.json differs\n--- got\n{}\n--- expected\n{}",
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&expected)
        );
        assert_eq!(sha256(&got), step["state_sha256_after"].as_str().unwrap());
        assert!(
            !scratch.plan_dir().join("state.json.lock").exists(),
            "{fixture} {name}: lock left"
        );
        // One journal line per applied transition, naming the hashes.
        let journal = std::fs::read_to_string(scratch.journal()).unwrap();
        let entry: serde_json::Value =
            serde_json::from_str(journal.lines().last().unwrap()).unwrap();
        assert_eq!(entry["before_sha256"], step["state_sha256_before"]);
        assert_eq!(entry["after_sha256"], step["state_sha256_after"]);
        previous = expected;
        checked += 1;
    }
    checked
}

#[test]
fn lifecycle_a_lite_v2_every_step_is_byte_identical() {
    assert_eq!(replay("A_lite_v2"), 14);
}

#[test]
fn lifecycle_b_full_v5_every_step_is_byte_identical() {
    assert_eq!(replay("B_full_v5"), 22);
}

#[test]
fn lifecycle_d_v1_every_step_is_byte_identical() {
    assert_eq!(replay("D_v1"), 14);
}

/// The terminal step: `update --status completed` on the last task hands the candidate to the
/// finalization transaction, which publishes state.json (byte-identical to the helper's) and the
/// receipt (its leading keys equal the helper's; planseal appends its own after them).
fn terminal(fixture: &str) {
    let lifecycle = vectors().join(fixture).join("lifecycle");
    let steps = read_json(&lifecycle.join("steps.json"));
    let plan = steps["plan"].as_str().unwrap();
    let step = steps["steps"].as_array().unwrap().last().unwrap().clone();
    assert!(step.get("publication").is_some());
    let scratch = Scratch::new(&lifecycle.join("snapshots/ready-to-publish").join(plan));
    let out = run_update(
        step["argv"].as_array().unwrap(),
        &scratch.cwd(step["cwd"].as_str().unwrap()),
        step["fake_clock_start"].as_str().unwrap(),
    );
    assert_eq!(out.status.code(), Some(0), "{fixture}: {}", stderr(&out));
    assert_eq!(stdout(&out), step["stdout"].as_str().unwrap());
    let expected = std::fs::read(lifecycle.join(step["state_file"].as_str().unwrap())).unwrap();
    assert!(
        scratch.state() == expected,
        "{fixture}: published state differs"
    );
    assert_eq!(
        std::fs::read(lifecycle.join("publication/02-state.json")).unwrap(),
        expected
    );
    let receipt = read_json(
        &scratch
            .plan_dir()
            .join("analysis_results/FINALIZATION.json"),
    );
    let recorded = read_json(&lifecycle.join("publication/03-receipt.FINALIZATION.json"));
    for key in ["state_sha256", "artifacts_sha256", "result"] {
        assert_eq!(receipt[key], recorded[key], "{fixture}: receipt {key}");
    }
    assert!(!scratch.plan_dir().join(".finalizing.json").exists());
    assert!(!scratch.plan_dir().join("state.json.lock").exists());
    // The publishing transition is journaled like every other one: task, from → to,
    // the hashes — what `rebuild` reads back.
    let journal = std::fs::read_to_string(scratch.journal()).unwrap();
    let entry: serde_json::Value = serde_json::from_str(journal.lines().last().unwrap()).unwrap();
    assert_eq!(entry["operation"], "update+finalize", "{fixture}: {entry}");
    assert_eq!(entry["to"], "completed");
    assert!(entry["task"].as_u64().is_some(), "{fixture}: {entry}");
    assert!(entry["time"].is_string(), "{fixture}: {entry}");
    assert_eq!(entry["before_sha256"], step["state_sha256_before"]);
    assert_eq!(entry["after_sha256"], step["state_sha256_after"]);
    assert_eq!(entry["receipt"], "analysis_results/FINALIZATION.json");
}

#[test]
fn terminal_step_publishes_a_lite_v2() {
    terminal("A_lite_v2");
}

#[test]
fn terminal_step_publishes_b_full_v5() {
    terminal("B_full_v5");
}

#[test]
fn terminal_step_publishes_d_v1() {
    terminal("D_v1");
}

//! A rebuild that restores a lost state.json as a completed one publishes it only through the
//! finalization transaction. Ended like `kill -9` at every step of that transaction, the plan
//! is never left with a completed state.json and neither a receipt nor a marker, and following
//! the printed hints reaches CONFORMANT.
//!
//! Needs the crash points: `cargo test --features failpoints --test crash crash_rebuild`.
#![cfg(feature = "failpoints")]

use crate::support::chain::walk;
use crate::support::plans;
use crate::support::run::Planseal;
use planseal::dwp::publish::Step;

fn completed_without_seal(case: &plans::Case) -> bool {
    let state = std::fs::read(case.plan.join("state.json")).ok();
    let completed = state
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .is_some_and(|v| v["status"] == "completed");
    completed
        && !case
            .plan
            .join("analysis_results/FINALIZATION.json")
            .exists()
        && !case.plan.join(".finalizing.json").exists()
}

#[test]
fn a_rebuild_of_a_lost_state_killed_at_every_step_is_recoverable_by_the_hints() {
    for step in Step::ALL {
        let case = plans::deleted_state();
        // The published plan's receipt goes with the lost state (a receipt for other bytes
        // would only say "mismatch"): the rebuild publishes a new one.
        std::fs::remove_file(case.plan.join("analysis_results/FINALIZATION.json")).unwrap();
        let out = Planseal::new()
            .cwd(&case.root)
            .args(["rebuild", &case.plan_rel(), "--write"])
            .env("FAILPOINTS", format!("{}=return", step.name()))
            .output();
        let what = format!("rebuild --write @ {}", step.name());
        assert_eq!(out.code, 137, "{what}: {}{}", out.stdout, out.stderr);
        assert!(!completed_without_seal(&case), "{what}");
        assert_eq!(
            case.plan.join(".finalizing.json").exists(),
            step.marker_written(),
            "{what}"
        );
        let walked = walk(&case.root, 8, &[]);
        walked.assert_conformant();
        assert!(
            case.plan
                .join("analysis_results/FINALIZATION.json")
                .exists(),
            "{what}: sealed"
        );
    }
}

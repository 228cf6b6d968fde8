//! Following every printed hint, in order, from a broken plan reaches CONFORMANT
//! (`support::chain` walks them as a person or an agent would).

use crate::support::chain::walk;
use crate::support::finalize::*;

/// The helper killed after replacing state.json: its marker and its empty lock stay. verify
/// names the marker, recover names the lock, unlock (after the operator's check) clears it,
/// and recover finishes the publication.
#[test]
fn helper_killed_after_publish_reaches_conformant_by_the_hints() {
    for (fixture, plan) in FIXTURES {
        let ws = Workspace::from_folder(
            fixture,
            plan,
            &format!("interrupted/killed_after_publish/plan-after-interruption/{plan}"),
        );
        std::fs::create_dir_all(ws.plan_dir().join("state.json.lock")).unwrap();
        let walk = walk(ws.root(), 6, &[]);
        walk.assert_conformant();
        let actions = walk.actions();
        assert!(
            actions[0].starts_with("planseal recover"),
            "{}",
            walk.trail()
        );
        assert!(
            actions
                .iter()
                .any(|a| a.starts_with("planseal unlock") && a.contains("--force")),
            "{}",
            walk.trail()
        );
        assert!(ws.exists("analysis_results/FINALIZATION.json"));
    }
}

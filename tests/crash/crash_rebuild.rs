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

/// The bytes of every file of the plan folder (recursively), by relative name.
fn plan_bytes(case: &plans::Case) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![case.plan.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(&case.plan).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn rebuild_write(case: &plans::Case, faults: Option<&str>) -> crate::support::run::Run {
    let mut cmd = Planseal::new()
        .cwd(&case.root)
        .args(["rebuild", &case.plan_rel(), "--write"])
        .env("PLANSEAL_FAKE_NOW", "2026-11-30T10:00:00+00:00");
    if let Some(spec) = faults {
        cmd = cmd.env("FAILPOINTS", spec);
    }
    cmd.output()
}

fn lost_state() -> plans::Case {
    let case = plans::deleted_state();
    std::fs::remove_file(case.plan.join("analysis_results/FINALIZATION.json")).unwrap();
    case
}

/// Issue 13 item 3: `rebuild --write` of a completed state wrote its PROGRESS.md entry and a
/// journal line in a transaction of its own before the finalization, so a fault in the
/// finalization exited 1/3 with PROGRESS.md already changed. It is one transaction now: a
/// fault before state.json's rename (the marker, the PROGRESS.md entry, state.json's temp file)
/// leaves every file of the plan as it was, exit 3; a fault after it is exit 4 and `planseal
/// recover` reaches the bytes of a clean run.
#[test]
fn rebuild_write_progress_entry_is_part_of_the_publication_transaction() {
    let clean = lost_state();
    let ok = rebuild_write(&clean, None);
    assert_eq!(ok.code, 0, "{}{}", ok.stdout, ok.stderr);
    let new_bytes = plan_bytes(&clean);

    // Temp files in order: the marker, PROGRESS.md, state.json, the receipt.
    for spec in [
        "store.write_temp=return(ENOSPC)",
        "store.write_temp=1*off->return(ENOSPC)",
        "store.rename=2*off->1*return(EIO)",
    ] {
        let case = lost_state();
        let old_bytes = plan_bytes(&case);
        let out = rebuild_write(&case, Some(spec));
        assert_eq!(out.code, 3, "{spec}: {}{}", out.stdout, out.stderr);
        assert!(
            out.stderr.contains("nothing was applied"),
            "{spec}: {}",
            out.stderr
        );
        let now = plan_bytes(&case);
        let differ: Vec<&String> = now
            .keys()
            .chain(old_bytes.keys())
            .filter(|f| now.get(*f) != old_bytes.get(*f))
            .collect();
        assert!(differ.is_empty(), "{spec}: changed {differ:?}");
    }

    // Past state.json's rename: the receipt cannot be written.
    let case = lost_state();
    let out = rebuild_write(&case, Some("store.write_temp=3*off->return(ENOSPC)"));
    assert_eq!(out.code, 4, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("planseal recover "), "{}", out.stderr);
    let rec = Planseal::new()
        .cwd(&case.root)
        .args(["recover", &case.plan_rel()])
        .env("PLANSEAL_FAKE_NOW", "2026-11-30T10:00:00+00:00")
        .output();
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    let after = plan_bytes(&case);
    for file in [
        "PROGRESS.md",
        "state.json",
        "analysis_results/FINALIZATION.json",
    ] {
        assert!(
            after.get(file) == new_bytes.get(file),
            "{file} differs from a clean run"
        );
    }

    // Killed after the PROGRESS.md entry is in place (the second rename): recover finishes it.
    let case = lost_state();
    let out = rebuild_write(&case, Some("store.after_rename=1*off->return"));
    assert_eq!(out.code, 137, "{}{}", out.stdout, out.stderr);
    let rec = Planseal::new()
        .cwd(&case.root)
        .args(["recover", &case.plan_rel()])
        .env("PLANSEAL_FAKE_NOW", "2026-11-30T10:00:00+00:00")
        .output();
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    let after = plan_bytes(&case);
    for file in [
        "PROGRESS.md",
        "state.json",
        "analysis_results/FINALIZATION.json",
    ] {
        assert!(
            after.get(file) == new_bytes.get(file),
            "{file} differs from a clean run"
        );
    }
}

/// FAULTS.md: an input `rebuild --write` cannot read (EIO on a task file, state.json,
/// .git/HEAD) used to exit 2 like a usage error; before its commit point a writer's I/O error is
/// exit 3, "nothing was applied", every file as it was. A dry run keeps 2 (unreadable input).
#[test]
fn rebuild_write_unreadable_input_exits_3_nothing_applied() {
    let case = lost_state();
    let old_bytes = plan_bytes(&case);
    let out = rebuild_write(&case, Some("rebuild.gather=return(EIO)"));
    assert_eq!(out.code, 3, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("nothing was applied"), "{}", out.stderr);
    assert!(out.stderr.contains("Input/output error"), "{}", out.stderr);
    assert!(plan_bytes(&case) == old_bytes, "every file as it was");
    let dry = Planseal::new()
        .cwd(&case.root)
        .args(["rebuild", &case.plan_rel()])
        .env("FAILPOINTS", "rebuild.gather=return(EIO)")
        .output();
    assert_eq!(dry.code, 2, "{}{}", dry.stdout, dry.stderr);
}

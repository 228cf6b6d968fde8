//! Agreement with the recorded cases of the original checker (`fixtures/vectors/dwp/`): every
//! conformance variant, the lifecycle snapshots and steps, the final snapshots and the plans left
//! by an interrupted publication. Compared: verdict, exit code and failing labels (with their
//! task) — never pass/advisory counts, since planseal runs more checks.
//!
//! Deliberate differences (`docs/verify.md`) are listed in `deliberate_difference` and each has its
//! own test below that says why.

use crate::support::verify::*;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const FIXTURES: [&str; 3] = ["A_lite_v2", "B_full_v5", "D_v1"];

fn load(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Builds `<tmp>/.dwp/plans/PLAN_x` from a variant's base folder and setup operations.
fn build_variant(fixture: &Path, plan: &str, variant: &Value) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join(".dwp/plans").join(plan);
    copy_dir(&fixture.join(variant["base"].as_str().unwrap()), &dest);
    for op in variant["setup"].as_array().unwrap() {
        let path = tmp.path().join(op["path"].as_str().unwrap());
        match op["op"].as_str().unwrap() {
            "write" => {
                let bytes = std::fs::read(fixture.join(op["from"].as_str().unwrap())).unwrap();
                assert_eq!(
                    planseal::recovery::hash::sha256_hex(&bytes),
                    op["sha256"].as_str().unwrap()
                );
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, bytes).unwrap();
            }
            "delete" => std::fs::remove_file(&path).unwrap(),
            "mkdir" => std::fs::create_dir_all(&path).unwrap(),
            other => panic!("unknown setup op {other}"),
        }
    }
    tmp
}

/// Why planseal answers differently from the recorded case, or None when it must agree.
fn deliberate_difference(fixture: &str, case: &str) -> Option<&'static str> {
    match (fixture, case) {
        ("D_v1", "task-log-pending-while-completed") => {
            Some("on v1 plans planseal also checks the log Status line of completed tasks")
        }
        ("D_v1", "unknown-approval-value") => Some(
            "on v1 plans planseal checks the state's closed shape (approval is not a v1 field)",
        ),
        _ => None,
    }
}

/// Failing ids planseal may add to a recorded case on purpose: `receipt-mismatch` when the variant
/// edits a fingerprinted file (or state.json) of a published plan.
fn allowed_extras(variant: &Value) -> Vec<&'static str> {
    let base = variant["base"].as_str().unwrap();
    let edits_published = base.contains("snapshots/final")
        && variant["setup"].as_array().unwrap().iter().any(|op| {
            let p = op["path"].as_str().unwrap();
            !p.ends_with(".finalizing.json") && !p.contains("/gates/")
        });
    if edits_published {
        vec!["receipt-mismatch"]
    } else {
        vec![]
    }
}

/// Asserts planseal's answer against a recorded `{verdict, exit_code, failing_checks}`.
fn assert_agrees(run: &Run, recorded: &Value, extras: &[&str], what: &str) {
    assert_eq!(
        run.verdict(),
        recorded["verdict"].as_str().unwrap(),
        "{what}: verdict\n{}",
        run.stdout
    );
    assert_eq!(
        run.code,
        recorded["exit_code"].as_i64().unwrap() as i32,
        "{what}: exit code"
    );
    let ours = run.failing();
    let mut recorded_ids = Vec::new();
    for check in recorded["failing_checks"].as_array().unwrap() {
        let label = check["label"].as_str().unwrap();
        recorded_ids.push(label.to_string());
        let task = check["task"].as_u64();
        assert!(
            ours.iter()
                .any(|(id, t)| id == label && (task.is_none() || *t == task)),
            "{what}: recorded failing label {label} (task {task:?}) missing from planseal's findings {ours:?}"
        );
    }
    for (id, _) in &ours {
        assert!(
            recorded_ids.contains(id) || extras.contains(&id.as_str()),
            "{what}: planseal fails {id}, which the recorded case does not and no deliberate difference allows; all: {ours:?}"
        );
    }
}

#[test]
fn every_conformance_variant_agrees_or_differs_as_spec_5_says() {
    let mut checked = 0;
    for fx in FIXTURES {
        let fixture = vectors().join(fx);
        let doc = load(&fixture.join("conformance/variants.json"));
        let plan = doc["plan"].as_str().unwrap();
        for variant in doc["variants"].as_array().unwrap() {
            let case = variant["case"].as_str().unwrap();
            if deliberate_difference(fx, case).is_some() {
                continue; // pinned one by one below
            }
            let tmp = build_variant(&fixture, plan, variant);
            let before = tree_hash(tmp.path());
            let run = planseal(tmp.path(), &["--json", "verify", "--plan", plan]);
            assert_agrees(
                &run,
                variant,
                &allowed_extras(variant),
                &format!("{fx}/{case}"),
            );
            // The same answer when the plan folder is given as a path.
            let by_path = planseal(
                tmp.path(),
                &["--json", "verify", &format!(".dwp/plans/{plan}")],
            );
            assert_eq!(by_path.code, run.code, "{fx}/{case}: by path");
            assert_eq!(
                tree_hash(tmp.path()),
                before,
                "{fx}/{case}: verify changed a file"
            );
            checked += 1;
        }
    }
    assert_eq!(
        checked, 28,
        "every recorded variant but the two deliberate differences"
    );
}

/// Deliberate difference (v1 plans: the log `Status: pending` of a completed task is checked): the
/// helper's legacy path calls this variant CONFORMANT; planseal reports the contradiction.
#[test]
fn deliberate_d_v1_task_log_pending_while_completed_is_not_conformant() {
    let fixture = vectors().join("D_v1");
    let doc = load(&fixture.join("conformance/variants.json"));
    let variant = doc["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["case"] == "task-log-pending-while-completed")
        .unwrap();
    assert_eq!(
        variant["verdict"], "CONFORMANT",
        "the recorded helper answer"
    );
    let tmp = build_variant(&fixture, "PLAN_config_env_overrides", variant);
    let run = planseal(tmp.path(), &["--json", "verify"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.verdict(), "NOT CONFORMANT");
    assert_eq!(
        run.failing(),
        vec![("task-log-still-pending".to_string(), Some(1))]
    );
}

/// Deliberate difference (v1 plans: the state's shape is checked): an `approval` key is not part
/// of the closed v1 state schema, so planseal reports a shape error where the helper passes.
#[test]
fn deliberate_d_v1_unknown_approval_value_is_not_conformant() {
    let fixture = vectors().join("D_v1");
    let doc = load(&fixture.join("conformance/variants.json"));
    let variant = doc["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["case"] == "unknown-approval-value")
        .unwrap();
    assert_eq!(
        variant["verdict"], "CONFORMANT",
        "the recorded helper answer"
    );
    let tmp = build_variant(&fixture, "PLAN_config_env_overrides", variant);
    let run = planseal(tmp.path(), &["--json", "verify"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.failing_ids(), vec!["state-shape-error".to_string()]);
    assert!(
        run.stdout
            .contains("`approval` is not allowed in a v1 state"),
        "{}",
        run.stdout
    );
}

/// Deliberate difference (the receipt is verified): a variant that edits a fingerprinted file of a
/// published plan also gets `receipt-mismatch`, naming the changed file.
#[test]
fn deliberate_security_review_edit_of_a_published_plan_also_breaks_the_receipt() {
    for fx in FIXTURES {
        let fixture = vectors().join(fx);
        let doc = load(&fixture.join("conformance/variants.json"));
        let plan = doc["plan"].as_str().unwrap();
        let variant = doc["variants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["case"] == "security-review-open-critical")
            .unwrap();
        let tmp = build_variant(&fixture, plan, variant);
        let run = planseal(tmp.path(), &["--json", "verify"]);
        assert_eq!(
            run.failing_ids(),
            vec![
                "receipt-mismatch".to_string(),
                "security-review-open-critical".to_string()
            ],
            "{fx}"
        );
    }
}

fn snapshot_dirs(fixture: &Path) -> Vec<PathBuf> {
    ["after-task1", "final"]
        .iter()
        .map(|s| fixture.join("lifecycle/snapshots").join(s))
        .collect()
}

/// The snapshots after task 1 and after publication are CONFORMANT, as recorded
/// (`lifecycle/steps.json`: `conformance_after` of the step each snapshot follows, and
/// `final_conformance`).
#[test]
fn lifecycle_snapshots_are_conformant() {
    for fx in FIXTURES {
        let fixture = vectors().join(fx);
        let steps = load(&fixture.join("lifecycle/steps.json"));
        assert_eq!(steps["final_conformance"]["verdict"], "CONFORMANT");
        for dir in snapshot_dirs(&fixture) {
            let tmp = tempfile::tempdir().unwrap();
            copy_dir(&dir, &tmp.path().join(".dwp/plans"));
            let run = planseal(tmp.path(), &["--json", "verify"]);
            assert_agrees(
                &run,
                &steps["final_conformance"],
                &[],
                &format!("{fx} {}", dir.display()),
            );
        }
    }
}

/// Every lifecycle step whose plan files can be rebuilt from recorded bytes (the fixture, the
/// snapshots and the blobs, found by their sha256): the state after the step plus the markdown
/// and logs the driver had written by then must give the recorded `conformance_after`.
#[test]
fn lifecycle_steps_agree_with_conformance_after() {
    for fx in FIXTURES {
        let fixture = vectors().join(fx);
        let steps = load(&fixture.join("lifecycle/steps.json"));
        let plan = steps["plan"].as_str().unwrap();
        let mut pool: HashMap<String, Vec<u8>> = HashMap::new();
        collect(&fixture, &mut pool);
        let initial = fixture.join("fixture").join(plan);
        let mut current: HashMap<String, Vec<u8>> = HashMap::new();
        read_tree(&initial, &initial, &mut current);
        let mut rebuilt = 0;
        // Files whose version at this step no recorded byte string has (they become known again
        // when a later step changes them to a recorded version).
        let mut unknown: std::collections::HashSet<String> = Default::default();
        for step in steps["steps"].as_array().unwrap() {
            for change in step["plan_files_changed_before_step"].as_array().unwrap() {
                let sha = change["sha256"].as_str().unwrap();
                let path = change["path"].as_str().unwrap().to_string();
                match pool.get(sha) {
                    Some(bytes) => {
                        unknown.remove(&path);
                        current.insert(path, bytes.clone());
                    }
                    None => {
                        unknown.insert(path);
                    }
                }
            }
            let state = std::fs::read(
                fixture
                    .join("lifecycle")
                    .join(step["state_file"].as_str().unwrap()),
            )
            .unwrap();
            current.insert("state.json".into(), state);
            if !unknown.is_empty() {
                continue; // an intermediate markdown version that no snapshot kept
            }
            let publishing = step.get("publication").is_some_and(|p| !p.is_null());
            let tmp = tempfile::tempdir().unwrap();
            let dest = tmp.path().join(".dwp/plans").join(plan);
            for (rel, bytes) in &current {
                let p = dest.join(rel);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, bytes).unwrap();
            }
            if publishing {
                let receipt = std::fs::read(
                    fixture.join("lifecycle/publication/03-receipt.FINALIZATION.json"),
                )
                .unwrap();
                std::fs::write(dest.join("analysis_results/FINALIZATION.json"), receipt).unwrap();
            }
            let run = planseal(tmp.path(), &["--json", "verify", "--plan", plan]);
            assert_agrees(
                &run,
                &step["conformance_after"],
                &[],
                &format!("{fx} {}", step["step"]),
            );
            rebuilt += 1;
        }
        let expected = match fx {
            "A_lite_v2" => 10,
            "B_full_v5" => 11,
            _ => 10,
        };
        assert_eq!(rebuilt, expected, "{fx}: steps rebuilt from recorded bytes");
    }
}

fn collect(dir: &Path, pool: &mut HashMap<String, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            collect(&p, pool);
        } else {
            let bytes = std::fs::read(&p).unwrap();
            pool.insert(planseal::recovery::hash::sha256_hex(&bytes), bytes);
        }
    }
}

fn read_tree(root: &Path, dir: &Path, out: &mut HashMap<String, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            read_tree(root, &p, out);
        } else {
            out.insert(
                p.strip_prefix(root).unwrap().display().to_string(),
                std::fs::read(&p).unwrap(),
            );
        }
    }
}

/// The plans an interrupted publication left behind stop at `marker-present` with nothing
/// passed, as recorded (`interrupted.json`).
#[test]
fn interrupted_publications_stop_at_the_marker() {
    for fx in FIXTURES {
        let fixture = vectors().join(fx);
        let doc = load(&fixture.join("interrupted/interrupted.json"));
        for (case, _) in doc["cases"].as_object().unwrap() {
            let src = fixture
                .join("interrupted")
                .join(case)
                .join("plan-after-interruption");
            let tmp = tempfile::tempdir().unwrap();
            copy_dir(&src, &tmp.path().join(".dwp/plans"));
            let before = tree_hash(tmp.path());
            let run = planseal(tmp.path(), &["--json", "verify"]);
            assert_eq!(run.code, 1, "{fx}/{case}");
            assert_eq!(
                run.failing_ids(),
                vec!["marker-present".to_string()],
                "{fx}/{case}"
            );
            let counts = &run.json()["counts"];
            assert_eq!(
                counts["passed"], 0,
                "{fx}/{case}: checking stops at the marker"
            );
            assert_eq!(tree_hash(tmp.path()), before);
        }
    }
}

/// A crash before the publication marker leaves the markdown closed and state.json stale; verify
/// reports exactly that disagreement (the README ticks the last task, the state does not).
#[test]
fn ready_to_publish_snapshot_reports_the_stale_state() {
    for (fx, last, extra) in [
        ("A_lite_v2", 3, None),
        ("B_full_v5", 4, None),
        ("D_v1", 3, Some("completed-count-desync")),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        copy_dir(
            &vectors()
                .join(fx)
                .join("lifecycle/snapshots/ready-to-publish"),
            &tmp.path().join(".dwp/plans"),
        );
        let run = planseal(tmp.path(), &["--json", "verify"]);
        assert_eq!(run.code, 1, "{fx}");
        let mut want = vec![("readme-checkbox-disagrees".to_string(), Some(last))];
        if let Some(id) = extra {
            want.insert(0, (id.to_string(), None));
        }
        assert_eq!(run.failing(), want, "{fx}");
    }
}

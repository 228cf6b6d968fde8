//! State semantics (derived fields, approval, blocker and checkpoint rules, planseal's own
//! checks): one case per finding, effective approval, the
//! manifest rules, and the recorded conformance variants that concern the model.

use planseal::dwp::check::semantics::{
    ApprovalSource, CheckMode, approval_effective, check_manifest, check_state,
};
use planseal::dwp::model::schema::{era_pairing, shape_findings, validate_state};
use planseal::dwp::model::{
    Approval, Era, Manifest, PlanFile, State, manifest_era, parse_json, state_era,
};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn base() -> Value {
    json!({
        "schema": "https://deepworkplan.com/schema/plan-state/v5.json",
        "plan": "PLAN_x", "updated_at": "2026-10-12T12:30:00+00:00", "status": "in_progress",
        "completed_count": 1, "task_count": 3, "format": "full", "materialization": "ready",
        "approval": "approved", "promotion": null, "checkpoint": null, "blocked": null,
        "tasks": [
            {"id": 1, "locator": {"kind": "file", "value": "1.task_a.md"}, "title": "A", "status": "completed",
             "completed_at": "2026-10-12T13:00:00+00:00", "gates": []},
            {"id": 2, "locator": {"kind": "file", "value": "2.task_b.md"}, "title": "B", "status": "in_progress", "gates": []},
            {"id": 3, "locator": {"kind": "file", "value": "3.task_final_review.md"}, "title": "Final Review", "status": "pending", "gates": []}
        ]
    })
}

fn ids(value: &Value, mode: CheckMode) -> Vec<String> {
    check_state(&State::from_value(value), mode)
        .into_iter()
        .map(|f| f.id)
        .collect()
}

#[test]
fn a_coherent_state_has_no_finding() {
    assert_eq!(ids(&base(), CheckMode::Strict), Vec::<String>::new());
}

#[test]
fn one_case_per_finding() {
    type Edit = fn(&mut Value);
    let cases: Vec<(&str, Edit, CheckMode)> = vec![
        (
            "task-ids-not-contiguous",
            |s| s["tasks"][1]["id"] = json!(5),
            CheckMode::AsRead,
        ),
        (
            "task-count-mismatch",
            |s| s["task_count"] = json!(4),
            CheckMode::AsRead,
        ),
        (
            "completed-count-mismatch",
            |s| s["completed_count"] = json!(0),
            CheckMode::AsRead,
        ),
        (
            "status-incoherent",
            |s| s["status"] = json!("pending"),
            CheckMode::AsRead,
        ),
        (
            "blocker-task-not-blocked",
            |s| s["blocked"] = json!({"task": 2, "reason": "r"}),
            CheckMode::AsRead,
        ),
        (
            "blocked-task-without-record",
            |s| {
                s["tasks"][1]["status"] = json!("blocked");
                s["status"] = json!("blocked");
            },
            CheckMode::Strict,
        ),
        (
            "checkpoint-task-missing",
            |s| s["checkpoint"] = json!({"task": 9, "step": "start"}),
            CheckMode::AsRead,
        ),
        (
            "promotion-materialization-mismatch",
            |s| s["materialization"] = json!("promoting"),
            CheckMode::AsRead,
        ),
        (
            "promotion-materialization-mismatch",
            |s| s["promotion"] = json!({"from": "lite", "to": "full", "phase": "intent"}),
            CheckMode::AsRead,
        ),
        (
            "completed-at-missing",
            |s| {
                s["tasks"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("completed_at");
            },
            CheckMode::AsRead,
        ),
        (
            "duplicate-locator",
            |s| s["tasks"][1]["locator"]["value"] = json!("1.task_a.md"),
            CheckMode::AsRead,
        ),
        (
            "locator-id-mismatch",
            |s| s["tasks"][2]["locator"]["value"] = json!("4.task_final_review.md"),
            CheckMode::AsRead,
        ),
        (
            "unknown-approval",
            |s| s["approval"] = json!("maybe"),
            CheckMode::AsRead,
        ),
    ];
    for (expected, edit, mode) in cases {
        let mut s = base();
        edit(&mut s);
        let got = ids(&s, mode);
        assert!(got.iter().any(|id| id == expected), "{expected}: {got:?}");
    }
}

#[test]
fn strict_only_rules() {
    let mut blocked = base();
    blocked["tasks"][1]["status"] = json!("blocked");
    blocked["status"] = json!("blocked");
    assert!(ids(&blocked, CheckMode::AsRead).is_empty());
    blocked["blocked"] =
        json!({"task": 2, "reason": "waiting", "since": "2026-10-12T14:00:00+00:00", "needs": "x"});
    assert!(ids(&blocked, CheckMode::Strict).is_empty());

    let mut done = base();
    for i in 0..3 {
        done["tasks"][i]["status"] = json!("completed");
        done["tasks"][i]["completed_at"] = json!("2026-10-12T13:00:00+00:00");
    }
    done["completed_count"] = json!(3);
    done["status"] = json!("completed");
    assert!(ids(&done, CheckMode::AsRead).is_empty());
    assert_eq!(
        ids(&done, CheckMode::Strict),
        ["terminal-checkpoint-missing"]
    );
    done["checkpoint"] = json!({"task": 2, "step": "done"});
    assert_eq!(
        ids(&done, CheckMode::Strict),
        ["terminal-checkpoint-missing"]
    );
    done["checkpoint"] = json!({"task": 3, "step": "done", "at": "2026-10-12T15:00:00+00:00", "note": "Plan completed."});
    assert!(ids(&done, CheckMode::Strict).is_empty());
}

#[test]
fn skipped_never_completes_a_plan() {
    let mut s = base();
    s["tasks"][1]["status"] = json!("completed");
    s["tasks"][1]["completed_at"] = json!("2026-10-12T13:00:00+00:00");
    s["tasks"][2]["status"] = json!("skipped");
    s["completed_count"] = json!(2);
    s["status"] = json!("completed");
    assert_eq!(ids(&s, CheckMode::AsRead), ["status-incoherent"]);
}

#[test]
fn effective_approval() {
    let mut s = base();
    let eff = approval_effective(&State::from_value(&s), Some("pending"));
    assert_eq!(
        (eff.approval, eff.source),
        (Approval::Approved, ApprovalSource::State)
    );
    s.as_object_mut().unwrap().remove("approval");
    let st = State::from_value(&s);
    let eff = approval_effective(&st, Some("pre-approved (user, 2026-10-01)"));
    assert_eq!(
        (eff.approval, eff.source),
        (Approval::PreApproved, ApprovalSource::Readme)
    );
    let eff = approval_effective(&st, None);
    assert_eq!(
        (eff.approval, eff.source),
        (Approval::Pending, ApprovalSource::DefaultPending)
    );
    let eff = approval_effective(&st, Some("whenever"));
    assert_eq!(eff.approval, Approval::Pending);
    s["approval"] = json!("maybe");
    assert_eq!(
        approval_effective(&State::from_value(&s), None).approval,
        Approval::Pending
    );
    let v1 = State::from_value(
        &json!({"schema": "https://deepworkplan.com/schema/plan-state/v1.json", "tasks": []}),
    );
    let eff = approval_effective(&v1, Some("pending"));
    assert_eq!(
        (eff.approval, eff.source),
        (Approval::Approved, ApprovalSource::LegacyImplied)
    );
}

#[test]
fn manifest_rules_never_print_the_secret() {
    let m = Manifest::from_value(&json!({
        "schema": "https://deepworkplan.com/schema/plan-manifest/v5.json",
        "created_by": {"agent": "sk-proj-AbCdEf0123456789XyZ", "model": "example-model-1"},
        "parent_plan": "webhooks"
    }));
    let f = check_manifest(&m);
    let ids: Vec<_> = f.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, ["created-by-secret", "parent-plan-malformed"]);
    assert!(
        !f[0].message.contains("AbCdEf0123456789"),
        "{}",
        f[0].message
    );
    let ok = Manifest::from_value(&json!({
        "created_by": {"agent": "planrunner", "model": "example-model-1"},
        "parent_plan": "api-server:PLAN_payment_webhooks"
    }));
    assert!(check_manifest(&ok).is_empty());
}

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vectors/dwp")
}

fn read(path: &Path) -> Value {
    parse_json(&std::fs::read(path).unwrap()).unwrap()
}

/// The two conformance variants that the model alone decides: era mismatch, unknown approval.
#[test]
fn recorded_conformance_variants_of_the_model() {
    for fixture in ["A_lite_v2", "B_full_v5", "D_v1"] {
        let root = vectors().join(fixture);
        let doc = read(&root.join("conformance/variants.json"));
        for v in doc["variants"].as_array().unwrap() {
            let case = v["case"].as_str().unwrap();
            let base = root.join(v["base"].as_str().unwrap());
            let mut state = read(&base.join("state.json"));
            let mut manifest = read(&base.join("manifest.json"));
            for op in v["setup"].as_array().unwrap() {
                let path = op["path"].as_str().unwrap_or("");
                if op["op"] == "write" && path.ends_with("/state.json") {
                    state = read(&root.join(op["from"].as_str().unwrap()));
                } else if op["op"] == "write" && path.ends_with("/manifest.json") {
                    manifest = read(&root.join(op["from"].as_str().unwrap()));
                }
            }
            let labels: Vec<&str> = v["failing_checks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["label"].as_str().unwrap())
                .collect();
            if labels.contains(&"era-mismatch") {
                let f = era_pairing(state_era(&state).unwrap(), manifest_era(&manifest).unwrap());
                assert_eq!(
                    f.map(|f| f.id).as_deref(),
                    Some("era-mismatch"),
                    "{fixture} {case}"
                );
            } else {
                assert_eq!(
                    era_pairing(state_era(&state).unwrap(), manifest_era(&manifest).unwrap()),
                    None,
                    "{fixture} {case}"
                );
            }
            if case == "unknown-approval-value" {
                let shape = shape_findings(&validate_state(&state), PlanFile::State);
                let mut got: Vec<String> = shape.into_iter().map(|f| f.id).collect();
                got.extend(
                    check_state(&State::from_value(&state), CheckMode::Strict)
                        .into_iter()
                        .map(|f| f.id),
                );
                // v1 (D): `approval` is not a v1 field at all — a shape error (planseal is stricter
                // than the legacy checker here, which does not check the v1 shape)
                let expected: &[&str] = if state_era(&state) == Ok(Era::V1) {
                    &["state-shape-error"]
                } else {
                    &["state-shape-error", "unknown-approval"]
                };
                assert_eq!(got, expected, "{fixture}");
            }
        }
    }
}

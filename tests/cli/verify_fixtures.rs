//! planseal's own fixture plans (`fixtures/dwp/`): the good plans give CONFORMANT, every broken
//! variant gives its pinned exit code, verdict and failing finding ids, and verify never changes
//! a byte of any of them.
//!
//! The completed fixtures carry receipts computed by planseal's fingerprint code;
//! `receipts_of_completed_fixtures_are_current` checks them, and regenerates them when run with
//! `PLANSEAL_BLESS=1` after a deliberate edit of a fixture.

use crate::support::verify::*;
use planseal::dwp::check::receipt::{file_hash, fingerprint, fingerprint_names};
use planseal::dwp::read::PlanFiles;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn good() -> PathBuf {
    repo_root().join("fixtures/dwp/good")
}

fn plans() -> PathBuf {
    good().join(".dwp/plans")
}

/// The receipt bytes for a plan folder: the helper's three keys, plus planseal's per-file hashes
/// when `with_files`.
fn receipt_for(dir: &Path, with_files: bool) -> String {
    let name = dir.file_name().unwrap().to_str().unwrap();
    let files = PlanFiles::load(dir, name).unwrap();
    let state_bytes = files.bytes("state.json").unwrap().to_vec();
    let state: Value = serde_json::from_slice(&state_bytes).unwrap();
    let names = fingerprint_names(&state);
    let mut doc = serde_json::json!({
        "state_sha256": planseal::recovery::hash::sha256_hex(&state_bytes),
        "artifacts_sha256": fingerprint(&files, &names),
        "result": "verified",
    });
    if with_files {
        let map: serde_json::Map<String, Value> = names
            .iter()
            .map(|n| (n.clone(), Value::String(file_hash(&files, n))))
            .collect();
        doc["files"] = Value::Object(map);
    }
    format!("{}\n", serde_json::to_string_pretty(&doc).unwrap())
}

#[test]
fn receipts_of_completed_fixtures_are_current() {
    for (plan, with_files) in [
        ("PLAN_cli_color_flag_done", false),
        ("PLAN_csv_export_done", true),
    ] {
        let dir = plans().join(plan);
        let path = dir.join("analysis_results/FINALIZATION.json");
        let want = receipt_for(&dir, with_files);
        if std::env::var_os("PLANSEAL_BLESS").is_some() {
            std::fs::write(&path, &want).unwrap();
        }
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            want,
            "{plan}: receipt out of date (run with PLANSEAL_BLESS=1 after a deliberate fixture edit)"
        );
    }
}

#[test]
fn good_fixtures_are_conformant_and_untouched() {
    let before = tree_hash(&repo_root().join("fixtures"));
    let run = planseal(&good(), &["--json", "verify"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.verdict(), "CONFORMANT");
    let v = run.json();
    let names: Vec<&str> = v["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "PLAN_cli_color_flag",
            "PLAN_cli_color_flag_done",
            "PLAN_csv_export",
            "PLAN_csv_export_done",
            "PLAN_log_rotation"
        ]
    );
    // The historical-standard Lite plan has a receipt, so no receipt advisory anywhere; the
    // receipts match.
    let matches = v["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["findings"].as_array().unwrap())
        .filter(|f| f["id"] == "receipt-matches")
        .count();
    assert_eq!(matches, 2);
    // Every JSON finding carries its plan.
    for s in v["sections"].as_array().unwrap() {
        for f in s["findings"].as_array().unwrap() {
            assert_eq!(f["plan"], s["name"]);
        }
    }
    assert_eq!(
        tree_hash(&repo_root().join("fixtures")),
        before,
        "verify wrote into fixtures/"
    );
}

#[test]
fn bundled_example_is_conformant() {
    let run = planseal(&repo_root(), &["verify", "fixtures/examples"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.starts_with("Plan: "), "{}", run.stdout);
    assert!(
        run.stdout.contains("\nVerdict: CONFORMANT ("),
        "{}",
        run.stdout
    );
}

/// Builds a broken variant in a temp repository and checks its pinned outcome.
fn broken(case: &str) {
    let case_dir = repo_root().join("fixtures/dwp/broken").join(case);
    let doc: Value =
        serde_json::from_slice(&std::fs::read(case_dir.join("variant.json")).unwrap()).unwrap();
    let base = doc["base"].as_str().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join(".dwp/plans").join(base);
    copy_dir(&plans().join(base), &dest);
    for op in doc["setup"].as_array().unwrap() {
        let path = dest.join(op["path"].as_str().unwrap());
        match op["op"].as_str().unwrap() {
            "write" => {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::copy(case_dir.join(op["from"].as_str().unwrap()), &path).unwrap();
            }
            "delete" => std::fs::remove_file(&path).unwrap(),
            other => panic!("unknown op {other}"),
        }
    }
    let before = tree_hash(tmp.path());
    let run = planseal(tmp.path(), &["--json", "verify"]);
    let expect = &doc["expect"];
    assert_eq!(
        run.code as i64,
        expect["exit_code"].as_i64().unwrap(),
        "{case}: {}",
        run.stdout
    );
    assert_eq!(run.verdict(), expect["verdict"].as_str().unwrap(), "{case}");
    let mut want: Vec<(String, Option<u64>)> = expect["failing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["id"].as_str().unwrap().to_string(), f["task"].as_u64()))
        .collect();
    want.sort();
    let mut got = run.failing();
    got.sort();
    got.dedup();
    assert_eq!(got, want, "{case}: failing findings\n{}", run.stdout);
    // The text form shows the same verdict and a hint under the failures that have one.
    let text = planseal(tmp.path(), &["verify"]);
    assert_eq!(text.code, run.code);
    assert!(
        text.stdout
            .contains(&format!("Verdict: {}", expect["verdict"].as_str().unwrap()))
    );
    assert!(
        text.stdout.contains("\n      hint: "),
        "{case}: no hint line\n{}",
        text.stdout
    );
    assert_eq!(
        tree_hash(tmp.path()),
        before,
        "{case}: verify changed a file"
    );
}

macro_rules! broken_cases {
    ($($name:ident => $case:literal,)*) => {
        $( #[test] fn $name() { broken($case); } )*

        #[test]
        fn every_broken_fixture_has_a_test() {
            let mut on_disk: Vec<String> = std::fs::read_dir(repo_root().join("fixtures/dwp/broken"))
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            on_disk.sort();
            let mut tested = vec![$($case.to_string()),*];
            tested.sort();
            assert_eq!(on_disk, tested);
            assert!(tested.len() >= 20);
        }
    };
}

broken_cases! {
    readme_ticked_state_pending => "readme-ticked-state-pending",
    state_completed_readme_unticked => "state-completed-readme-unticked",
    plan_status_count_wrong => "plan-status-count-wrong",
    task_file_missing => "task-file-missing",
    final_review_not_last => "final-review-not-last",
    final_review_parts_missing => "final-review-parts-missing",
    task_log_still_pending => "task-log-still-pending",
    zero_selection_evidence => "zero-selection-evidence",
    non_execution_evidence => "non-execution-evidence",
    evidence_invalidated_by_refine => "evidence-invalidated-by-refine",
    log_pointer_outside_plan => "log-pointer-outside-plan",
    log_pointer_absolute => "log-pointer-absolute",
    failing_gate_without_later_pass => "failing-gate-without-later-pass",
    completed_without_gates => "completed-without-gates",
    log_pointer_missing => "log-pointer-missing",
    security_review_open_critical => "security-review-open-critical",
    security_review_critical_unclear => "security-review-critical-unclear",
    security_review_missing => "security-review-missing",
    marker_present => "marker-present",
    era_mismatch => "era-mismatch",
    unknown_approval => "unknown-approval",
    receipt_mismatch => "receipt-mismatch",
    receipt_missing => "receipt-missing",
    receipt_state_changed => "receipt-state-changed",
    lite_record_missing => "lite-record-missing",
    lite_final_review_not_last => "lite-final-review-not-last",
    v1_readme_ticked_state_pending => "v1-readme-ticked-state-pending",
    v1_task_log_still_pending => "v1-task-log-still-pending",
    state_unparseable => "state-unparseable",
    plan_identity_mismatch => "plan-identity-mismatch",
    status_incoherent => "status-incoherent",
    completed_count_mismatch => "completed-count-mismatch",
    amendment_disposition_invalid => "amendment-disposition-invalid",
    amendment_backdated => "amendment-backdated",
}

/// The receipt names the file that changed when it carries planseal's per-file hashes.
#[test]
fn receipt_mismatch_names_the_changed_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join(".dwp/plans/PLAN_csv_export_done");
    copy_dir(&plans().join("PLAN_csv_export_done"), &dest);
    std::fs::write(dest.join("PROGRESS.md"), "rewritten\n").unwrap();
    std::fs::remove_file(dest.join("analysis_results/SKILLS_CANDIDATES.md")).unwrap();
    let run = planseal(tmp.path(), &["--json", "verify"]);
    let finding = run.json()["sections"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "receipt-mismatch")
        .cloned()
        .unwrap();
    let msg = finding["message"].as_str().unwrap();
    assert!(msg.contains("PROGRESS.md changed"), "{msg}");
    assert!(
        msg.contains("analysis_results/SKILLS_CANDIDATES.md vanished"),
        "{msg}"
    );
    assert!(!msg.contains("README.md"), "{msg}");
    assert!(
        finding["hint"]
            .as_str()
            .unwrap()
            .contains("planseal finalize")
    );
}

/// planseal's receipt extension also covers files outside the fingerprint (gate logs): with an
/// `evidence_files` map, a gate log changed after publication is named.
#[test]
fn receipt_evidence_files_name_a_changed_gate_log() {
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join(".dwp/plans/PLAN_csv_export_done");
    copy_dir(&plans().join("PLAN_csv_export_done"), &dest);
    let receipt_path = dest.join("analysis_results/FINALIZATION.json");
    let mut receipt: Value =
        serde_json::from_slice(&std::fs::read(&receipt_path).unwrap()).unwrap();
    let log = "analysis_results/gates/t1-csv.log";
    let digest = planseal::recovery::hash::sha256_hex(&std::fs::read(dest.join(log)).unwrap());
    receipt["evidence_files"] = serde_json::json!({ log: digest });
    std::fs::write(
        &receipt_path,
        serde_json::to_string_pretty(&receipt).unwrap() + "\n",
    )
    .unwrap();
    let run = planseal(tmp.path(), &["--json", "verify"]);
    assert_eq!(
        run.code, 0,
        "the extended receipt still matches: {}",
        run.stdout
    );

    std::fs::write(dest.join(log), "rewritten after publication\n").unwrap();
    let run = planseal(tmp.path(), &["--json", "verify"]);
    assert_eq!(run.failing_ids(), ["receipt-mismatch"]);
    assert!(
        run.stdout.contains(&format!("{log} changed")),
        "{}",
        run.stdout
    );
}

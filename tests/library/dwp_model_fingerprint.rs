//! `artifacts_sha256` and its preimage byte for byte against the recorded vectors, the receipt
//! model, and hostile locators.

use planseal::dwp::model::fingerprint::{ABSENT, artifact_names, artifacts_sha256, preimage};
use planseal::dwp::model::receipt::{parse_receipt, receipt_matches};
use planseal::dwp::model::{State, parse_json};
use planseal::recovery::hash::sha256_hex;
use serde_json::json;
use std::path::{Path, PathBuf};

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vectors/dwp")
}

fn state_of(plan_dir: &Path) -> State {
    State::from_value(&parse_json(&std::fs::read(plan_dir.join("state.json")).unwrap()).unwrap())
}

#[test]
fn recorded_fingerprints_and_preimages() {
    let mut checked = 0;
    for fixture in ["A_lite_v2", "B_full_v5", "D_v1"] {
        let root = vectors().join(fixture);
        let doc =
            parse_json(&std::fs::read(root.join("fingerprint/fingerprint.json")).unwrap()).unwrap();
        for which in ["initial", "completed"] {
            let rec = &doc[which];
            let plan_dir = root.join(rec["plan_folder"].as_str().unwrap());
            let names = artifact_names(&state_of(&plan_dir));
            let expected_names: Vec<&str> = rec["entries_in_hash_order"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["name"].as_str().unwrap())
                .collect();
            assert_eq!(names, expected_names, "{fixture} {which}");

            let bytes = preimage(&plan_dir, &names).unwrap();
            let expected = std::fs::read(root.join(rec["preimage"].as_str().unwrap())).unwrap();
            assert!(bytes == expected, "{fixture} {which}: preimage differs");
            assert_eq!(bytes.len() as u64, rec["preimage_size"].as_u64().unwrap());

            let fp = artifacts_sha256(&plan_dir, &names).unwrap();
            assert_eq!(
                fp.hex,
                rec["artifacts_sha256"].as_str().unwrap(),
                "{fixture} {which}"
            );
            assert_eq!(fp.hex, sha256_hex(&bytes));
            assert!(fp.refused.is_empty());
            for (entry, (name, digest)) in rec["entries_in_hash_order"]
                .as_array()
                .unwrap()
                .iter()
                .zip(&fp.files)
            {
                assert_eq!(entry["name"].as_str().unwrap(), name);
                assert_eq!(
                    entry["sha256"].as_str(),
                    digest.as_deref(),
                    "{fixture} {which} {name}"
                );
                assert_eq!(entry["present"].as_bool().unwrap(), digest.is_some());
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 6);
}

#[test]
fn lite_initial_preimage_has_two_absent_entries() {
    let root = vectors().join("A_lite_v2");
    let bytes = std::fs::read(root.join("fingerprint/initial.preimage.bin")).unwrap();
    let absent = bytes.windows(ABSENT.len()).filter(|w| *w == ABSENT).count();
    assert_eq!(absent, 2);
}

#[test]
fn published_receipts_match_their_plans() {
    for fixture in ["A_lite_v2", "B_full_v5", "D_v1"] {
        let final_dir =
            std::fs::read_dir(vectors().join(fixture).join("lifecycle/snapshots/final"))
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path();
        let receipt = parse_receipt(
            &std::fs::read(final_dir.join("analysis_results/FINALIZATION.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            receipt.files(),
            None,
            "the helper writes no per-file hashes"
        );
        let state_bytes = std::fs::read(final_dir.join("state.json")).unwrap();
        let fp = artifacts_sha256(&final_dir, &artifact_names(&state_of(&final_dir))).unwrap();
        let cmp = receipt_matches(&receipt, &sha256_hex(&state_bytes), &fp);
        assert!(cmp.matches(), "{fixture}: {cmp:?}");

        // an edit of a fingerprinted file breaks the match
        let tmp = tempfile::tempdir().unwrap();
        for name in artifact_names(&state_of(&final_dir)) {
            let src = final_dir.join(&name);
            if src.exists() {
                let dst = tmp.path().join(&name);
                std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
                std::fs::copy(&src, &dst).unwrap();
            }
        }
        let mut readme = std::fs::read(tmp.path().join("README.md")).unwrap();
        readme.extend_from_slice(b"\nedited\n");
        std::fs::write(tmp.path().join("README.md"), readme).unwrap();
        let fp2 = artifacts_sha256(
            tmp.path(),
            &fp.files.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(),
        )
        .unwrap();
        let cmp = receipt_matches(&receipt, &sha256_hex(&state_bytes), &fp2);
        assert!(cmp.state_matches && !cmp.artifacts_match && !cmp.matches());
    }
}

#[test]
fn receipt_extension_names_changed_files() {
    let plan = tempfile::tempdir().unwrap();
    std::fs::write(plan.path().join("README.md"), "one\n").unwrap();
    std::fs::write(plan.path().join("PROGRESS.md"), "p\n").unwrap();
    let names: Vec<String> = ["PROGRESS.md", "PROMPTS.md", "README.md"]
        .map(String::from)
        .to_vec();
    let before = artifacts_sha256(plan.path(), &names).unwrap();
    let receipt_doc = json!({
        "state_sha256": "0".repeat(64),
        "artifacts_sha256": before.hex,
        "result": "verified",
        "files": before.files_map(),
    });
    let receipt = parse_receipt(serde_json::to_string(&receipt_doc).unwrap().as_bytes()).unwrap();
    assert!(receipt_matches(&receipt, &"0".repeat(64), &before).matches());

    std::fs::write(plan.path().join("README.md"), "two\n").unwrap();
    std::fs::remove_file(plan.path().join("PROGRESS.md")).unwrap();
    std::fs::write(plan.path().join("PROMPTS.md"), "new\n").unwrap();
    let after = artifacts_sha256(plan.path(), &names).unwrap();
    let cmp = receipt_matches(&receipt, &"0".repeat(64), &after);
    assert!(!cmp.matches());
    assert_eq!(cmp.changed, ["README.md"]);
    assert_eq!(cmp.vanished, ["PROGRESS.md"]);
    assert_eq!(cmp.appeared, ["PROMPTS.md"]);
}

#[test]
fn malformed_receipts_are_refused() {
    assert!(parse_receipt(b"[]").is_err());
    assert!(parse_receipt(br#"{"state_sha256": "abc"}"#).is_err());
    assert!(parse_receipt(br#"{"files": {"README.md": 3}}"#).is_err());
    assert!(parse_receipt(br#"{"evidence_files": {"a.log": "x"}}"#).is_err());
    // planseal's finalize writes `<absent>` for an absent file
    let r = parse_receipt(
        br#"{"files": {"PROMPTS.md": "<absent>", "README.md": null}, "evidence_files": {}}"#,
    )
    .unwrap();
    assert_eq!(
        r.files().unwrap().values().filter(|v| v.is_none()).count(),
        2
    );
    assert_eq!(r.evidence_files().unwrap().len(), 0);
    assert!(parse_receipt(b"{\"result\": \"verified\"").is_err());
}

#[test]
fn hostile_locators_never_read_outside_the_plan() {
    let outer = tempfile::tempdir().unwrap();
    let plan = outer.path().join("PLAN_x");
    std::fs::create_dir(&plan).unwrap();
    std::fs::write(outer.path().join("secret.md"), "secret\n").unwrap();
    std::os::unix::fs::symlink(outer.path().join("secret.md"), plan.join("2.task_link.md"))
        .unwrap();
    std::fs::write(plan.join("1.task_ok.md"), "ok\n").unwrap();
    let state = State::from_value(&json!({
        "schema": "https://deepworkplan.com/schema/plan-state/v1.json",
        "tasks": [
            {"id": 1, "file": "1.task_ok.md"},
            {"id": 2, "file": "2.task_link.md"},
            {"id": 3, "file": "../secret.md"},
            {"id": 4, "file": "/etc/passwd"},
        ]
    }));
    let names = artifact_names(&state);
    assert_eq!(names[0], "../secret.md");
    assert_eq!(names[1], "/etc/passwd");
    let fp = artifacts_sha256(&plan, &names).unwrap();
    let refused: Vec<&str> = fp.refused.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(refused, ["../secret.md", "/etc/passwd", "2.task_link.md"]);
    let bytes = preimage(&plan, &names).unwrap();
    assert!(!bytes.windows(7).any(|w| w == b"secret\n"));
    assert_eq!(fp.hex, sha256_hex(&bytes));
}

#[test]
fn a_directory_in_place_of_a_file_is_an_error() {
    let plan = tempfile::tempdir().unwrap();
    std::fs::create_dir(plan.path().join("README.md")).unwrap();
    let err = artifacts_sha256(plan.path(), &["README.md".to_string()]).unwrap_err();
    assert!(err.to_string().contains("README.md"));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        /// The streamed hash is the hash of the preimage, and the preimage is the framing built
        /// by hand: for each name in byte order, the name, one NUL byte, then the bytes (or
        /// `<absent>`).
        #[test]
        fn streamed_hash_equals_the_framed_preimage(
            files in prop::collection::btree_map("[a-z]{1,6}\\.md", prop::option::of(prop::collection::vec(any::<u8>(), 0..300)), 1..6)
        ) {
            let plan = tempfile::tempdir().unwrap();
            let mut expected = Vec::new();
            let names: Vec<String> = files.keys().cloned().collect();
            for (name, content) in &files {
                expected.extend_from_slice(name.as_bytes());
                expected.push(0);
                match content {
                    Some(bytes) => {
                        std::fs::write(plan.path().join(name), bytes).unwrap();
                        expected.extend_from_slice(bytes);
                    }
                    None => expected.extend_from_slice(ABSENT),
                }
            }
            let bytes = preimage(plan.path(), &names).unwrap();
            prop_assert_eq!(&bytes, &expected);
            let fp = artifacts_sha256(plan.path(), &names).unwrap();
            prop_assert_eq!(fp.hex, sha256_hex(&expected));
            for ((name, digest), content) in fp.files.iter().zip(files.values()) {
                prop_assert_eq!(digest.clone(), content.as_ref().map(|c| sha256_hex(c)), "{}", name);
            }
        }
    }
}

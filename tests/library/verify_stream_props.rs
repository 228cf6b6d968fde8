//! Verify's streamed read (task files read, checked and dropped one at a time, the fingerprint
//! hashed while reading) finds exactly what the in-memory check finalize uses finds: on
//! generated plans of any size with any of the corpus's defects, sealed or not, with a receipt
//! that records per-file hashes or not, and edited after sealing or not.

use crate::verify_equivalence::{MUTATIONS, generated_plan, verify_dir};
use planseal::dwp::check::receipt::{file_hash, fingerprint, fingerprint_names};
use planseal::dwp::check::{CheckOptions, check_read};
use planseal::dwp::read::PlanFiles;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::path::Path;

/// Writes the receipt a finalizer would write for the plan as it is now (after putting the
/// candidate in place): state hash, fingerprint and, when `with_files`, the per-file hashes.
fn seal(dir: &Path, with_files: bool) {
    let name = dir.file_name().unwrap().to_str().unwrap();
    let files = PlanFiles::load(dir, name).unwrap();
    let Some(state_bytes) = files.bytes("state.json").map(<[u8]>::to_vec) else {
        return;
    };
    let Ok(state) = serde_json::from_slice::<Value>(&state_bytes) else {
        return;
    };
    let names = fingerprint_names(&state);
    let mut doc = json!({
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
    std::fs::write(
        dir.join("analysis_results/FINALIZATION.json"),
        serde_json::to_string_pretty(&doc).unwrap() + "\n",
    )
    .unwrap();
}

/// What the in-memory check (the whole plan read first, as finalize reads it) gives.
fn in_memory(dir: &Path) -> planseal::report::Section {
    let name = dir.file_name().unwrap().to_str().unwrap();
    let mut files = PlanFiles::load(dir, name).unwrap();
    files.display = dir.display().to_string();
    check_read(&mut files, name, &CheckOptions::default())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn streamed_verify_finds_what_the_in_memory_check_finds(
        n in 2usize..40,
        mutation in 0..MUTATIONS.len(),
        sealed in any::<bool>(),
        with_files in any::<bool>(),
        edit_after_seal in 0usize..3,
        odd_task_file in 0usize..3,
        odd_state in 0usize..7,
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = generated_plan(tmp.path(), n, MUTATIONS[mutation]);
        if sealed {
            std::fs::copy(tmp.path().join("candidate.json"), dir.join("state.json")).unwrap();
            seal(&dir, with_files);
            match edit_after_seal {
                1 => std::fs::write(dir.join("1.task_step_1.md"), "# Task 1: Step 1\n").unwrap(),
                2 => std::fs::write(dir.join("PROGRESS.md"), "# Progress\n").unwrap(),
                _ => {}
            }
        }
        // A task file that leaves the plan through a symlink, or a folder in its place.
        let task = dir.join("1.task_step_1.md");
        match odd_task_file {
            1 => {
                std::fs::write(tmp.path().join("outside.md"), "# Task 1: outside\n").unwrap();
                std::fs::remove_file(&task).ok();
                std::os::unix::fs::symlink(tmp.path().join("outside.md"), &task).unwrap();
            }
            2 => {
                std::fs::remove_file(&task).ok();
                std::fs::create_dir(&task).unwrap();
            }
            _ => {}
        }
        // A state cut short, with a repeated key inside a task, with its tasks first, missing, a
        // folder, or a symlink out of the plan.
        let state_path = dir.join("state.json");
        let state = std::fs::read_to_string(&state_path).unwrap();
        match odd_state {
            1 => std::fs::write(&state_path, &state[..state.len() / 2]).unwrap(),
            2 => std::fs::write(&state_path, state.replacen("\"title\"", "\"id\": 9, \"title\"", 1)).unwrap(),
            3 => {
                let v: serde_json::Map<String, Value> = serde_json::from_str(&state).unwrap();
                let mut reordered = serde_json::Map::new();
                reordered.insert("tasks".into(), v["tasks"].clone());
                reordered.extend(v.into_iter().filter(|(k, _)| k != "tasks"));
                std::fs::write(&state_path, serde_json::to_string(&reordered).unwrap()).unwrap();
            }
            4 => std::fs::remove_file(&state_path).unwrap(),
            5 => {
                std::fs::remove_file(&state_path).unwrap();
                std::fs::create_dir(&state_path).unwrap();
            }
            6 => {
                std::fs::rename(&state_path, tmp.path().join("state.json")).unwrap();
                std::os::unix::fs::symlink(tmp.path().join("state.json"), &state_path).unwrap();
            }
            _ => {}
        }
        let streamed = verify_dir(&dir);
        let whole = in_memory(&dir);
        prop_assert_eq!(&streamed.unverified, &whole.unverified);
        prop_assert_eq!(streamed.findings, whole.findings);
    }
}

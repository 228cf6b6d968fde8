//! The recorded interrupted publications (`interrupted/interrupted.json`, README §8) recovered
//! with `planseal recover`, and the recorded follow-up planseal answers differently on purpose
//! (recovery with another candidate than the marker's is refused).

use crate::support::finalize::*;

const CASES: [&str; 3] = ["before_publish", "after_publish", "killed_after_publish"];

/// The plan folder as the interruption left it, with `candidate.json` at the root and, for the
/// killed case, the helper's empty lock directory (git does not keep it, `listing.dirs` does).
fn interrupted(fixture: &str, plan: &str, case: &str) -> Workspace {
    let ws = Workspace::from_folder(
        fixture,
        plan,
        &format!("interrupted/{case}/plan-after-interruption/{plan}"),
    );
    let record = json(ws.vectors().join("interrupted/interrupted.json"));
    let listing = &record["cases"][case]["listing"];
    for dir in listing["dirs"].as_array().unwrap() {
        std::fs::create_dir_all(ws.plan_dir().join(dir.as_str().unwrap())).unwrap();
    }
    ws.place("interrupted/candidate.json", "candidate.json");
    ws
}

#[test]
fn every_interrupted_case_recovers_to_the_recorded_state_and_receipt() {
    for (fixture, plan) in FIXTURES {
        for case in CASES {
            let ws = interrupted(fixture, plan, case);
            let record = json(ws.vectors().join("interrupted/interrupted.json"));
            let rec = &record["cases"][case];
            assert_eq!(ws.exists("state.json.lock"), rec["lock_present"] == true);
            assert_eq!(
                sha256(&ws.state()),
                rec["state_sha256_after_interruption"].as_str().unwrap()
            );

            // verify: the marker is the one failure, and checking stops there
            let out = ws.run(&["verify", "--json"]);
            assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
            assert_eq!(failing_ids(&out), vec!["marker-present".to_string()]);

            // the finalizer without recovery is refused while the marker is there
            let out = ws.run(&["finalize", &ws.plan_rel(), "--candidate", "candidate.json"]);
            assert_refused(&out, "marker-present");

            if rec["lock_present"] == true {
                // the helper's empty lock: owner unknown — explained, never a raw OS error
                let out = ws.run(&["recover", &ws.plan_rel(), "--candidate", "candidate.json"]);
                assert_refused(&out, "lock-present");
                assert!(stderr(&out).contains("unknown"), "{}", stderr(&out));
                assert!(stderr(&out).contains("unlock"), "{}", stderr(&out));
                assert!(ws.exists(".finalizing.json"));
                // without --force, unlock refuses too: nothing proves the owner dead
                let state_rel = format!("{}/state.json", ws.plan_rel());
                let out = ws.run(&["unlock", &state_rel]);
                assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
                assert!(ws.exists("state.json.lock"));
                // the operator confirms no writer is alive (the recorded follow-up removes the
                // directory by hand; planseal's way is `unlock --force --reason`, journaled)
                let out = ws.run(&[
                    "unlock",
                    &state_rel,
                    "--force",
                    "--reason",
                    "the DWP helper was killed; no writer is running",
                ]);
                assert_ok(&out);
                assert!(!ws.exists("state.json.lock"));
            }

            let out = ws.run(&["recover", &ws.plan_rel(), "--candidate", "candidate.json"]);
            assert_ok(&out);
            assert!(stdout(&out).contains("interrupted publication found"));
            assert!(stdout(&out).contains("recovered"), "{}", stdout(&out));
            let recorded = ws.vectors().join("lifecycle/publication");
            assert_eq!(
                ws.state(),
                read(recorded.join("02-state.json")),
                "{fixture}/{case}"
            );
            assert_receipt_extends(
                &ws.file("analysis_results/FINALIZATION.json").unwrap(),
                &read(recorded.join("03-receipt.FINALIZATION.json")),
            );
            assert!(
                !ws.exists(".finalizing.json"),
                "{fixture}/{case}: marker removed"
            );
            assert!(
                !ws.exists("state.json.lock"),
                "{fixture}/{case}: lock released"
            );

            let out = ws.run(&["verify"]);
            assert_ok(&out);
            assert!(
                stdout(&out).contains("Verdict: CONFORMANT"),
                "{}",
                stdout(&out)
            );
        }
    }
}

/// After the state was replaced, no candidate is needed: state.json already is the marker's.
#[test]
fn after_publish_needs_no_candidate() {
    for (fixture, plan) in FIXTURES {
        let ws = interrupted(fixture, plan, "after_publish");
        assert_ok(&ws.run(&["recover", &ws.plan_rel()]));
        assert!(!ws.exists(".finalizing.json"));
        assert!(ws.exists("analysis_results/FINALIZATION.json"));
    }
}

/// A helper marker holds only hashes: before the state was replaced, planseal needs the
/// candidate itself.
#[test]
fn helper_marker_before_publish_needs_the_candidate() {
    let (fixture, plan) = FIXTURES[1];
    let ws = interrupted(fixture, plan, "before_publish");
    let state = ws.state();
    let out = ws.run(&["recover", &ws.plan_rel()]);
    assert_refused(&out, "candidate-required");
    assert_eq!(ws.state(), state);
    assert!(ws.exists(".finalizing.json"));
}

/// Deliberate difference (the helper's recovery accepts another candidate than the interrupted
/// one): the helper accepted `candidate-other.json` (recorded `accepted: true`); planseal is
/// bound to the marker's candidate hash and refuses, changing nothing.
#[test]
fn recovery_with_another_candidate_is_refused_deliberate_difference() {
    for (fixture, plan) in FIXTURES {
        let record = json(vectors(fixture).join("interrupted/interrupted.json"));
        assert_eq!(record["recover_with_other_candidate"]["accepted"], true);
        for case in ["before_publish", "after_publish"] {
            let ws = interrupted(fixture, plan, case);
            ws.place("interrupted/candidate-other.json", "other.json");
            let state = ws.state();
            let marker = ws.file(".finalizing.json");
            let out = ws.run(&["recover", &ws.plan_rel(), "--candidate", "other.json"]);
            assert_refused(&out, "candidate-mismatch");
            assert!(
                stderr(&out).contains(
                    record["recover_with_other_candidate"]["marker_candidate_sha256"]
                        .as_str()
                        .unwrap()
                )
            );
            assert_eq!(ws.state(), state, "{fixture}/{case}");
            assert_eq!(ws.file(".finalizing.json"), marker);
            assert!(!ws.exists("analysis_results/FINALIZATION.json"));
        }
    }
}

/// `--rollback` before the state was replaced: marker gone, state.json untouched.
#[test]
fn rollback_keeps_the_old_state() {
    let (fixture, plan) = FIXTURES[0];
    let ws = interrupted(fixture, plan, "before_publish");
    let state = ws.state();
    let out = ws.run(&["recover", &ws.plan_rel(), "--rollback"]);
    assert_ok(&out);
    assert!(stdout(&out).contains("rolled back"));
    assert_eq!(ws.state(), state);
    assert!(!ws.exists(".finalizing.json"));
    assert!(!ws.exists("analysis_results/FINALIZATION.json"));

    // after the state was replaced there is nothing to roll back to
    let ws = interrupted(fixture, plan, "after_publish");
    let out = ws.run(&["recover", &ws.plan_rel(), "--rollback"]);
    assert_refused(&out, "rollback-impossible");
    assert!(ws.exists(".finalizing.json"));
}

/// What `recover` judged before taking the lock is checked again under it: a state.json that
/// another writer changed in between is refused, and the marker and the new bytes stay.
#[test]
fn a_state_changed_before_the_lock_is_refused_under_it() {
    use planseal::dwp::publish::Step;
    use planseal::dwp::publish::recover::{RecoverRequest, recover};
    let (fixture, plan) = FIXTURES[0];
    let ws = interrupted(fixture, plan, "before_publish");
    let state_path = ws.plan_dir().join("state.json");
    let mut other = ws.state();
    other.extend_from_slice(b"\n");
    let req = RecoverRequest {
        plan_dir: ws.plan_dir(),
        candidate: None,
        rollback: true,
        ..Default::default()
    };
    let err = recover(&req, &mut |step| {
        if step == Step::AfterLock {
            std::fs::write(&state_path, &other).unwrap();
        }
    })
    .unwrap_err();
    assert_eq!(err.kind(), Some("state-changed"), "{err}");
    assert_eq!(ws.state(), other);
    assert!(ws.exists(".finalizing.json"));
    assert!(!ws.exists("state.json.lock"));
}

/// state.json changed after the interruption: neither version — refused, both hashes named.
#[test]
fn a_diverged_state_is_refused_naming_both_hashes() {
    let (fixture, plan) = FIXTURES[1];
    let ws = Workspace::ready_to_publish(fixture, plan);
    ws.place("interrupted/candidate.json", "candidate.json");
    // a planseal marker: crash right after it, via the library hook
    let req = planseal::dwp::publish::FinalizeRequest::new(
        ws.plan_dir(),
        planseal::dwp::publish::Candidate::Bytes {
            bytes: read(ws.root().join("candidate.json")),
            origin: "candidate.json".into(),
        },
    );
    let marker_path = ws.plan_dir().join(".finalizing.json");
    let saved = std::cell::RefCell::new(None);
    let _ = planseal::dwp::publish::finalize(&req, &mut |step| {
        if step == planseal::dwp::publish::Step::AfterMarker {
            *saved.borrow_mut() = std::fs::read(&marker_path).ok();
        }
    });
    // put the marker back and edit state.json by hand
    std::fs::write(&marker_path, saved.into_inner().unwrap()).unwrap();
    let mut state = ws.state();
    state.extend_from_slice(b" ");
    std::fs::write(ws.plan_dir().join("state.json"), &state).unwrap();
    let out = ws.run(&["recover", &ws.plan_rel()]);
    assert_refused(&out, "state-diverged");
    let err = stderr(&out);
    assert!(err.contains(&sha256(&state)));
    assert!(err.contains(&sha256(&read(ws.root().join("candidate.json")))));
    assert_eq!(ws.state(), state);
}

/// No marker: recover says so and changes nothing.
#[test]
fn nothing_to_recover() {
    let (fixture, plan) = FIXTURES[2];
    let ws = Workspace::ready_to_publish(fixture, plan);
    let out = ws.run(&["recover", &ws.plan_rel()]);
    assert_ok(&out);
    assert!(stdout(&out).contains("no interrupted publication"));
}

/// Ids of the failing findings of a `verify --json` run.
fn failing_ids(out: &Run) -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let mut ids = Vec::new();
    for section in doc["sections"].as_array().unwrap() {
        for f in section["findings"].as_array().unwrap() {
            if f["severity"] == "fail" {
                ids.push(f["id"].as_str().unwrap().to_string());
            }
        }
    }
    ids
}

/// A lock whose owner is alive (this test process holds it) is never removed: `finalize` and
/// `recover` both refuse with `lock-present` (owner alive), naming the owner, and change nothing.
#[test]
fn a_live_owners_lock_is_never_removed() {
    use planseal::recovery::store::{LockStyle, acquire};
    let (fixture, plan) = FIXTURES[1];
    let ws = interrupted(fixture, plan, "before_publish");
    let state_path = ws.plan_dir().join("state.json");
    let guard = acquire(
        &state_path,
        &LockStyle::Directory,
        "test holds the lock",
        "test",
    )
    .unwrap();
    let before = ws.state();

    let out = ws.run(&["recover", &ws.plan_rel(), "--candidate", "candidate.json"]);
    assert_refused(&out, "lock-present");
    assert!(stderr(&out).contains("owner is alive"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("pid {}", std::process::id())),
        "{}",
        stderr(&out)
    );
    assert!(ws.exists(".finalizing.json") && ws.exists("state.json.lock"));
    assert_eq!(ws.state(), before);

    std::fs::remove_file(ws.plan_dir().join(".finalizing.json")).unwrap();
    let out = ws.run(&["finalize", &ws.plan_rel(), "--candidate", "candidate.json"]);
    assert_refused(&out, "lock-present");
    assert!(stderr(&out).contains("owner is alive"), "{}", stderr(&out));
    assert_eq!(ws.state(), before);
    assert!(!ws.exists(".finalizing.json"));
    guard.release().unwrap();
}

/// `recover --wait` waits for a live owner's lock (never taking it over) and finishes the
/// publication once the owner releases it.
#[test]
fn recover_with_wait_finishes_once_the_live_owner_releases_its_lock() {
    use planseal::recovery::store::{LockStyle, acquire};
    let (fixture, plan) = FIXTURES[1];
    let ws = interrupted(fixture, plan, "before_publish");
    let state_path = ws.plan_dir().join("state.json");
    let guard = acquire(
        &state_path,
        &LockStyle::Directory,
        "test holds the lock",
        "test",
    )
    .unwrap();
    let before = ws.state();
    let plan_rel = ws.plan_rel();
    let out = std::thread::scope(|scope| {
        let child = scope.spawn(|| {
            ws.run(&[
                "recover",
                &plan_rel,
                "--candidate",
                "candidate.json",
                "--wait=20s",
            ])
        });
        std::thread::sleep(std::time::Duration::from_millis(600));
        assert!(
            !child.is_finished(),
            "recover did not wait for the live lock"
        );
        assert_eq!(
            ws.state(),
            before,
            "recover wrote while the owner held the lock"
        );
        assert!(ws.exists(".finalizing.json"));
        guard.release().unwrap();
        child.join().unwrap()
    });
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("waiting up to 20s: lock-present"), "{err}");
    assert!(!ws.exists(".finalizing.json") && !ws.exists("state.json.lock"));
    assert_ne!(ws.state(), before);
}

/// The candidate as the helper was given it may be in any layout: the helper hashes its own
/// serialisation of it. Regression: `recover --candidate` on a helper marker refused the very
/// file the helper published (`candidate-mismatch`) when that file was not already in the
/// helper's layout. Every recorded interruption recovers with a compact copy of the candidate,
/// to the recorded state and receipt.
#[test]
fn helper_marker_recovers_with_the_candidate_in_another_layout() {
    for (fixture, plan) in FIXTURES {
        for case in ["before_publish", "after_publish"] {
            let ws = interrupted(fixture, plan, case);
            let given: serde_json::Value =
                serde_json::from_slice(&read(ws.vectors().join("interrupted/candidate.json")))
                    .unwrap();
            let compact = serde_json::to_vec(&given).unwrap();
            std::fs::write(ws.root().join("compact.json"), &compact).unwrap();
            let record = json(ws.vectors().join("interrupted/interrupted.json"));
            assert_ne!(
                sha256(&compact),
                record["candidate"]["sha256"].as_str().unwrap(),
                "the copy really is in another layout"
            );

            let out = ws.run(&["recover", &ws.plan_rel(), "--candidate", "compact.json"]);
            assert_ok(&out);
            let recorded = ws.vectors().join("lifecycle/publication");
            assert_eq!(
                ws.state(),
                read(recorded.join("02-state.json")),
                "{fixture}/{case}: the helper's bytes, not the compact copy"
            );
            assert_receipt_extends(
                &ws.file("analysis_results/FINALIZATION.json").unwrap(),
                &read(recorded.join("03-receipt.FINALIZATION.json")),
            );
            assert!(!ws.exists(".finalizing.json"));
        }
    }
}

/// A candidate with other values is still refused, and the message says what is known: the
/// helper's marker holds only a hash, so the two hashes of the file are named.
#[test]
fn helper_marker_mismatch_names_both_hashes_of_the_given_file() {
    let (fixture, plan) = FIXTURES[0];
    let ws = interrupted(fixture, plan, "before_publish");
    ws.place("interrupted/candidate-other.json", "other.json");
    let other = read(ws.root().join("other.json"));
    let state = ws.state();
    let out = ws.run(&["recover", &ws.plan_rel(), "--candidate", "other.json"]);
    assert_refused(&out, "candidate-mismatch");
    let err = stderr(&out);
    assert!(err.contains(&sha256(&other)), "{err}");
    assert!(err.contains("records only the hash"), "{err}");
    assert_eq!(ws.state(), state);
}

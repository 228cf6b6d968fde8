//! The recorded finalize cases of `fixtures/vectors/dwp/*/` (README §5, §6, §9): the publication
//! step of each lifecycle, the finalizer refusal probes, re-seal and candidate-mismatch.

use crate::support::finalize::*;
use planseal::dwp::publish::{self, Candidate, FinalizeRequest, Step};

/// The terminal publication through `planseal finalize --candidate`: state.json byte-identical
/// to the recorded one, marker and receipt starting with the helper's keys and values.
#[test]
fn publication_matches_the_recorded_bytes() {
    for (fixture, plan) in FIXTURES {
        let ws = Workspace::ready_to_publish(fixture, plan);
        ws.place("lifecycle/publication/02-state.json", "candidate.json");
        let out = ws.run(&["finalize", &ws.plan_rel(), "--candidate", "candidate.json"]);
        assert_ok(&out);
        assert_eq!(stdout(&out).lines().count(), 1, "{fixture}: one line");
        let recorded = ws.vectors().join("lifecycle/publication");
        assert_eq!(
            ws.state(),
            read(recorded.join("02-state.json")),
            "{fixture}: state bytes"
        );
        assert_receipt_extends(
            &ws.file("analysis_results/FINALIZATION.json").unwrap(),
            &read(recorded.join("03-receipt.FINALIZATION.json")),
        );
        assert!(!ws.exists(".finalizing.json"), "{fixture}: marker removed");
        assert!(!ws.exists("state.json.lock"), "{fixture}: lock released");
    }
}

/// The marker as written, caught at the step right after it (library hook).
#[test]
fn marker_starts_with_the_recorded_helper_keys() {
    for (fixture, plan) in FIXTURES {
        let ws = Workspace::ready_to_publish(fixture, plan);
        let recorded = ws.vectors().join("lifecycle/publication");
        let candidate = read(recorded.join("02-state.json"));
        let req = FinalizeRequest::new(
            ws.plan_dir(),
            Candidate::Bytes {
                bytes: candidate.clone(),
                origin: "candidate.json".into(),
            },
        );
        let mut seen = None;
        let marker_path = ws.plan_dir().join(".finalizing.json");
        publish::finalize(&req, &mut |step| {
            if step == Step::AfterMarker {
                seen = std::fs::read(&marker_path).ok();
            }
        })
        .unwrap();
        let marker = seen.expect("marker present after its step");
        assert_marker_extends(&marker, &read(recorded.join("01-marker.finalizing.json")));
        let parsed = publish::Marker::parse(&marker).unwrap();
        let ext = parsed.planseal.expect("planseal's keys");
        assert_eq!(
            ext.candidate.as_bytes(),
            &candidate[..],
            "{fixture}: candidate kept verbatim"
        );
        assert_eq!(
            ext.state_sha256_before,
            sha256(&read(ws.vectors().join(format!(
                "lifecycle/snapshots/ready-to-publish/{plan}/state.json"
            ))))
        );
    }
}

/// A marker that appears between the first look and the lock (another publication, interrupted)
/// is seen under the lock: refused with `marker-present`, that marker and state.json untouched.
#[test]
fn a_marker_that_appears_before_the_lock_is_refused_under_it() {
    let (fixture, plan) = FIXTURES[0];
    let ws = Workspace::ready_to_publish(fixture, plan);
    let recorded = ws.vectors().join("lifecycle/publication");
    let state = ws.state();
    let req = FinalizeRequest::new(
        ws.plan_dir(),
        Candidate::Bytes {
            bytes: read(recorded.join("02-state.json")),
            origin: "candidate.json".into(),
        },
    );
    let marker_path = ws.plan_dir().join(".finalizing.json");
    let foreign = b"{\"candidate_sha256\": \"x\"}".to_vec();
    let err = publish::finalize(&req, &mut |step| {
        if step == Step::AfterLock {
            std::fs::write(&marker_path, &foreign).unwrap();
        }
    })
    .unwrap_err();
    assert_eq!(err.kind(), Some("marker-present"), "{err}");
    assert_eq!(std::fs::read(&marker_path).unwrap(), foreign);
    assert_eq!(ws.state(), state);
    assert!(!ws.exists("state.json.lock"));
    assert!(!ws.exists("analysis_results/FINALIZATION.json"));
}

/// Fingerprints of the recorded plans, initial and completed (README §9 preimages).
#[test]
fn fingerprint_matches_the_recorded_preimages() {
    for (fixture, plan) in FIXTURES {
        let v = vectors(fixture);
        let fp = json(v.join("fingerprint/fingerprint.json"));
        let initial = v.join(format!("fixture/{plan}"));
        let got = publish::fingerprint(&initial, &read(initial.join("state.json"))).unwrap();
        assert_eq!(got.hex, fp["initial"]["artifacts_sha256"].as_str().unwrap());
        let final_dir = v.join(format!("lifecycle/snapshots/final/{plan}"));
        let got = publish::fingerprint(&final_dir, &read(final_dir.join("state.json"))).unwrap();
        assert_eq!(
            got.hex,
            fp["completed"]["artifacts_sha256"].as_str().unwrap()
        );
    }
}

/// A second run of the same publication, and a re-seal without `--candidate`, rewrite a
/// byte-identical receipt (no timestamps).
#[test]
fn reseal_rewrites_an_identical_receipt() {
    for (fixture, plan) in FIXTURES {
        let ws = Workspace::ready_to_publish(fixture, plan);
        ws.place("lifecycle/publication/02-state.json", "candidate.json");
        assert_ok(&ws.run(&["finalize", &ws.plan_rel(), "--candidate", "candidate.json"]));
        let first = ws.file("analysis_results/FINALIZATION.json").unwrap();
        let state = ws.state();

        let again = ws.run(&["finalize", &ws.plan_rel(), "--candidate", "candidate.json"]);
        assert_ok(&again);
        assert!(stdout(&again).contains("re-sealed"), "{}", stdout(&again));
        assert_eq!(
            ws.file("analysis_results/FINALIZATION.json").unwrap(),
            first
        );

        std::fs::remove_file(ws.plan_dir().join("analysis_results/FINALIZATION.json")).unwrap();
        assert_ok(&ws.run(&["finalize", &ws.plan_rel()]));
        assert_eq!(
            ws.file("analysis_results/FINALIZATION.json").unwrap(),
            first,
            "{fixture}"
        );
        assert_eq!(ws.state(), state);
    }
}

/// Deliberate difference: the helper silently replaces state and receipt of a completed plan;
/// planseal refuses any candidate other than the current bytes.
#[test]
fn another_candidate_on_a_completed_plan_is_candidate_mismatch() {
    for (fixture, plan) in FIXTURES {
        let ws =
            Workspace::from_folder(fixture, plan, &format!("lifecycle/snapshots/final/{plan}"));
        ws.place("interrupted/candidate-other.json", "other.json");
        let state = ws.state();
        let receipt = ws.file("analysis_results/FINALIZATION.json");
        let out = ws.run(&["finalize", &ws.plan_rel(), "--candidate", "other.json"]);
        assert_refused(&out, "candidate-mismatch");
        assert!(stdout(&out).is_empty());
        assert_eq!(ws.state(), state);
        assert_eq!(ws.file("analysis_results/FINALIZATION.json"), receipt);
        assert!(!ws.exists("state.json.lock") && !ws.exists(".finalizing.json"));
    }
}

/// Without `--candidate` the current state must already be completed.
#[test]
fn reseal_of_an_unfinished_plan_is_refused() {
    let (fixture, plan) = FIXTURES[1];
    let ws = Workspace::ready_to_publish(fixture, plan);
    let state = ws.state();
    let out = ws.run(&["finalize", &ws.plan_rel()]);
    assert_refused(&out, "candidate-not-completed");
    assert_eq!(ws.state(), state);
}

/// `finalize_plan.py …` probes of `refusals.json`, run as `planseal finalize …`: same kind,
/// exit 1, empty stdout, state.json unchanged, no lock / marker / receipt left behind.
#[test]
fn finalizer_refusal_probes() {
    let mut ran = 0;
    for (fixture, plan) in FIXTURES {
        let probes = json(vectors(fixture).join("refusals/refusals.json"));
        for probe in probes["probes"].as_array().unwrap() {
            let argv: Vec<&str> = probe["argv"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            if argv[0] != "finalize_plan.py" {
                continue;
            }
            let ws = Workspace::from_folder(fixture, plan, probe["base"].as_str().unwrap());
            ws.apply_setup(&probe["setup"]);
            let before = ws.state();
            assert_eq!(
                sha256(&before),
                probe["state_sha256_before"].as_str().unwrap()
            );
            let mut args = vec!["finalize"];
            args.extend(&argv[1..]);
            let out = ws.run(&args);
            let case = probe["case"].as_str().unwrap();
            let kind = probe["kind"].as_str().unwrap();
            assert_refused(&out, kind);
            assert!(stdout(&out).is_empty(), "{fixture}/{case}");
            assert_eq!(ws.state(), before, "{fixture}/{case}: state unchanged");
            assert_eq!(
                ws.exists("state.json.lock"),
                probe["lock_present_after"] == true,
                "{case}"
            );
            assert_eq!(
                ws.exists(".finalizing.json"),
                probe["marker_present_after"] == true,
                "{case}"
            );
            assert_eq!(
                ws.exists("analysis_results/FINALIZATION.json"),
                probe["receipt_present_after"] == true,
                "{fixture}/{case}"
            );
            ran += 1;
        }
    }
    assert_eq!(ran, 24, "8 finalizer probes per fixture");
}

/// `--dry-run` runs every check and writes nothing.
#[test]
fn dry_run_writes_nothing() {
    let (fixture, plan) = FIXTURES[0];
    let ws = Workspace::ready_to_publish(fixture, plan);
    ws.place("lifecycle/publication/02-state.json", "candidate.json");
    let before = ws.state();
    let out = ws.run(&[
        "finalize",
        &ws.plan_rel(),
        "--candidate",
        "candidate.json",
        "--dry-run",
    ]);
    assert_ok(&out);
    assert!(
        stdout(&out).contains("nothing was written"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("\"result\": \"verified\""));
    assert_eq!(ws.state(), before);
    assert!(!ws.exists("analysis_results/FINALIZATION.json"));
    assert!(!ws.exists(".finalizing.json") && !ws.exists("state.json.lock"));
}

/// The writer's terminal-close probes that the helper refused at publication (stages
/// `publish` / `publish-plan-check`), replayed through `planseal finalize` with the recorded
/// terminal candidate: the same kind leads the refusal and nothing is written.
#[test]
fn publication_refusal_probes_through_finalize() {
    let mut ran = 0;
    for (fixture, plan) in FIXTURES {
        let probes = json(vectors(fixture).join("refusals/refusals.json"));
        for probe in probes["probes"].as_array().unwrap() {
            let stage = probe["stage"].as_str().unwrap();
            let case = probe["case"].as_str().unwrap();
            if probe["argv"][0] != "update-state.py"
                || !stage.starts_with("publish")
                || case == "terminal-from-inside-plan-dir"
            {
                continue;
            }
            let ws = Workspace::from_folder(fixture, plan, probe["base"].as_str().unwrap());
            ws.apply_setup(&probe["setup"]);
            ws.place("lifecycle/publication/02-state.json", "candidate.json");
            let before = ws.state();
            let out = ws.run(&["finalize", &ws.plan_rel(), "--candidate", "candidate.json"]);
            let kind = probe["kind"].as_str().unwrap();
            assert_refused(&out, kind);
            for detail in probe["details"].as_array().unwrap() {
                let d = detail.as_str().unwrap();
                if !d.starts_with("task-") {
                    assert!(
                        stderr(&out).contains(d),
                        "{fixture}/{case}: detail {d} in {}",
                        stderr(&out)
                    );
                }
            }
            assert_eq!(ws.state(), before, "{fixture}/{case}");
            assert!(!ws.exists(".finalizing.json") || probe["kind"] == "marker-present");
            assert!(!ws.exists("analysis_results/FINALIZATION.json"));
            ran += 1;
        }
    }
    assert!(ran >= 30, "{ran} publication probes");
}

/// Deliberate difference (the helper's terminal close run from inside the plan folder fails its
/// identity check): the helper refused `plan-identity-mismatch` for A and B; planseal
/// canonicalises the path and publishes.
#[test]
fn publication_from_inside_the_plan_folder_is_accepted_deliberate_difference() {
    for (fixture, plan) in FIXTURES {
        let probes = json(vectors(fixture).join("refusals/refusals.json"));
        let recorded = probes["probes"]
            .as_array()
            .unwrap()
            .iter()
            .chain(probes["accepted_probes"].as_array().unwrap())
            .find(|p| p["case"] == "terminal-from-inside-plan-dir")
            .expect("recorded for every fixture")
            .clone();
        let ws = Workspace::ready_to_publish(fixture, plan);
        ws.place("lifecycle/publication/02-state.json", "candidate.json");
        let out = run_in(
            &ws.plan_dir(),
            &["finalize", ".", "--candidate", "../../../candidate.json"],
        );
        assert_ok(&out);
        assert_eq!(
            ws.state(),
            read(ws.vectors().join("lifecycle/publication/02-state.json")),
            "{fixture}: recorded {}",
            recorded["kind"]
        );
    }
}

/// Regression: finalize published the candidate file's raw bytes, so a candidate not already in
/// the helper's layout gave another state.json, `candidate_sha256` and receipt than the helper's
/// for the same candidate. A compact copy now publishes the recorded bytes and receipt.
#[test]
fn a_candidate_in_another_layout_publishes_the_helpers_bytes() {
    for (fixture, plan) in FIXTURES {
        let ws = Workspace::ready_to_publish(fixture, plan);
        let recorded = ws.vectors().join("lifecycle/publication");
        let value: serde_json::Value =
            serde_json::from_slice(&read(recorded.join("02-state.json"))).unwrap();
        std::fs::write(
            ws.root().join("compact.json"),
            serde_json::to_vec(&value).unwrap(),
        )
        .unwrap();
        let out = ws.run(&["finalize", &ws.plan_rel(), "--candidate", "compact.json"]);
        assert_ok(&out);
        assert_eq!(
            ws.state(),
            read(recorded.join("02-state.json")),
            "{fixture}"
        );
        assert_receipt_extends(
            &ws.file("analysis_results/FINALIZATION.json").unwrap(),
            &read(recorded.join("03-receipt.FINALIZATION.json")),
        );
        // the journal's after-hash is the published bytes' hash
        let journal =
            String::from_utf8(ws.file("analysis_results/STATE_JOURNAL.ndjson").unwrap()).unwrap();
        let last: serde_json::Value =
            serde_json::from_str(journal.lines().last().unwrap()).unwrap();
        assert_eq!(last["after_sha256"], sha256(&ws.state()).as_str());
        // … and it carries the published state whole, for a replay of the journal
        assert_eq!(last["applied"]["version"], 2);
        assert_eq!(last["applied"]["replaced"], value);
    }
}

/// On a completed plan, the same state in another layout is a re-seal, not a mismatch: nothing
/// is rewritten.
#[test]
fn the_completed_state_in_another_layout_is_a_reseal() {
    let (fixture, plan) = FIXTURES[1];
    let ws = Workspace::from_folder(fixture, plan, &format!("lifecycle/snapshots/final/{plan}"));
    let state = ws.state();
    let value: serde_json::Value = serde_json::from_slice(&state).unwrap();
    std::fs::write(
        ws.root().join("same.json"),
        serde_json::to_vec(&value).unwrap(),
    )
    .unwrap();
    assert_ok(&ws.run(&["finalize", &ws.plan_rel()]));
    let resealed = ws.file("analysis_results/FINALIZATION.json").unwrap();
    assert_ok(&ws.run(&["finalize", &ws.plan_rel(), "--candidate", "same.json"]));
    assert!(ws.state() == state, "state.json is not rewritten");
    assert!(
        ws.file("analysis_results/FINALIZATION.json").unwrap() == resealed,
        "the receipt of a plain re-seal"
    );
}

/// Regression: the mismatch message said "already completed and published" for a plan that was
/// never sealed. It now says whether a receipt exists and names what differs.
#[test]
fn candidate_mismatch_on_an_unsealed_plan_says_so_and_names_the_difference() {
    let (fixture, plan) = FIXTURES[1];
    let ws = Workspace::from_folder(fixture, plan, &format!("lifecycle/snapshots/final/{plan}"));
    std::fs::remove_file(ws.plan_dir().join("analysis_results/FINALIZATION.json")).unwrap();
    ws.place("interrupted/candidate-other.json", "other.json");
    let state = ws.state();
    let out = ws.run(&["finalize", &ws.plan_rel(), "--candidate", "other.json"]);
    assert_refused(&out, "candidate-mismatch");
    let err = stderr(&out);
    assert!(err.contains("not yet sealed"), "{err}");
    assert!(!err.contains("published"), "{err}");
    assert!(err.contains("checkpoint.note"), "{err}");
    assert_eq!(ws.state(), state);
    assert!(!ws.exists("analysis_results/FINALIZATION.json"));
}

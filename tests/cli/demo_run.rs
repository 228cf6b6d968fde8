//! `planseal demo`: the whole narrated life cycle runs with nothing but the binary (no `git`, no
//! PATH at all), ends CONFORMANT with a receipt and writes the report of its plan beside the
//! scratch folder, and — with `--keep` — leaves a real git repository whose history names the
//! tasks.

use crate::support::gitrepo;
use crate::support::run::{Planseal, Run};

/// The scratch folder a `--keep` demo left in `tmp` (beside it: the report page).
pub(crate) fn kept_folder(tmp: &std::path::Path) -> std::path::PathBuf {
    std::fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .expect("the scratch folder is kept")
}

/// The report page the demo wrote in `tmp`, as the demo's last lines name it.
pub(crate) fn report_page(tmp: &std::path::Path, stdout: &str) -> std::path::PathBuf {
    let page = stdout
        .lines()
        .find_map(|l| l.strip_prefix("The report of the plan: "))
        .unwrap_or_else(|| panic!("the demo names its report:\n{stdout}"));
    let page = std::path::PathBuf::from(page);
    assert_eq!(page.parent(), Some(tmp), "beside the scratch folder");
    assert!(page.is_file(), "{}", page.display());
    page
}

/// The demo dates its commits by the real clock, so it runs on it (as a user's would).
fn demo(args: &[&str], tmp: &std::path::Path) -> Run {
    Planseal::new()
        .arg("demo")
        .args(args)
        .env("TMPDIR", tmp)
        .env("PATH", "")
        .no_fixed_clock()
        .output()
}

#[test]
fn the_demo_walks_the_life_cycle_without_any_other_program() {
    let tmp = tempfile::tempdir().unwrap();
    let out = demo(&[], tmp.path());
    let text = &out.stdout;
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", out.stderr);
    let milestones = [
        "valid proposal awaiting approval",
        "$ planseal approve .dwp/plans/PLAN_demo_greeting --by 'Ada (the user)'",
        "approval set pending → approved",
        "task 1 → in_progress",
        "$ planseal task done .dwp/plans/PLAN_demo_greeting --task 1",
        "task 1 close-out: wrote 1.task_greeting_function.md, README.md, PROGRESS.md",
        "task 2 → completed · 2/3 completed",
        "$ planseal publish-check .dwp/plans/PLAN_demo_greeting",
        "thing(s) missing before publication (open task(s): 3)",
        "$ planseal task done .dwp/plans/PLAN_demo_greeting --task 3",
        "task log, README and PROGRESS written, marker written",
        "(exit 137)",
        "interrupted finalization",
        "Verdict: NOT CONFORMANT",
        "interrupted publication found",
        "recovered — published state",
        "stale lock removed",
        "Verdict: CONFORMANT",
        "\"result\": \"verified\"",
        "\"clean\": true",
        "10. A picture of the plan",
        "-report.html (",
        "1 plan(s), verdict CONFORMANT:",
        "The report of the plan: ",
    ];
    let mut at = 0;
    for m in milestones {
        let found = text[at..]
            .find(m)
            .unwrap_or_else(|| panic!("`{m}` after byte {at} in:\n{text}"));
        at += found + m.len();
    }
    // the scratch folder is gone unless --keep; the report page stays beside where it was
    let page = report_page(tmp.path(), text);
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(left, std::slice::from_ref(&page), "scratch folder removed");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("data-plan=\"PLAN_demo_greeting\""));
    assert_eq!(html.matches("<g class=\"lane ").count(), 3);
    assert!(html.contains("<g class=\"event event-crash\">"));
    assert!(html.contains("<g class=\"event event-recovered\">"));
    assert!(html.contains("<g class=\"event event-published\">"));
}

#[test]
fn with_keep_the_repository_and_the_sealed_plan_stay() {
    let tmp = tempfile::tempdir().unwrap();
    let out = demo(&["--keep"], tmp.path());
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    let root = kept_folder(tmp.path());
    let plan = root.join(".dwp/plans/PLAN_demo_greeting");
    assert!(plan.join("analysis_results/FINALIZATION.json").is_file());
    assert!(!plan.join(".finalizing.json").exists());
    assert!(!plan.join("state.json.lock").exists());
    // the repository reads back with git: three task commits, clean tree
    let log = gitrepo::git(&root, &["log", "--format=%s"]);
    for n in 1..=3 {
        assert!(
            log.contains(&format!("- Task {n} of PLAN_demo_greeting")),
            "{log}"
        );
    }
    assert_eq!(gitrepo::git(&root, &["status", "--porcelain"]), "");
    // sealing again rewrites the same receipt
    let receipt = std::fs::read(plan.join("analysis_results/FINALIZATION.json")).unwrap();
    let out = Planseal::new()
        .args(["-C"])
        .arg(&root)
        .args(["finalize", ".dwp/plans/PLAN_demo_greeting"])
        .no_fixed_clock()
        .output();
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert_eq!(
        std::fs::read(plan.join("analysis_results/FINALIZATION.json")).unwrap(),
        receipt
    );
}

#[test]
fn every_timestamp_of_the_demo_plan_is_in_the_order_of_the_walk() {
    let tmp = tempfile::tempdir().unwrap();
    let out = demo(&["--keep"], tmp.path());
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    let root = kept_folder(tmp.path());
    let plan = root.join(".dwp/plans/PLAN_demo_greeting");
    let json = |rel: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(plan.join(rel)).unwrap()).unwrap()
    };
    let at = |v: &serde_json::Value, what: &str| -> (String, jiff::Timestamp) {
        let text = v.as_str().unwrap_or_else(|| panic!("{what}: {v}"));
        (what.to_string(), text.parse().unwrap())
    };
    let state = json("state.json");
    // In the order the walk stamps them: the plan's creation, then each task's start, gates
    // and completion, then the plan's last update.
    let mut walk = vec![at(&json("manifest.json")["created_at"], "created_at")];
    for task in state["tasks"].as_array().unwrap() {
        let id = &task["id"];
        let started = at(&task["started_at"], &format!("task {id} started_at"));
        let completed = at(&task["completed_at"], &format!("task {id} completed_at"));
        assert!(started.1 <= completed.1, "{started:?} after {completed:?}");
        walk.push(started);
        // The close-out records the gate run with the completion; the transition stamps
        // `completed_at` first, then each gate's `last_run` (the DWP helper's order).
        walk.push(completed);
        for gate in task["gates"].as_array().unwrap() {
            walk.push(at(&gate["last_run"], &format!("task {id} gate last_run")));
        }
    }
    // The last transition's step stamp is both the last task's `completed_at` and the plan's
    // `updated_at`; `checkpoint.at` comes after its gate.
    let last = state["tasks"].as_array().unwrap().last().unwrap();
    assert_eq!(state["updated_at"], last["completed_at"]);
    walk.push(at(&state["checkpoint"]["at"], "checkpoint.at"));
    for pair in walk.windows(2) {
        assert!(pair[0].1 <= pair[1].1, "{:?} after {:?}", pair[0], pair[1]);
    }
    // the journal too, line after line
    let journal =
        std::fs::read_to_string(plan.join("analysis_results/STATE_JOURNAL.ndjson")).unwrap();
    let times: Vec<(String, jiff::Timestamp)> = journal
        .lines()
        .map(|l| {
            at(
                &serde_json::from_str::<serde_json::Value>(l).unwrap()["time"],
                l,
            )
        })
        .collect();
    assert!(times.len() >= 9, "{journal}");
    for pair in times.windows(2) {
        assert!(pair[0].1 <= pair[1].1, "{:?} after {:?}", pair[0], pair[1]);
    }
}

#[test]
fn the_crash_harness_flags_are_not_part_of_the_cli() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        &["--internal-finalize-crash", "a", "b"][..],
        &["--internal-ready-plan", ".", "3"],
        &["--internal-json-check", "state.json"],
    ] {
        let out = demo(args, tmp.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    assert!(std::fs::read_dir(tmp.path()).unwrap().next().is_none());
}

#[test]
fn demo_json_is_one_document_with_the_narration_and_the_report() {
    let tmp = tempfile::tempdir().unwrap();
    let out = demo(&["--json"], tmp.path());
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    let doc = out.json();
    assert_eq!(doc["result"], "ok");
    assert!(doc["scratch"].is_null());
    assert!(
        doc["transcript"]
            .as_str()
            .unwrap()
            .contains("$ planseal recover .dwp/plans/PLAN_demo_greeting")
    );
    let report = std::path::PathBuf::from(doc["report"].as_str().unwrap());
    assert!(report.is_file(), "{}", report.display());
}

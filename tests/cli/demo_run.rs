//! `planseal demo`: the whole narrated life cycle runs with nothing but the binary (no `git`, no
//! PATH at all), ends CONFORMANT with a receipt, and — with `--keep` — leaves a real git
//! repository whose history names the tasks.

use crate::support::gitrepo;
use crate::support::run::{Planseal, Run};

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
        "task 1 → in_progress",
        "task 2 → completed · 2/3 completed",
        "$ planseal finalize .dwp/plans/PLAN_demo_greeting --candidate .dwp/candidate.json",
        "(exit 137)",
        "interrupted finalization",
        "Verdict: NOT CONFORMANT",
        "interrupted publication found",
        "recovered — published state",
        "stale lock removed",
        "Verdict: CONFORMANT",
        "\"result\": \"verified\"",
        "\"clean\": true",
    ];
    let mut at = 0;
    for m in milestones {
        let found = text[at..]
            .find(m)
            .unwrap_or_else(|| panic!("`{m}` after byte {at} in:\n{text}"));
        at += found + m.len();
    }
    // the scratch folder is gone unless --keep
    assert!(
        std::fs::read_dir(tmp.path()).unwrap().next().is_none(),
        "scratch folder removed"
    );
}

#[test]
fn with_keep_the_repository_and_the_sealed_plan_stay() {
    let tmp = tempfile::tempdir().unwrap();
    let out = demo(&["--keep"], tmp.path());
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    let root = std::fs::read_dir(tmp.path())
        .unwrap()
        .next()
        .expect("the scratch folder is kept")
        .unwrap()
        .path();
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

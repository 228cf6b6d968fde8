//! Per-task advisories of one id in the text output: many are summed up on one line (verify's
//! report and finalize's stderr), a few still print one line each, and `--json` keeps one finding
//! per task so that scripts keep reading `task`.

use crate::support::run::{Planseal, Run};
use serde_json::Value;

const TASKS: usize = 12;
const PLAN_REL: &str = ".dwp/plans/PLAN_demo_greeting";

/// A generated plan of [`TASKS`] tasks published by `finalize` from a candidate that records no
/// outcome for the tasks in `without_outcome`; returns the workspace and finalize's run.
fn published_without_outcomes(without_outcome: &[usize]) -> (tempfile::TempDir, Run) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut plan = planseal_harness::PlanSpec::standard(TASKS).build();
    let mut candidate: Value = serde_json::from_slice(&plan.candidate).expect("candidate");
    for &id in without_outcome {
        candidate["tasks"][id - 1]
            .as_object_mut()
            .expect("task object")
            .remove("outcome");
    }
    plan.candidate = serde_json::to_vec_pretty(&candidate).expect("serialise");
    planseal_harness::write_ready_plan(tmp.path(), &plan).expect("write plan");
    let finalize = Planseal::new()
        .cwd(tmp.path())
        .args(["finalize", PLAN_REL, "--candidate", "candidate.json"])
        .output();
    assert_eq!(finalize.code, 0, "{}", finalize.stderr);
    (tmp, finalize)
}

fn verify(root: &std::path::Path, json: bool) -> Run {
    let mut run = Planseal::new().cwd(root);
    if json {
        run = run.arg("--json");
    }
    let run = run.args(["verify", PLAN_REL]).output();
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    run
}

fn lines_about_outcomes(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.contains("without an outcome record"))
        .collect()
}

#[test]
fn twelve_tasks_without_outcome_records_print_one_summary_line() {
    let all: Vec<usize> = (1..=TASKS).collect();
    let (tmp, finalize) = published_without_outcomes(&all);

    let text = verify(tmp.path(), false).stdout;
    assert_eq!(
        lines_about_outcomes(&text),
        [
            "  [~] outcome-missing on 12 tasks (1..12): task 1 is completed without an outcome record (what was tried, what worked) (SHOULD)"
        ],
        "{text}"
    );
    assert!(
        text.contains("(SHOULD)\n      hint: record --worked/--notes when completing a task\n"),
        "{text}"
    );
    // The verdict still counts every finding, as the JSON does.
    assert!(text.contains("advisory)"), "{text}");

    // finalize repeats verify's advisories on stderr, summed up the same way.
    assert_eq!(
        lines_about_outcomes(&finalize.stderr),
        [
            "  [~] outcome-missing on 12 tasks (1..12): task 1 is completed without an outcome record (what was tried, what worked)"
        ],
        "{}",
        finalize.stderr
    );
}

#[test]
fn json_keeps_one_outcome_finding_per_task() {
    let all: Vec<usize> = (1..=TASKS).collect();
    let (tmp, _) = published_without_outcomes(&all);
    let doc = verify(tmp.path(), true).json();
    let findings = doc["sections"][0]["findings"].as_array().expect("findings");
    let tasks: Vec<u64> = findings
        .iter()
        .filter(|f| f["id"] == "outcome-missing")
        .map(|f| {
            assert_eq!(f["severity"], "advisory", "{f}");
            f["task"].as_u64().expect("task")
        })
        .collect();
    assert_eq!(tasks, (1..=TASKS as u64).collect::<Vec<_>>());
    assert_eq!(
        findings[0]["plan"], "PLAN_demo_greeting",
        "the findings are the plan's: {doc:#}"
    );
}

#[test]
fn one_task_without_an_outcome_record_prints_as_before() {
    let (tmp, finalize) = published_without_outcomes(&[3]);
    let text = verify(tmp.path(), false).stdout;
    assert!(
        text.contains("  [~] task 3 is completed without an outcome record (what was tried, what worked) (SHOULD)\n      hint: record --worked/--notes when completing a task\n"),
        "{text}"
    );
    assert_eq!(lines_about_outcomes(&text).len(), 1, "{text}");
    assert!(!text.contains("outcome-missing on"), "{text}");
    assert_eq!(
        lines_about_outcomes(&finalize.stderr),
        ["  [~] task 3 is completed without an outcome record (what was tried, what worked)"],
        "{}",
        finalize.stderr
    );
}

#[test]
fn three_tasks_without_outcome_records_still_print_one_line_each() {
    let (tmp, _) = published_without_outcomes(&[2, 5, 7]);
    let text = verify(tmp.path(), false).stdout;
    let expected: Vec<String> = [2, 5, 7]
        .iter()
        .map(|id| format!("  [~] task {id} is completed without an outcome record (what was tried, what worked) (SHOULD)"))
        .collect();
    assert_eq!(lines_about_outcomes(&text), expected, "{text}");
}

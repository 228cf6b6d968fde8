//! Check 8 of `docs/update.md`: reopening a completed task on v2/v5 needs an
//! `### Amendment <n> — <date>` record in the task's *log* (its Completion & Log and what follows
//! it), a real record (all nine labels filled), dated no earlier than the task's completion. A
//! heading under `## Context` or an empty shell does not count.

use crate::support::update::*;

const TASK_FILE: &str = "1.task_backoff_schedule.md";

const FULL_RECORD: &str = "### Amendment 1 — 2026-11-02\n\nOriginal criterion: delays grow without bound\nObserved: no cap\nDisposition: revised criterion\nRevised criterion: delays are capped at 300 s\nReason: operator request\nAuthority: user\nAffected tasks: 1\nEvidence invalidated: t1-unittest\nEvidence preserved: none\n";

const REOPEN: [&str; 6] = [
    "--task",
    "1",
    "--status",
    "in_progress",
    "--reopen-reason",
    "criterion 2 changed: jitter must be capped",
];

fn scratch() -> Scratch {
    let folder = vectors().join("B_full_v5/lifecycle/snapshots/after-task1");
    let plan = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("PLAN_")
        })
        .unwrap();
    let s = Scratch::new(&plan);
    let _ = std::fs::remove_file(s.plan_dir().join("analysis_results/FINALIZATION.json"));
    s
}

fn reopen(s: &Scratch) -> Run {
    planseal()
        .arg("update")
        .arg(format!(".dwp/plans/{}/state.json", s.plan))
        .args(REOPEN)
        .cwd(s.root())
        .clock("2026-11-02T10:00:00+00:00")
        .output()
}

/// Refused with `reopen-without-amendment`, state.json byte-identical.
fn assert_refused_unchanged(s: &Scratch, task_text: &str) {
    std::fs::write(s.plan_dir().join(TASK_FILE), task_text).unwrap();
    let before = s.state();
    let out = reopen(s);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("reopen-without-amendment:"),
        "{}",
        stderr(&out)
    );
    assert_eq!(s.state(), before);
}

fn original(s: &Scratch) -> String {
    std::fs::read_to_string(s.plan_dir().join(TASK_FILE)).unwrap()
}

#[test]
fn an_amendment_under_context_does_not_count() {
    let s = scratch();
    let text = original(&s);
    let at = text.find("## 2. Read Before Starting").unwrap();
    let moved = format!("{}{FULL_RECORD}\n{}", &text[..at], &text[at..]);
    assert_refused_unchanged(&s, &moved);
}

#[test]
fn an_amendment_heading_without_its_record_does_not_count() {
    let s = scratch();
    let text = original(&s);
    assert_refused_unchanged(&s, &format!("{text}\n### Amendment 1 — 2026-11-02\n\n"));
    // every label but an empty Reason and Disposition: still not a record
    let hollow = FULL_RECORD
        .replace("Disposition: revised criterion", "Disposition:")
        .replace("Reason: operator request", "Reason: ");
    assert_refused_unchanged(&s, &format!("{text}\n{hollow}"));
}

#[test]
fn a_full_record_in_the_log_reopens_the_task() {
    let s = scratch();
    let text = original(&s);
    std::fs::write(
        s.plan_dir().join(TASK_FILE),
        format!("{text}\n{FULL_RECORD}"),
    )
    .unwrap();
    let out = reopen(&s);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let state: serde_json::Value = serde_json::from_slice(&s.state()).unwrap();
    assert_eq!(state["tasks"][0]["status"], "in_progress");
}

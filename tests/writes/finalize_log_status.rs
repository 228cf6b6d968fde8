//! Step 4 of the publication (`docs/finalize.md`), planseal's stricter reading: a completed task's
//! Completion & Log must carry a Status line that says `completed`. A missing Status line or
//! `Status: done-ish` is refused (`task-record-unpublishable`, details `log-status-missing` /
//! `log-status-not-completed`) and nothing is written.

use crate::support::finalize::*;

const TASK_FILE: &str = "1.task_backoff_schedule.md";

fn publish_with_status_line(replacement: &str) -> (Workspace, Run) {
    let (fixture, plan) = FIXTURES[1];
    let ws = Workspace::ready_to_publish(fixture, plan);
    ws.place("lifecycle/publication/02-state.json", "candidate.json");
    let path = ws.plan_dir().join(TASK_FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.matches("\nStatus: completed\n").count(), 1);
    std::fs::write(&path, text.replace("\nStatus: completed\n", replacement)).unwrap();
    let state = ws.state();
    let out = ws.run(&[
        "--json",
        "finalize",
        &ws.plan_rel(),
        "--candidate",
        "candidate.json",
    ]);
    assert_eq!(ws.state(), state);
    assert!(!ws.exists(".finalizing.json"));
    assert!(!ws.exists("analysis_results/FINALIZATION.json"));
    assert!(!ws.exists("state.json.lock"));
    (ws, out)
}

fn assert_unpublishable(out: &Run, detail: &str) {
    assert_eq!(out.status.code(), Some(1), "{}", stderr(out));
    assert!(
        stderr(out).starts_with("task-record-unpublishable: "),
        "{}",
        stderr(out)
    );
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let text = doc.to_string();
    assert!(text.contains(detail), "{detail} in {text}");
    assert!(text.contains("task 1"), "{text}");
}

#[test]
fn a_completed_task_without_a_status_line_is_refused() {
    let (_ws, out) = publish_with_status_line("\n");
    assert_unpublishable(&out, "log-status-missing");
}

#[test]
fn a_completed_task_whose_status_is_not_completed_is_refused() {
    let (_ws, out) = publish_with_status_line("\nStatus: done-ish\n");
    assert_unpublishable(&out, "log-status-not-completed");
}

#[test]
fn the_recorded_status_line_publishes() {
    let (fixture, plan) = FIXTURES[1];
    let ws = Workspace::ready_to_publish(fixture, plan);
    ws.place("lifecycle/publication/02-state.json", "candidate.json");
    let out = ws.run(&["finalize", &ws.plan_rel(), "--candidate", "candidate.json"]);
    assert_ok(&out);
    assert!(ws.exists("analysis_results/FINALIZATION.json"));
}

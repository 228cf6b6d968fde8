//! The rules `update` holds beyond the DWP helper's (`docs/update.md`, `docs/amend.md`): an
//! amendment's invalidated evidence is enforced, a reopen cannot leave later work silently
//! completed, replacing a commit is a reopen, a skip needs the user's refinement record, and
//! `--tried` / `--failed` fill the outcome lists. Every refusal leaves state.json byte-identical.

use crate::support::update::*;
use crate::support::{stderr, stdout};
use serde_json::Value;

const SUITE: &str = "python3 -m unittest discover -s tests -t .";

/// Fixture A after publication (three Lite tasks, all completed), without its receipt, outside
/// git.
fn published_a() -> Scratch {
    let s =
        Scratch::new(&vectors().join("A_lite_v2/lifecycle/snapshots/final/PLAN_http_rate_limit"));
    let _ = std::fs::remove_file(s.plan_dir().join("analysis_results/FINALIZATION.json"));
    s
}

fn amendment(n: u32, affected: &str, invalidated: &str) -> String {
    format!(
        "\n### Amendment {n} — 2026-11-02\n\nOriginal criterion: the full suite passes on the final commit\nObserved: the suite ran against a stale build\nDisposition: failed gate\nRevised criterion: none\nReason: the build cache was stale\nAuthority: user\nAffected tasks: {affected}\nEvidence invalidated: {invalidated}\nEvidence preserved: none\n"
    )
}

/// Appends `record` at the end of inline task `task`'s record (before the next `## ` heading).
fn append_to_inline_log(s: &Scratch, task: u32, record: &str) {
    let path = s.plan_dir().join("README.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find(&format!("{{#task-{task}}}")).unwrap();
    let end = text[start..]
        .find("\n## ")
        .map(|i| start + i + 1)
        .unwrap_or(text.len());
    let mut new = text[..end].trim_end_matches('\n').to_string();
    new.push('\n');
    new.push_str(record);
    new.push('\n');
    new.push_str(&text[end..]);
    std::fs::write(path, new).unwrap();
}

fn at(s: &Scratch, now: &str, args: &[&str]) -> Run {
    planseal()
        .arg("update")
        .arg(format!(".dwp/plans/{}/state.json", s.plan))
        .args(args)
        .cwd(s.root())
        .clock(now)
        .output()
}

fn task(s: &Scratch, id: usize) -> Value {
    read_json(&s.state_path())["tasks"][id - 1].clone()
}

fn refused(out: &Run, kind: &str) {
    assert_eq!(out.status.code(), Some(1), "{}", stderr(out));
    assert!(
        stderr(out).starts_with(&format!("{kind}:")),
        "expected {kind}: {}",
        stderr(out)
    );
}

/// The bug of issue 15: an amendment that invalidates gate `…` of the last task, a reopen, then
/// a completion with no new run was accepted and the plan republished "completed and verified".
#[test]
fn regression_recompleting_without_a_new_run_of_an_invalidated_gate_is_refused() {
    let s = published_a();
    append_to_inline_log(
        &s,
        3,
        &amendment(1, "Task 3", &format!("gate `{SUITE}` of task 3")),
    );
    let reopen = at(
        &s,
        "2026-11-02T10:00:00+00:00",
        &[
            "--task",
            "3",
            "--status",
            "in_progress",
            "--reopen-reason",
            "stale build",
        ],
    );
    assert_eq!(reopen.status.code(), Some(0), "{}", stderr(&reopen));
    // The record the amendment names is marked, the other one is not; no key is added.
    let gates = task(&s, 3)["gates"].clone();
    assert_eq!(
        gates[0]["evidence"],
        "invalidated by refine (Amendment 1): scope=final-state validation, whole suite; fp=0684d92+dirty; ran=9/9; log=analysis_results/gates/t3-final-suite.log"
    );
    assert_eq!(gates[0].as_object().unwrap().len(), 5);
    assert!(
        !gates[1]["evidence"]
            .as_str()
            .unwrap()
            .starts_with("invalidated")
    );

    let before = s.state();
    let again = at(
        &s,
        "2026-11-02T10:05:00+00:00",
        &["--task", "3", "--status", "completed"],
    );
    refused(&again, "evidence-invalidated-by-refine");
    assert_eq!(s.state(), before);

    let rerun = format!("{SUITE}|0|scope=final-state validation, rebuilt; ran=9/9");
    let published = at(
        &s,
        "2026-11-02T10:10:00+00:00",
        &["--task", "3", "--status", "completed", "--gate", &rerun],
    );
    assert_eq!(published.status.code(), Some(0), "{}", stderr(&published));
    assert_eq!(
        stdout(&published),
        "task 3 → completed · plan completed and verified\n"
    );
    assert!(
        s.plan_dir()
            .join("analysis_results/FINALIZATION.json")
            .exists()
    );
    // The invalidated run stays as history; the new run is the evidence.
    let gates = task(&s, 3)["gates"].clone();
    assert_eq!(gates.as_array().unwrap().len(), 3);
    assert_eq!(gates[2]["command"], SUITE);
}

#[test]
fn an_amendment_written_on_an_open_task_is_held_at_completion() {
    let s = published_a();
    at(
        &s,
        "2026-11-01T09:00:00+00:00",
        &[
            "--task",
            "3",
            "--status",
            "in_progress",
            "--reopen-reason",
            "x",
        ],
    );
    // Reopened without an amendment: refused, so reopen properly first, then amend by hand.
    append_to_inline_log(&s, 3, &amendment(1, "Task 3", "none"));
    let reopen = at(
        &s,
        "2026-11-02T09:00:00+00:00",
        &[
            "--task",
            "3",
            "--status",
            "in_progress",
            "--reopen-reason",
            "review again",
        ],
    );
    assert_eq!(reopen.status.code(), Some(0), "{}", stderr(&reopen));
    // A second amendment, written while the task is open, invalidates the suite run.
    append_to_inline_log(&s, 3, &amendment(2, "Task 3", &format!("`{SUITE}`")));
    let before = s.state();
    let close = at(
        &s,
        "2026-11-02T11:00:00+00:00",
        &["--task", "3", "--status", "completed"],
    );
    refused(&close, "evidence-invalidated-by-refine");
    assert!(
        stderr(&close).contains("(Amendment 2)"),
        "{}",
        stderr(&close)
    );
    assert_eq!(s.state(), before);
}

#[test]
fn reopening_a_task_under_a_completed_later_one_needs_the_amendment_to_name_it() {
    let s = published_a();
    append_to_inline_log(&s, 2, &amendment(1, "Task 2", "none"));
    let before = s.state();
    let args = [
        "--task",
        "2",
        "--status",
        "in_progress",
        "--reopen-reason",
        "throttle must honour Retry-After",
    ];
    let out = at(&s, "2026-11-02T10:00:00+00:00", &args);
    refused(&out, "reopen-leaves-later-completed");
    assert!(stderr(&out).contains("later task(s) 3"), "{}", stderr(&out));
    assert_eq!(s.state(), before);

    // The same amendment naming task 3 as affected: accepted.
    let path = s.plan_dir().join("README.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace(
            "Affected tasks: Task 2\n",
            "Affected tasks: Task 2, Task 3\n",
        ),
    )
    .unwrap();
    let out = at(&s, "2026-11-02T10:00:00+00:00", &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(task(&s, 2)["status"], "in_progress");
    assert_eq!(task(&s, 3)["status"], "completed");
}

#[test]
fn replacing_a_completed_tasks_commit_is_a_reopen() {
    let s = published_a();
    let before = s.state();
    let replace = [
        "--task",
        "1",
        "--status",
        "completed",
        "--commit",
        "0123456789abcdef",
    ];
    let out = at(&s, "2026-11-02T10:00:00+00:00", &replace);
    refused(&out, "reopen-without-reason");
    assert!(
        stderr(&out).contains("replacing its commit reopens it"),
        "{}",
        stderr(&out)
    );
    let mut with_reason = replace.to_vec();
    with_reason.extend(["--reopen-reason", "the commit was squashed"]);
    refused(
        &at(&s, "2026-11-02T10:00:00+00:00", &with_reason),
        "reopen-without-amendment",
    );
    assert_eq!(s.state(), before);
}

#[test]
fn a_skip_needs_a_dated_refinement_with_the_users_authority() {
    let s = Scratch::a_task1_in_progress();
    let before = s.state();
    let skip = ["--task", "3", "--status", "skipped"];
    let out = at(&s, "2026-10-05T09:30:00+00:00", &skip);
    refused(&out, "skip-without-refinement");
    assert!(
        stderr(&out).contains("planseal refine PLAN_http_rate_limit --skip 3"),
        "{}",
        stderr(&out)
    );
    assert_eq!(s.state(), before);

    // A refinement by the developer is not the user's decision.
    let progress = s.plan_dir().join("PROGRESS.md");
    let original = std::fs::read_to_string(&progress).unwrap();
    let entry = "\n## Refinement — 2026-10-05\n\n- Task 3 (Final Review) removed from scope: skipped by refine\n- Authority: developer\n- Reason: reviewed elsewhere\n";
    std::fs::write(&progress, format!("{original}{entry}")).unwrap();
    refused(
        &at(&s, "2026-10-05T09:30:00+00:00", &skip),
        "skip-without-refinement",
    );
    assert_eq!(s.state(), before);

    std::fs::write(
        &progress,
        format!("{original}{}", entry.replace("developer", "user")),
    )
    .unwrap();
    let out = at(&s, "2026-10-05T09:30:00+00:00", &skip);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(task(&s, 3)["status"], "skipped");
    // Strict order is unchanged: a skipped task still blocks the ones after it, and the plan
    // never reads completed.
    assert_eq!(read_json(&s.state_path())["status"], "in_progress");
}

#[test]
fn an_amendment_by_the_user_naming_the_task_backs_a_skip_too() {
    let s = Scratch::a_task1_in_progress();
    let record = amendment(1, "Task 1, Task 2", "none").replace(
        "Disposition: failed gate",
        "Disposition: deferred requirement — throttling moves to Task 1",
    );
    append_to_inline_log(&s, 1, &record);
    let out = at(
        &s,
        "2026-11-02T09:30:00+00:00",
        &["--task", "2", "--status", "skipped"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(task(&s, 2)["status"], "skipped");
}

#[test]
fn tried_and_failed_are_appended_after_the_outcome_keys_in_that_order() {
    let s = Scratch::a_task1_in_progress();
    let out = at(
        &s,
        "2026-10-05T09:30:00+00:00",
        &[
            "--task",
            "1",
            "--status",
            "in_progress",
            "--worked",
            "fake clock",
            "--tried",
            "sleeping in tests",
            "--tried",
            "a thread per request",
            "--failed",
            "sleeping in tests",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8(s.state()).unwrap();
    assert!(
        text.contains("      \"outcome\": {\n        \"worked\": \"fake clock\",\n        \"tried\": [\n          \"sleeping in tests\",\n          \"a thread per request\"\n        ],\n        \"failed\": [\n          \"sleeping in tests\"\n        ]\n      }"),
        "{text}"
    );
    // A second call appends to the lists.
    let more = at(
        &s,
        "2026-10-05T09:40:00+00:00",
        &[
            "--task",
            "1",
            "--status",
            "in_progress",
            "--tried",
            "a token bucket",
        ],
    );
    assert_eq!(more.status.code(), Some(0), "{}", stderr(&more));
    assert_eq!(
        task(&s, 1)["outcome"]["tried"],
        serde_json::json!([
            "sleeping in tests",
            "a thread per request",
            "a token bucket"
        ])
    );
    // One line per approach.
    let before = s.state();
    let bad = at(
        &s,
        "2026-10-05T09:50:00+00:00",
        &[
            "--task",
            "1",
            "--status",
            "in_progress",
            "--failed",
            "two\nlines",
        ],
    );
    assert_eq!(bad.status.code(), Some(1), "{}", stderr(&bad));
    assert_eq!(s.state(), before);
}

/// A completed task whose evidence no longer holds refuses every other transition, but its own
/// repair — here the reopen its amendment backs — gets through (found by the merge tests: a
/// merge that kept `completed` beside a run the other side had marked left no way out).
#[test]
fn regression_a_reopen_repairs_a_completed_task_whose_evidence_no_longer_holds() {
    let s = published_a();
    let path = s.state_path();
    let text = String::from_utf8(s.state()).unwrap().replacen(
        "\"evidence\": \"scope=final-state validation",
        "\"evidence\": \"invalidated by refine (Amendment 1): scope=final-state validation",
        1,
    );
    std::fs::write(&path, text).unwrap();
    append_to_inline_log(&s, 3, &amendment(1, "Task 3", "none"));
    let before = s.state();
    // Another task's transition: refused while task 3's evidence does not hold.
    let other = at(
        &s,
        "2026-11-02T10:00:00+00:00",
        &[
            "--task",
            "2",
            "--status",
            "in_progress",
            "--reopen-reason",
            "x",
        ],
    );
    refused(&other, "evidence-invalidated-by-refine");
    assert_eq!(s.state(), before);
    // Task 3's own reopen repairs it.
    let reopen = at(
        &s,
        "2026-11-02T10:00:00+00:00",
        &[
            "--task",
            "3",
            "--status",
            "in_progress",
            "--reopen-reason",
            "stale build",
        ],
    );
    assert_eq!(reopen.status.code(), Some(0), "{}", stderr(&reopen));
    assert_eq!(task(&s, 3)["status"], "in_progress");
}

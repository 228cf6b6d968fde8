//! The property of the DWP state merge (docs/merge.md): for an ancestor and two sides that are
//! each valid — made the way agents make them, by `update` transitions from a common history —
//! the merge is valid (every rule that needs only state.json holds) or a conflict, never an
//! invalid clean merge; and merging is symmetric: swapping the sides gives the same answer, up to
//! key order and the order of appended gate records.
//!
//! The transitions are generated (start, gate runs that pass or fail, complete, block, resume,
//! skip, reopen — a reopen counts as amended) on 2 to 5 tasks; `update` refuses what a real
//! writer would not do, and a refused step is simply skipped. Each side runs on its own clock,
//! sometimes the same one, so equal times happen too.

use planseal::clock::Clock;
use planseal::dwp::decide::amendment::LoggedAmendment;
use planseal::dwp::decide::update::{PlanFacts, UpdateRequest, plan_transition};
use planseal::dwp::model::TaskStatus;
use planseal::jsonfmt::to_python_pretty;
use planseal::merge::dwp::state_failures;
use planseal::merge::text::Markers;
use planseal::merge::{Format, Inputs, Sides, merge};
use proptest::prelude::*;
use serde_json::{Value, json};

#[derive(Debug, Clone)]
enum Step {
    Start(u64),
    Gate(u64, u8, bool),
    Complete(u64),
    Block(u64),
    Resume(u64),
    Skip(u64),
    Reopen(u64),
}

fn step(tasks: u64) -> impl Strategy<Value = Step> {
    let task = 1..=tasks;
    prop_oneof![
        task.clone().prop_map(Step::Start),
        (task.clone(), 0..3u8, any::<bool>()).prop_map(|(t, c, p)| Step::Gate(t, c, p)),
        task.clone().prop_map(Step::Complete),
        task.clone().prop_map(Step::Block),
        task.clone().prop_map(Step::Resume),
        task.clone().prop_map(Step::Skip),
        task.prop_map(Step::Reopen),
    ]
}

fn initial(tasks: u64) -> Vec<u8> {
    let list: Vec<Value> = (1..=tasks)
        .map(|id| {
            json!({"id": id, "locator": {"kind": "inline", "value": format!("#task-{id}")},
                   "title": format!("Task {id}"), "status": "pending", "gates": []})
        })
        .collect();
    to_python_pretty(&json!({
        "schema": "https://deepworkplan.com/schema/plan-state/v2.json",
        "plan": "PLAN_prop",
        "updated_at": "2026-10-05T08:00:00+00:00",
        "status": "pending",
        "completed_count": 0,
        "task_count": tasks,
        "format": "lite",
        "materialization": "ready",
        "approval": "approved",
        "tasks": list,
    }))
}

fn request(s: &Step) -> UpdateRequest {
    let gate = |command: u8, passes: bool| {
        format!(
            "cargo test part_{command}|{}|scope=unit; ran=1/1",
            if passes { 0 } else { 1 }
        )
    };
    match *s {
        Step::Start(t) => UpdateRequest::new(t as i64, TaskStatus::InProgress),
        Step::Gate(t, c, p) => UpdateRequest {
            gates: vec![gate(c, p)],
            ..UpdateRequest::new(t as i64, TaskStatus::InProgress)
        },
        Step::Complete(t) => UpdateRequest {
            gates: vec![gate(0, true)],
            commit: Some(format!("{:07x}", 0xabc0000 + t)),
            ..UpdateRequest::new(t as i64, TaskStatus::Completed)
        },
        Step::Block(t) => UpdateRequest {
            block_reason: Some("waiting for the API key".into()),
            ..UpdateRequest::new(t as i64, TaskStatus::Blocked)
        },
        Step::Resume(t) => UpdateRequest {
            resolve_blocker: true,
            ..UpdateRequest::new(t as i64, TaskStatus::InProgress)
        },
        Step::Skip(t) => UpdateRequest::new(t as i64, TaskStatus::Skipped),
        Step::Reopen(t) => UpdateRequest {
            reopen_reason: Some("criterion revised".into()),
            ..UpdateRequest::new(t as i64, TaskStatus::InProgress)
        },
    }
}

/// The state after the steps that `update` accepts, on a clock starting `minute` minutes after
/// 09:00 and stepping 7 s.
fn run(start: Vec<u8>, steps: &[Step], minute: i64, tasks: u64) -> Vec<u8> {
    let at: jiff::Timestamp = "2026-10-05T09:00:00Z".parse().unwrap();
    let mut clock = Clock::fixed(at + jiff::SignedDuration::from_mins(minute), 7_000_000);
    let facts = PlanFacts {
        // every task's log holds an amendment naming every task, so reopens go through
        amendments: (1..=tasks)
            .map(|t| {
                (
                    t,
                    vec![LoggedAmendment {
                        number: 1,
                        date: "2026-12-31".into(),
                        by_user: true,
                        reason: "criterion revised".into(),
                        affected: (1..=tasks).map(|n| n as u32).collect(),
                        invalidated: Vec::new(),
                    }],
                )
            })
            .collect(),
        // and a refinement record backs every skip
        skip_record: Some("PROGRESS.md refinement of 2026-10-05".into()),
        ..PlanFacts::detached("PLAN_prop")
    };
    let mut bytes = start;
    for s in steps {
        if let Ok(t) = plan_transition(&bytes, &request(s), &facts, &mut clock) {
            bytes = t.candidate_bytes;
        }
    }
    bytes
}

/// Gate records of each task in one canonical order (the order of appended records may
/// differ between the two merges); key order does not count in `Value` equality.
fn canonical(mut v: Value) -> Value {
    if let Some(tasks) = v.get_mut("tasks").and_then(Value::as_array_mut) {
        for t in tasks {
            if let Some(gates) = t.get_mut("gates").and_then(Value::as_array_mut) {
                gates.sort_by_key(|g| g.to_string());
            }
        }
    }
    v
}

fn merged(base: &[u8], ours: &[u8], theirs: &[u8]) -> planseal::merge::Merged {
    merge(
        Format::DwpState,
        &Sides { base, ours, theirs },
        &Markers::default(),
        ".dwp/plans/PLAN_prop/state.json",
        &Inputs::default(),
    )
}

fn parse(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("a clean merge is JSON")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn valid_sides_merge_into_a_valid_state_or_a_conflict_and_symmetrically(
        (tasks, history, mine, other) in (2u64..=5).prop_flat_map(|n| (
            Just(n),
            prop::collection::vec(step(n), 0..12),
            prop::collection::vec(step(n), 0..12),
            prop::collection::vec(step(n), 0..12),
        )),
        (ours_minute, theirs_minute) in (0i64..3, 0i64..3),
    ) {
        let base = run(initial(tasks), &history, -30, tasks);
        let ours = run(base.clone(), &mine, ours_minute, tasks);
        let theirs = run(base.clone(), &other, theirs_minute, tasks);
        for side in [&base, &ours, &theirs] {
            let failures = state_failures(&parse(side));
            prop_assert!(failures.is_empty(), "an input is invalid: {:?}\n{}", failures.iter().map(|f| &f.message).collect::<Vec<_>>(), String::from_utf8_lossy(side));
        }
        let one = merged(&base, &ours, &theirs);
        let two = merged(&base, &theirs, &ours);
        if one.is_clean() {
            let failures = state_failures(&parse(&one.bytes));
            prop_assert!(failures.is_empty(), "invalid clean merge: {:?}\n{}", failures.iter().map(|f| &f.message).collect::<Vec<_>>(), String::from_utf8_lossy(&one.bytes));
        } else {
            prop_assert!(String::from_utf8_lossy(&one.bytes).contains("<<<<<<< ours"));
        }
        prop_assert_eq!(one.is_clean(), two.is_clean(), "{:?} / {:?}", one.notes, two.notes);
        if one.is_clean() {
            prop_assert_eq!(canonical(parse(&one.bytes)), canonical(parse(&two.bytes)));
        }
    }
}

/// The generator reaches the interesting cases: clean merges that move tasks on both sides,
/// and conflicts (a reopen, two commits, a failing later run) — the property is not vacuous.
#[test]
fn the_generated_histories_reach_clean_merges_and_conflicts() {
    let runner_cases = [
        (
            vec![Step::Start(1)],
            vec![Step::Gate(1, 0, true), Step::Complete(1), Step::Start(2)],
            vec![Step::Gate(1, 1, true)],
        ),
        (
            vec![Step::Start(1), Step::Complete(1)],
            vec![Step::Start(2)],
            vec![Step::Reopen(1)],
        ),
    ];
    let mut outcomes = Vec::new();
    for (history, mine, other) in runner_cases {
        let base = run(initial(3), &history, -30, 3);
        let ours = run(base.clone(), &mine, 1, 3);
        let theirs = run(base.clone(), &other, 2, 3);
        assert_ne!(ours, base);
        assert_ne!(theirs, base);
        outcomes.push(merged(&base, &ours, &theirs).is_clean());
    }
    assert_eq!(outcomes, [true, false]);
}

/// Regression: the side that left a task as the ancestor had it must not make the other side's
/// move backwards (skipped → in_progress) a silent clean merge — found by the property above
/// when a fast path kept ours' task whenever theirs equalled the ancestor.
#[test]
fn a_move_back_against_an_untouched_task_is_a_conflict_whichever_side_it_is_on() {
    let base = run(initial(2), &[Step::Skip(1)], -30, 2);
    let ours = run(base.clone(), &[Step::Skip(1)], 0, 2);
    let theirs = run(base.clone(), &[Step::Gate(1, 0, false)], 0, 2);
    assert!(!merged(&base, &ours, &theirs).is_clean());
    assert!(!merged(&base, &theirs, &ours).is_clean());
}

//! `planseal task done` killed at every occurrence of every crash point it passes (the markdown
//! transaction's, then `update`'s). After each crash: every file holds its old bytes or the bytes
//! the close-out writes — never anything else —, the files changed are a prefix of the
//! completion order (task log, README, PROGRESS, state.json), state.json is never ahead of the
//! markdown, `verify` names what is left, and after `unlock` the same `task done` finishes it.
#![cfg(feature = "failpoints")]

use crate::support::update::*;
use std::path::Path;

const PLAN: &str = ".dwp/plans/PLAN_webhook_retry_backoff";
const CLOCK: &str = "2026-10-12T10:00:00+00:00";
/// In the completion order.
const FILES: [&str; 4] = [
    "1.task_backoff_schedule.md",
    "README.md",
    "PROGRESS.md",
    "state.json",
];
const POINTS: [&str; 13] = [
    "store.acquire_after_staging",
    "store.after_lock",
    "task_done.after_task_log",
    "task_done.after_readme",
    "task_done.after_progress",
    "store.after_temp_write",
    "store.after_rename",
    "store.after_journal_append",
    "store.release_after_rename",
    "store.release_after_record_removal",
    "update.before_lock",
    "store.after_recheck",
    "store.before_release",
];

fn scratch() -> Scratch {
    Scratch::new(&vectors().join("B_full_v5/fixture/PLAN_webhook_retry_backoff"))
}

fn close(s: &Scratch, failpoint: Option<String>) -> Run {
    let mut cmd = planseal()
        .args([
            "task",
            "done",
            PLAN,
            "--task",
            "1",
            "--gate",
            "python3 -m unittest tests.test_backoff|0|scope=tests/test_backoff.py; ran=4/4",
            "--summary",
            "schedule in place",
            "--outputs",
            "`webhookd/backoff.py`",
            "--skills-disposition",
            "none",
            "--documentation-decision",
            "not applicable — internal",
        ])
        .cwd(s.root())
        .clock(CLOCK);
    if let Some(spec) = failpoint {
        cmd = cmd.env("FAILPOINTS", spec);
    }
    cmd.output()
}

fn bytes(plan: &Path) -> Vec<Vec<u8>> {
    FILES
        .iter()
        .map(|f| std::fs::read(plan.join(f)).unwrap())
        .collect()
}

#[test]
fn a_close_out_killed_anywhere_is_old_or_a_prefix_of_the_completion_order_and_a_rerun_finishes() {
    let reference = scratch();
    let old = bytes(&reference.plan_dir());
    let out = close(&reference, None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let new = bytes(&reference.plan_dir());
    for (i, f) in FILES.iter().enumerate() {
        assert_ne!(old[i], new[i], "{f} is written by a close-out");
    }

    let mut crashes = 0;
    let mut shapes = std::collections::BTreeSet::new();
    for point in POINTS {
        for skip in 0..12 {
            let spec = if skip == 0 {
                format!("{point}=return")
            } else {
                format!("{point}={skip}*off->return")
            };
            let s = scratch();
            let out = close(&s, Some(spec.clone()));
            if out.status.code() == Some(0) {
                break; // past the last occurrence of this point
            }
            assert_eq!(out.status.code(), Some(137), "{spec}: {}", stderr(&out));
            crashes += 1;
            let now = bytes(&s.plan_dir());
            // Each file old or new; the new ones a prefix of the completion order.
            let written: Vec<bool> = (0..FILES.len())
                .map(|i| {
                    assert!(
                        now[i] == old[i] || now[i] == new[i],
                        "{spec}: {} is neither old nor the close-out's",
                        FILES[i]
                    );
                    now[i] == new[i]
                })
                .collect();
            let prefix = written.iter().take_while(|w| **w).count();
            assert!(
                written[prefix..].iter().all(|w| !w),
                "{spec}: written out of order: {written:?}"
            );
            shapes.insert(prefix);
            // verify says what is left: a ticked README before the state is the stale state.
            if written[1] && !written[3] {
                let v = planseal().args(["verify", PLAN]).cwd(s.root()).output();
                assert_eq!(v.status.code(), Some(1), "{spec}");
                assert!(
                    stdout(&v).contains("README ticks task 1 but state.json says pending"),
                    "{spec}: {}",
                    stdout(&v)
                );
            }
            // A lock left by the killed run: its owner is dead, so unlock takes it away.
            if s.plan_dir().join("state.json.lock").exists() {
                let u = planseal()
                    .args(["unlock", &format!("{PLAN}/state.json")])
                    .cwd(s.root())
                    .output();
                assert_eq!(u.status.code(), Some(0), "{spec}: {}", stderr(&u));
            }
            // The same command again finishes the close-out.
            let again = close(&s, None);
            assert_eq!(again.status.code(), Some(0), "{spec}: {}", stderr(&again));
            let done = bytes(&s.plan_dir());
            for i in 0..3 {
                assert_eq!(done[i], new[i], "{spec}: {} after the re-run", FILES[i]);
            }
            let state = read_json(&s.state_path());
            assert_eq!(state["tasks"][0]["status"], "completed", "{spec}");
            assert_eq!(
                state["tasks"][0]["gates"].as_array().unwrap().len(),
                1,
                "{spec}: the gate run is recorded once"
            );
            let leftovers: Vec<_> = std::fs::read_dir(s.plan_dir())
                .unwrap()
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
                .collect();
            assert!(
                leftovers.is_empty(),
                "{spec}: temp files left: {leftovers:?}"
            );
        }
    }
    // Every step of the order was reached by some crash: nothing written, the log only, …,
    // the markdown closed with the state stale, and everything written.
    assert_eq!(shapes.into_iter().collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
    assert!(crashes >= 20, "only {crashes} crashes");
}

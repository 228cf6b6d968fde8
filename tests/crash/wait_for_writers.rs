//! `update --wait`: the retry loop every caller used to write for itself, built in. Parallel
//! writers without `--expected-sha256` all apply; a live lock is waited for and never taken over;
//! a dead owner's lock and the caller's own stale snapshot are refused at once; the wait ends at
//! its limit with the last refusal.

use crate::support::chain::dead_writers_lock;
use crate::support::update::*;
use planseal::recovery::store::{LockStyle, acquire};
use serde_json::Value;
use std::time::{Duration, Instant};

const WRITERS: usize = 8;
const RECORDS: usize = 25;
const PLAN_STATE: &str = ".dwp/plans/PLAN_http_rate_limit/state.json";

fn gates(s: &Scratch) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&s.state()).unwrap();
    v["tasks"][0]["gates"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn eight_writers_with_wait_apply_all_two_hundred_gates_at_the_first_call() {
    let s = Scratch::a_task1_in_progress();
    let root = s.root().to_path_buf();
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let root = root.clone();
            std::thread::spawn(move || {
                for r in 0..RECORDS {
                    let spec =
                        format!("python3 -m unittest tests.w{w}_r{r}|0|scope=writer {w}; ran=1/1");
                    let out = planseal()
                        .args([
                            "update",
                            PLAN_STATE,
                            "--task",
                            "1",
                            "--status",
                            "in_progress",
                        ])
                        .args(["--gate", &spec, "--wait=60s"])
                        .cwd(&root)
                        .output();
                    assert_eq!(
                        out.status.code(),
                        Some(0),
                        "writer {w} record {r}: {}",
                        stderr(&out)
                    );
                }
            })
        })
        .collect();
    for h in writers {
        h.join().unwrap();
    }
    let gates = gates(&s);
    assert_eq!(gates.len(), WRITERS * RECORDS);
    for w in 0..WRITERS {
        for r in 0..RECORDS {
            let command = format!("python3 -m unittest tests.w{w}_r{r}");
            let n = gates
                .iter()
                .filter(|g| g["command"] == command.as_str())
                .count();
            assert_eq!(n, 1, "{command}");
        }
    }
    assert!(
        !s.plan_dir().join("state.json.lock").exists(),
        "lock left behind"
    );
    let journal = std::fs::read_to_string(s.journal()).unwrap();
    assert_eq!(journal.lines().count(), WRITERS * RECORDS);
}

#[test]
fn a_live_lock_is_waited_for_and_the_update_applies_once_it_is_released() {
    let s = Scratch::a_task1_in_progress();
    let guard = acquire(
        &s.state_path(),
        &LockStyle::Directory,
        "test holds the lock",
        "test",
    )
    .unwrap();
    let before = s.state();
    let root = s.root().to_path_buf();
    let writer = std::thread::spawn(move || {
        planseal()
            .args([
                "update",
                PLAN_STATE,
                "--task",
                "1",
                "--status",
                "in_progress",
            ])
            .args(["--gate", "cargo test|0|ran=1/1", "--wait=20s"])
            .cwd(&root)
            .output()
    });
    std::thread::sleep(Duration::from_millis(600));
    // Still waiting: nothing written, the test's lock untouched.
    assert_eq!(s.state(), before);
    assert!(
        !writer.is_finished(),
        "the writer did not wait for the live lock"
    );
    guard.release().unwrap();
    let out = writer.join().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("waiting up to 20s: lock-present:"),
        "{}",
        stderr(&out)
    );
    assert_eq!(gates(&s).len(), 1);
    assert!(!s.plan_dir().join("state.json.lock").exists());
}

#[test]
fn the_wait_ends_at_its_limit_with_the_lock_refusal_and_nothing_written() {
    let s = Scratch::a_task1_in_progress();
    let guard = acquire(
        &s.state_path(),
        &LockStyle::Directory,
        "test holds the lock",
        "test",
    )
    .unwrap();
    let before = s.state();
    let start = Instant::now();
    let out = s.update(&["--task", "1", "--status", "in_progress", "--wait=400ms"]);
    let took = start.elapsed();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("waiting up to 400ms: lock-present"), "{err}");
    assert!(
        err.lines().nth(1).unwrap().starts_with("lock-present:"),
        "{err}"
    );
    assert!(took >= Duration::from_millis(400), "{took:?}");
    assert_eq!(s.state(), before);
    guard.release().unwrap();
}

#[test]
fn a_dead_writers_lock_is_refused_at_once_even_with_wait() {
    let s = Scratch::a_task1_in_progress();
    dead_writers_lock(&s.plan_dir());
    let before = s.state();
    let start = Instant::now();
    let out = s.update(&["--task", "1", "--status", "in_progress", "--wait"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("lock-present:"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("waiting"), "{}", stderr(&out));
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(s.state(), before);
    assert!(s.plan_dir().join("state.json.lock/owner.json").exists());
}

#[test]
fn the_callers_own_stale_snapshot_is_never_retried() {
    let s = Scratch::a_task1_in_progress();
    let before = s.state();
    let start = Instant::now();
    let out = s.update(&[
        "--task",
        "1",
        "--status",
        "in_progress",
        "--expected-sha256",
        &"0".repeat(64),
        "--wait=30s",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("stale-snapshot:"),
        "{}",
        stderr(&out)
    );
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(s.state(), before);
}

#[test]
fn a_wait_value_that_is_no_duration_is_a_usage_error() {
    let s = Scratch::a_task1_in_progress();
    let before = s.state();
    let out = s.update(&["--task", "1", "--status", "in_progress", "--wait=soon"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--wait"), "{}", stderr(&out));
    assert_eq!(s.state(), before);
}

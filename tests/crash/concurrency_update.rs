//! Issue 3 item 6: 8 processes each append 25 distinct `--gate` records to task 1 with
//! `--expected-sha256`, retrying on `stale-snapshot`, `state-changed` and `lock-present` with
//! jittered back-off. Afterwards all 200 records are present, state.json parsed and was valid at
//! every moment an observer looked, no lock is left, and the journal holds exactly 200 entries.

use crate::support::update::*;
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const WRITERS: usize = 8;
const RECORDS: usize = 25;
const RETRYABLE: &[&str] = &["stale-snapshot", "state-changed", "lock-present"];

fn gate_count(bytes: &[u8]) -> usize {
    let v: Value = serde_json::from_slice(bytes).expect("state.json parses at every moment");
    v["tasks"][0]["gates"].as_array().map_or(0, Vec::len)
}

#[test]
fn eight_writers_append_two_hundred_gates_without_losing_one() {
    // Task 1 in progress, no gates yet (step 01 of the recorded lifecycle).
    let s = Scratch::a_task1_in_progress();
    let state_path = s.state_path();
    let root = s.root().to_path_buf();

    let done = Arc::new(AtomicBool::new(false));
    let observer = {
        let done = done.clone();
        let path = state_path.clone();
        std::thread::spawn(move || {
            let (mut looks, mut last) = (0usize, 0usize);
            while !done.load(Ordering::Relaxed) {
                let bytes = std::fs::read(&path).expect("state.json always exists");
                let n = gate_count(&bytes);
                assert!(n >= last, "gate records went from {last} to {n}");
                last = n;
                looks += 1;
                std::thread::sleep(Duration::from_millis(2));
            }
            looks
        })
    };

    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let root = root.clone();
            let path = state_path.clone();
            std::thread::spawn(move || {
                let mut seed = 0x9e37_79b9_u64.wrapping_mul(w as u64 + 1);
                let mut retries = 0usize;
                for r in 0..RECORDS {
                    let spec =
                        format!("python3 -m unittest tests.w{w}_r{r}|0|scope=writer {w}; ran=1/1");
                    let mut attempts = 0;
                    loop {
                        attempts += 1;
                        assert!(attempts < 400, "writer {w} record {r}: no progress");
                        let sha = sha256(&std::fs::read(&path).unwrap());
                        let out = planseal()
                            .args([
                                "update",
                                ".dwp/plans/PLAN_http_rate_limit/state.json",
                                "--task",
                                "1",
                                "--status",
                                "in_progress",
                                "--expected-sha256",
                                &sha,
                                "--gate",
                                &spec,
                            ])
                            .cwd(&root)
                            .output();
                        if out.status.success() {
                            break;
                        }
                        let err = stderr(&out);
                        let kind = err.split(':').next().unwrap_or_default();
                        assert!(
                            RETRYABLE.contains(&kind),
                            "writer {w}: unexpected refusal {err}"
                        );
                        retries += 1;
                        // xorshift jitter: 1–16 ms
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        std::thread::sleep(Duration::from_millis(1 + seed % 16));
                    }
                }
                retries
            })
        })
        .collect();
    let retries: usize = writers.into_iter().map(|h| h.join().unwrap()).sum();
    done.store(true, Ordering::Relaxed);
    let looks = observer.join().unwrap();

    let state: Value = serde_json::from_slice(&s.state()).unwrap();
    let gates = state["tasks"][0]["gates"].as_array().unwrap();
    assert_eq!(gates.len(), WRITERS * RECORDS);
    for w in 0..WRITERS {
        for r in 0..RECORDS {
            let command = format!("python3 -m unittest tests.w{w}_r{r}");
            assert_eq!(
                gates
                    .iter()
                    .filter(|g| g["command"] == command.as_str())
                    .count(),
                1,
                "{command}"
            );
        }
    }
    assert!(
        !s.plan_dir().join("state.json.lock").exists(),
        "lock left behind"
    );
    let journal = std::fs::read_to_string(s.journal()).unwrap();
    assert_eq!(journal.lines().count(), WRITERS * RECORDS);
    // Each entry chains onto the previous one: before = the after of the line above.
    let entries: Vec<Value> = journal
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for pair in entries.windows(2) {
        assert_eq!(pair[1]["before_sha256"], pair[0]["after_sha256"]);
    }
    assert_eq!(
        entries.last().unwrap()["after_sha256"].as_str().unwrap(),
        sha256(&s.state())
    );
    // The state stays valid: a further plain update is accepted.
    let out = s.update(&["--task", "1", "--status", "in_progress"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    eprintln!("{retries} retries, {looks} observations");
    assert!(looks > 0);
}

//! Issue 3 item 7: `planseal update` killed at every named crash point of the write path.
//!
//! Needs the `failpoints` feature (`cargo test --features failpoints --test crash crash_update`):
//! a crash point armed through `FAILPOINTS=<name>=return` ends the process with `_exit(137)`, no
//! unwinding — what `kill -9` leaves. After each crash: state.json holds exactly the old or the
//! new bytes; the leftover lock is explained by the next `update` (owner dead) and removed by
//! `planseal unlock` without `--force`; the journal is consistent with the state; and retrying
//! the same update then succeeds.
#![cfg(feature = "failpoints")]

use crate::support::update::*;
use serde_json::Value;

/// Every crash point of the single-file write path, in the order they are reached, and whether
/// state.json has been replaced when it fires.
const POINTS: &[(&str, bool)] = &[
    ("store.after_lock", false),
    ("store.after_recheck", false),
    ("store.after_temp_write", false),
    ("store.after_rename", true),
    ("store.after_journal_append", true),
    ("store.before_release", true),
];

const CLOCK: &str = "2026-10-05T09:06:00+00:00";
const STATE: &str = ".dwp/plans/PLAN_http_rate_limit/state.json";

fn scratch() -> Scratch {
    Scratch::a_task1_in_progress()
}

fn gate_update(s: &Scratch, failpoint: Option<&str>) -> Run {
    let mut cmd = planseal().args([
        "update",
        STATE,
        "--task",
        "1",
        "--status",
        "in_progress",
        "--gate",
        "python3 -m unittest tests.test_ratelimit|0|scope=tests/test_ratelimit.py; fp=f52b629+dirty; ran=4/4; log=analysis_results/gates/t1-unittest.log",
    ])
    .cwd(s.root())
    .clock(CLOCK);
    if let Some(point) = failpoint {
        cmd = cmd.env("FAILPOINTS", format!("{point}=return"));
    }
    cmd.output()
}

fn journal(s: &Scratch) -> Vec<Value> {
    std::fs::read_to_string(s.journal())
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every complete journal line parses"))
        .collect()
}

#[test]
fn crash_at_every_point_leaves_old_or_new_bytes_and_a_lock_that_unlock_clears() {
    // The bytes a successful run writes (same clock ⇒ same bytes).
    let reference = scratch();
    let old = reference.state();
    let out = gate_update(&reference, None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let new = reference.state();
    assert_ne!(old, new);

    for (point, replaced) in POINTS {
        let s = scratch();
        let out = gate_update(&s, Some(point));
        assert_eq!(
            out.status.code(),
            Some(137),
            "{point}: did not crash: {}",
            stderr(&out)
        );
        assert!(
            out.stdout.is_empty(),
            "{point}: success printed before the crash"
        );

        // 1. Old or new bytes, never anything else.
        let now = s.state();
        assert!(
            now == old || now == new,
            "{point}: state.json is neither old nor new"
        );
        assert_eq!(
            now == new,
            *replaced,
            "{point}: wrong side of the commit point"
        );

        // 2. The journal agrees with the state: it ends at the state's hash, or — crashed between
        // the rename and the append — it is exactly one transition behind (no line yet).
        let entries = journal(&s);
        match entries.last() {
            Some(last) => {
                assert_eq!(
                    last["after_sha256"].as_str().unwrap(),
                    sha256(&now),
                    "{point}"
                );
                assert_eq!(
                    last["before_sha256"].as_str().unwrap(),
                    sha256(&old),
                    "{point}"
                );
            }
            None => assert!(
                now == old || *point == "store.after_rename",
                "{point}: state replaced but not journaled"
            ),
        }

        // 3. The lock is left, and the next update explains it.
        let lock = s.plan_dir().join("state.json.lock");
        assert!(
            lock.join("owner.json").is_file(),
            "{point}: no owner record left"
        );
        let retry = gate_update(&s, None);
        assert_eq!(retry.status.code(), Some(1), "{point}");
        let err = stderr(&retry);
        assert!(err.starts_with("lock-present:"), "{point}: {err}");
        assert!(err.contains("owner is dead"), "{point}: {err}");
        assert!(err.contains("planseal unlock"), "{point}: {err}");
        assert_eq!(
            s.state(),
            now,
            "{point}: the refused retry changed state.json"
        );

        // 4. `unlock` removes the dead owner's lock (and its temp file) without --force.
        let out = planseal().args(["unlock", STATE]).cwd(s.root()).output();
        assert_eq!(out.status.code(), Some(0), "{point}: {}", stderr(&out));
        assert!(!lock.exists(), "{point}: lock still there");
        let leftovers: Vec<_> = std::fs::read_dir(s.plan_dir())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(
            leftovers.is_empty(),
            "{point}: temp files left: {leftovers:?}"
        );

        // 5. Retrying the update now works; a replayed gate is not appended twice.
        let out = gate_update(&s, None);
        assert_eq!(out.status.code(), Some(0), "{point}: {}", stderr(&out));
        let state: Value = serde_json::from_slice(&s.state()).unwrap();
        assert_eq!(
            state["tasks"][0]["gates"].as_array().unwrap().len(),
            1,
            "{point}"
        );
        let entries = journal(&s);
        assert_eq!(
            entries.last().unwrap()["after_sha256"].as_str().unwrap(),
            sha256(&s.state()),
            "{point}"
        );
        assert!(!lock.exists());
    }
}

/// Under the lock the bytes are read again; a writer that got in between the
/// validation and the lock makes the update refuse `state-changed`, writing nothing. The update is
/// paused there with the `sleep` action of the `update.before_lock` point.
#[test]
fn a_change_between_validation_and_lock_is_refused_state_changed() {
    // On a loaded machine the child may not reach the pause before the other write lands; it
    // then refuses the changed file while validating. Try a few times with longer pauses.
    for pause_ms in [1500u64, 3000, 6000] {
        let s = scratch();
        let child = planseal()
            .args(["update", STATE, "--task", "1", "--status", "in_progress"])
            .cwd(s.root())
            .env(
                "FAILPOINTS",
                format!("update.before_lock=sleep({pause_ms})"),
            )
            .spawn();
        std::thread::sleep(std::time::Duration::from_millis(pause_ms / 3));
        let other = b"{\"changed\": \"by another writer\"}\n";
        std::fs::write(s.state_path(), other).unwrap();
        let out = child.wait();
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert_eq!(s.state(), other, "the refused update wrote");
        assert!(!s.plan_dir().join("state.json.lock").exists());
        assert!(!s.journal().exists());
        if stderr(&out).starts_with("state-changed:") {
            return;
        }
    }
    panic!("never refused with state-changed");
}

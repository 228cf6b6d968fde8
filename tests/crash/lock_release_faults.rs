//! Issue 13 items 3 and 4: a writer whose lock release fails, or whose journal append fails,
//! tells the truth and leaves nothing that the command it names does not clear. The faults are
//! the store's fault points (`--features failpoints`).
#![cfg(feature = "failpoints")]

use crate::support::update::*;
use std::collections::BTreeSet;
use std::path::Path;

const CLOCK: &str = "2026-10-05T09:06:00+00:00";
const STATE: &str = ".dwp/plans/PLAN_http_rate_limit/state.json";

fn block_task1(s: &Scratch, faults: Option<&str>) -> Run {
    let mut cmd = planseal()
        .args(["update", STATE, "--task", "1", "--status", "blocked"])
        .args(["--block-reason", "needs an API key"])
        .cwd(s.root())
        .clock(CLOCK);
    if let Some(spec) = faults {
        cmd = cmd.env("FAILPOINTS", spec);
    }
    cmd.output()
}

/// Every path under `dir`, relative.
fn tree(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            out.insert(e.path().strip_prefix(dir).unwrap().display().to_string());
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
        }
    }
    out
}

/// The `planseal unlock …` command stderr names, run in the workspace.
fn run_named_unlock(s: &Scratch, err: &str) -> Run {
    let at = err
        .find("`planseal unlock ")
        .expect("the hint names planseal unlock");
    let rest = &err[at + "`planseal unlock ".len()..];
    let path = &rest[..rest.find('`').unwrap()];
    planseal()
        .args(["unlock", path])
        .cwd(s.root())
        .clock(CLOCK)
        .output()
}

/// Before: EIO reading the writer's own `owner.json` at release made it think the lock was
/// someone else's, so it exited 0 and left the whole lock.
#[test]
fn eio_reading_own_owner_record_at_release_never_exits_0_with_the_lock_left() {
    let clean = Scratch::a_task1_in_progress();
    assert_eq!(block_task1(&clean, None).status.code(), Some(0));
    for spec in [
        "store.release_read_owner=return(EIO)",
        // the second look: the lock already renamed away to its released folder
        "store.release_read_owner=1*off->return(EIO)",
    ] {
        let s = Scratch::a_task1_in_progress();
        let out = block_task1(&s, Some(spec));
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(4), "{spec}: {err}");
        assert!(err.contains("could not be released"), "{spec}: {err}");
        assert_eq!(s.state(), clean.state(), "{spec}: the change is in place");
        let unlock = run_named_unlock(&s, &err);
        assert_eq!(unlock.status.code(), Some(0), "{spec}: {}", stderr(&unlock));
        assert_eq!(
            tree(s.root()),
            tree(clean.root()),
            "{spec}: the clean run's tree"
        );
    }
}

/// Before: a journal append failing on a plan without a journal left an empty
/// STATE_JOURNAL.ndjson (created, then the write failed): neither the old (absent) nor the new
/// bytes.
#[test]
fn journal_write_failure_on_a_new_journal_leaves_no_empty_journal() {
    let s = Scratch::a_task1_in_progress();
    let _ = std::fs::remove_file(s.journal());
    let old = s.state();
    let out = block_task1(&s, Some("store.journal_write=return(ENOSPC)"));
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert_ne!(s.state(), old, "the change is in place");
    assert!(!s.journal().exists(), "no journal, not an empty one");
    let dir = s.journal().parent().unwrap().to_path_buf();
    let temps: Vec<String> = tree(&dir)
        .into_iter()
        .filter(|p| p.ends_with(".tmp"))
        .collect();
    assert!(temps.is_empty(), "no temp file left: {temps:?}");
}

/// Temp files carry the writer's start ticks, so a dead writer's temp is provable after pid
/// reuse: a killed writer's state temp is `.state.json.<pid>-<ticks>.<token>.tmp`.
#[test]
fn temp_file_names_carry_the_process_start_ticks() {
    let s = Scratch::a_task1_in_progress();
    let out = block_task1(&s, Some("store.after_temp_write=return"));
    assert_eq!(out.status.code(), Some(137), "{}", stderr(&out));
    let temps: Vec<String> = tree(&s.plan_dir())
        .into_iter()
        .filter(|p| p.starts_with(".state.json.") && p.ends_with(".tmp"))
        .collect();
    assert_eq!(temps.len(), 1, "{temps:?}");
    let tag = temps[0].split('.').nth(3).unwrap();
    let (pid, ticks) = tag.split_once('-').expect("pid-ticks");
    assert!(
        pid.parse::<u32>().is_ok() && ticks.parse::<u64>().is_ok(),
        "{tag}"
    );
}

/// Before: only the lock's folder was swept, so a dead finalizer's receipt temp (or a dead
/// writer's first-journal temp) in `analysis_results/` stayed until `unlock` or `recover`.
#[test]
fn writer_sweeps_a_dead_writers_temp_in_the_journal_folder() {
    let s = Scratch::a_task1_in_progress();
    let results = s.journal().parent().unwrap().to_path_buf();
    // a pid above any pid_max in use: provably not running
    let dead = results.join(".FINALIZATION.json.4194999-17.deadbeef.tmp");
    std::fs::write(&dead, b"half a receipt").unwrap();
    let out = block_task1(&s, None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!dead.exists(), "the dead writer's temp is swept");
}

/// A GSD project small enough for `gsd sync --write` to have something to change.
fn gsd_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(".planning");
    for f in ["phases/01-a/01-PLAN.md", "phases/01-a/01-SUMMARY.md"] {
        std::fs::create_dir_all(p.join(f).parent().unwrap()).unwrap();
        std::fs::write(p.join(f), "---\nstatus: active\n---\n").unwrap();
    }
    let state = "---\nstatus: planning\n---\n# Project State\n\n## Current Position\n\n\
                 Phase: 1 of 1 (Build)\nPlan: 1 of 1 in current phase\nStatus: Executing Phase 1\n";
    std::fs::write(p.join("STATE.md"), state).unwrap();
    dir
}

fn gsd_sync_write(dir: &Path, faults: Option<&str>) -> Run {
    let mut cmd = planseal()
        .args([
            "gsd",
            "sync",
            ".planning/STATE.md",
            "--write",
            "--lock-wait",
            "0",
        ])
        .cwd(dir)
        .clock(CLOCK)
        .env("HOME", "/nonexistent-home");
    if let Some(spec) = faults {
        cmd = cmd.env("FAILPOINTS", spec);
    }
    cmd.output()
}

/// Before: the pid file was created empty and filled afterwards, so a writer killed in between
/// left an empty `STATE.md.lock` that `unlock` refused ("pid file holds \"\"").
#[test]
fn gsd_writer_killed_before_its_pid_is_written_leaves_no_empty_pid_file() {
    let dir = gsd_project();
    let planning = dir.path().join(".planning");
    let out = gsd_sync_write(dir.path(), Some("store.pid_temp_created=return"));
    assert_eq!(out.status.code(), Some(137), "{}", stderr(&out));
    assert!(
        !planning.join("STATE.md.lock").exists(),
        "no lock, not an empty one"
    );
    let temps: Vec<String> = tree(&planning)
        .into_iter()
        .filter(|p| p.starts_with(".STATE.md.lock.") && p.ends_with(".tmp"))
        .collect();
    assert_eq!(
        temps.len(),
        1,
        "the dead writer's temp, its name proving it dead: {temps:?}"
    );
    let again = gsd_sync_write(dir.path(), None);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let left: Vec<String> = tree(&planning)
        .into_iter()
        .filter(|p| p.contains(".lock") || p.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "the next writer swept it: {left:?}");
}

//! `planseal promote` and `planseal refine` (`--add-task`, `--skip`) ended like `kill -9` at every
//! step: after each crash every file holds either its old bytes or the bytes a run that was not
//! killed writes (no file half-written), a promotion is at a phase state.json records and
//! `verify` names, and — once `planseal unlock` has removed the dead writer's lock — running the
//! same command again reaches exactly the bytes of the run that was not killed.
//!
//! Needs the crash points: `cargo test --features failpoints --test crash crash_reshape`.
#![cfg(feature = "failpoints")]

use crate::support::reshape::{JOURNAL, NOW, Scratch};
use crate::support::run::{Planseal, Run};
use std::collections::BTreeMap;

type Tree = BTreeMap<String, Option<Vec<u8>>>;

/// The plan's files without the journal, the lock and a killed writer's temp files (the
/// debris the next writer or `unlock` removes).
fn files(s: &Scratch) -> Tree {
    let mut t = s.tree();
    t.retain(|k, _| {
        let name = k.rsplit('/').next().unwrap_or(k);
        k != JOURNAL
            && !k.starts_with("state.json.lock")
            && !(name.starts_with('.') && name.ends_with(".tmp"))
    });
    t
}

fn run(s: &Scratch, args: &[&str], failpoints: Option<&str>) -> Run {
    let mut cmd = Planseal::new().cwd(s.root()).clock(NOW).args(args);
    if let Some(spec) = failpoints {
        cmd = cmd.env("FAILPOINTS", spec);
    }
    cmd.output()
}

/// Every file of `crashed` is as it was (`old`) or as the clean run left it (`new`); the files
/// in `steps` may also hold a step between the two (state.json of a promotion: its phases),
/// which the caller checks.
fn assert_whole(what: &str, old: &Tree, new: &Tree, crashed: &Tree, steps: &[&str]) {
    for (path, bytes) in crashed.iter().filter(|(p, _)| !steps.contains(&p.as_str())) {
        assert!(
            old.get(path) == Some(bytes) || new.get(path) == Some(bytes),
            "{what}: {path} is neither old nor new"
        );
    }
    for path in old.keys().chain(new.keys()) {
        assert!(
            crashed.contains_key(path) || !old.contains_key(path) || !new.contains_key(path),
            "{what}: {path} vanished"
        );
    }
}

/// Kills `args` at `spec`, checks what is left with `check`, then unlocks and runs it again:
/// the plan's files must equal the clean run's.
fn kill_and_finish(
    make: fn() -> Scratch,
    steps: &[&str],
    command: &[&str],
    specs: &[String],
    check: &dyn Fn(&str, &Scratch),
) {
    // The command's first word, the plan folder, then the rest.
    let args_of = |s: &Scratch| {
        let mut a = vec![command[0], s.rel];
        a.extend_from_slice(&command[1..]);
        a
    };
    let clean = make();
    let old = files(&clean);
    let out = run(&clean, &args_of(&clean), None);
    assert_eq!(out.code, 0, "clean run: {}", out.stderr);
    let new = files(&clean);
    assert_ne!(old, new);
    for spec in specs {
        let s = make();
        let a = args_of(&s);
        let out = run(&s, &a, Some(spec));
        assert_eq!(
            out.code, 137,
            "{spec}: did not crash: {}{}",
            out.stdout, out.stderr
        );
        assert!(out.stdout.is_empty(), "{spec}: printed before the crash");
        assert_whole(spec, &old, &new, &files(&s), steps);
        check(spec, &s);
        let state = format!("{}/state.json", s.rel);
        let unlock = run(&s, &["unlock", &state], None);
        assert_eq!(unlock.code, 0, "{spec}: unlock: {}", unlock.stderr);
        let again = run(&s, &a, None);
        assert_eq!(again.code, 0, "{spec}: run again: {}", again.stderr);
        assert_eq!(
            files(&s),
            new,
            "{spec}: the run again did not reach the clean bytes"
        );
        let verify = run(&s, &["verify", s.rel], None);
        assert_eq!(verify.code, 0, "{spec}: {}", verify.stdout);
    }
}

/// The named steps, then the store's own crash points at each of the `writes` file writes
/// (temp file complete, target untouched / target renamed, folder not synced).
fn specs(named: &[&str], writes: usize) -> Vec<String> {
    let mut out = Vec::new();
    for point in named {
        out.push(format!("{point}=return"));
    }
    for k in 0..writes {
        out.push(format!("store.after_temp_write={k}*off->return"));
        out.push(format!("store.after_rename={k}*off->return"));
    }
    out
}

#[test]
fn promote_killed_at_every_step_is_at_a_recorded_phase_and_finishes_when_run_again() {
    let mut named = vec!["promote.after_intent=return".to_string()];
    for k in 0..3 {
        named.push(format!("promote.after_task_file={k}*off->return"));
    }
    for point in [
        "promote.after_tasks_written",
        "promote.after_readme",
        "promote.after_switched",
        "promote.after_ready",
    ] {
        named.push(format!("{point}=return"));
    }
    // Eight file writes: state.json (intent), three task files, state.json (tasks_written),
    // README.md, state.json (switched), state.json (ready).
    let mut all = named;
    all.extend(specs(&[], 8));
    let initial = files(&Scratch::lite());
    kill_and_finish(
        Scratch::lite,
        &["state.json"],
        &["promote"],
        &all,
        &|spec, s| {
            let state = s.state();
            let promotion = &state["promotion"];
            if promotion.is_null() {
                // Before the intent is recorded nothing changed; after the last step all did.
                let untouched = files(s) == initial;
                assert!(
                    untouched || state["materialization"] == "ready" && state["format"] == "full",
                    "{spec}: no promotion recorded, yet the plan changed"
                );
                return;
            }
            let phase = promotion["phase"].as_str().unwrap();
            assert_eq!(state["materialization"], "promoting", "{spec}");
            let verify = run(s, &["verify", s.rel], None);
            assert_eq!(verify.code, 1, "{spec}");
            assert!(
                verify
                    .stdout
                    .contains(&format!("promotion in flight at phase {phase})")),
                "{spec}: {}",
                verify.stdout
            );
        },
    );
}

#[test]
fn add_task_killed_at_every_step_leaves_old_or_new_files_and_finishes_when_run_again() {
    let named = specs(
        &[
            "refine.after_final_review_copy",
            "refine.after_new_task_file",
            "refine.after_old_final_review_removed",
            "refine.after_progress",
            "refine.after_readme",
            "refine.after_state",
        ],
        // Five file writes: the Final Review's copy, the new task file, PROGRESS.md,
        // README.md, state.json (the old Final Review's removal is no write).
        5,
    );
    let old_state = Scratch::full().read("state.json");
    kill_and_finish(
        Scratch::full,
        &[],
        &[
            "refine",
            "--add-task",
            "--title",
            "Load test",
            "--acceptance",
            "no event lost",
            "--validation",
            "make load",
        ],
        &named,
        &|spec, s| {
            // state.json is the commit point: until it is written the plan has four tasks.
            let state = s.read("state.json");
            let count = s.state()["task_count"].as_u64().unwrap();
            assert!(
                state == old_state && count == 4 || count == 5,
                "{spec}: state.json is neither old nor new"
            );
        },
    );
}

#[test]
fn skip_killed_at_every_step_finishes_when_run_again() {
    let named = specs(&["refine.after_progress", "update.before_lock"], 2);
    kill_and_finish(
        Scratch::full,
        &[],
        &[
            "refine",
            "--skip",
            "3",
            "--reason",
            "the docs move to the wiki",
            "--authority",
            "user",
        ],
        &named,
        &|spec, s| {
            // The record is written before the state: never a skipped task without it.
            if s.state()["tasks"][2]["status"] == "skipped" {
                assert!(
                    s.read("PROGRESS.md").contains("## Refinement — 2026-10-05"),
                    "{spec}"
                );
            }
        },
    );
}

//! The fault suite's fixture and its writers.
//!
//! The fixture is one git repository with pinned dates: a base commit, then one commit per task
//! (`feat: step N - Task N of PLAN_demo_greeting`), then, git-ignored, the 3-task DWP plan of
//! `planseal-harness` awaiting its terminal close, next to a GSD `.planning/STATE.md`, a Reversa
//! `.reversa/state.json` (with the files its checkpoint names) and a legacy
//! `docs/PROJECT-CHECKPOINT.md`, all committed. Each writer starts from its own copy of it,
//! prepared by its [`Setup`].

use crate::support::fs::copy_dir;
use crate::support::gitrepo::{FixtureRepo, project_root};
use crate::trace::{self, Traced};
use std::path::{Path, PathBuf};

pub const PLAN: &str = planseal_harness::PLAN;

pub fn plan_rel() -> String {
    format!(".dwp/plans/{PLAN}")
}

/// The clock of every run: the clean run and a faulted one read the same instants, so the clean
/// run's bytes are the only "new bytes" there are.
pub const CLOCK: &str = "2026-10-05T10:00:00+00:00";

/// What a writer's copy of the fixture needs before the writer runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setup {
    /// The fixture as it is.
    Plain,
    /// `docs/PROJECT-CHECKPOINT.md` removed (for `checkpoint init`).
    NoCheckpoint,
    /// A decision of the committed STATE.md removed from the working copy (for `gsd recover`).
    GsdLostDecision,
    /// `finalize` killed on entering its second `rename` (the state's): the marker, the lock
    /// and the state's temp file are left — what `recover` finishes.
    InterruptedFinalize,
}

/// One command that writes, and how it is started.
#[derive(Clone, Debug)]
pub struct Writer {
    pub name: &'static str,
    pub setup: Setup,
    pub args: Vec<String>,
    /// The full matrix in the default run (update and finalize); the others get a sample.
    pub full_by_default: bool,
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

pub fn finalize_args() -> Vec<String> {
    args(&["finalize", &plan_rel(), "--candidate", "candidate.json"])
}

pub fn update_args() -> Vec<String> {
    let state = format!("{}/state.json", plan_rel());
    args(&[
        "update",
        &state,
        "--task",
        "3",
        "--status",
        "in_progress",
        "--gate",
        "cargo test step_3|0|scope=unit; ran=2/2; log=analysis_results/gates/t3.log",
    ])
}

/// Every writer of the suite.
pub fn writers() -> Vec<Writer> {
    let plan = plan_rel();
    let w = |name, setup, a: &[&str], full| Writer {
        name,
        setup,
        args: args(a),
        full_by_default: full,
    };
    vec![
        Writer {
            name: "update",
            setup: Setup::Plain,
            args: update_args(),
            full_by_default: true,
        },
        Writer {
            name: "finalize",
            setup: Setup::Plain,
            args: finalize_args(),
            full_by_default: true,
        },
        w(
            "recover",
            Setup::InterruptedFinalize,
            &["recover", &plan],
            false,
        ),
        w(
            "rebuild --write",
            Setup::Plain,
            &["rebuild", &plan, "--write"],
            false,
        ),
        w(
            "gsd sync --write",
            Setup::Plain,
            &["gsd", "sync", "--write"],
            false,
        ),
        w(
            "gsd recover --write",
            Setup::GsdLostDecision,
            &["gsd", "recover", "--write", "--all"],
            false,
        ),
        w(
            "reversa advance",
            Setup::Plain,
            &["reversa", "advance", "--phase-done", "escavacao"],
            false,
        ),
        w(
            "reversa set",
            Setup::Plain,
            &["reversa", "set", "doc_level", "\"essencial\""],
            false,
        ),
        w(
            "checkpoint init",
            Setup::NoCheckpoint,
            &["checkpoint", "init"],
            false,
        ),
        w(
            "checkpoint refresh --write",
            Setup::Plain,
            &["checkpoint", "refresh", "--write"],
            false,
        ),
    ]
}

/// A prepared copy of the fixture for one writer; runs copy it again.
pub struct Template {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
}

/// Builds the fixture under a fresh temp folder and prepares it for `setup`.
pub fn template(setup: Setup) -> Template {
    let mut repo = FixtureRepo::new();
    let src = project_root();
    repo.write(".gitignore", ".dwp/\ncandidate.json\n");
    copy_dir(&src.join("fixtures/reversa/good-in-progress"), repo.path());
    repo.write(".reversa/context/surface.json", "{}\n");
    copy_dir(
        &src.join("fixtures/checkpoint/legacy-good/docs"),
        &repo.path().join("docs"),
    );
    let gsd = std::fs::read_to_string(src.join("fixtures/gsd/check/clean.md")).expect("GSD");
    repo.write(".planning/STATE.md", &gsd);
    repo.commit("chore: base");
    for id in 1..=3 {
        repo.write(&format!("src/step_{id}.rs"), &format!("step {id}\n"));
        repo.commit(&format!("feat: step {id} - Task {id} of {PLAN}"));
    }
    planseal_harness::ready_plan(repo.path(), 3).expect("ready plan");
    let root = repo.path().to_path_buf();
    match setup {
        Setup::Plain => {}
        Setup::NoCheckpoint => {
            std::fs::remove_file(root.join("docs/PROJECT-CHECKPOINT.md")).expect("rm checkpoint")
        }
        Setup::GsdLostDecision => {
            let without = gsd.replace("- Keep the statusline under 2 ms\n", "");
            assert_ne!(without, gsd, "the GSD fixture holds the decision");
            repo.write(".planning/STATE.md", &without);
        }
        Setup::InterruptedFinalize => {
            let out = trace::run(
                &root,
                &finalize_args(),
                // Killed at the rename of state.json: the third rename (the lock's owner record,
                // the marker, then state.json).
                Traced::Inject {
                    syscall: "rename",
                    when: 3,
                    action: "signal=KILL",
                },
            );
            assert!(out.killed, "finalize was not killed: {}", out.stderr);
            assert!(
                root.join(plan_rel()).join(".finalizing.json").exists(),
                "the interrupted finalize left its marker"
            );
        }
    }
    Template {
        _tmp: repo.dir,
        root,
    }
}

/// A fresh copy of `template` in a new temp folder.
pub fn copy_of(template: &Template) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("ws");
    copy_dir(&template.root, &root);
    (tmp, root)
}

/// Whether `path` (relative) is a journal: compared by its chain, not its bytes, once retries
/// and recoveries may have added lines.
pub fn is_journal(rel: &Path) -> bool {
    let name = rel.to_string_lossy();
    name.ends_with(".journal.ndjson") || name.ends_with("STATE_JOURNAL.ndjson")
}

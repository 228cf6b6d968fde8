//! Shared helpers of the `update_*`, `store_*`, `crash_*` and `concurrency_*` tests: fixture
//! plans placed into a scratch repository, and the built binary run through `support::run`.
#![allow(dead_code)]

#[allow(unused_imports)] // not every binary uses them through this module
pub use super::run::{Planseal, Run};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vectors/dwp")
}

pub fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[allow(unused_imports)] // not every binary uses it through this module
pub use super::fs::copy_dir as copy_tree;
#[allow(unused_imports)] // not every binary uses it through this module
pub use super::fs::sha256;
/// A scratch repository root holding `.dwp/plans/<plan>/` copied from `base`.
pub struct Scratch {
    pub dir: tempfile::TempDir,
    pub plan: String,
}

impl Scratch {
    pub fn new(base: &Path) -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let plan = base.file_name().unwrap().to_string_lossy().into_owned();
        copy_tree(base, &dir.path().join(".dwp/plans").join(&plan));
        Scratch { dir, plan }
    }

    /// Fixture A's plan with its final markdown but no receipt, and state.json at step 01 of
    /// the recorded lifecycle: task 1 in progress, no gates yet.
    pub fn a_task1_in_progress() -> Scratch {
        let lifecycle = vectors().join("A_lite_v2/lifecycle");
        let s = Scratch::new(&lifecycle.join("snapshots/final/PLAN_http_rate_limit"));
        let _ = std::fs::remove_file(s.plan_dir().join("analysis_results/FINALIZATION.json"));
        std::fs::write(
            s.state_path(),
            std::fs::read(lifecycle.join("states/01-start-task1.state.json")).unwrap(),
        )
        .unwrap();
        s
    }

    /// `planseal update <this plan's state.json> ARGS…` run from the root.
    pub fn update(&self, args: &[&str]) -> Run {
        planseal()
            .arg("update")
            .arg(format!(".dwp/plans/{}/state.json", self.plan))
            .args(args)
            .cwd(self.root())
            .output()
    }
    pub fn root(&self) -> &Path {
        self.dir.path()
    }
    pub fn plan_dir(&self) -> PathBuf {
        self.root().join(".dwp/plans").join(&self.plan)
    }
    pub fn state_path(&self) -> PathBuf {
        self.plan_dir().join("state.json")
    }
    pub fn state(&self) -> Vec<u8> {
        std::fs::read(self.state_path()).unwrap()
    }
    pub fn journal(&self) -> PathBuf {
        self.plan_dir()
            .join("analysis_results/STATE_JOURNAL.ndjson")
    }
    /// Resolves a `cwd` of the vectors (`<repo root>…`).
    pub fn cwd(&self, recorded: &str) -> PathBuf {
        let rest = recorded.strip_prefix("<repo root>").unwrap_or(recorded);
        self.root().join(rest.trim_start_matches('/'))
    }
}

/// The hermetic runner (`support::run`); tests add arguments, folder and clock.
pub fn planseal() -> Planseal {
    Planseal::new()
}

/// Runs `planseal update` with a recorded helper argv (`update-state.py STATE …`).
pub fn run_update(argv: &[Value], cwd: &Path, clock: &str) -> Run {
    planseal()
        .arg("update")
        .args(argv[1..].iter().map(|a| a.as_str().unwrap()))
        .cwd(cwd)
        .clock(clock)
        .output()
}

pub fn stderr(o: &Run) -> String {
    o.stderr.clone()
}

pub fn stdout(o: &Run) -> String {
    o.stdout.clone()
}

//! Shared helpers of the `update_*`, `store_*`, `crash_*` and `concurrency_*` tests: fixture
//! plans placed into a scratch repository, and the built binary run with a fixed clock.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
    pub fn update(&self, args: &[&str]) -> std::process::Output {
        planseal()
            .arg("update")
            .arg(format!(".dwp/plans/{}/state.json", self.plan))
            .args(args)
            .current_dir(self.root())
            .output()
            .unwrap()
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

pub fn planseal() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_planseal"));
    c.env_remove("PLANSEAL_FAKE_NOW")
        .env_remove("PLANSEAL_FAKE_NOW_STEP_US")
        .env_remove("FAILPOINTS")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("NO_COLOR", "1");
    c
}

/// Runs `planseal update` with a recorded helper argv (`update-state.py STATE …`).
pub fn run_update(argv: &[Value], cwd: &Path, clock: &str) -> Output {
    let mut cmd = planseal();
    cmd.arg("update")
        .args(argv[1..].iter().map(|a| a.as_str().unwrap()))
        .current_dir(cwd)
        .env("PLANSEAL_FAKE_NOW", clock);
    cmd.output().unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

//! Scratch copies of the fixture plans for the tests of the writers that reshape a plan
//! (`refine`, `promote`), and the comparisons they make of its files.
#![allow(dead_code)]

use super::fs::{copy_dir, tree};
use super::run::{Planseal, Run};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Fixture A: a Lite v2 plan of three tasks, outside git.
pub const LITE: &str = ".dwp/plans/PLAN_http_rate_limit";
/// Fixture B: a Full v5 plan of four tasks, outside git.
pub const FULL: &str = ".dwp/plans/PLAN_webhook_retry_backoff";
/// The plan's journal.
pub const JOURNAL: &str = "analysis_results/STATE_JOURNAL.ndjson";
/// The clock of these tests.
pub const NOW: &str = "2026-10-05T09:00:00+00:00";

/// A scratch workspace holding one plan.
pub struct Scratch {
    pub dir: tempfile::TempDir,
    /// The plan folder.
    pub plan: PathBuf,
    /// The plan folder relative to the workspace (what the commands are given).
    pub rel: &'static str,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vectors/dwp")
}

impl Scratch {
    fn copy(from: PathBuf, rel: &'static str) -> Scratch {
        let dir = tempfile::tempdir().expect("temp dir");
        let plan = dir.path().join(rel);
        copy_dir(&from, &plan);
        Scratch { dir, plan, rel }
    }

    /// Fixture A as materialized (approved, every task pending).
    pub fn lite() -> Scratch {
        Self::copy(
            fixtures().join("A_lite_v2/fixture/PLAN_http_rate_limit"),
            LITE,
        )
    }

    /// Fixture A at one of its recorded snapshots (`after-task1`, `final`, …).
    pub fn lite_at(snapshot: &str) -> Scratch {
        Self::copy(
            fixtures()
                .join("A_lite_v2/lifecycle/snapshots")
                .join(snapshot)
                .join("PLAN_http_rate_limit"),
            LITE,
        )
    }

    /// Fixture B as materialized (approved, every task pending).
    pub fn full() -> Scratch {
        Self::copy(
            fixtures().join("B_full_v5/fixture/PLAN_webhook_retry_backoff"),
            FULL,
        )
    }

    /// The workspace root (the commands run there).
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `planseal ARGS` in the workspace, at [`NOW`].
    pub fn run(&self, args: &[&str]) -> Run {
        Planseal::new()
            .cwd(self.root())
            .clock(NOW)
            .args(args)
            .output()
    }

    /// `refine --add-task` of a fully described task "Document the limiter" (fixture A's
    /// wording): every section given, no placeholder.
    pub fn add_docs_task(&self) -> Run {
        self.run(&[
            "refine",
            self.rel,
            "--add-task",
            "--title",
            "Document the limiter",
            "--goal",
            "Explain the limiter in the README.",
            "--context",
            "Users ask how to set the rate.",
            "--touched-surface",
            "README.md only.",
            "--acceptance",
            "README has a Rate limiting section",
            "--validation",
            "python3 -m unittest discover -s tests -t .",
        ])
    }

    /// Every file of the plan, by relative path.
    pub fn tree(&self) -> BTreeMap<String, Option<Vec<u8>>> {
        tree(&self.plan)
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.plan.join(rel)).expect("a UTF-8 plan file")
    }

    pub fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.plan.join(rel), text).expect("write a plan file");
    }

    pub fn state(&self) -> serde_json::Value {
        serde_json::from_str(&self.read("state.json")).expect("state.json parses")
    }

    /// The plan's journal lines.
    pub fn journal(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.plan.join(JOURNAL))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("a journal line parses"))
            .collect()
    }
}

/// The paths whose bytes (or presence) differ between two trees, in order.
pub fn changed(
    before: &BTreeMap<String, Option<Vec<u8>>>,
    after: &BTreeMap<String, Option<Vec<u8>>>,
) -> Vec<String> {
    let mut keys: Vec<&String> = before.keys().chain(after.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| before.get(*k) != after.get(*k))
        .cloned()
        .collect()
}

/// The text of a tree's file.
pub fn text(tree: &BTreeMap<String, Option<Vec<u8>>>, rel: &str) -> String {
    String::from_utf8(
        tree.get(rel)
            .and_then(Clone::clone)
            .unwrap_or_else(|| panic!("{rel} is not in the tree")),
    )
    .expect("UTF-8")
}

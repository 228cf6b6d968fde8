//! Scripted repositories for the merge tests: built with the git CLI (pinned names and dates, no
//! user configuration), with planseal's merge driver registered by hand in the repository's
//! config — the built binary, found as tests/support/run.rs finds it — and `.gitattributes`.

use crate::support::gitrepo::{FIXTURE_EPOCH, git_command, vector_repo};
use crate::support::run::{BIN, Planseal, Run};
use std::path::{Path, PathBuf};
use std::process::Output;

/// Fixture A's plan (Lite, three tasks) and where its recorded states and snapshots are.
pub const PLAN: &str = "PLAN_http_rate_limit";
pub const PLAN_DIR: &str = ".dwp/plans/PLAN_http_rate_limit";
pub const STATE: &str = ".dwp/plans/PLAN_http_rate_limit/state.json";
/// The commit of fixture A's repository that does task 1's work.
pub const TASK1_COMMIT: &str = "49a4d7ebed977a49892c2a4ccd8c9e5a784e4422";

pub fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vectors/dwp/A_lite_v2")
}

/// The attribute lines the tests register the driver for (the same paths `hooks install
/// --merge` writes).
pub const ATTRIBUTES: &str = "**/.dwp/plans/*/state.json merge=planseal\n**/.dwp/plans/*/manifest.json merge=planseal\n**/.dwp/plans/*/analysis_results/FINALIZATION.json merge=planseal\n**/.dwp/plans/*/analysis_results/STATE_JOURNAL.ndjson merge=planseal\n.planning/STATE.md merge=planseal\n.reversa/state.json merge=planseal\nPROJECT-CHECKPOINT.md merge=planseal\n*.journal.ndjson merge=planseal\n";

/// A repository in a temp folder whose commits get pinned dates.
pub struct Repo {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    clock: i64,
}

impl Repo {
    /// An empty repository on `main`.
    pub fn new() -> Repo {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path().join("repo");
        std::fs::create_dir_all(&root).expect("mkdir");
        let repo = Repo {
            _tmp: tmp,
            root,
            clock: FIXTURE_EPOCH,
        };
        repo.git(&["init", "-q", "--template=", "-b", "main", "."]);
        repo
    }

    /// Fixture A's repository with task 1's commit, the plan tracked (its `.gitignore` line
    /// dropped) with the README and PROGRESS of `markdown` (`fixture` or a lifecycle snapshot),
    /// the gate logs of task 1 and the recorded `state` (a file of lifecycle/states) — committed
    /// with the driver registered.
    pub fn fixture_a(markdown: &str, state: &str) -> Repo {
        let plan_src = match markdown {
            "fixture" => vectors().join("fixture").join(PLAN),
            snapshot => vectors()
                .join("lifecycle/snapshots")
                .join(snapshot)
                .join(PLAN),
        };
        let (tmp, root) = vector_repo("A_lite_v2", Some(1), Some(&plan_src));
        let mut repo = Repo {
            _tmp: tmp,
            root,
            clock: FIXTURE_EPOCH + 86_400,
        };
        let gates = vectors()
            .join("lifecycle/snapshots/after-task1")
            .join(PLAN)
            .join("analysis_results/gates");
        crate::support::fs::copy_dir(
            &gates,
            &repo.path(&format!("{PLAN_DIR}/analysis_results/gates")),
        );
        repo.copy_state(state);
        let ignore = repo.read(".gitignore").replace(".dwp/\n", "");
        repo.write(".gitignore", &ignore);
        repo.register_driver();
        repo.commit("plan: state tracked");
        repo
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    pub fn bytes(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().expect("a parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }

    /// Puts a recorded state (lifecycle/states/NAME) in place.
    pub fn copy_state(&self, name: &str) {
        let bytes = std::fs::read(vectors().join("lifecycle/states").join(name)).expect("state");
        std::fs::write(self.path(STATE), bytes).expect("write state");
    }

    /// Puts a file of a lifecycle snapshot's plan folder in place.
    pub fn copy_from_snapshot(&self, snapshot: &str, rel: &str) {
        let from = vectors()
            .join("lifecycle/snapshots")
            .join(snapshot)
            .join(PLAN)
            .join(rel);
        let to = self.path(&format!("{PLAN_DIR}/{rel}"));
        std::fs::create_dir_all(to.parent().expect("a parent")).expect("mkdir");
        std::fs::copy(from, to).expect("copy");
    }

    /// The driver in the repository's config, as `docs/merge.md` shows it, and `.gitattributes`.
    pub fn register_driver(&self) {
        self.git(&["config", "merge.planseal.name", "planseal"]);
        self.git(&[
            "config",
            "merge.planseal.driver",
            &format!("{BIN} merge-driver %O %A %B %L %P %S %X %Y"),
        ]);
        self.write(".gitattributes", ATTRIBUTES);
    }

    /// git in the repository; panics with its stderr when it fails.
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.git_output(args);
        assert!(
            out.status.success(),
            "git {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8")
    }

    /// git in the repository with the next pinned date, whatever its exit status.
    pub fn git_output(&self, args: &[&str]) -> Output {
        let date = format!("@{} +0000", self.clock);
        git_command(&self.root)
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .env("GIT_EDITOR", "true")
            .args(args)
            .output()
            .expect("git runs")
    }

    /// Stages everything and commits.
    pub fn commit(&mut self, subject: &str) -> String {
        self.git(&["add", "-A"]);
        self.clock += 60;
        self.git(&[
            "commit",
            "-q",
            "--no-verify",
            "--no-gpg-sign",
            "-m",
            subject,
        ]);
        self.git(&["rev-parse", "HEAD"]).trim().to_string()
    }

    /// A git command that may fail (a merge with conflicts), with the next pinned date.
    pub fn try_git(&mut self, args: &[&str]) -> Output {
        self.clock += 60;
        self.git_output(args)
    }

    /// `planseal ARGS` in the repository at the instant `now`.
    pub fn planseal(&self, now: &str, args: &[&str]) -> Run {
        Planseal::new()
            .cwd(&self.root)
            .clock(now)
            .args(args)
            .output()
    }

    /// `planseal update <state.json> ARGS` at `now`; must be applied.
    pub fn update(&self, now: &str, args: &[&str]) {
        let mut all = vec!["update", STATE];
        all.extend_from_slice(args);
        let run = self.planseal(now, &all);
        assert_eq!(run.code, 0, "update {args:?}: {}", run.stderr);
    }

    /// The paths git lists as unmerged.
    pub fn unmerged(&self) -> Vec<String> {
        let mut paths: Vec<String> = self
            .git(&["diff", "--name-only", "--diff-filter=U"])
            .lines()
            .map(str::to_string)
            .collect();
        paths.dedup();
        paths
    }

    /// The state.json of a revision, parsed.
    pub fn state_at(&self, rev: &str) -> serde_json::Value {
        serde_json::from_str(&self.git(&["show", &format!("{rev}:{STATE}")])).expect("JSON")
    }
}

/// `planseal verify` of the plan at `now`: (exit code, stdout).
pub fn verify(repo: &Repo, now: &str) -> Run {
    repo.planseal(now, &["verify", PLAN_DIR])
}

pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

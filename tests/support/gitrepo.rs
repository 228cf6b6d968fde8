//! Git fixture repositories for the tests: built with the git CLI, hermetic (no user or system
//! configuration, no hooks) and with pinned author/committer names and dates, so every commit
//! hash is the same on every machine. The product never spawns git; only these tests do.
#![allow(dead_code)]

use super::run::hermetic;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root of planseal (for the recorded vectors).
pub fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A `git` command in the tests' hermetic environment (no user or system configuration, see
/// `support::run`), with pinned names and a pinned date (the fixture epoch) for author and
/// committer; a caller that wants another date sets `GIT_AUTHOR_DATE` / `GIT_COMMITTER_DATE`.
pub fn git_command(dir: &Path) -> Command {
    let mut cmd = hermetic("git");
    let date = format!("@{FIXTURE_EPOCH} +0000");
    cmd.current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Fixture Author")
        .env("GIT_AUTHOR_EMAIL", "author@example.invalid")
        .env("GIT_COMMITTER_NAME", "Fixture Author")
        .env("GIT_COMMITTER_EMAIL", "author@example.invalid")
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date);
    cmd
}

/// Runs git in `dir` and returns its stdout; panics with git's stderr when it fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_command(dir).args(args).output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("git prints UTF-8")
}

/// A scratch repository on branch `main` whose commits get pinned dates.
pub struct FixtureRepo {
    pub dir: tempfile::TempDir,
    /// Next commit date (seconds since the epoch); each commit advances it by one minute.
    clock: i64,
}

/// 2026-10-05T09:00:00Z, the day of the recorded vectors.
pub const FIXTURE_EPOCH: i64 = 1_791_190_800;

impl FixtureRepo {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        git(
            dir.path(),
            &["init", "-q", "--template=", "-b", "main", "."],
        );
        FixtureRepo {
            dir,
            clock: FIXTURE_EPOCH,
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, rel: &str, content: &str) {
        let p = self.path().join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(p, content).expect("write file");
    }

    pub fn remove(&self, rel: &str) {
        std::fs::remove_file(self.path().join(rel)).expect("remove file");
    }

    /// Runs git here with the next pinned date for author and committer.
    pub fn git_dated(&mut self, args: &[&str]) -> String {
        let date = format!("@{} +0000", self.clock);
        self.clock += 60;
        let out = git_command(self.path())
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .args(args)
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    }

    /// Stages everything and commits with `subject`; returns the new full hash.
    pub fn commit(&mut self, subject: &str) -> String {
        git(self.path(), &["add", "-A"]);
        self.git_dated(&[
            "commit",
            "-q",
            "--allow-empty",
            "--no-verify",
            "--no-gpg-sign",
            "-m",
            subject,
        ]);
        self.head()
    }

    pub fn head(&self) -> String {
        git(self.path(), &["rev-parse", "HEAD"]).trim().to_string()
    }

    /// The committer time (seconds) of the next commit.
    pub fn next_time(&self) -> i64 {
        self.clock
    }

    pub fn git(&self, args: &[&str]) -> String {
        git(self.path(), args)
    }
}

/// Builds the repository of a recorded DWP vector (`A_lite_v2`, `B_full_v5`, `D_v1`) with its own
/// `build-repo.sh`, into a new temp dir; returns (temp dir, repository root).
pub fn vector_repo(
    fixture: &str,
    through: Option<u32>,
    plan: Option<&Path>,
) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().join("repo");
    let script = project_root()
        .join("fixtures/vectors/dwp")
        .join(fixture)
        .join("fixture/build-repo.sh");
    // The script pins its own names and dates; the environment around it is the tests' one.
    let mut cmd = hermetic("bash");
    cmd.arg(&script).arg(&root);
    if let Some(n) = through {
        cmd.arg(n.to_string());
    } else if plan.is_some() {
        cmd.arg("99");
    }
    if let Some(p) = plan {
        cmd.arg(p);
    }
    let out = cmd.output().expect("bash runs");
    assert!(
        out.status.success(),
        "build-repo.sh {fixture}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (tmp, root)
}

/// `git log --format=%H -- PATH` from HEAD, the reference answer for file histories.
pub fn git_log_path(dir: &Path, path: &str, first_parent: bool) -> Vec<String> {
    let mut args = vec!["log", "--format=%H"];
    if first_parent {
        args.push("--first-parent");
    }
    args.extend(["--", path]);
    git(dir, &args).lines().map(str::to_string).collect()
}

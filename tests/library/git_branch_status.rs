//! `Repo::branch_status` (the statusline's `show_git`) against git's own
//! `git status --porcelain=v2 --branch` on scripted repositories: the branch, ahead/behind its
//! upstream (a local one and a remote-tracking one), and the staged / unstaged / untracked path
//! counts, counted the way GSD's hook counts git's lines.

use crate::support::gitrepo::{FixtureRepo, git};
use planseal::recovery::git::{BranchStatus, Repo};
use std::path::Path;

/// What git says, counted as the hook counts it.
fn from_git(dir: &Path) -> BranchStatus {
    let text = git(dir, &["status", "--porcelain=v2", "--branch"]);
    let mut s = BranchStatus::default();
    for line in text.lines() {
        if let Some(head) = line.strip_prefix("# branch.head ") {
            s.branch = (head != "(detached)").then(|| head.to_string());
        } else if let Some(ab) = line.strip_prefix("# branch.ab ") {
            let (a, b) = ab.split_once(' ').unwrap();
            s.ahead = a.trim_start_matches('+').parse().unwrap();
            s.behind = b.trim_start_matches('-').parse().unwrap();
        } else if line.starts_with("1 ") || line.starts_with("2 ") {
            let xy = line.as_bytes();
            s.staged += usize::from(xy[2] != b'.');
            s.unstaged += usize::from(xy[3] != b'.');
        } else if line.starts_with("u ") {
            s.unstaged += 1;
        } else if line.starts_with("? ") {
            s.untracked += 1;
        }
    }
    s
}

fn from_gix(dir: &Path) -> BranchStatus {
    Repo::discover(dir)
        .expect("opens")
        .expect("a repository")
        .branch_status()
        .expect("status")
}

fn same(dir: &Path, what: &str) -> BranchStatus {
    let want = from_git(dir);
    assert_eq!(from_gix(dir), want, "{what}");
    want
}

#[test]
fn counts_match_git_status() {
    let mut repo = FixtureRepo::new();
    repo.write("a.txt", "a\n");
    repo.write("b.txt", "b\n");
    repo.write("gone.txt", "g\n");
    repo.write(
        "ren.txt",
        "some content long enough to be a rename\nline\nline\n",
    );
    repo.write(".gitignore", "*.log\n");
    repo.commit("base");
    assert_eq!(same(repo.path(), "clean").branch.as_deref(), Some("main"));

    repo.write("a.txt", "changed\n");
    repo.write("new.txt", "n\n");
    repo.git(&["add", "new.txt"]);
    repo.write("b.txt", "staged\n");
    repo.git(&["add", "b.txt"]);
    repo.write("b.txt", "and changed again\n");
    repo.remove("gone.txt");
    repo.git(&["mv", "ren.txt", "moved.txt"]);
    repo.write("dir/x", "1");
    repo.write("dir/y", "2");
    repo.write("loose.txt", "u");
    repo.write("ignored.log", "l");
    let s = same(repo.path(), "dirty");
    assert_eq!((s.staged, s.unstaged, s.untracked), (3, 3, 2), "{s:?}");

    // From a subfolder: the whole work tree still counts.
    std::fs::create_dir_all(repo.path().join("sub")).unwrap();
    assert_eq!(from_gix(&repo.path().join("sub")), s);
}

#[test]
fn detached_unborn_and_upstreams() {
    let mut repo = FixtureRepo::new();
    repo.write("a.txt", "a\n");
    assert_eq!(same(repo.path(), "unborn").untracked, 1);
    repo.commit("one");
    repo.git(&["branch", "base"]);
    repo.commit("two");
    repo.commit("three");
    repo.git(&["checkout", "-q", "base"]);
    repo.commit("other");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["branch", "-q", "--set-upstream-to=base"]);
    let s = same(repo.path(), "local upstream");
    assert_eq!((s.ahead, s.behind), (2, 1));

    // A clone tracks origin/main through the remote's fetch refspec.
    let clone = tempfile::tempdir().unwrap();
    git(
        clone.path(),
        &[
            "clone",
            "-q",
            "--branch",
            "main",
            repo.path().to_str().unwrap(),
            "c",
        ],
    );
    let c = clone.path().join("c");
    let in_clone = |subject: &str| {
        git(
            &c,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@example.invalid",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                subject,
            ],
        )
    };
    in_clone("local work");
    let s = same(&c, "remote upstream");
    assert_eq!((s.ahead, s.behind), (1, 0));

    // An upstream whose ref is gone: no distance, as git shows none.
    git(&c, &["update-ref", "-d", "refs/remotes/origin/main"]);
    let s = same(&c, "upstream gone");
    assert_eq!((s.ahead, s.behind), (0, 0));

    repo.git(&["checkout", "-q", "--detach", "HEAD"]);
    assert_eq!(same(repo.path(), "detached").branch, None);
}

#[test]
fn a_merge_conflict_counts_once_as_unstaged() {
    let mut repo = FixtureRepo::new();
    repo.write("a.txt", "base\n");
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.write("a.txt", "base\nother\n");
    repo.commit("other");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("a.txt", "base\nmain\n");
    repo.commit("main");
    let _ = crate::support::gitrepo::git_command(repo.path())
        .args(["merge", "-q", "other"])
        .output()
        .unwrap();
    let s = same(repo.path(), "conflict");
    assert_eq!((s.staged, s.unstaged), (0, 1));
}

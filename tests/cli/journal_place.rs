//! Where the GSD and checkpoint journals go (`docs/journal.md`): in a git work tree, into that
//! work tree's own git directory, keyed by the file's path (`.git/planseal/journals/
//! .planning/STATE.md.journal.ndjson`), so `git status` shows nothing new; a linked work tree
//! (`git worktree add`) keeps its own; a journal beside the file, where earlier versions kept it,
//! is still read as the baseline while new lines go to the new place; outside git the journal
//! stays beside the file; a `.git` that cannot be read stops the write.

use crate::support::gitrepo::{FixtureRepo, git};
use crate::support::run::{Planseal, Run};
use serde_json::Value;
use std::path::Path;

const STATE: &str = ".planning/STATE.md";
const NEW_PLACE: &str = ".git/planseal/journals/.planning/STATE.md.journal.ndjson";
const OLD_PLACE: &str = ".planning/STATE.md.journal.ndjson";

fn state_text() -> String {
    std::fs::read_to_string(
        crate::support::gitrepo::project_root().join("fixtures/gsd/check/clean.md"),
    )
    .unwrap()
}

/// A repository with STATE.md committed.
fn gsd_repo() -> FixtureRepo {
    let mut repo = FixtureRepo::new();
    repo.write(STATE, &state_text());
    repo.commit("init");
    repo
}

fn run(dir: &Path, now: &str, args: &[&str]) -> Run {
    Planseal::new().cwd(dir).clock(now).args(args).output()
}

fn decision(dir: &Path, now: &str, summary: &str) {
    let out = run(
        dir,
        now,
        &["gsd", "decision", "add", "--summary", summary, STATE],
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `git status --porcelain`, untracked files included.
fn status(dir: &Path) -> String {
    git(dir, &["status", "--porcelain", "--untracked-files=all"])
}

#[test]
fn a_gsd_write_in_a_repository_journals_in_the_git_directory() {
    let repo = gsd_repo();
    let root = repo.path();
    decision(root, "2026-10-05T09:00:00+00:00", "Use gix");
    let journal = lines(&root.join(NEW_PLACE));
    assert_eq!(journal.len(), 1);
    assert_eq!(journal[0]["operation"], "gsd decision add");
    assert!(!root.join(OLD_PLACE).exists());
    // Only the state file itself changed: nothing untracked.
    assert_eq!(status(root), " M .planning/STATE.md\n");
}

#[test]
fn a_checkpoint_write_in_a_repository_journals_in_the_git_directory() {
    let mut repo = FixtureRepo::new();
    repo.write("docs/stories/1.1.md", "---\nid: 1.1\nstatus: Done\n---\n");
    repo.commit("stories");
    let root = repo.path();
    let out = run(root, "2026-10-05T09:00:00+00:00", &["checkpoint", "init"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let journal =
        lines(&root.join(".git/planseal/journals/docs/PROJECT-CHECKPOINT.md.journal.ndjson"));
    assert_eq!(journal.len(), 1);
    assert!(
        !root
            .join("docs/PROJECT-CHECKPOINT.md.journal.ndjson")
            .exists()
    );
    // the checkpoint is new (untracked), its journal is not in the work tree at all
    assert_eq!(status(root), "?? docs/PROJECT-CHECKPOINT.md\n");
    // The next write appends there.
    let session = run(
        root,
        "2026-10-05T10:00:00+00:00",
        &[
            "checkpoint",
            "session",
            "add",
            "--story",
            "1.1",
            "--did",
            "x",
            "--files",
            "a.rs",
            "--tests",
            "1/1",
        ],
    );
    assert_eq!(session.code, 0, "{}{}", session.stdout, session.stderr);
    assert_eq!(
        lines(&root.join(".git/planseal/journals/docs/PROJECT-CHECKPOINT.md.journal.ndjson")).len(),
        2
    );
}

#[test]
fn a_linked_work_tree_keeps_its_own_journal_for_the_same_file() {
    let repo = gsd_repo();
    let main = repo.path();
    let linked_parent = tempfile::tempdir().unwrap();
    let linked = linked_parent.path().join("feature");
    git(
        main,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "feature",
            linked.to_str().unwrap(),
        ],
    );
    decision(main, "2026-10-05T09:00:00+00:00", "Main decision");
    decision(&linked, "2026-10-05T09:05:00+00:00", "Linked decision");
    decision(&linked, "2026-10-05T09:06:00+00:00", "Linked again");

    let main_journal = lines(&main.join(NEW_PLACE));
    let linked_journal = lines(
        &main.join(".git/worktrees/feature/planseal/journals/.planning/STATE.md.journal.ndjson"),
    );
    assert_eq!(main_journal.len(), 1);
    assert_eq!(linked_journal.len(), 2);
    assert!(
        main_journal[0]["file"]
            .as_str()
            .unwrap()
            .starts_with(main.canonicalize().unwrap().to_str().unwrap())
    );
    assert!(
        linked_journal[1]["file"]
            .as_str()
            .unwrap()
            .contains("feature")
    );
    assert!(!linked.join(OLD_PLACE).exists());
    assert_eq!(status(main), " M .planning/STATE.md\n");
    assert_eq!(status(&linked), " M .planning/STATE.md\n");
    // Each work tree's sync reads its own journal as the baseline.
    let baseline = |dir: &Path| {
        run(
            dir,
            "2026-10-05T10:00:00+00:00",
            &["--json", "gsd", "sync", STATE],
        )
        .json()["baseline"]
            .clone()
    };
    assert_eq!(
        baseline(main),
        "planseal's last write (2026-10-05T09:00:00+00:00)"
    );
    assert_eq!(
        baseline(&linked),
        "planseal's last write (2026-10-05T09:06:00+00:00)"
    );
}

/// Regression: a journal that earlier versions kept beside STATE.md is the baseline until a
/// write journals in the new place; that write never touches the old file.
#[test]
fn an_old_journal_beside_the_file_is_still_read_and_the_next_write_goes_to_the_new_place() {
    // The old journal: what a write outside git leaves beside the file.
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(outside.path().join(".planning")).unwrap();
    std::fs::write(outside.path().join(STATE), state_text()).unwrap();
    decision(
        outside.path(),
        "2026-10-01T08:00:00+00:00",
        "Written before the move",
    );
    let old = std::fs::read(outside.path().join(OLD_PLACE)).unwrap();

    let mut repo = FixtureRepo::new();
    repo.write(
        STATE,
        &std::fs::read_to_string(outside.path().join(STATE)).unwrap(),
    );
    repo.commit("state with its decision");
    let root = repo.path();
    std::fs::write(root.join(OLD_PLACE), &old).unwrap();
    let baseline = || {
        let out = run(
            root,
            "2026-10-05T10:00:00+00:00",
            &["--json", "gsd", "sync", STATE],
        );
        assert!(out.code == 0 || out.code == 1, "{}", out.stderr);
        out.json()["baseline"].clone()
    };
    // The old journal, not git HEAD, is the baseline.
    assert_eq!(
        baseline(),
        "planseal's last write (2026-10-01T08:00:00+00:00)"
    );

    decision(root, "2026-10-05T09:00:00+00:00", "Written after the move");
    assert_eq!(
        std::fs::read(root.join(OLD_PLACE)).unwrap(),
        old,
        "the old journal is only read"
    );
    let new = lines(&root.join(NEW_PLACE));
    assert_eq!(new.len(), 1);
    assert_eq!(new[0]["time"], "2026-10-05T09:00:00+00:00");
    // Now the newer line, in the new place, is the baseline.
    assert_eq!(
        baseline(),
        "planseal's last write (2026-10-05T09:00:00+00:00)"
    );
}

#[test]
fn outside_git_the_journal_stays_beside_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".planning")).unwrap();
    std::fs::write(dir.path().join(STATE), state_text()).unwrap();
    decision(dir.path(), "2026-10-05T09:00:00+00:00", "No git here");
    assert_eq!(lines(&dir.path().join(OLD_PLACE)).len(), 1);
    assert!(!dir.path().join(".git").exists());
}

/// A `.git` file that names no git directory: the journal has no place, so the write refuses as
/// an I/O error before anything is written — never a journal somewhere else.
#[test]
fn an_unreadable_git_file_stops_the_write() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".planning")).unwrap();
    std::fs::write(dir.path().join(STATE), state_text()).unwrap();
    std::fs::write(dir.path().join(".git"), "gitdir: ../no/such/worktree\n").unwrap();
    let before = crate::support::verify::tree_hash(dir.path());
    let out = run(
        dir.path(),
        "2026-10-05T09:00:00+00:00",
        &["gsd", "decision", "add", "--summary", "x", STATE],
    );
    assert_eq!(out.code, 3, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains(".git"), "{}", out.stderr);
    assert!(out.stderr.contains("nothing was applied"), "{}", out.stderr);
    assert_eq!(crate::support::verify::tree_hash(dir.path()), before);
}

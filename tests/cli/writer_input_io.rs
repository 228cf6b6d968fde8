//! A writer that cannot read one of its inputs (EIO on STATE.md, state.json, a story file,
//! `.git/HEAD`, the branch ref; ENOSPC creating `docs/`) stops before anything is written: exit 3,
//! a message naming the file and saying nothing was applied, every file its old bytes. Never
//! exit 2, never "not found", never exit 0 with content built from a guess.
//!
//! The faults are injected with `strace -P PATH -e inject=…`: only the calls on that one path
//! fail (strace comes with the README's test command).

use crate::support::gitrepo::{FixtureRepo, project_root};
use crate::support::run::{BIN, FIXED_NOW, hermetic};
use std::path::Path;
use std::process::{Output, Stdio};

/// The GSD, Reversa and legacy checkpoint fixtures in one committed repository.
fn workspace() -> FixtureRepo {
    let mut repo = FixtureRepo::new();
    let src = project_root();
    copy_dir(&src.join("fixtures/reversa/good-in-progress"), repo.path());
    copy_dir(
        &src.join("fixtures/checkpoint/legacy-good/docs"),
        &repo.path().join("docs"),
    );
    let gsd = std::fs::read_to_string(src.join("fixtures/gsd/check/clean.md")).expect("GSD");
    repo.write(".planning/STATE.md", &gsd);
    repo.commit("chore: base");
    repo
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// `planseal ARGS` in `root`, the `syscall`s on `rel` (relative to `root`) failing as `fault`
/// says (`error=EIO`: every one; `error=EIO:when=3`: the third).
fn faulted(root: &Path, rel: &str, syscall: &str, fault: &str, args: &[&str]) -> Output {
    hermetic("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "-P"])
        .arg(root.join(rel))
        .arg("-e")
        .arg(format!("trace={syscall}"))
        .arg("-e")
        .arg(format!("inject={syscall}:{fault}"))
        .arg("--")
        .arg(BIN)
        .args(args)
        .env("PLANSEAL_FAKE_NOW", FIXED_NOW)
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .expect("strace (apt-get install strace) and planseal start")
}

/// Every file of the workspace outside `.git`, with its bytes.
fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir").flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .expect("inside")
                .display()
                .to_string();
            if rel == ".git" {
                continue;
            }
            if entry.file_type().expect("type").is_dir() {
                out.push((format!("{rel}/"), Vec::new()));
                stack.push(path);
            } else {
                out.push((rel, std::fs::read(&path).expect("read")));
            }
        }
    }
    out.sort();
    out
}

/// Exit 3, the file named, "nothing was applied", and the workspace as it was.
fn assert_nothing_applied(out: &Output, before: &[(String, Vec<u8>)], root: &Path, names: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains(names), "names {names}: {stderr}");
    assert!(stderr.contains("nothing was applied"), "{stderr}");
    assert!(!stderr.contains("not found"), "{stderr}");
    assert_eq!(files(root), before, "every file keeps its old bytes");
}

#[test]
fn checkpoint_init_eio_on_git_head_writes_no_guessed_checkpoint() {
    for rel in [".git/HEAD", ".git/refs/heads/main"] {
        let repo = workspace();
        let root = repo.path();
        std::fs::remove_file(root.join("docs/PROJECT-CHECKPOINT.md")).expect("rm");
        let before = files(root);
        let out = faulted(root, rel, "read", "error=EIO", &["checkpoint", "init"]);
        assert_nothing_applied(&out, &before, root, rel);
        assert!(String::from_utf8_lossy(&out.stderr).contains("git repository"));
        // Nothing was written, so init runs again (no `checkpoint-exists`).
        let again = hermetic(BIN)
            .args(["checkpoint", "init"])
            .env("PLANSEAL_FAKE_NOW", FIXED_NOW)
            .current_dir(root)
            .output()
            .expect("planseal");
        assert_eq!(
            again.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&again.stderr)
        );
        let written = std::fs::read_to_string(root.join("docs/PROJECT-CHECKPOINT.md")).expect("cp");
        assert!(written.contains("chore: base"), "the git facts: {written}");
    }
}

#[test]
fn checkpoint_refresh_write_eio_on_git_head_leaves_the_checkpoint() {
    for rel in [".git/HEAD", ".git/refs/heads/main"] {
        let repo = workspace();
        let root = repo.path();
        let before = files(root);
        let out = faulted(
            root,
            rel,
            "read",
            "error=EIO",
            &["checkpoint", "refresh", "--write"],
        );
        assert_nothing_applied(&out, &before, root, rel);
    }
}

#[test]
fn checkpoint_eio_on_a_story_file_is_an_io_error_not_a_usage_error() {
    let repo = workspace();
    let root = repo.path();
    let story = "docs/stories/epic-1/1.1.story.md";
    assert!(root.join(story).is_file(), "the fixture has {story}");
    let before = files(root);
    let out = faulted(
        root,
        story,
        "read",
        "error=EIO",
        &["checkpoint", "refresh", "--write"],
    );
    assert_nothing_applied(&out, &before, root, "1.1.story.md");
    std::fs::remove_file(root.join("docs/PROJECT-CHECKPOINT.md")).expect("rm");
    let before = files(root);
    let out = faulted(root, story, "read", "error=EIO", &["checkpoint", "init"]);
    assert_nothing_applied(&out, &before, root, "1.1.story.md");
}

#[test]
fn checkpoint_init_enospc_on_mkdir_docs_is_an_io_error() {
    let mut repo = FixtureRepo::new();
    repo.write("README.md", "x\n");
    repo.commit("chore: base");
    let root = repo.path();
    let before = files(root);
    let out = faulted(
        root,
        "docs",
        "mkdir",
        "error=ENOSPC",
        &["checkpoint", "init"],
    );
    assert_nothing_applied(&out, &before, root, "cannot create");
    assert!(!root.join("docs").exists());
}

#[test]
fn gsd_sync_write_eio_on_state_md_is_never_no_state_md_found() {
    let repo = workspace();
    let root = repo.path();
    let before = files(root);
    // Found by the search, and named on the command line.
    for args in [
        &["gsd", "sync", "--write"][..],
        &["gsd", "sync", "--write", ".planning/STATE.md"],
        &["gsd", "recover", "--write", "--all"],
        &["gsd", "recover", "--write", "--all", ".planning/STATE.md"],
    ] {
        let out = faulted(root, ".planning/STATE.md", "read", "error=EIO", args);
        assert_nothing_applied(&out, &before, root, ".planning/STATE.md");
    }
}

#[test]
fn gsd_writers_eio_on_git_head_is_an_io_error_naming_the_repository() {
    let repo = workspace();
    let root = repo.path();
    let before = files(root);
    for rel in [".git/HEAD", ".git/refs/heads/main"] {
        for args in [
            &["gsd", "sync", "--write"][..],
            &["gsd", "recover", "--write", "--all"],
        ] {
            let out = faulted(root, rel, "read", "error=EIO", args);
            assert_nothing_applied(&out, &before, root, ".git");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("is not a revision"), "{stderr}");
        }
    }
}

#[test]
fn reversa_writers_eio_on_state_json_is_an_io_error() {
    let repo = workspace();
    let root = repo.path();
    let before = files(root);
    for args in [
        &["reversa", "set", "doc_level", "\"essencial\""][..],
        &["reversa", "advance", "--phase-done", "escavacao"],
    ] {
        let out = faulted(root, ".reversa/state.json", "read", "error=EIO", args);
        assert_nothing_applied(&out, &before, root, ".reversa/state.json");
    }
}

#[test]
fn gsd_sync_write_eio_on_a_later_read_of_the_branch_ref_is_never_an_unknown_revision() {
    // The first reads of the ref resolve HEAD; a later one used to make the baseline lookup
    // answer "`HEAD` is not a revision" (exit 2).
    for when in 1..=4 {
        let repo = workspace();
        let root = repo.path();
        let before = files(root);
        let fault = format!("error=EIO:when={when}");
        let out = faulted(
            root,
            ".git/refs/heads/main",
            "read",
            &fault,
            &["gsd", "sync", "--write"],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("is not a revision"),
            "when={when}: {stderr}"
        );
        match out.status.code() {
            Some(0) => assert_ne!(files(root), before, "when={when}: exit 0 wrote the sync"),
            _ => assert_nothing_applied(&out, &before, root, ".git"),
        }
    }
}

#[test]
fn gsd_sync_write_eio_on_its_journal_never_falls_back_to_the_git_baseline() {
    let repo = workspace();
    let root = repo.path();
    let run = |args: &[&str]| {
        hermetic(BIN)
            .args(args)
            .env("PLANSEAL_FAKE_NOW", FIXED_NOW)
            .current_dir(root)
            .output()
            .expect("planseal")
    };
    assert_eq!(run(&["gsd", "sync", "--write"]).status.code(), Some(0));
    // In a git work tree the journal is in the git directory (docs/journal.md).
    let journal = ".git/planseal/journals/.planning/STATE.md.journal.ndjson";
    assert!(root.join(journal).is_file(), "the first sync journals");
    // The body moves on: the next sync has something to write, from the journal's baseline.
    let state = root.join(".planning/STATE.md");
    let text = std::fs::read_to_string(&state).expect("STATE.md");
    let moved = text.replace("Phase: 4 of 8 (Observability)", "Phase: 5 of 8 (Release)");
    assert_ne!(moved, text, "the fixture names its phase");
    std::fs::write(&state, moved).expect("write");
    let before = files(root);
    let out = faulted(
        root,
        journal,
        "read",
        "error=EIO",
        &["gsd", "sync", "--write"],
    );
    assert_nothing_applied(&out, &before, root, journal);
}

#[test]
fn gsd_sync_write_eio_on_a_plan_or_the_roadmap_never_derives_from_a_partial_count() {
    for rel in [".planning/phases/01-a/01-PLAN.md", ".planning/ROADMAP.md"] {
        let repo = workspace();
        let root = repo.path();
        repo.write(
            ".planning/phases/01-a/01-PLAN.md",
            "---\nstatus: active\n---\n",
        );
        repo.write(".planning/ROADMAP.md", "## Phase 1: A\n## Phase 2: B\n");
        let before = files(root);
        let out = faulted(root, rel, "read", "error=EIO", &["gsd", "sync", "--write"]);
        assert_nothing_applied(&out, &before, root, rel);
    }
}

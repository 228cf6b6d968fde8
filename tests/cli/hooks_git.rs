//! `planseal hooks install|uninstall --git` and `planseal hook pre-commit|pre-push|commit-msg`:
//! the hook scripts in the folder git reads them from (`core.hooksPath` honoured, a linked work
//! tree using the shared one), idempotent, undone byte for byte with a foreign hook chained and
//! put back (bytes and mode), `--dry-run` and `--json`; then real `git commit`s in a scripted
//! repository with the hooks installed: a conformant plan commits, a broken one is stopped, a
//! task subject must name a task in progress.

use crate::support::fs::tree;
use crate::support::gitrepo::{FixtureRepo, git, git_command, vector_repo};
use crate::support::plans::{PLAN_A, lifecycle_state, snapshot};
use crate::support::run::{BIN, Planseal, Run};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn hooks(dir: &Path, args: &[&str]) -> Run {
    Planseal::new().cwd(dir).arg("hooks").args(args).output()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn program() -> String {
    Path::new(BIN).canonicalize().unwrap().display().to_string()
}

/// A repository with one commit and a hooks folder (git's own template is not used).
fn repo() -> FixtureRepo {
    let mut r = FixtureRepo::new();
    r.write("README.md", "x\n");
    r.commit("init");
    std::fs::create_dir_all(r.path().join(".git/hooks")).unwrap();
    r
}

#[test]
fn install_is_idempotent_and_uninstall_gives_the_hooks_folder_back_byte_for_byte() {
    let r = repo();
    let before = tree(&r.path().join(".git/hooks"));
    let run = hooks(r.path(), &["install", "--git"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "git hook registered: .git/hooks/pre-commit\n");
    let hook = r.path().join(".git/hooks/pre-commit");
    let script = std::fs::read_to_string(&hook).unwrap();
    assert!(script.starts_with("#!/bin/sh\n# planseal git hook: pre-commit"));
    assert!(
        script.ends_with(&format!("exec {} hook pre-commit \"$@\"\n", program())),
        "{script}"
    );
    assert_eq!(mode(&hook), 0o755);
    // Again, with every hook named: pre-commit is there already.
    let all = [
        "install",
        "--git",
        "--git-hook",
        "pre-commit",
        "--git-hook",
        "pre-push",
        "--git-hook",
        "commit-msg",
    ];
    let run = hooks(r.path(), &all);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "git hook registered: .git/hooks/pre-push, .git/hooks/commit-msg\n"
    );
    let installed = tree(&r.path().join(".git/hooks"));
    let again = hooks(r.path(), &all);
    assert_eq!(again.code, 0);
    assert_eq!(
        again.stdout,
        "git hook already registered; nothing written\n"
    );
    assert_eq!(tree(&r.path().join(".git/hooks")), installed);
    let mut uninstall = all;
    uninstall[0] = "uninstall";
    let run = hooks(r.path(), &uninstall);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(tree(&r.path().join(".git/hooks")), before);
    // nothing left to remove
    let run = hooks(r.path(), &uninstall);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "git hook already removed; nothing written\n");
}

#[test]
fn a_foreign_hook_is_chained_run_first_and_put_back_with_its_bytes_and_mode() {
    let mut r = repo();
    let foreign = "#!/bin/sh\necho foreign ran >> foreign.log\nexit ${FOREIGN_EXIT:-0}\n";
    let hook = r.path().join(".git/hooks/pre-commit");
    std::fs::write(&hook, foreign).unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o700)).unwrap();
    let run = hooks(r.path(), &["install", "--git"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "git hook registered: .git/hooks/pre-commit.pre-planseal, .git/hooks/pre-commit\n\
         the hook that was there runs first, from .git/hooks/pre-commit.pre-planseal\n"
    );
    let chained = r.path().join(".git/hooks/pre-commit.pre-planseal");
    assert_eq!(std::fs::read_to_string(&chained).unwrap(), foreign);
    assert_eq!(mode(&chained), 0o700);
    // git runs planseal's hook, which runs the foreign one first (no plan here: planseal passes).
    r.write("a.txt", "a\n");
    git(r.path(), &["add", "a.txt"]);
    r.git_dated(&["commit", "-q", "-m", "a"]);
    assert_eq!(r.git(&["log", "-1", "--format=%s"]), "a\n");
    assert_eq!(
        std::fs::read_to_string(r.path().join("foreign.log")).unwrap(),
        "foreign ran\n"
    );
    // Its failure stops the commit with its exit status.
    r.write("b.txt", "b\n");
    git(r.path(), &["add", "b.txt"]);
    let out = git_command(r.path())
        .env("FOREIGN_EXIT", "3")
        .args(["commit", "-q", "-m", "b"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(r.git(&["log", "-1", "--format=%s"]), "a\n");
    // Uninstall: the foreign hook is back, byte for byte, with its mode.
    let run = hooks(r.path(), &["uninstall", "--git"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), foreign);
    assert_eq!(mode(&hook), 0o700);
    assert!(!chained.exists());
}

#[test]
fn what_cannot_be_done_safely_is_refused_and_nothing_is_written() {
    let r = repo();
    let dir = r.path().join(".git/hooks");
    std::fs::write(dir.join("pre-commit"), "#!/bin/sh\necho one\n").unwrap();
    std::fs::write(dir.join("pre-commit.pre-planseal"), "#!/bin/sh\necho two\n").unwrap();
    let before = tree(&dir);
    let run = hooks(r.path(), &["install", "--git", "--json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let doc = run.json();
    assert_eq!(doc["result"], "refused");
    assert_eq!(doc["kind"], "git-hook-chained-exists");
    assert!(
        doc["hint"]
            .as_str()
            .unwrap()
            .contains("pre-commit.pre-planseal")
    );
    assert_eq!(tree(&dir), before);
    // A symbolic link is neither followed nor replaced.
    std::fs::remove_file(dir.join("pre-commit")).unwrap();
    std::os::unix::fs::symlink("../../README.md", dir.join("pre-commit")).unwrap();
    let run = hooks(r.path(), &["install", "--git"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.starts_with("git-hook-not-a-file:"),
        "{}",
        run.stderr
    );
    // Uninstall after the hook was replaced by another: the chained one is not put back.
    std::fs::remove_file(dir.join("pre-commit")).unwrap();
    std::fs::write(dir.join("pre-commit"), "#!/bin/sh\necho three\n").unwrap();
    let run = hooks(r.path(), &["uninstall", "--git"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.starts_with("git-hook-replaced:"),
        "{}",
        run.stderr
    );
    // --git-hook without --git is a usage error
    assert_eq!(
        hooks(r.path(), &["install", "--git-hook", "pre-push"]).code,
        2
    );
}

#[test]
fn dry_run_writes_nothing_and_json_is_the_envelope() {
    let r = repo();
    let before = tree(r.path());
    let run = hooks(r.path(), &["install", "--git", "--dry-run"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with(
            "git hook would be registered: .git/hooks/pre-commit\n--- a/.git/hooks/pre-commit\n+++ b/.git/hooks/pre-commit\n"
        ),
        "{}",
        run.stdout
    );
    assert!(run.stdout.ends_with("nothing written (--dry-run)\n"));
    assert_eq!(tree(r.path()), before);
    let run = hooks(
        r.path(),
        &["install", "--git", "--git-hook", "commit-msg", "--json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc = run.json();
    assert_eq!(doc.as_object().unwrap().keys().next().unwrap(), "result");
    assert_eq!(doc["result"], "applied");
    assert_eq!(doc["action"], "install");
    assert_eq!(doc["hooks"], serde_json::json!(["git"]));
    assert_eq!(doc["git_hooks"], serde_json::json!(["commit-msg"]));
    assert_eq!(doc["files"][0]["file"], ".git/hooks/commit-msg");
    assert_eq!(doc["files"][0]["changed"], true);
    let run = hooks(
        r.path(),
        &["install", "--git", "--git-hook", "commit-msg", "--json"],
    );
    assert_eq!(run.json()["result"], "unchanged");
}

#[test]
fn core_hooks_path_is_honoured_relative_to_the_work_tree_and_git_runs_the_hook() {
    let mut r = repo();
    r.git(&["config", "core.hooksPath", "tools/githooks"]);
    let sub = r.path().join("src");
    std::fs::create_dir_all(&sub).unwrap();
    // run from a sub-folder: the relative path is still the work tree's
    let run = hooks(&sub, &["install", "--git", "--git-hook", "commit-msg"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "git hook registered: tools/githooks/commit-msg\n"
    );
    assert!(r.path().join("tools/githooks/commit-msg").is_file());
    assert!(!r.path().join(".git/hooks/commit-msg").exists());
    // git runs it: a subject naming a plan that does not exist is refused
    r.write("a.txt", "a\n");
    git(r.path(), &["add", "a.txt"]);
    let out = git_command(r.path())
        .args(["commit", "-q", "-m", "feat: a - Task 1 of PLAN_nowhere"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("plan-not-found:"), "{err}");
    r.git_dated(&["commit", "-q", "-m", "feat: a"]);
    let run = hooks(&sub, &["uninstall", "--git", "--git-hook", "commit-msg"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!r.path().join("tools/githooks/commit-msg").exists());
}

#[test]
fn a_linked_work_tree_installs_into_the_shared_hooks_folder() {
    let r = repo();
    let elsewhere = tempfile::tempdir().unwrap();
    let linked = elsewhere.path().join("linked");
    r.git(&["worktree", "add", "-q", linked.to_str().unwrap()]);
    let run = hooks(&linked, &["install", "--git"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(r.path().join(".git/hooks/pre-commit").is_file());
    assert_eq!(hooks(&linked, &["uninstall", "--git"]).code, 0);
    assert!(!r.path().join(".git/hooks/pre-commit").exists());
}

/// Fixture A after task 1 (`.dwp/` ignored by its .gitignore), task 2 started, with planseal's
/// pre-commit and commit-msg hooks installed.
fn plan_repo() -> (tempfile::TempDir, PathBuf) {
    let (tmp, root) = vector_repo(
        "A_lite_v2",
        Some(1),
        Some(&snapshot("A_lite_v2", PLAN_A, "after-task1")),
    );
    let state = root.join(".dwp/plans").join(PLAN_A).join("state.json");
    std::fs::copy(
        lifecycle_state("A_lite_v2", "06-start-task2.state.json"),
        &state,
    )
    .unwrap();
    let run = hooks(
        &root,
        &[
            "install",
            "--git",
            "--git-hook",
            "pre-commit",
            "--git-hook",
            "commit-msg",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    (tmp, root)
}

fn commit(root: &Path, subject: &str) -> std::process::Output {
    git_command(root)
        .args(["commit", "-q", "-m", subject])
        .output()
        .unwrap()
}

fn subject(root: &Path) -> String {
    git(root, &["log", "-1", "--format=%s"]).trim().to_string()
}

#[test]
fn a_real_commit_goes_through_with_a_conformant_plan_and_is_stopped_by_a_broken_one() {
    let (_tmp, root) = plan_repo();
    assert_eq!(git(&root, &["check-ignore", ".dwp/"]).trim(), ".dwp/");
    std::fs::write(root.join("NOTES.md"), "notes\n").unwrap();
    git(&root, &["add", "NOTES.md"]);
    let ok = commit(&root, "docs: notes - Task 2 of PLAN_http_rate_limit");
    let err = String::from_utf8_lossy(&ok.stderr);
    assert!(ok.status.success(), "{err}");
    assert_eq!(
        subject(&root),
        "docs: notes - Task 2 of PLAN_http_rate_limit"
    );
    // Break the plan: state.json cut short. No plan file is staged (.dwp/ is ignored), yet the
    // plan is verified and the commit stopped.
    let state = root.join(".dwp/plans").join(PLAN_A).join("state.json");
    std::fs::write(&state, "{\n").unwrap();
    std::fs::write(root.join("NOTES.md"), "more notes\n").unwrap();
    git(&root, &["add", "NOTES.md"]);
    let blocked = commit(&root, "docs: more notes");
    assert_eq!(blocked.status.code(), Some(1));
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&blocked.stdout),
        String::from_utf8_lossy(&blocked.stderr)
    );
    assert!(out.contains("state.json does not parse"), "{out}");
    assert!(out.contains("planseal pre-commit: NOT CONFORMANT"), "{out}");
    assert_eq!(
        subject(&root),
        "docs: notes - Task 2 of PLAN_http_rate_limit"
    );
    // The same check, run by hand, as JSON.
    let run = Planseal::new()
        .cwd(&root)
        .args(["hook", "pre-commit", "--json"])
        .output();
    assert_eq!(run.code, 1);
    let doc = run.json();
    assert_eq!(doc["result"], "ok");
    assert_eq!(doc["hook"], "pre-commit");
    assert_eq!(doc["verdict"], "NOT CONFORMANT");
    assert_eq!(doc["plans"], serde_json::json!([PLAN_A]));
    assert_eq!(doc["reasons"][PLAN_A], "dwp-ignored");
    // pre-push verifies every plan too
    let run = Planseal::new()
        .cwd(&root)
        .args(["hook", "pre-push", "origin", "x", "--json"])
        .stdin("")
        .output();
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.json()["reasons"][PLAN_A], "all");
    assert_eq!(run.json()["verify"]["verdict"], "NOT CONFORMANT");
}

#[test]
fn when_dwp_is_tracked_only_the_plans_with_staged_files_are_verified() {
    let (_tmp, root) = plan_repo();
    std::fs::write(root.join(".gitignore"), "__pycache__/\n").unwrap();
    git(&root, &["add", ".gitignore"]);
    // nothing of the plan staged: not verified, even broken
    let state = root.join(".dwp/plans").join(PLAN_A).join("state.json");
    let good = std::fs::read(&state).unwrap();
    std::fs::write(&state, "{\n").unwrap();
    let run = Planseal::new()
        .cwd(&root)
        .args(["hook", "pre-commit", "--json"])
        .output();
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json()["plans"], serde_json::json!([]));
    // staged: verified
    git(
        &root,
        &["add", ".dwp/plans/PLAN_http_rate_limit/state.json"],
    );
    let blocked = commit(&root, "chore: track the plan");
    assert_eq!(blocked.status.code(), Some(1));
    std::fs::write(&state, &good).unwrap();
    git(&root, &["add", ".dwp"]);
    let ok = commit(&root, "chore: track the plan");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
}

#[test]
fn commit_msg_accepts_the_task_in_progress_and_refuses_another_task_or_plan() {
    let (_tmp, root) = plan_repo();
    let head = subject(&root);
    for (message, kind) in [
        (
            "feat: x - Task 1 of PLAN_http_rate_limit",
            "task-not-in-progress",
        ),
        ("feat: x - Task 9 of PLAN_http_rate_limit", "unknown-task"),
        ("feat: x - Task 2 of PLAN_other", "plan-not-found"),
    ] {
        std::fs::write(root.join("NOTES.md"), message).unwrap();
        git(&root, &["add", "NOTES.md"]);
        let out = commit(&root, message);
        assert_eq!(out.status.code(), Some(1), "{message}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("{kind}:")), "{message}: {err}");
        assert!(err.contains("hint:"), "{err}");
        assert_eq!(subject(&root), head);
    }
    // The hook by hand, as JSON.
    std::fs::write(
        root.join("MSG"),
        "# comment\nfeat: x - Task 1 of PLAN_http_rate_limit\n",
    )
    .unwrap();
    let run = Planseal::new()
        .cwd(&root)
        .args(["hook", "commit-msg", "MSG", "--json"])
        .output();
    assert_eq!(run.code, 1);
    assert_eq!(run.json()["result"], "refused");
    assert_eq!(run.json()["kind"], "task-not-in-progress");
    std::fs::write(
        root.join("MSG"),
        "feat: x - Task 2 of PLAN_http_rate_limit\n",
    )
    .unwrap();
    let run = Planseal::new()
        .cwd(&root)
        .args(["hook", "commit-msg", "MSG", "--json"])
        .output();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc = run.json();
    assert_eq!(doc["result"], "ok");
    assert_eq!(doc["plan"], PLAN_A);
    assert_eq!(doc["task"], 2);
    assert_eq!(doc["status"], "in_progress");
    std::fs::remove_file(root.join("MSG")).unwrap();
    // the task in progress, and a message naming no task, commit
    let ok = commit(&root, "feat: x - Task 2 of PLAN_http_rate_limit");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    std::fs::write(root.join("NOTES.md"), "y").unwrap();
    git(&root, &["add", "NOTES.md"]);
    let ok = commit(&root, "docs: no task named");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
}

#[test]
fn commit_all_and_commit_of_named_files_hand_the_hook_their_own_index() {
    let (_tmp, root) = plan_repo();
    // .dwp/ tracked
    std::fs::write(root.join(".gitignore"), "__pycache__/\n").unwrap();
    git(&root, &["add", "-A"]);
    git_command(&root)
        .args(["commit", "-q", "--no-verify", "-m", "chore: track the plan"])
        .output()
        .unwrap();
    let state = root.join(".dwp/plans").join(PLAN_A).join("state.json");
    let good = std::fs::read(&state).unwrap();
    std::fs::write(&state, "{\n").unwrap();
    // Nothing staged in .git/index: only the index git builds for the commit (GIT_INDEX_FILE)
    // holds the broken file.
    for args in [
        vec!["commit", "-q", "-a", "-m", "chore: all"],
        vec![
            "commit",
            "-q",
            "-m",
            "chore: one",
            "--",
            ".dwp/plans/PLAN_http_rate_limit/state.json",
        ],
    ] {
        let out = git_command(&root).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(subject(&root), "chore: track the plan");
    }
    std::fs::write(&state, &good).unwrap();
    std::fs::write(root.join("NOTES.md"), "n\n").unwrap();
    git(&root, &["add", "NOTES.md"]);
    let ok = commit(&root, "docs: notes");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
}

/// Killed between its writes (`kill -9` at the store's crash points; needs the `failpoints`
/// feature, as the crash tests do).
#[cfg(feature = "failpoints")]
mod killed {
    use super::*;

    /// Runs `hooks ARGS` again until it is done: a dead writer's lock is removed with the `planseal
    /// unlock` its refusal names first.
    fn finish(dir: &Path, args: &[&str]) {
        for _ in 0..3 {
            let mut with_json = args.to_vec();
            with_json.push("--json");
            let run = hooks(dir, &with_json);
            if run.code == 0 {
                return;
            }
            let doc = run.json();
            assert_eq!(doc["kind"], "lock-present", "{}", run.stdout);
            assert_eq!(doc["owner"], "dead", "{}", run.stdout);
            let hint = doc["hint"].as_str().unwrap();
            let file = hint
                .split('`')
                .nth(1)
                .unwrap()
                .trim_start_matches("planseal unlock ");
            let unlock = Planseal::new().cwd(dir).args(["unlock", file]).output();
            assert_eq!(unlock.code, 0, "{}", unlock.stderr);
        }
        panic!("hooks {args:?} did not finish");
    }

    /// The hook files (the hook and its chained copy) with their modes.
    fn hook_files(dir: &Path) -> Vec<(String, Vec<u8>, u32)> {
        let mut out: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                name == "pre-commit" || name == "pre-commit.pre-planseal"
            })
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(&p).unwrap(), mode(&p))
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn an_install_or_uninstall_killed_between_its_writes_is_finished_by_running_it_again() {
        let foreign = "#!/bin/sh\necho foreign\n";
        for action in ["install", "uninstall"] {
            // killed holding the first file's lock, after its temp file, after its rename, and
            // holding the second file's lock (the first write done)
            for spec in [
                "store.after_lock=return",
                "store.after_temp_write=return",
                "store.after_rename=return",
                "store.after_lock=1*off->return",
            ] {
                let r = repo();
                let dir = r.path().join(".git/hooks");
                std::fs::write(dir.join("pre-commit"), foreign).unwrap();
                std::fs::set_permissions(
                    dir.join("pre-commit"),
                    std::fs::Permissions::from_mode(0o750),
                )
                .unwrap();
                let original = hook_files(&dir);
                if action == "uninstall" {
                    assert_eq!(hooks(r.path(), &["install", "--git"]).code, 0);
                }
                let installed_or_original = hook_files(&dir);
                let crashed = Planseal::new()
                    .cwd(r.path())
                    .env("FAILPOINTS", spec)
                    .args(["hooks", action, "--git"])
                    .output();
                assert_eq!(crashed.code, 137, "{action} {spec}: {}", crashed.stderr);
                finish(r.path(), &[action, "--git"]);
                let expected_after = if action == "install" {
                    let run = hooks(r.path(), &["install", "--git"]);
                    assert_eq!(run.stdout, "git hook already registered; nothing written\n");
                    assert_eq!(
                        hook_files(&dir)[1],
                        (
                            "pre-commit.pre-planseal".to_string(),
                            foreign.as_bytes().to_vec(),
                            0o750
                        )
                    );
                    finish(r.path(), &["uninstall", "--git"]);
                    original.clone()
                } else {
                    assert_ne!(installed_or_original, original);
                    original.clone()
                };
                assert_eq!(hook_files(&dir), expected_after, "{action} {spec}");
            }
        }
    }
}

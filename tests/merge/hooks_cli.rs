//! `planseal hooks install|uninstall --merge`: the driver's section in the repository's git
//! config and its `.gitattributes` lines — idempotent, undone byte for byte, `--dry-run` showing
//! the diff and writing nothing, `--json`, a linked work tree writing the shared config, and the
//! refusals outside a repository and in a bare one. Git itself then reads what was written.

use super::repo::Repo;
use crate::support::run::{BIN, Planseal, Run};
use planseal::hooks::merge::{ATTRIBUTE_LINES, ATTRIBUTES_HEADER, DRIVER_LABEL};
use std::path::Path;

fn hooks(dir: &Path, args: &[&str]) -> Run {
    Planseal::new().cwd(dir).arg("hooks").args(args).output()
}

fn driver_line() -> String {
    let bin = Path::new(BIN).canonicalize().unwrap();
    format!(
        "\tdriver = {} merge-driver %O %A %B %L %P %S %X %Y\n",
        bin.display()
    )
}

#[test]
fn install_is_idempotent_and_uninstall_gives_both_files_back_byte_for_byte() {
    let mut r = Repo::new();
    r.write(".gitattributes", "*.png binary\n");
    r.commit("attributes");
    let config_before = r.bytes(".git/config");
    let install = hooks(&r.root, &["install", "--merge"]);
    assert_eq!(install.code, 0, "{}", install.stderr);
    assert_eq!(
        install.stdout,
        "merge hook registered: .git/config, .gitattributes\n"
    );
    let config = r.read(".git/config");
    assert_eq!(
        config,
        format!(
            "{}[merge \"planseal\"]\n\tname = {DRIVER_LABEL}\n{}",
            String::from_utf8(config_before.clone()).unwrap(),
            driver_line()
        )
    );
    let mut attributes = format!("*.png binary\n{ATTRIBUTES_HEADER}\n");
    for line in ATTRIBUTE_LINES {
        attributes.push_str(line);
        attributes.push('\n');
    }
    assert_eq!(r.read(".gitattributes"), attributes);
    // git reads them.
    assert_eq!(
        r.git(&["check-attr", "merge", "--", ".dwp/plans/PLAN_a/state.json"]),
        ".dwp/plans/PLAN_a/state.json: merge: planseal\n"
    );
    assert_eq!(
        r.git(&["config", "merge.planseal.driver"]).trim(),
        driver_line().trim().trim_start_matches("driver = ")
    );
    // Again: nothing to do.
    let again = hooks(&r.root, &["install", "--merge", "--json"]);
    assert_eq!(again.code, 0);
    assert_eq!(again.json()["result"], "unchanged");
    assert_eq!(r.read(".git/config"), config);
    // Uninstall: both files as they were.
    let uninstall = hooks(&r.root, &["uninstall", "--merge"]);
    assert_eq!(uninstall.code, 0, "{}", uninstall.stderr);
    assert_eq!(r.bytes(".git/config"), config_before);
    assert_eq!(r.read(".gitattributes"), "*.png binary\n");
    // No lock or temp file left.
    let left: Vec<String> = std::fs::read_dir(r.path(".git"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("lock") || n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_gitattributes_that_install_created_goes_with_uninstall() {
    let r = Repo::new();
    assert_eq!(hooks(&r.root, &["install", "--merge"]).code, 0);
    assert!(r.path(".gitattributes").exists());
    assert_eq!(hooks(&r.root, &["uninstall", "--merge"]).code, 0);
    assert!(!r.path(".gitattributes").exists());
}

#[test]
fn dry_run_shows_the_diff_and_writes_nothing() {
    let r = Repo::new();
    let before = crate::support::fs::tree(&r.root);
    let run = hooks(&r.root, &["install", "--merge", "--dry-run"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("merge hook would be registered: .git/config, .gitattributes\n--- a/.git/config\n+++ b/.git/config\n"), "{}", run.stdout);
    assert!(
        run.stdout.contains(&format!("+{}", driver_line())),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("+**/.dwp/plans/*/state.json merge=planseal\n")
    );
    assert!(run.stdout.ends_with("nothing written (--dry-run)\n"));
    assert_eq!(crate::support::fs::tree(&r.root), before);
}

#[test]
fn a_linked_work_tree_registers_in_the_shared_config() {
    let mut r = Repo::new();
    r.write("README.md", "x\n");
    r.commit("init");
    let linked = r.root.parent().unwrap().join("linked");
    r.git(&["worktree", "add", "-q", linked.to_str().unwrap()]);
    let run = hooks(&linked, &["install", "--merge"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(r.read(".git/config").contains(&driver_line()));
    assert!(linked.join(".gitattributes").exists());
    assert!(!r.path(".gitattributes").exists());
}

#[test]
fn outside_a_repository_and_in_a_bare_one_it_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let run = hooks(dir.path(), &["install", "--merge"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.starts_with("no-git:"), "{}", run.stderr);
    // A bare repository where a work tree's `.git` would be: git finds it, but it has no work
    // tree for a .gitattributes.
    let bare = dir.path().join("bare");
    std::fs::create_dir_all(bare.join(".git")).unwrap();
    crate::support::gitrepo::git(&bare.join(".git"), &["init", "-q", "--bare", "--template="]);
    let run = hooks(&bare, &["install", "--merge"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.starts_with("no-work-tree:"), "{}", run.stderr);
    // and which hook must be said
    assert_eq!(hooks(dir.path(), &["install"]).code, 2);
}

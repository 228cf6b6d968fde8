//! planseal reads the git configuration as git does — the user's `~/.gitconfig`, the system's
//! file, each replaced or skipped by `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM` and
//! `GIT_CONFIG_NOSYSTEM` — so a developer's settings can change what it prints. The hermetic
//! runner points both at an empty file and sets `GIT_CONFIG_NOSYSTEM`: each case shows that the
//! setting is read once the runner's variable is taken away, and has no effect under the runner.

use crate::support::plans::{self, Case};
use crate::support::run::{Planseal, Run};
use std::path::Path;

/// The short ids git prints for A's three task commits with its default length.
const SHORT_IDS: [&str; 3] = ["49a4d7e", "0684d92", "8ec9422"];

fn log(case: &Case) -> Planseal {
    Planseal::new()
        .cwd(&case.root)
        .args(["--json", "log", &case.plan_rel()])
}

fn short_ids(run: &Run) -> Vec<String> {
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|t| t["commit"]["short"].as_str().expect("short id").to_string())
        .collect()
}

/// A home folder whose `.gitconfig` holds `text`.
fn home_with_gitconfig(text: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    std::fs::write(home.path().join(".gitconfig"), text).expect("write .gitconfig");
    home
}

fn config_file(dir: &Path, text: &str) -> std::path::PathBuf {
    let path = dir.join("gitconfig");
    std::fs::write(&path, text).expect("write gitconfig");
    path
}

#[test]
fn a_core_abbrev_in_the_users_gitconfig_has_no_effect_under_the_runner() {
    let case = plans::clean_a();
    let home = home_with_gitconfig("[core]\n\tabbrev = 12\n");
    let read = log(&case)
        .env("HOME", home.path())
        .env_remove("GIT_CONFIG_GLOBAL")
        .output();
    let ids = short_ids(&read);
    assert_eq!(ids.len(), 3);
    assert!(ids.iter().all(|id| id.len() == 12), "{ids:?}");

    let isolated = log(&case).env("HOME", home.path()).output();
    assert_eq!(short_ids(&isolated), SHORT_IDS);
    assert_eq!(short_ids(&log(&case).output()), SHORT_IDS);
}

#[test]
fn a_core_abbrev_in_the_system_config_has_no_effect_under_the_runner() {
    let case = plans::clean_a();
    let etc = tempfile::tempdir().expect("temp dir");
    let system = config_file(etc.path(), "[core]\n\tabbrev = 10\n");
    let read = log(&case)
        .env("GIT_CONFIG_SYSTEM", &system)
        .env_remove("GIT_CONFIG_NOSYSTEM")
        .output();
    let ids = short_ids(&read);
    assert_eq!(ids.len(), 3);
    assert!(ids.iter().all(|id| id.len() == 10), "{ids:?}");

    // GIT_CONFIG_NOSYSTEM alone keeps the file out, whatever GIT_CONFIG_SYSTEM names
    let isolated = log(&case).env("GIT_CONFIG_SYSTEM", &system).output();
    assert_eq!(short_ids(&isolated), SHORT_IDS);
}

#[test]
fn a_broken_users_gitconfig_does_not_hide_the_history_under_the_runner() {
    let case = plans::clean_a();
    let home = home_with_gitconfig("[core\n\tabbrev = 12\n");
    let read = log(&case)
        .env("HOME", home.path())
        .env_remove("GIT_CONFIG_GLOBAL")
        .output();
    assert_eq!(read.code, 2, "{}", read.stdout);
    assert!(
        read.stderr
            .contains("cannot open the git repository around"),
        "{}",
        read.stderr
    );
    let verify = Planseal::new()
        .cwd(&case.root)
        .env("HOME", home.path())
        .env_remove("GIT_CONFIG_GLOBAL")
        .args(["--json", "verify", &case.plan_rel()])
        .output();
    let ids = |run: &Run| -> Vec<String> {
        run.json()["sections"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| f["id"].as_str().expect("id").to_string())
            .collect()
    };
    assert!(
        ids(&verify).contains(&"git-unreadable".to_string()),
        "{}",
        verify.stdout
    );

    let isolated = log(&case).env("HOME", home.path()).output();
    assert_eq!(short_ids(&isolated), SHORT_IDS);
    let verify = Planseal::new()
        .cwd(&case.root)
        .env("HOME", home.path())
        .args(["--json", "verify", &case.plan_rel()])
        .output();
    assert_eq!(verify.code, 0, "{}", verify.stdout);
    let found = ids(&verify);
    assert!(!found.contains(&"git-unreadable".to_string()), "{found:?}");
    assert!(found.contains(&"commit-drift".to_string()), "{found:?}");
}

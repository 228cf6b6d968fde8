//! verify over many plans checks them on several threads; the report is the same, byte for
//! byte, whatever the number of threads (`PLANSEAL_VERIFY_THREADS`).

use crate::support::gitrepo::{FixtureRepo, git};
use crate::support::verify::{Planseal, copy_dir, repo_root};
use std::path::Path;

/// A repository with every good fixture plan, copies of them under other names (each copy fails
/// its identity check, so the sections differ), and an orchestrator-hub child that is a
/// repository of its own.
fn many_plans() -> FixtureRepo {
    let mut repo = FixtureRepo::new();
    let good = repo_root().join("fixtures/dwp/good/.dwp/plans");
    let mut names: Vec<String> = std::fs::read_dir(&good)
        .expect("fixture plans")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let plans = repo.path().join(".dwp/plans");
    for name in &names {
        copy_dir(&good.join(name), &plans.join(name));
        for copy in 1..=3 {
            copy_dir(&good.join(name), &plans.join(format!("{name}_copy_{copy}")));
        }
    }
    let child = repo.path().join("repositories/tally");
    copy_dir(
        &good.join(&names[0]),
        &child.join(".dwp/plans").join(&names[0]),
    );
    init_repository(&child);
    repo.commit("plans");
    repo
}

fn init_repository(dir: &Path) {
    git(dir, &["init", "-q", "--template=", "-b", "main", "."]);
    git(dir, &["add", "-A"]);
    git(
        dir,
        &[
            "commit",
            "-q",
            "--no-verify",
            "--no-gpg-sign",
            "-m",
            "child plans",
        ],
    );
}

fn verify(root: &Path, threads: &str, json: bool) -> (i32, String) {
    let mut run = Planseal::new()
        .cwd(root)
        .env("PLANSEAL_VERIFY_THREADS", threads);
    if json {
        run = run.arg("--json");
    }
    let run = run.arg("verify").output();
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    (run.code, run.stdout)
}

#[test]
fn many_plans_verify_byte_identical_on_one_thread_and_on_several() {
    let repo = many_plans();
    for json in [false, true] {
        let one = verify(repo.path(), "1", json);
        for threads in ["2", "4", "64"] {
            assert_eq!(
                verify(repo.path(), threads, json),
                one,
                "PLANSEAL_VERIFY_THREADS={threads}, json {json}"
            );
        }
        if json {
            let doc: serde_json::Value = serde_json::from_str(&one.1).expect("one JSON document");
            let sections = doc["sections"].as_array().expect("sections");
            assert_eq!(sections.len(), 5 * 4 + 1, "{doc:#}");
            assert_eq!(sections[20]["name"], "tally:PLAN_cli_color_flag");
        } else {
            assert_eq!(one.1.matches("\nPlan: ").count() + 1, 21, "{}", one.1);
        }
    }
}

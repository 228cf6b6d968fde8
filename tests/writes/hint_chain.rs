//! Following every printed hint, in order, from a broken plan reaches CONFORMANT
//! (`support::chain` walks them as a person or an agent would).

use crate::support::chain::walk;
use crate::support::finalize::*;

/// The helper killed after replacing state.json: its marker and its empty lock stay. verify
/// names the empty lock first (the helper holds one while it works, so the hint says to check
/// that none runs before `unlock --force`), then the marker; recover finishes the publication.
#[test]
fn helper_killed_after_publish_reaches_conformant_by_the_hints() {
    for (fixture, plan) in FIXTURES {
        let ws = Workspace::from_folder(
            fixture,
            plan,
            &format!("interrupted/killed_after_publish/plan-after-interruption/{plan}"),
        );
        std::fs::create_dir_all(ws.plan_dir().join("state.json.lock")).unwrap();
        let walk = walk(ws.root(), 6, &[]);
        walk.assert_conformant();
        let actions = walk.actions();
        assert!(
            actions[0].starts_with("planseal unlock") && actions[0].contains("--force"),
            "{}",
            walk.trail()
        );
        assert!(
            actions.iter().any(|a| a.starts_with("planseal recover")),
            "{}",
            walk.trail()
        );
        assert!(
            actions
                .iter()
                .any(|a| a.starts_with("planseal unlock") && a.contains("--force")),
            "{}",
            walk.trail()
        );
        assert!(ws.exists("analysis_results/FINALIZATION.json"));
    }
}

/// The README closed the last task but state.json did not (a writer killed before the marker),
/// outside git. Regression: `rebuild --write` completed the plan without a receipt, and finalize,
/// update and rebuild then all refused.
#[test]
fn readme_closed_the_last_task_state_did_not_outside_git() {
    for (fixture, plan) in FIXTURES {
        let ws = Workspace::ready_to_publish(fixture, plan);
        let walk = walk(ws.root(), 8, &[]);
        walk.assert_conformant();
        assert!(
            ws.exists("analysis_results/FINALIZATION.json"),
            "{fixture}: published through the finalization transaction\n{}",
            walk.trail()
        );
    }
}

/// The same in the recorded repository (its task commits in place).
#[test]
fn readme_closed_the_last_task_state_did_not_in_git() {
    for (fixture, plan) in FIXTURES {
        let case = crate::support::plans::in_vector_repo(fixture, plan, "ready-to-publish");
        let walk = walk(&case.root, 8, &[]);
        walk.assert_conformant();
        assert!(
            case.plan
                .join("analysis_results/FINALIZATION.json")
                .exists()
        );
    }
}

/// A writer killed before the marker, the last task closed in the markdown: its dead lock is
/// named first, then the disagreement; unlock, rebuild and the publication follow — in git and
/// outside it.
#[test]
fn killed_writer_before_the_marker_reaches_conformant_by_the_hints() {
    for (fixture, plan) in FIXTURES {
        let ws = Workspace::ready_to_publish(fixture, plan);
        crate::support::chain::dead_writers_lock(&ws.plan_dir());
        let outside = walk(ws.root(), 8, &[]);
        outside.assert_conformant();
        assert!(
            outside.actions()[0].starts_with("planseal unlock"),
            "{}",
            outside.trail()
        );

        let case = crate::support::plans::in_vector_repo(fixture, plan, "ready-to-publish");
        crate::support::chain::dead_writers_lock(&case.plan);
        let inside = walk(&case.root, 8, &[]);
        inside.assert_conformant();
    }
}

/// Every broken case of the history checks, in a repository: the hints lead to CONFORMANT.
#[test]
fn history_cases_reach_conformant_by_the_hints() {
    use crate::support::plans;
    let cases: Vec<(&str, plans::Case)> = vec![
        ("state.json deleted", plans::deleted_state()),
        ("state two tasks behind", plans::stale_state()),
        ("state ahead of the markdown", plans::state_ahead()),
        ("a commit that does not exist", {
            let case = plans::clean();
            let path = case.plan.join("state.json");
            let mut v: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            v["tasks"][2]["commit"] = "0123456789abcdef0123456789abcdef01234567".into();
            std::fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
            case
        }),
        ("manifest lost, the plan tracked", {
            let case = tracked_plan();
            std::fs::remove_file(case.plan.join("manifest.json")).unwrap();
            case
        }),
        ("manifest edited and committed mid-plan", {
            let (mut repo, case) = tracked_repo();
            let path = case.plan.join("manifest.json");
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(
                &path,
                text.replace("\"task_count\": 3", "\"task_count\": 4"),
            )
            .unwrap();
            repo.commit("chore: widen the plan");
            plans::Case {
                tmp: repo.dir,
                root: case.root,
                plan: case.plan,
            }
        }),
        ("state.json corrupted, the plan tracked", {
            let case = tracked_plan();
            std::fs::write(case.plan.join("state.json"), "{\"schema\": ").unwrap();
            case
        }),
        ("state.json corrupted", {
            let case = plans::clean();
            std::fs::write(case.plan.join("state.json"), "{\"schema\": ").unwrap();
            case
        }),
    ];
    let mut failed = Vec::new();
    for (name, case) in &cases {
        let walked = walk(&case.root, 8, &[]);
        // The altered manifest goes back to the version of the commit that added it.
        if name.starts_with("manifest edited") && walked.conformant {
            assert!(
                walked
                    .actions()
                    .iter()
                    .any(|a| a.contains("--manifest --from") && a.ends_with("--write")),
                "{}",
                walked.trail()
            );
        }
        if !walked.conformant {
            failed.push(format!(
                "{name}:\n{}\n{}",
                walked.trail(),
                walked.last_verify
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// A's plan after task 1 committed with the repository (`.dwp/` tracked), pinned dates.
fn tracked_plan() -> crate::support::plans::Case {
    let (repo, case) = tracked_repo();
    crate::support::plans::Case {
        tmp: repo.dir,
        ..case
    }
}

/// [`tracked_plan`] with the repository kept, to commit more (the case's own temp dir is an
/// unused placeholder until the repository's takes its place).
fn tracked_repo() -> (
    crate::support::gitrepo::FixtureRepo,
    crate::support::plans::Case,
) {
    use crate::support::plans;
    let mut r = crate::support::gitrepo::FixtureRepo::new();
    r.write("src/lib.py", "base\n");
    r.commit("chore: base");
    let plan = r.path().join(".dwp/plans").join(plans::PLAN_A);
    crate::support::fs::copy_dir(
        &plans::snapshot("A_lite_v2", plans::PLAN_A, "after-task1"),
        &plan,
    );
    r.commit("docs: materialise PLAN_http_rate_limit");
    let root = r.path().to_path_buf();
    let tmp = tempfile::tempdir().unwrap();
    (r, plans::Case { tmp, root, plan })
}

/// A published plan whose last task commit was dropped by `git reset --hard HEAD~1`: the hints
/// bring the published history back (a fast-forward to the commit the receipt names).
#[test]
fn published_plan_then_reset_hard_reaches_conformant_by_the_hints() {
    let case = crate::support::plans::clean();
    assert_eq!(run_in(&case.root, &["finalize", &case.plan_rel()]).code, 0);
    crate::support::gitrepo::git(&case.root, &["reset", "-q", "--hard", "HEAD~1"]);
    let walked = walk(&case.root, 6, &[]);
    walked.assert_conformant();
    assert!(
        walked.actions()[0].starts_with("git merge --ff-only "),
        "{}",
        walked.trail()
    );
}

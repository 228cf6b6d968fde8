//! Snapshots of the text planseal prints, one file each under `snapshots/`: the `--help` of every
//! command, `verify` on the bundled examples and on a NOT CONFORMANT plan, refusals of `update`
//! and `finalize`, and the `recover --dry-run` diagnosis of an interrupted publication.
//!
//! A changed or missing snapshot fails the test (insta writes a `.snap.new` beside it, except
//! under CI, where .ci/run also sets `INSTA_UPDATE=no`). After a deliberate change to the
//! output, run the tests with `INSTA_UPDATE=always` (or `cargo insta review`) and read the diff
//! of the `.snap` files before committing them.
//!
//! What differs from run to run is replaced before the comparison: the case's temp folder by
//! `[ROOT]` (any other temp folder by `[TMP]`), a lock owner's pid by `[PID]` and host by
//! `[HOST]`. Everything else is fixed by the hermetic runner (clock, environment, no colour).

use crate::support::finalize::Workspace;
use crate::support::fs::copy_dir;
use crate::support::run::{Planseal, Run};
use planseal::recovery::store::LockOwner;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The clock the refusal probes of the vectors were recorded with.
const PROBE_CLOCK: &str = "2026-11-02T10:00:00+00:00";

fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What varies between runs: (text, placeholder) pairs, replaced longest text first, so a folder
/// goes before a prefix of it could.
#[derive(Default)]
pub(crate) struct Filters(Vec<(String, String)>);

impl Filters {
    pub(crate) fn root(mut self, dir: &Path) -> Self {
        for path in [dir.to_path_buf(), dir.canonicalize().expect("canonical")] {
            self.0.push((path.display().to_string(), "[ROOT]".into()));
        }
        self
    }
    fn pid(mut self, pid: u32) -> Self {
        self.0.push((format!("pid {pid}"), "pid [PID]".into()));
        self
    }
    /// The host name only where the text names a host: a short name could occur anywhere.
    fn host(mut self, host: &str) -> Self {
        self.0.push((format!("host {host}"), "host [HOST]".into()));
        self
    }
}

/// Compares `text` with the snapshot `name`, after the filters; `what` (the command line) goes
/// into the snapshot's header.
pub(crate) fn check(name: &str, what: &str, text: &str, filters: Filters) {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_description(what);
    let mut exact = filters.0;
    exact.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
    for (from, to) in exact {
        settings.add_filter(&regex::escape(&from), to);
    }
    // any other temp folder (tempfile names them `.tmpXXXXXX`)
    let tmp = std::env::temp_dir();
    let tmp = regex::escape(tmp.to_str().expect("UTF-8 temp dir").trim_end_matches('/'));
    settings.add_filter(&format!(r"{tmp}/\.tmp[A-Za-z0-9]+"), "[TMP]");
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// Exit code and both streams, as one text.
fn transcript(run: &Run) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        run.code, run.stdout, run.stderr
    )
}

// ---------------------------------------------------------------------------------- --help

macro_rules! help_snapshots {
    ($($name:ident => [$($word:literal),*],)*) => {
        $(
            #[test]
            fn $name() {
                let words: &[&str] = &[$($word),*];
                let run = Planseal::new().args(words).arg("--help").output();
                let what = ["planseal"]
                    .iter()
                    .chain(words)
                    .chain(&["--help"])
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" ");
                assert_eq!(run.code, 0, "{what}: {}", run.stderr);
                assert_eq!(run.stderr, "", "{what}");
                check(stringify!($name), &what, &run.stdout, Filters::default());
            }
        )*

        /// Every command that `planseal help` lists has its snapshot above.
        #[test]
        fn every_subcommand_has_a_help_snapshot() {
            let covered: Vec<Vec<&str>> = vec![$(vec![$($word),*]),*];
            let mut missing = Vec::new();
            let mut found = 0;
            let mut queue: Vec<Vec<String>> = vec![Vec::new()];
            while let Some(words) = queue.pop() {
                let run = Planseal::new().args(&words).arg("--help").output();
                assert_eq!(run.code, 0, "{words:?}: {}", run.stderr);
                let Some((_, list)) = run.stdout.split_once("Commands:\n") else {
                    continue;
                };
                for line in list.lines().take_while(|l| !l.trim().is_empty()) {
                    // a command line starts with two spaces; wrapped descriptions with more
                    let Some(name) = line.strip_prefix("  ").filter(|l| !l.starts_with(' ')) else {
                        continue;
                    };
                    let name = name.split_whitespace().next().expect("a command name");
                    if name == "help" {
                        continue;
                    }
                    let mut sub = words.clone();
                    sub.push(name.to_string());
                    found += 1;
                    if !covered.iter().any(|c| *c == sub) {
                        missing.push(sub.join(" "));
                    }
                    queue.push(sub);
                }
            }
            assert!(missing.is_empty(), "no help snapshot for: {missing:?}");
            // every snapshot but the top level's is a command the help lists
            assert_eq!(found, covered.len() - 1);
        }
    };
}

help_snapshots! {
    help_planseal => [],
    help_completions => ["completions"],
    help_man => ["man"],
    help_schema => ["schema"],
    help_mcp => ["mcp"],
    help_verify => ["verify"],
    help_update => ["update"],
    help_unlock => ["unlock"],
    help_finalize => ["finalize"],
    help_recover => ["recover"],
    help_rebuild => ["rebuild"],
    help_approve => ["approve"],
    help_task => ["task"],
    help_task_done => ["task", "done"],
    help_amend => ["amend"],
    help_publish_check => ["publish-check"],
    help_refine => ["refine"],
    help_promote => ["promote"],
    help_diff => ["diff"],
    help_log => ["log"],
    help_status => ["status"],
    help_report => ["report"],
    help_gsd => ["gsd"],
    help_gsd_statusline => ["gsd", "statusline"],
    help_gsd_status => ["gsd", "status"],
    help_gsd_check => ["gsd", "check"],
    help_gsd_sync => ["gsd", "sync"],
    help_gsd_recover => ["gsd", "recover"],
    help_gsd_decision => ["gsd", "decision"],
    help_gsd_decision_add => ["gsd", "decision", "add"],
    help_gsd_blocker => ["gsd", "blocker"],
    help_gsd_blocker_add => ["gsd", "blocker", "add"],
    help_gsd_blocker_resolve => ["gsd", "blocker", "resolve"],
    help_gsd_session => ["gsd", "session"],
    help_gsd_session_record => ["gsd", "session", "record"],
    help_reversa => ["reversa"],
    help_reversa_status => ["reversa", "status"],
    help_reversa_advance => ["reversa", "advance"],
    help_reversa_set => ["reversa", "set"],
    help_reversa_history => ["reversa", "history"],
    help_checkpoint => ["checkpoint"],
    help_checkpoint_status => ["checkpoint", "status"],
    help_checkpoint_init => ["checkpoint", "init"],
    help_checkpoint_refresh => ["checkpoint", "refresh"],
    help_checkpoint_diff => ["checkpoint", "diff"],
    help_checkpoint_session => ["checkpoint", "session"],
    help_checkpoint_session_add => ["checkpoint", "session", "add"],
    help_checkpoint_context => ["checkpoint", "context"],
    help_checkpoint_restore => ["checkpoint", "restore"],
    help_demo => ["demo"],
    help_merge_driver => ["merge-driver"],
    help_hook => ["hook"],
    help_hook_session_start => ["hook", "session-start"],
    help_hook_stop => ["hook", "stop"],
    help_hooks => ["hooks"],
    help_hooks_install => ["hooks", "install"],
    help_hooks_uninstall => ["hooks", "uninstall"],
    help_hook_pre_commit => ["hook", "pre-commit"],
    help_hook_pre_push => ["hook", "pre-push"],
    help_hook_commit_msg => ["hook", "commit-msg"],
}

// ---------------------------------------------------------------------------------- verify

/// The bundled examples, copied out of planseal's own repository: there its git history would
/// be read as the examples' history (and differ between a clone and a shallow clone).
fn examples() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("temp dir");
    copy_dir(&project().join("fixtures/examples"), tmp.path());
    tmp
}

#[test]
fn verify_examples() {
    let tmp = examples();
    let run = Planseal::new().cwd(tmp.path()).arg("verify").output();
    assert_eq!(run.code, 0, "{}", run.stderr);
    check(
        "verify_examples",
        "planseal verify (fixtures/examples)",
        &transcript(&run),
        Filters::default().root(tmp.path()),
    );
}

#[test]
fn verify_examples_json() {
    let tmp = examples();
    let run = Planseal::new()
        .cwd(tmp.path())
        .args(["--json", "verify"])
        .output();
    assert_eq!(run.json()["verdict"], "CONFORMANT");
    check(
        "verify_examples_json",
        "planseal --json verify (fixtures/examples)",
        &run.stdout,
        Filters::default().root(tmp.path()),
    );
}

/// A broken variant of `fixtures/dwp/broken/` built as verify_fixtures builds it.
pub(crate) fn broken_variant(case: &str) -> tempfile::TempDir {
    let case_dir = project().join("fixtures/dwp/broken").join(case);
    let doc: Value = serde_json::from_slice(
        &std::fs::read(case_dir.join("variant.json")).expect("variant.json"),
    )
    .expect("variant.json parses");
    let base = doc["base"].as_str().expect("base");
    let tmp = tempfile::tempdir().expect("temp dir");
    let dest = tmp.path().join(".dwp/plans").join(base);
    copy_dir(
        &project().join("fixtures/dwp/good/.dwp/plans").join(base),
        &dest,
    );
    for op in doc["setup"].as_array().expect("setup") {
        let path = dest.join(op["path"].as_str().expect("path"));
        match op["op"].as_str().expect("op") {
            "write" => {
                std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
                std::fs::copy(case_dir.join(op["from"].as_str().expect("from")), &path)
                    .expect("copy");
            }
            "delete" => std::fs::remove_file(&path).expect("delete"),
            other => panic!("unknown op {other}"),
        }
    }
    tmp
}

#[test]
fn verify_not_conformant() {
    let tmp = broken_variant("readme-ticked-state-pending");
    let run = Planseal::new().cwd(tmp.path()).arg("verify").output();
    assert_eq!(run.code, 1, "{}", run.stderr);
    check(
        "verify_not_conformant",
        "planseal verify (fixtures/dwp/broken/readme-ticked-state-pending)",
        &transcript(&run),
        Filters::default().root(tmp.path()),
    );
}

// ---------------------------------------------------------------------------------- refusals

/// A refusal probe of the recorded vectors, set up in a scratch folder: the workspace and the
/// recorded argv without the helper's name.
fn probe(fixture: &str, plan: &str, case: &str) -> (Workspace, Vec<String>) {
    let doc = crate::support::finalize::json(
        crate::support::finalize::vectors(fixture).join("refusals/refusals.json"),
    );
    let probe = doc["probes"]
        .as_array()
        .expect("probes")
        .iter()
        .find(|p| p["case"] == case)
        .unwrap_or_else(|| panic!("no probe {case} in {fixture}"))
        .clone();
    assert_eq!(probe["cwd"], "<repo root>", "{case}");
    let ws = Workspace::from_folder(fixture, plan, probe["base"].as_str().expect("base"));
    ws.apply_setup(&probe["setup"]);
    let argv = probe["argv"].as_array().expect("argv")[1..]
        .iter()
        .map(|a| a.as_str().expect("arg").to_string())
        .collect();
    (ws, argv)
}

/// `planseal COMMAND ARGV…` in the workspace on the probes' clock; the refusal's transcript.
fn refused(ws: &Workspace, command: &str, argv: &[String], kind: &str) -> (String, String) {
    let run = Planseal::new()
        .cwd(ws.root())
        .clock(PROBE_CLOCK)
        .arg(command)
        .args(argv)
        .output();
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        run.stderr.starts_with(&format!("{kind}: ")),
        "{kind}: {}",
        run.stderr
    );
    (
        format!("planseal {command} {}", argv.join(" ")),
        transcript(&run),
    )
}

macro_rules! probe_snapshots {
    ($($name:ident => $command:literal, $fixture:literal, $plan:literal, $case:literal, $kind:literal;)*) => {
        $(
            #[test]
            fn $name() {
                let (ws, argv) = probe($fixture, $plan, $case);
                let (what, text) = refused(&ws, $command, &argv, $kind);
                check(stringify!($name), &what, &text, Filters::default().root(ws.root()));
            }
        )*
    };
}

const A: &str = "PLAN_http_rate_limit";

probe_snapshots! {
    update_prior_task_incomplete => "update", "A_lite_v2", "PLAN_http_rate_limit",
        "prior-task-incomplete", "prior-task-incomplete";
    update_stale_snapshot => "update", "A_lite_v2", "PLAN_http_rate_limit",
        "stale-snapshot", "stale-snapshot";
    update_lock_present_unknown_owner => "update", "A_lite_v2", "PLAN_http_rate_limit",
        "lock-present", "lock-present";
    update_completion_with_failing_gate => "update", "A_lite_v2", "PLAN_http_rate_limit",
        "complete-with-failing-gate", "completion-gates-unsuccessful";
    update_terminal_readme_not_ticked => "update", "B_full_v5", "PLAN_webhook_retry_backoff",
        "terminal-readme-not-ticked", "readme-checkbox-disagrees";
    finalize_marker_present => "finalize", "B_full_v5", "PLAN_webhook_retry_backoff",
        "finalizer-marker-present", "marker-present";
    finalize_candidate_not_completed => "finalize", "B_full_v5", "PLAN_webhook_retry_backoff",
        "finalizer-candidate-not-completed", "candidate-not-completed";
    finalize_candidate_truncated => "finalize", "B_full_v5", "PLAN_webhook_retry_backoff",
        "finalizer-candidate-truncated", "candidate-unparseable";
}

/// A lock whose owner record names a process of this host that is gone: the refusal shows the
/// owner (pid and host filtered) and how to remove the lock.
#[test]
fn update_lock_present_dead_owner() {
    let ws = Workspace::from_folder("A_lite_v2", A, &format!("fixture/{A}"));
    let mut owner = LockOwner::for_this_process("update task 1 → in_progress", "planseal test");
    let mut child = std::process::Command::new("true")
        .spawn()
        .expect("true runs");
    owner.pid = child.id();
    child.wait().expect("true ends");
    owner.acquired_at = "2026-11-02T09:58:00+00:00".into();
    let lock = ws.plan_dir().join("state.json.lock");
    std::fs::create_dir(&lock).expect("lock dir");
    std::fs::write(
        lock.join("owner.json"),
        serde_json::to_vec_pretty(&owner).expect("owner JSON"),
    )
    .expect("owner record");
    let argv: Vec<String> = [
        format!(".dwp/plans/{A}/state.json").as_str(),
        "--task",
        "1",
        "--status",
        "in_progress",
    ]
    .map(String::from)
    .to_vec();
    let (what, text) = refused(&ws, "update", &argv, "lock-present");
    check(
        "update_lock_present_dead_owner",
        &what,
        &text,
        Filters::default()
            .root(ws.root())
            .pid(owner.pid)
            .host(&owner.host),
    );
}

/// The terminal publication of B through `finalize` with the recorded candidate, the security
/// review deleted: the plan's own finding is the refusal.
#[test]
fn finalize_security_review_missing() {
    let (ws, _) = probe(
        "B_full_v5",
        "PLAN_webhook_retry_backoff",
        "terminal-security-review-missing",
    );
    ws.place("lifecycle/publication/02-state.json", "candidate.json");
    let argv = [ws.plan_rel(), "--candidate".into(), "candidate.json".into()];
    let (what, text) = refused(&ws, "finalize", &argv, "security-review-missing");
    check(
        "finalize_security_review_missing",
        &what,
        &text,
        Filters::default().root(ws.root()),
    );
}

// ---------------------------------------------------------------------------------- recover

/// A's publication interrupted after its marker, before state.json was replaced.
fn interrupted() -> Workspace {
    let ws = Workspace::from_folder(
        "A_lite_v2",
        A,
        &format!("interrupted/before_publish/plan-after-interruption/{A}"),
    );
    ws.place("interrupted/candidate.json", "candidate.json");
    ws
}

#[test]
fn recover_dry_run_of_an_interrupted_publication() {
    let ws = interrupted();
    let run = Planseal::new()
        .cwd(ws.root())
        .args(["recover", &ws.plan_rel(), "--dry-run"])
        .output();
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(ws.exists(".finalizing.json"));
    check(
        "recover_dry_run",
        &format!("planseal recover {} --dry-run", ws.plan_rel()),
        &transcript(&run),
        Filters::default().root(ws.root()),
    );
}

#[test]
fn recover_dry_run_with_the_candidate() {
    let ws = interrupted();
    let args = [
        "recover",
        &ws.plan_rel(),
        "--dry-run",
        "--candidate",
        "candidate.json",
    ];
    let run = Planseal::new().cwd(ws.root()).args(args).output();
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(ws.exists(".finalizing.json"));
    check(
        "recover_dry_run_with_candidate",
        &format!("planseal {}", args.join(" ")),
        &transcript(&run),
        Filters::default().root(ws.root()),
    );
}

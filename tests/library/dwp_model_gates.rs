//! Gate evidence rules and the `--gate` argument, table-driven and property-based.

use planseal::dwp::check::gates::{
    EvidenceProblem, GateSpec, GateSpecError, admits_non_execution, completion_problems,
    evidence_problem, is_identical_replay, is_invalidated, is_zero_selection, latest_per_command,
    log_pointers, parse_gate_spec, replays_latest, task_gate_findings,
};
use planseal::dwp::model::{State, Task};
use proptest::prelude::*;
use serde_json::json;

#[test]
fn zero_selection_table() {
    let cases: &[(&str, bool)] = &[
        ("ran=0", true),
        ("overran=0", true),
        ("executed=0.5", true),
        ("selected = 0/12", true),
        ("RAN=0; log=x", true),
        ("Selected=0", true),
        ("ran=0/3", true),
        ("no tests ran", true),
        ("No test found", true),
        ("no tests collected", true),
        ("ran=05", false),
        ("Ran 0 tests", false),
        ("ran=10/10", false),
        ("ran=1", false),
        ("no tests failed", false),
        // Unicode-aware: a letter after the 0 is a word character, so no boundary
        ("ran=0é", false),
        ("ran=0—done", true),
        // Python's `\s` also takes the information separators U+001C..U+001F
        ("ran\u{1F}=0", true),
        ("ran\u{3000}=\u{3000}0", true),
    ];
    for (evidence, expected) in cases {
        assert_eq!(is_zero_selection(evidence), *expected, "{evidence:?}");
    }
}

#[test]
fn non_execution_table() {
    let cases: &[(&str, bool)] = &[
        ("cannot run", true),
        ("not run in CI", true),
        ("never executed", true),
        ("did not run", true),
        ("Did  Not  Perform the load test", true),
        ("structurally impossible", true),
        ("cannot be verified here", true),
        ("scenario unexecuted", true),
        ("Unexecuted", true),
        ("preunexecuted", false),
        ("ran=3/3 all green", false),
        ("cannot be", false),
        ("notrun", false),
        // Unicode whitespace counts as whitespace
        ("not\u{a0}run", true),
    ];
    for (evidence, expected) in cases {
        assert_eq!(admits_non_execution(evidence), *expected, "{evidence:?}");
    }
}

#[test]
fn zero_selection_wins_over_non_execution() {
    assert_eq!(
        evidence_problem("ran=0; tests did not run"),
        Some(EvidenceProblem::ZeroSelection)
    );
    assert_eq!(
        evidence_problem("tests did not run"),
        Some(EvidenceProblem::NonExecution)
    );
    assert_eq!(evidence_problem("ran=4/4"), None);
}

#[test]
fn invalidated_prefix() {
    assert!(is_invalidated("  Invalidated by refine on 2026-10-01"));
    assert!(!is_invalidated("was invalidated by refine"));
}

#[test]
fn log_pointer_table() {
    assert_eq!(log_pointers("log=a,b"), ["a,b"]);
    assert_eq!(log_pointers("LOG=a; Log=b"), Vec::<&str>::new());
    assert_eq!(log_pointers("log=a; log=b c"), ["a", "b"]);
    assert_eq!(log_pointers("catalog=a"), Vec::<&str>::new());
    assert_eq!(log_pointers("x_log=a"), Vec::<&str>::new());
    assert_eq!(log_pointers("-log=a"), ["a"]);
    assert_eq!(log_pointers("log="), Vec::<&str>::new());
}

fn task(value: serde_json::Value) -> Task {
    Task::from_value(0, &value)
}

#[test]
fn latest_record_per_command_decides() {
    let t = task(
        json!({"id": 2, "status": "completed", "completed_at": "2026-01-01T00:00:00Z", "gates": [
            {"command": "a", "passes": false, "exit_code": 1, "evidence": "red"},
            {"command": "b", "passes": true, "exit_code": 0, "evidence": "ok"},
            {"command": "a", "passes": true, "exit_code": 0, "evidence": "green"},
            {"command": "c", "passes": "yes", "exit_code": 0, "evidence": "?"},
        ]}),
    );
    let latest = latest_per_command(&t.gates);
    let seen: Vec<_> = latest
        .iter()
        .map(|g| {
            (
                g.command.as_deref().unwrap(),
                g.evidence.as_deref().unwrap(),
            )
        })
        .collect();
    assert_eq!(seen, [("a", "green"), ("b", "ok")]);
    let ids: Vec<_> = task_gate_findings(&t, None)
        .into_iter()
        .map(|f| f.id)
        .collect();
    assert_eq!(ids, ["gate-record-malformed"]);
}

#[test]
fn completed_task_with_failing_latest_run() {
    let t = task(json!({"id": 1, "status": "completed", "gates": [
        {"command": "a", "passes": true, "exit_code": 0, "evidence": "ok"},
        {"command": "a", "passes": false, "exit_code": 1, "evidence": "red"},
        {"command": "b", "passes": true, "exit_code": 0, "evidence": "ok"},
    ]}));
    let f = task_gate_findings(&t, None);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].id, "failing-gate-without-later-pass");
    assert_eq!(f[0].task, Some(1));
    // a forged record: passes true but exit 1
    let forged = task(json!({"id": 1, "status": "completed", "gates": [
        {"command": "a", "passes": true, "exit_code": 1, "evidence": "ok"}]}));
    assert_eq!(
        task_gate_findings(&forged, None)[0].id,
        "failing-gate-without-later-pass"
    );
    // not completed: the failing run is just history
    let open = task(json!({"id": 1, "status": "in_progress", "gates": [
        {"command": "a", "passes": false, "exit_code": 1, "evidence": "red"}]}));
    assert!(task_gate_findings(&open, None).is_empty());
}

#[test]
fn invalidated_and_missing_gates_on_completed_tasks() {
    let t = task(json!({"id": 3, "status": "completed", "gates": [
        {"command": "a", "passes": true, "exit_code": 0, "evidence": "invalidated by refine: ran=0"}]}));
    let ids: Vec<_> = task_gate_findings(&t, None)
        .into_iter()
        .map(|f| f.id)
        .collect();
    assert_eq!(ids, ["evidence-invalidated-by-refine"]);
    let none = task(json!({"id": 3, "status": "completed", "gates": []}));
    let ids: Vec<_> = task_gate_findings(&none, None)
        .into_iter()
        .map(|f| f.id)
        .collect();
    assert_eq!(ids, ["completion-gates-unsuccessful"]);
}

#[test]
fn one_record_can_give_two_findings() {
    let t = task(json!({"id": 1, "status": "in_progress", "gates": [
        {"command": "a", "passes": true, "exit_code": 0, "evidence": "ran=0; log=/tmp/x.log"}]}));
    let ids: Vec<_> = task_gate_findings(&t, None)
        .into_iter()
        .map(|f| f.id)
        .collect();
    assert_eq!(ids, ["zero-selection-evidence", "log-pointer-outside-plan"]);
    let t = task(json!({"id": 1, "status": "in_progress", "gates": [
        {"command": "a", "passes": true, "exit_code": 0, "evidence": "never ran; log=../x.log; log=a/../../b"}]}));
    let ids: Vec<_> = task_gate_findings(&t, None)
        .into_iter()
        .map(|f| f.id)
        .collect();
    assert_eq!(
        ids,
        [
            "non-execution-evidence",
            "log-pointer-outside-plan",
            "log-pointer-outside-plan"
        ]
    );
    // failing records are not judged on their evidence
    let failing = task(json!({"id": 1, "status": "in_progress", "gates": [
        {"command": "a", "passes": false, "exit_code": 1, "evidence": "ran=0; log=/abs"}]}));
    assert!(task_gate_findings(&failing, None).is_empty());
}

#[test]
fn log_pointers_on_disk() {
    let plan = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(plan.path().join("analysis_results/gates")).unwrap();
    std::fs::write(plan.path().join("analysis_results/gates/t1.log"), "ok\n").unwrap();
    std::fs::write(outside.path().join("secret.log"), "x\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), plan.path().join("escape")).unwrap();
    let t = task(
        json!({"id": 1, "status": "completed", "completed_at": "2026-01-01T00:00:00Z", "gates": [
            {"command": "a", "passes": true, "exit_code": 0, "evidence": "log=analysis_results/gates/t1.log"},
            {"command": "b", "passes": true, "exit_code": 0, "evidence": "log=analysis_results/gates/gone.log"},
            {"command": "c", "passes": true, "exit_code": 0, "evidence": "log=escape/secret.log"},
        ]}),
    );
    let f = task_gate_findings(&t, Some(plan.path()));
    let ids: Vec<_> = f.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, ["log-pointer-missing", "log-pointer-outside-plan"]);
    assert!(f[0].message.contains("analysis_results/gates/gone.log"));
}

#[test]
fn completion_rule() {
    let ok = task(json!({"id": 1, "gates": [
        {"command": "a", "passes": false, "exit_code": 1, "evidence": "red"},
        {"command": "a", "passes": true, "exit_code": 0, "evidence": "green"}]}));
    assert!(completion_problems(&ok).is_empty());
    let cases = [
        json!({"id": 1, "gates": []}),
        json!({"id": 1}),
        json!({"id": 1, "gates": [{"command": "a", "passes": true, "exit_code": 0, "evidence": " "}]}),
        json!({"id": 1, "gates": [{"command": "", "passes": true, "exit_code": 0, "evidence": "ok"}]}),
        json!({"id": 1, "gates": [{"command": "a", "passes": true, "exit_code": 1, "evidence": "ok"}]}),
        json!({"id": 1, "gates": [{"command": "a", "passes": false, "exit_code": 0, "evidence": "ok"}]}),
        json!({"id": 1, "gates": [{"command": "a", "passes": true, "exit_code": 0, "evidence": "ok"},
                                  {"command": "b", "passes": false, "exit_code": 2, "evidence": "red"}]}),
    ];
    for c in cases {
        assert!(!completion_problems(&task(c.clone())).is_empty(), "{c}");
    }
}

#[test]
fn replay_detection() {
    let a = json!({"command": "t", "passes": true, "last_run": "2026-01-01T00:00:00Z", "exit_code": 0, "evidence": "ok"});
    let b = json!({"evidence": "ok", "exit_code": 0, "passes": true, "command": "t", "last_run": "2026-01-02T00:00:00Z"});
    let c = json!({"command": "t", "passes": true, "last_run": "2026-01-01T00:00:00Z", "exit_code": 0, "evidence": "ok2"});
    assert!(is_identical_replay(&a, &b));
    assert!(!is_identical_replay(&a, &c));
    assert!(replays_latest(&[c.clone(), a.clone()], &b));
    assert!(!replays_latest(&[a.clone(), c.clone()], &b));
    assert!(!replays_latest(&[], &b));
}

#[test]
fn gate_spec_splits() {
    let s = parse_gate_spec("cargo test|0|ran=3/3").unwrap();
    assert_eq!(
        s,
        GateSpec {
            command: "cargo test".into(),
            exit_code: 0,
            evidence: "ran=3/3".into()
        }
    );
    // a pipe in the command: the last-two split has the integer middle field
    let s = parse_gate_spec("make test 2>&1 | tail -n 3|0|summary").unwrap();
    assert_eq!(s.command, "make test 2>&1 | tail -n 3");
    assert_eq!(s.evidence, "summary");
    // a pipe in the evidence: the first-two split wins
    let s = parse_gate_spec("pytest|1|a | b").unwrap();
    assert_eq!(
        (s.command.as_str(), s.exit_code, s.evidence.as_str()),
        ("pytest", 1, "a | b")
    );
    assert!(!s.passes());
    let e = parse_gate_spec("a|0|b|1|c").unwrap_err();
    assert_eq!(e.kind(), "gate-spec-ambiguous");
    assert!(e.hint().contains("--gate-json"));
    assert_eq!(
        parse_gate_spec("a|0").unwrap_err().kind(),
        "gate-spec-malformed"
    );
    assert_eq!(
        parse_gate_spec("abc").unwrap_err(),
        GateSpecError::Malformed { fields: 1 }
    );
    assert_eq!(
        parse_gate_spec("a|b|c").unwrap_err().kind(),
        "gate-exit-code-not-integer"
    );
    assert_eq!(
        parse_gate_spec("a | b|x|c").unwrap_err().kind(),
        "gate-exit-code-not-integer"
    );
    // both splits read the same record
    assert!(parse_gate_spec("a|0|b|0|b").is_err());
    assert_eq!(parse_gate_spec("||0|").unwrap().command, "|");
}

#[test]
fn findings_from_a_whole_state() {
    let state = State::from_value(&json!({"tasks": [
        {"id": 1, "status": "completed", "gates": [{"command": "a", "passes": true, "exit_code": 0, "evidence": "no tests ran"}]},
        {"id": 2, "status": "in_progress", "gates": [{"command": "a", "passes": true, "exit_code": 0, "evidence": "ok"}]}
    ]}));
    let f = planseal::dwp::check::gates::state_gate_findings(&state, None);
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].id.as_str(), f[0].task),
        ("zero-selection-evidence", Some(1))
    );
}

proptest! {
    #[test]
    fn gate_spec_never_panics(spec in "\\PC{0,60}") {
        let _ = parse_gate_spec(&spec);
    }

    #[test]
    fn gate_spec_round_trips(command in "[^|]{0,20}", code in -300i64..300, evidence in "[^|]{0,20}") {
        let spec = format!("{command}|{code}|{evidence}");
        let parsed = parse_gate_spec(&spec).unwrap();
        prop_assert_eq!(parsed, GateSpec { command, exit_code: code, evidence });
    }

    #[test]
    fn pipe_in_command_is_read_by_the_last_split(
        left in "[a-z ]{1,10}", right in "[a-z ]{1,10}", code in 0i64..255, evidence in "[a-z=;/ ]{0,20}"
    ) {
        let command = format!("{left}|{right}");
        let parsed = parse_gate_spec(&format!("{command}|{code}|{evidence}")).unwrap();
        prop_assert_eq!(parsed, GateSpec { command, exit_code: code, evidence });
    }

    #[test]
    fn evidence_rules_never_panic(evidence in "\\PC{0,80}") {
        let _ = evidence_problem(&evidence);
        let _ = is_invalidated(&evidence);
        for p in log_pointers(&evidence) {
            prop_assert!(!p.is_empty() && !p.contains(';'));
        }
    }
}

#[test]
fn plan_dir_resolution_through_links() {
    use planseal::dwp::check::gates::{PlanDir, Resolved};
    use planseal::recovery::paths::PathError;
    let plan = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let p = plan.path();
    std::fs::create_dir_all(p.join("analysis_results/gates")).unwrap();
    std::fs::write(p.join("analysis_results/gates/a.log"), "a").unwrap();
    std::fs::write(p.join("file"), "f").unwrap();
    // a link that stays inside is fine; links that leave are refused, dangling or not
    std::os::unix::fs::symlink(p.join("analysis_results"), p.join("inner")).unwrap();
    std::os::unix::fs::symlink(outside.path(), p.join("out")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("gone.log"), p.join("dangling.log")).unwrap();
    std::os::unix::fs::symlink(p.join("nothing.log"), p.join("dangling_inside.log")).unwrap();
    let dir = PlanDir::new(p);
    let inside = |rel: &str| matches!(dir.resolve(rel), Ok(Resolved::Inside { .. }));
    assert!(inside("analysis_results/gates/a.log"));
    assert!(inside("./analysis_results/gates/a.log"));
    assert!(inside("inner/gates/a.log"));
    assert!(inside("analysis_results"));
    // the look-up tells a regular file from a folder itself, through an inside link too
    let regular = |rel: &str| {
        matches!(
            dir.resolve(rel),
            Ok(Resolved::Inside {
                regular_file: true,
                ..
            })
        )
    };
    assert!(regular("analysis_results/gates/a.log"));
    assert!(regular("inner/gates/a.log"));
    assert!(!regular("analysis_results"));
    assert!(!regular("inner"));
    assert!(!regular("."));
    assert_eq!(
        dir.resolve("analysis_results/gates/b.log"),
        Ok(Resolved::Missing)
    );
    assert_eq!(dir.resolve("nope/gates/b.log"), Ok(Resolved::Missing));
    assert_eq!(dir.resolve("file/x.log"), Ok(Resolved::Missing));
    assert_eq!(dir.resolve("dangling_inside.log"), Ok(Resolved::Missing));
    assert!(matches!(
        dir.resolve("out/x.log"),
        Err(PathError::SymlinkEscape(_))
    ));
    assert!(matches!(
        dir.resolve("dangling.log"),
        Err(PathError::SymlinkEscape(_))
    ));
    assert_eq!(dir.resolve("../x"), Err(PathError::ParentComponent));
    assert_eq!(dir.resolve("/x"), Err(PathError::Absolute));
    // the same answers a second time (prefix cache)
    assert!(inside("analysis_results/gates/a.log"));
    assert!(matches!(
        dir.resolve("out/x.log"),
        Err(PathError::SymlinkEscape(_))
    ));
}

proptest! {
    /// `latest_per_command` equals a naive model: for each command in order of first appearance,
    /// the last well-formed record.
    #[test]
    fn latest_per_command_matches_a_naive_model(
        records in prop::collection::vec((0u8..4, prop::option::of(any::<bool>())), 0..20)
    ) {
        let gates: Vec<serde_json::Value> = records
            .iter()
            .map(|(c, passes)| match passes {
                Some(p) => json!({"command": format!("c{c}"), "passes": p}),
                None => json!({"command": format!("c{c}")}),
            })
            .collect();
        let t = Task::from_value(0, &json!({"id": 1, "gates": gates}));
        let got: Vec<usize> = latest_per_command(&t.gates).iter().map(|g| g.index).collect();
        let mut order: Vec<u8> = Vec::new();
        for (c, p) in &records {
            if p.is_some() && !order.contains(c) {
                order.push(*c);
            }
        }
        let expected: Vec<usize> = order
            .iter()
            .map(|c| records.iter().rposition(|(d, p)| d == c && p.is_some()).unwrap())
            .collect();
        prop_assert_eq!(got, expected);
    }
}

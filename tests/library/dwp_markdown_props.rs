//! Property tests of the markdown readers: no input panics, fenced checkboxes never count, every
//! Status form is recognised, and a 50 MB README parses (correctness only, no timing).

use planseal::dwp::model::markdown::*;
use proptest::prelude::*;

/// Lines built from the pieces the readers look for, so random text hits their branches.
fn markdownish_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("```".to_string()),
        Just("~~~~".to_string()),
        Just("## Task List".to_string()),
        Just("## Tasks (3)".to_string()),
        Just("### Completion & Log".to_string()),
        Just("## 10. Completion & Log (x)".to_string()),
        Just("**Completion log:** ".to_string()),
        Just("### Amendment 1 — 2026-10-12".to_string()),
        Just("Original criterion: x".to_string()),
        Just("Gate record: `a · b` · exit 0 · k=v; x=".to_string()),
        Just("Commit: none —".to_string()),
        Just("| Critical | 0 |".to_string()),
        Just("Plan Status: 1/".to_string()),
        Just("**Standard:** DWP spec 5.0.0 (migrated from x on 2026-01-01 — y)".to_string()),
        (1u32..5, any::<bool>())
            .prop_map(|(n, c)| format!("- [{}] Task {n}: t", if c { "x" } else { " " })),
        (1u32..5).prop_map(|n| format!("## Task {n}: T {{#task-{n}}}")),
        "[ -~#*_`|\\[\\]()·—:é🚨\t]{0,40}",
        any::<String>(),
    ]
}

fn document() -> impl Strategy<Value = String> {
    prop::collection::vec(markdownish_line(), 0..40).prop_map(|v| v.join("\n"))
}

fn exercise_everything(text: &str) {
    let r = parse_readme(text);
    let _ = (
        r.goal(),
        r.context(),
        r.task_file_links(),
        r.task_index.contradicting_elsewhere(),
    );
    for rec in &r.inline.records {
        let _ = (
            rec.body.completion_log(),
            rec.body.gate_records(),
            rec.body.amendments(),
        );
    }
    let tf = parse_task_file(text);
    for name in KNOWN_LABELS {
        let _ = tf
            .body
            .field(name)
            .map(|f| (f.non_empty(), f.is_placeholder_only()));
    }
    let _ = (
        tf.body.completion_log(),
        tf.body.gate_records(),
        tf.body.sections(),
        tf.body.final_review_missing_terms(),
    );
    for a in tf.body.amendments() {
        let _ = (
            a.missing_or_empty(),
            a.disposition_kind(),
            a.authority_kind(),
            a.affected_task_numbers(),
        );
    }
    let _ = (
        read_before_references(&tf.body),
        has_validation_heading(&tf.body),
    );
    let _ = security_verdict(text);
    let entries = progress_entries(text);
    let _ = (
        mirrors_amendment(&entries, 1, 1),
        refinement_names_task(&entries, 2),
    );
    let _ = parse_task_file_name(text);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in document()) {
        exercise_everything(&text);
    }

    #[test]
    fn arbitrary_bytes_decode_or_report_an_offset(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        match decode(&bytes) {
            Ok(text) => exercise_everything(text),
            Err(e) => {
                prop_assert!(e.offset <= bytes.len());
                let start = if bytes.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
                prop_assert!(std::str::from_utf8(&bytes[start..e.offset]).is_ok());
            }
        }
    }

    #[test]
    fn fenced_checkboxes_never_count(
        before in prop::collection::vec((1u32..9, any::<bool>()), 0..5),
        fenced in prop::collection::vec((1u32..9, any::<bool>()), 1..5),
        tilde in any::<bool>(),
        extra in 0usize..3,
        with_section in any::<bool>(),
    ) {
        let fence = if tilde { "~".repeat(3 + extra) } else { "`".repeat(3 + extra) };
        let cb = |(n, c): &(u32, bool)| format!("- [{}] Task {n}: t", if *c { "X" } else { " " });
        let mut text = String::new();
        if with_section {
            text.push_str("## Task List\n\n");
        }
        for item in &before {
            text.push_str(&cb(item));
            text.push('\n');
        }
        text.push_str(&format!("  {fence}markdown\n"));
        for item in &fenced {
            text.push_str(&cb(item));
            text.push('\n');
        }
        text.push_str(&format!("{fence}{}\n", if extra > 0 { fence.chars().next().map(String::from).unwrap_or_default() } else { String::new() }));
        let r = parse_readme(&text);
        let got: Vec<(u32, bool)> = r.task_index.entries.iter().map(|e| (e.task, e.checked)).collect();
        prop_assert_eq!(got, before.clone());
        prop_assert!(r.task_index.elsewhere.is_empty());
    }

    #[test]
    fn every_status_form_is_recognised(
        form in 0usize..5,
        status in prop::sample::select(vec!["completed", "pending", "in_progress", "blocked", "skipped"]),
        upper in any::<bool>(),
        lite in any::<bool>(),
    ) {
        let value = if upper { status.to_uppercase() } else { status.to_string() };
        let line = match form {
            0 => format!("Status: {value}"),
            1 => format!("**Status:** {value}"),
            2 => format!("- **Status:** {value}"),
            3 => format!("**Status**: {value}"),
            _ => format!("* Status: {value}"),
        };
        let expected = match status {
            "completed" => LogStatus::Completed,
            "pending" => LogStatus::Pending,
            "in_progress" => LogStatus::InProgress,
            "blocked" => LogStatus::Blocked,
            _ => LogStatus::Skipped,
        };
        let got = if lite {
            let text = format!("## Task 1: A {{#task-1}}\n\n### Completion & Log\n\n{line}\nSkills disposition: none\n\n## Task List\n- [ ] Task 1\n");
            let r = parse_readme(&text);
            r.inline.record(1).and_then(|x| x.body.completion_log()).and_then(|l| l.status).map(|s| s.status)
        } else {
            let text = format!("# Task 1: A\n\n## 8. Completion & Log\n\n{line}\n");
            parse_task_file(&text).body.completion_log().and_then(|l| l.status).map(|s| s.status)
        };
        prop_assert_eq!(got, Some(expected));
    }

    #[test]
    fn gate_record_lines_round_trip(
        cmd in "[a-z][a-z0-9 ./|-]{0,30}",
        code in -3i64..300,
        items in prop::collection::vec(("[a-z]{1,6}", "[A-Za-z0-9/+._-]{0,12}"), 0..4),
    ) {
        let mut line = format!("Gate record: `{cmd}` · cwd: repo root · exit {code}");
        for (k, v) in &items {
            line.push_str(&format!(" · {k}={v}"));
        }
        let body = TaskBody::new(&line);
        let records = body.gate_records();
        prop_assert_eq!(records.len(), 1);
        let g = &records[0];
        prop_assert_eq!(g.command.as_deref(), Some(cmd.trim()));
        let expected_items: Vec<(String, String)> = items
            .iter()
            .filter(|(k, _)| k != "exit")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        prop_assert_eq!(g.exit_code, Some(code));
        prop_assert_eq!(&g.items, &expected_items);
        prop_assert_eq!(g.other.clone(), vec!["cwd: repo root".to_string()]);
    }
}

/// A generated README of about 50 MB: a long task list, one inline record per task and a long
/// fenced block full of checkboxes. Only correctness is asserted.
#[test]
fn fifty_megabyte_readme_parses() {
    const TASKS: u32 = 60_000;
    let mut text = String::with_capacity(52 << 20);
    text.push_str("# Plan\n\n**Standard:** DWP spec 5.0.0\n\nPlan Status: 30000/60000 completed\n\n## Goal\n\nBig.\n\n## Context\n\nHuge.\n\n");
    for n in 1..=TASKS {
        text.push_str(&format!("## Task {n}: Title {n} {{#task-{n}}}\n\n### Goal\n\nGoal of {n}.\n\n### Acceptance Criteria\n\n- [x] Task {n} works\n\n### Completion & Log\n\nStatus: {}\nSkills disposition: none\nDocumentation decision: none\nGate record: `cargo test -p t{n}` · exit 0 · ran=1/1 · log=analysis_results/gates/t{n}.log\n\n", if n % 2 == 0 { "completed" } else { "pending" }));
        text.push_str("Filler paragraph that keeps every record a few hundred bytes long, as real ones are, so the total reaches the size the readers must cope with.\n\n");
    }
    text.push_str("## Task List\n\n");
    for n in 1..=TASKS {
        text.push_str(&format!(
            "- [{}] Task {n}: Title {n}\n",
            if n % 2 == 0 { "x" } else { " " }
        ));
    }
    text.push_str("\n```\n");
    while text.len() < 50 << 20 {
        text.push_str("- [x] Task 1: fenced filler line that must never count\n");
    }
    text.push_str("```\n");
    assert!(text.len() >= 50 << 20);

    let r = parse_readme(&text);
    assert_eq!(r.task_index.total(), TASKS as usize);
    assert_eq!(r.task_index.checked_count(), TASKS as usize / 2);
    assert_eq!(r.task_index.elsewhere.len(), TASKS as usize);
    assert!(r.task_index.contradicting_elsewhere().len() == TASKS as usize / 2);
    assert_eq!(r.inline.records.len(), TASKS as usize);
    assert!(r.inline.anchor_counts.values().all(|c| *c == 1));
    assert!(r.goal().is_some_and(|g| g.text == "Big."));
    let records = r.inline.record_map();
    let last = records.get(&TASKS).expect("last record");
    let log = last.body.completion_log().expect("log");
    assert_eq!(log.log_status(), Some(&LogStatus::Completed));
    assert_eq!(
        last.body.gate_records()[0].item("log"),
        Some("analysis_results/gates/t60000.log")
    );
    assert_eq!(
        r.plan_status().map(|p| p.status.clone()),
        Some(PlanStatus::Count {
            completed: 30000,
            total: 60000
        })
    );
    // The other whole-file readers on the same text.
    assert!(security_verdict(&text).is_clear());
    assert!(progress_entries(&text).len() > TASKS as usize);
}

/// One enormous line full of task mentions and task-file links, and one PROGRESS paragraph with
/// a hundred thousand distinct tasks: the per-line work must stay linear.
#[test]
fn giant_lines_stay_linear() {
    const N: u32 = 100_000;
    let mut line = String::from("## Task List\n- [x] Task 1: Giant");
    for n in 1..=N {
        line.push_str(&format!(" — [{n}.task_t{n}.md](./{n}.task_t{n}.md)"));
    }
    line.push('\n');
    let r = parse_readme(&line);
    assert_eq!(r.task_index.total(), 1);
    let entry = &r.task_index.entries[0];
    assert_eq!(entry.title, "Giant");
    assert_eq!(
        entry.link.as_ref().map(|l| l.file_name.as_str()),
        Some("1.task_t1.md")
    );
    assert_eq!(r.task_file_links().len(), N as usize);

    let mut progress = String::from("# Progress\n\nAmendment 7 touched");
    for n in 1..=N {
        progress.push_str(&format!(" Task {n},"));
    }
    let entries = progress_entries(&progress);
    assert_eq!(
        entries.len(),
        1,
        "the heading and its one paragraph form one entry"
    );
    assert_eq!(entries[0].heading.as_deref(), Some("Progress"));
    assert_eq!(entries[0].tasks.len(), N as usize);
    assert!(mirrors_amendment(&entries, 7, N));
}

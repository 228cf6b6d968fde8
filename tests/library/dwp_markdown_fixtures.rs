//! The markdown readers against the recorded DWP plans (fixtures A, B, D) and the conformance
//! variants' blobs.

use std::path::PathBuf;

use planseal::dwp::model::markdown::*;

fn vectors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/vectors/dwp")
}

fn read(rel: &str) -> String {
    let path = vectors().join(rel);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    decode(&bytes)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_string()
}

const A_FINAL: &str = "A_lite_v2/lifecycle/snapshots/final/PLAN_http_rate_limit";
const A_INITIAL: &str = "A_lite_v2/fixture/PLAN_http_rate_limit";
const B_FINAL: &str = "B_full_v5/lifecycle/snapshots/final/PLAN_webhook_retry_backoff";
const B_INITIAL: &str = "B_full_v5/fixture/PLAN_webhook_retry_backoff";
const D_FINAL: &str = "D_v1/lifecycle/snapshots/final/PLAN_config_env_overrides";
const D_INITIAL: &str = "D_v1/fixture/PLAN_config_env_overrides";

#[test]
fn a_final_readme_declarations_and_index() {
    let text = read(&format!("{A_FINAL}/README.md"));
    let r = parse_readme(&text);
    assert_eq!(
        r.plan_status().map(|p| p.status.clone()),
        Some(PlanStatus::Count {
            completed: 3,
            total: 3
        })
    );
    assert_eq!(r.plan_status_lines.len(), 1);
    assert!(!r.is_materializing());
    let standard = r.standard.as_ref().expect("standard declared");
    assert_eq!(standard.version, Some(SpecVersion::new(4, 0, 1)));
    assert_eq!(standard.migration, None);
    assert_eq!(
        r.plan_format.as_ref().map(|d| d.value),
        Some(Some(DeclaredFormat::Lite))
    );
    assert_eq!(
        r.materialization.as_ref().map(|d| d.value.clone()),
        Some(MaterializationValue::Ready)
    );
    let approval = r.approval.as_ref().expect("approval line");
    assert_eq!(
        (approval.source, approval.value.clone()),
        (DeclSource::Line, ApprovalValue::Approved)
    );
    assert!(
        r.goal()
            .is_some_and(|g| g.non_empty() && g.text.starts_with("Let callers"))
    );
    assert!(
        r.context()
            .is_some_and(|c| c.text.starts_with("fetchkit is a small wrapper"))
    );

    let index = &r.task_index;
    assert!(matches!(index.source, IndexSource::Section { .. }));
    assert_eq!(index.task_numbers(), vec![1, 2, 3]);
    assert_eq!(index.checked_count(), 3);
    let titles: Vec<&str> = index.entries.iter().map(|e| e.title.as_str()).collect();
    assert_eq!(
        titles,
        vec![
            "Token bucket limiter",
            "Throttle client requests",
            "Final Review"
        ]
    );
    assert!(index.entries.iter().all(|e| e.link.is_none()));
    assert!(index.elsewhere.is_empty() && index.unnumbered.is_empty());
}

#[test]
fn a_final_inline_records() {
    let text = read(&format!("{A_FINAL}/README.md"));
    let r = parse_readme(&text);
    assert_eq!(r.inline.records.len(), 3);
    for n in 1..=3u32 {
        assert_eq!(r.inline.anchor_count(n), 1, "anchor {n}");
        let rec = r.inline.record(n).expect("record");
        assert!(rec.numbers_agree());
        for field in [
            "Goal",
            "Context",
            "Touched Surface",
            "Acceptance Criteria",
            "Validation",
        ] {
            assert!(rec.body.field_non_empty(field), "task {n} {field}");
        }
        let log = rec.body.completion_log().expect("log");
        assert_eq!(log.heading_level, Some(3));
        assert_eq!(log.log_status(), Some(&LogStatus::Completed));
        assert_eq!(log.status.as_ref().map(|s| s.form), Some(StatusForm::Plain));
        assert_eq!(
            log.timestamp.as_ref().map(|t| t.value.as_str()),
            Some("2026-10-05")
        );
        assert!(rec.body.has_skills_disposition() && rec.body.has_documentation_decision());
        let gates = rec.body.gate_records();
        assert_eq!(gates.len(), 1);
        assert_eq!(gates[0].exit_code, Some(0));
        assert!(
            gates[0]
                .item("log")
                .is_some_and(|l| l.starts_with("analysis_results/gates/t"))
        );
        // The log runs to the end of the record, not into the next one.
        assert!(!log.text.contains("{#task-"));
    }
    let first = r.inline.record(1).expect("record 1");
    assert_eq!(first.title, "Token bucket limiter");
    assert_eq!(
        first.body.gate_records()[0].command.as_deref(),
        Some("python3 -m unittest tests.test_ratelimit")
    );
    let last = r.inline.record(3).expect("record 3");
    assert_eq!(last.title, "Final Review");
    assert!(last.body.final_review_missing_terms().is_empty());
    assert_eq!(
        first.body.final_review_missing_terms(),
        vec!["security", "final-state"]
    );
    // Line numbers are the README's.
    let heading_line = text
        .lines()
        .position(|l| l.contains("{#task-2}"))
        .expect("heading")
        + 1;
    assert_eq!(
        r.inline.record(2).map(|r| r.heading_line),
        Some(heading_line)
    );
}

#[test]
fn a_initial_readme_is_all_pending() {
    let text = read(&format!("{A_INITIAL}/README.md"));
    let r = parse_readme(&text);
    assert_eq!(
        r.plan_status().map(|p| p.status.clone()),
        Some(PlanStatus::Count {
            completed: 0,
            total: 3
        })
    );
    assert_eq!(r.task_index.checked_count(), 0);
    for rec in &r.inline.records {
        let log = rec.body.completion_log().expect("log");
        assert_eq!(log.log_status(), Some(&LogStatus::Pending));
        assert!(!rec.body.has_skills_disposition());
    }
}

fn variant_blob(fixture: &str, blob: &str) -> String {
    read(&format!("{fixture}/conformance/blobs/{blob}"))
}

#[test]
fn a_variant_readme_ticks_task_one() {
    let text = variant_blob("A_lite_v2", "bbf42dcb4a0f6475-README.md");
    let r = parse_readme(&text);
    let checked: Vec<bool> = r.task_index.entries.iter().map(|e| e.checked).collect();
    assert_eq!(checked, vec![true, false, false]);
    assert_eq!(
        r.plan_status().map(|p| p.status.clone()),
        Some(PlanStatus::Count {
            completed: 1,
            total: 3
        })
    );
}

#[test]
fn a_variant_missing_record_and_swapped_final_review() {
    let missing = variant_blob("A_lite_v2", "a496b8e6621c9d0c-README.md");
    let r = parse_readme(&missing);
    assert_eq!(r.inline.anchor_count(2), 0);
    assert!(r.inline.record(2).is_none());
    assert_eq!(r.inline.records.len(), 2);
    assert_eq!(r.task_index.total(), 3);

    let swapped = variant_blob("A_lite_v2", "0c30cad5d61ac4ab-README.md");
    let r = parse_readme(&swapped);
    assert_eq!(
        r.inline.record(2).map(|x| x.title.as_str()),
        Some("Final Review")
    );
    assert_eq!(
        r.inline.record(3).map(|x| x.title.as_str()),
        Some("Throttle client requests")
    );
    assert_eq!(
        r.task_index.entry(3).map(|e| e.title.as_str()),
        Some("Final Review")
    );
}

#[test]
fn a_variant_log_pending_while_completed() {
    let text = variant_blob("A_lite_v2", "39680596db68a092-README.md");
    let r = parse_readme(&text);
    assert!(r.task_index.entry(1).is_some_and(|e| e.checked));
    let log = r
        .inline
        .record(1)
        .and_then(|x| x.body.completion_log())
        .expect("log");
    assert_eq!(log.log_status(), Some(&LogStatus::Pending));
}

#[test]
fn b_final_readme_full_index_with_links() {
    let text = read(&format!("{B_FINAL}/README.md"));
    let r = parse_readme(&text);
    assert_eq!(
        r.plan_status().map(|p| p.status.clone()),
        Some(PlanStatus::Count {
            completed: 4,
            total: 4
        })
    );
    assert_eq!(
        r.plan_status_lines.len(),
        1,
        "the `## Plan Status` heading is not a status line"
    );
    assert_eq!(
        r.standard.as_ref().and_then(|s| s.version),
        Some(SpecVersion::new(5, 0, 0))
    );
    assert_eq!(
        r.plan_format.as_ref().map(|d| d.value),
        Some(Some(DeclaredFormat::Full))
    );
    assert_eq!(r.approval, None);
    assert!(r.inline.records.is_empty());
    let links: Vec<(u32, String, String)> = r
        .task_index
        .entries
        .iter()
        .map(|e| {
            let link = e.link.clone().expect("link");
            (e.task, link.file_name, link.target)
        })
        .collect();
    assert_eq!(
        links,
        vec![
            (
                1,
                "1.task_backoff_schedule.md".into(),
                "1.task_backoff_schedule.md".into()
            ),
            (
                2,
                "2.task_retry_loop.md".into(),
                "./2.task_retry_loop.md".into()
            ),
            (
                3,
                "3.task_operator_docs.md".into(),
                "3.task_operator_docs.md".into()
            ),
            (
                4,
                "4.task_final_review.md".into(),
                "./4.task_final_review.md".into()
            ),
        ]
    );
    assert_eq!(
        r.task_index.entry(2).map(|e| e.title.as_str()),
        Some("Retry loop in the deliverer")
    );
    assert_eq!(r.task_file_links().len(), 4);
}

#[test]
fn b_task_files() {
    let names = [
        ("1.task_backoff_schedule.md", "Backoff schedule"),
        ("2.task_retry_loop.md", "Retry loop in the deliverer"),
        ("3.task_operator_docs.md", "Operator documentation"),
        ("4.task_final_review.md", "Final Review"),
    ];
    for (i, (name, title)) in names.iter().enumerate() {
        let n = i as u32 + 1;
        let final_text = read(&format!("{B_FINAL}/{name}"));
        let tf = parse_task_file(&final_text);
        let t = tf.title.as_ref().expect("title");
        assert_eq!((t.number, t.title.as_str()), (Some(n), *title));
        for field in [
            "Goal",
            "Touched Surface",
            "Acceptance Criteria",
            "Validation",
            "Context",
            "Instructions",
        ] {
            assert!(tf.body.field_non_empty(field), "{name} {field}");
        }
        let validation = tf.body.field("Validation").expect("validation");
        assert!(
            validation.text.starts_with("```bash"),
            "{name}: fenced validation kept"
        );
        let log = tf.body.completion_log().expect("log");
        assert_eq!(log.log_status(), Some(&LogStatus::Completed), "{name}");
        assert_eq!(log.heading_level, Some(2));
        assert!(tf.body.has_skills_disposition() && tf.body.has_documentation_decision());
        assert_eq!(tf.body.gate_records().len(), 1);
        assert!(tf.body.amendments().is_empty());

        let initial_text = read(&format!("{B_INITIAL}/{name}"));
        let initial = parse_task_file(&initial_text);
        let log = initial.body.completion_log().expect("initial log");
        assert_eq!(log.log_status(), Some(&LogStatus::Pending), "{name}");
        assert!(!initial.body.has_documentation_decision());
    }
    let fr_text = read(&format!("{B_FINAL}/4.task_final_review.md"));
    assert!(
        parse_task_file(&fr_text)
            .body
            .final_review_missing_terms()
            .is_empty()
    );
    // Acceptance-criteria checkboxes in task files mention no task and never reach an index.
    let t2 = read(&format!("{B_FINAL}/2.task_retry_loop.md"));
    let log = parse_task_file(&t2).body.completion_log().expect("log");
    assert!(
        log.text.starts_with("Status: completed"),
        "heading `(filled by the agent)` accepted"
    );
}

#[test]
fn b_variant_blobs() {
    let pending = variant_blob("B_full_v5", "c90d32b5d2a5e292-1.task_backoff_schedule.md");
    let tf = parse_task_file(&pending);
    assert_eq!(
        tf.body
            .completion_log()
            .and_then(|l| l.status)
            .map(|s| s.status),
        Some(LogStatus::Pending)
    );
    assert!(
        tf.body.has_skills_disposition(),
        "the rest of the log is still there"
    );

    let moved = variant_blob("B_full_v5", "c1f6a9a59bd6c93e-3.task_final_review.md");
    let tf = parse_task_file(&moved);
    // The variant renamed the file to 3.task_… but kept its heading `# Task 4: Final Review`.
    assert_eq!(
        tf.title.map(|t| (t.number, t.title)),
        Some((Some(4), "Final Review".to_string()))
    );
    let swapped_readme = variant_blob("B_full_v5", "031aaf6d5882c77f-README.md");
    let r = parse_readme(&swapped_readme);
    let links: Vec<(u32, Option<u32>)> = r
        .task_index
        .entries
        .iter()
        .map(|e| (e.task, e.link.as_ref().and_then(|l| l.number)))
        .collect();
    assert_eq!(
        links,
        vec![(1, Some(1)), (2, Some(2)), (3, Some(4)), (4, Some(3))]
    );

    let readme = variant_blob("B_full_v5", "808986a9ec7c434f-README.md");
    let r = parse_readme(&readme);
    assert_eq!(
        r.task_index
            .entries
            .iter()
            .filter(|e| e.checked)
            .map(|e| e.task)
            .collect::<Vec<_>>(),
        vec![1]
    );
}

#[test]
fn d_v1_task_files_and_legacy_helpers() {
    let files = [
        "1.task_env_parser.md",
        "2.task_precedence_rules.md",
        "3.task_final_review.md",
    ];
    let names: Vec<TaskFileName> = files
        .iter()
        .map(|f| parse_task_file_name(f).expect("task file name"))
        .collect();
    assert!(names.iter().all(|n| n.canonical));
    assert_eq!(classify_ending(&names), LegacyEnding::FinalReviewLast);

    for (i, f) in files.iter().enumerate() {
        let text = read(&format!("{D_FINAL}/{f}"));
        let tf = parse_task_file(&text);
        assert_eq!(tf.title.as_ref().and_then(|t| t.number), Some(i as u32 + 1));
        assert!(has_validation_heading(&tf.body), "{f}");
        assert_eq!(
            tf.body
                .completion_log()
                .and_then(|l| l.status)
                .map(|s| s.status),
            Some(LogStatus::Completed)
        );
    }
    let t2 = read(&format!("{D_FINAL}/2.task_precedence_rules.md"));
    assert_eq!(read_before_references(&parse_task_file(&t2).body), vec![1]);
    let t3 = read(&format!("{D_FINAL}/3.task_final_review.md"));
    let t3 = parse_task_file(&t3);
    assert_eq!(read_before_references(&t3.body), vec![1, 2]);
    assert!(t3.body.final_review_missing_terms().is_empty());
    assert!(
        t3.body.field("Touched Surface").is_none(),
        "D's Final Review has no Touched Surface"
    );

    let readme = read(&format!("{D_FINAL}/README.md"));
    let r = parse_readme(&readme);
    assert_eq!(
        r.standard.as_ref().and_then(|s| s.version),
        Some(SpecVersion::new(2, 3, 0))
    );
    let linked: Vec<String> = r
        .task_file_links()
        .into_iter()
        .map(|(_, l)| l.file_name)
        .collect();
    assert_eq!(
        linked,
        files.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    );
    assert_eq!(
        r.plan_status().map(|p| p.status.clone()),
        Some(PlanStatus::Count {
            completed: 3,
            total: 3
        })
    );

    let initial = read(&format!("{D_INITIAL}/README.md"));
    assert_eq!(parse_readme(&initial).task_index.checked_count(), 0);

    let pending = variant_blob("D_v1", "5e7e1318c1909663-1.task_env_parser.md");
    let log = parse_task_file(&pending)
        .body
        .completion_log()
        .expect("log");
    assert_eq!(log.log_status(), Some(&LogStatus::Pending));

    let swapped = [
        "2.task_final_review.md",
        "3.task_precedence_rules.md",
        "1.task_env_parser.md",
    ];
    let names: Vec<TaskFileName> = swapped
        .iter()
        .filter_map(|f| parse_task_file_name(f))
        .collect();
    assert_eq!(
        classify_ending(&names),
        LegacyEnding::FinalReviewNotLast { at: 2 }
    );
}

#[test]
fn security_reviews() {
    for plan in [A_FINAL, B_FINAL, D_FINAL] {
        let text = read(&format!("{plan}/analysis_results/SECURITY_REVIEW.md"));
        let v = security_verdict(&text);
        assert!(v.is_clear(), "{plan}: {v:?}");
    }
    for fixture in ["A_lite_v2", "B_full_v5", "D_v1"] {
        let text = variant_blob(fixture, "aaf771bb32d04d58-SECURITY_REVIEW.md");
        let v = security_verdict(&text);
        assert!(v.open_critical && !v.unclear_critical);
        assert_eq!(v.label(), Some(LABEL_OPEN_CRITICAL));
        assert!(
            v.reason
                .is_some_and(|r| r.contains("Open critical finding"))
        );
    }
}

#[test]
fn progress_entries_name_their_tasks() {
    let text = read(&format!("{A_FINAL}/PROGRESS.md"));
    let entries = progress_entries(&text);
    for n in 1..=3u32 {
        assert!(entries.iter().any(|e| e.tasks.contains(&n)), "task {n}");
    }
    assert!(entries.iter().all(|e| e.amendments.is_empty()));
    let d = read(&format!("{D_FINAL}/PROGRESS.md"));
    let entries = progress_entries(&d);
    assert_eq!(entries.iter().filter(|e| !e.tasks.is_empty()).count(), 3);
}

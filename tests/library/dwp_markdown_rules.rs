//! The rules of the markdown readers (task index, fences, fields, labels, Completion & Log,
//! amendments) on small hand-written inputs.

use planseal::dwp::model::markdown::*;

#[test]
fn index_is_the_task_list_section_only() {
    let text = "\
# Plan

Plan Status: 1/2 completed

## Task 1: A {#task-1}

### Acceptance Criteria

- [ ] Task 2 output is reviewed
- [x] Task 1 passes

## Tasks (2)

- [x] Task 1: A
- [ ] Task 2: B
- [ ] follow-up without a number

```text
- [x] Task 2: fenced, never counts
```

## Notes

- [x] Task 2: a stray tick elsewhere
";
    let r = parse_readme(text);
    let idx = &r.task_index;
    assert!(matches!(
        idx.source,
        IndexSource::Section { heading_line: 12 }
    ));
    assert_eq!(idx.task_numbers(), vec![1, 2]);
    assert_eq!(idx.checked_count(), 1);
    assert_eq!(idx.unnumbered.len(), 1);
    assert_eq!(idx.unnumbered[0].text, "follow-up without a number");
    let elsewhere: Vec<(u32, bool, usize)> = idx
        .elsewhere
        .iter()
        .map(|e| (e.task, e.checked, e.line))
        .collect();
    assert_eq!(elsewhere, vec![(2, false, 9), (1, true, 10), (2, true, 24)]);
    let contradicting: Vec<usize> = idx
        .contradicting_elsewhere()
        .iter()
        .map(|e| e.line)
        .collect();
    assert_eq!(
        contradicting,
        vec![24],
        "only the stray tick disagrees with the index"
    );
}

#[test]
fn without_a_task_list_section_records_are_excluded() {
    let text = "\
Plan Status: 0/2 completed

- [ ] Task 1: A
- [X] Task 2: B

## Task 1: A {#task-1}

- [x] Task 2 acceptance criterion

## Task 2: B {#task-2}

~~~~
- [x] Task 1 fenced
~~~~
";
    let r = parse_readme(text);
    assert_eq!(r.task_index.source, IndexSource::WholeReadme);
    assert_eq!(r.task_index.task_numbers(), vec![1, 2]);
    assert_eq!(r.task_index.checked_count(), 1);
    assert_eq!(r.task_index.elsewhere.len(), 1);
    assert_eq!(r.task_index.elsewhere[0].line, 8);
}

#[test]
fn first_task_list_section_wins_and_subsections_stay_inside() {
    let text = "## Task List\n\n### Phase 1\n- [x] Task 1: a\n\n### Phase 2\n- [ ] Task 2: b\n\n## Task List\n- [ ] Task 3: c\n";
    let r = parse_readme(text);
    assert_eq!(r.task_index.task_numbers(), vec![1, 2]);
    assert_eq!(
        r.task_index
            .elsewhere
            .iter()
            .map(|e| e.task)
            .collect::<Vec<_>>(),
        vec![3]
    );
}

#[test]
fn index_entry_titles_and_links() {
    let text = "## Task List\n- [x] **Task 3: Title here** — [3.task_x.md](./3.task_x.md)\n- [ ] Task 4 - Other | [link](4.task_y.md)\n- [ ] Task 1\n- [ ] Task 2 — Two\n- [ ] Task 2 — Twice\n";
    let r = parse_readme(text);
    let e: Vec<(u32, &str, Option<&str>)> = r
        .task_index
        .entries
        .iter()
        .map(|e| {
            (
                e.task,
                e.title.as_str(),
                e.link.as_ref().map(|l| l.file_name.as_str()),
            )
        })
        .collect();
    assert_eq!(
        e,
        vec![
            (3, "Title here", Some("3.task_x.md")),
            (4, "Other", Some("4.task_y.md")),
            (1, "", None),
            (2, "Two", None),
            (2, "Twice", None),
        ]
    );
    assert_eq!(r.task_index.duplicate_tasks(), vec![2]);
}

#[test]
fn declarations_in_bold_bullets_and_tables() {
    let text = "\
# Plan

**Plan Status:** materializing

## Plan Variables

| Variable | Value |
|---|---|
| Standard | DWP spec 2.4.1 (migrated from 2.3.0 on 2026-09-01 — new ending) |
| Plan Format | Lite |
| Materialization | promoting |
| Approval | someday |
";
    let r = parse_readme(text);
    assert!(r.is_materializing());
    let s = r.standard.as_ref().expect("standard");
    assert_eq!(s.version, Some(SpecVersion::new(2, 4, 1)));
    assert_eq!(
        s.migration
            .as_ref()
            .map(|m| (m.from, m.date.as_str(), m.reason.as_str())),
        Some((Some(SpecVersion::new(2, 3, 0)), "2026-09-01", "new ending"))
    );
    assert_eq!(
        r.plan_format.as_ref().map(|d| (d.source, d.value)),
        Some((DeclSource::TableRow, Some(DeclaredFormat::Lite)))
    );
    assert_eq!(
        r.materialization.as_ref().map(|d| d.value.clone()),
        Some(MaterializationValue::Promoting)
    );
    let a = r.approval.as_ref().expect("approval");
    assert_eq!(a.value, ApprovalValue::Unknown("someday".into()));
    assert_eq!(a.raw, "someday");
}

#[test]
fn goal_and_context_of_the_readme_ignore_records() {
    let text = "## Task 1: A {#task-1}\n\n### Goal\n\nrecord goal\n\n## Goal\n\n\n## Context\nplan context\n";
    let r = parse_readme(text);
    let goal = r.goal().expect("README goal");
    assert!(
        !goal.non_empty(),
        "the README's own Goal is empty; the record's does not count"
    );
    assert_eq!(
        r.context().map(|c| c.text),
        Some("plan context".to_string())
    );
    assert_eq!(
        r.inline
            .record(1)
            .and_then(|x| x.body.field("Goal"))
            .map(|f| f.text),
        Some("record goal".to_string())
    );
}

#[test]
fn lite_anchors_counted_and_numbers_compared() {
    let text = "## Task 1: A {#task-1}\nsee {#task-1}\n## Task 3: C {#task-2}\n## Final words {#task-4}\n```\n{#task-4}\n```\n";
    let r = parse_readme(text);
    assert_eq!(r.inline.anchor_count(1), 2);
    assert_eq!(r.inline.anchor_count(2), 1);
    assert_eq!(
        r.inline.anchor_count(4),
        1,
        "fenced anchors are not counted"
    );
    let rec2 = r.inline.record(2).expect("record 2");
    assert_eq!(rec2.heading_number, Some(3));
    assert!(!rec2.numbers_agree());
    let rec4 = r.inline.record(4).expect("record 4");
    assert_eq!(
        (rec4.heading_number, rec4.title.as_str()),
        (None, "Final words")
    );
}

#[test]
fn three_status_forms_in_a_log() {
    for (line, form) in [
        ("Status: completed", StatusForm::Plain),
        ("**Status:** completed", StatusForm::Bold),
        ("- **Status:** completed", StatusForm::BulletBold),
        ("**Status**: completed", StatusForm::Bold),
        ("- Status: completed", StatusForm::BulletPlain),
    ] {
        let text = format!("# Task 1: A\n\n## 9. Completion & Log\n\n{line}\n");
        let tf = parse_task_file(&text);
        let status = tf.body.completion_log().and_then(|l| l.status).expect(line);
        assert_eq!(
            (status.form, status.status),
            (form, LogStatus::Completed),
            "{line}"
        );
    }
}

#[test]
fn bold_label_log_and_lite_completion_log() {
    let full = "# Task 2: B\n\n**Completion & Log:**\n- **Status:** pending\n\n## Other\nStatus: completed\n";
    let log = parse_task_file(full).body.completion_log().expect("log");
    assert_eq!(log.heading_level, None);
    assert_eq!(log.log_status(), Some(&LogStatus::Pending));

    let lite = "## Task 1: A {#task-1}\n\n**Completion log** · done in one go\nStatus: completed\nCommit: none — documentation-only task\n";
    let r = parse_readme(lite);
    let log = r
        .inline
        .record(1)
        .and_then(|x| x.body.completion_log())
        .expect("log");
    assert_eq!(log.text.lines().next(), Some("done in one go"));
    assert_eq!(log.log_status(), Some(&LogStatus::Completed));
    assert!(
        log.commit
            .as_ref()
            .is_some_and(|(_, c)| c.is_justified_none())
    );
}

#[test]
fn no_log_section_means_unreadable() {
    let tf = parse_task_file("# Task 1: A\n\nStatus: completed\nSkills disposition: none\n");
    assert!(tf.body.completion_log().is_none());
    assert!(tf.body.has_skills_disposition());
}

#[test]
fn fields_by_heading_and_label() {
    let body = TaskBody::new(
        "# Task 1: A\n\n## 3. Goal (why)\n\nDo it.\n\n**Touched Surface:** src/a.rs\n**Acceptance Criteria** -\n- [ ] works\n**Validation**: `cargo test`\n#### Notes\n",
    );
    assert_eq!(
        body.field("Goal").map(|f| f.text),
        Some("Do it.".to_string())
    );
    assert_eq!(
        body.field("Touched Surface").map(|f| f.text),
        Some("src/a.rs".to_string())
    );
    assert_eq!(
        body.field("Acceptance Criteria").map(|f| f.text),
        Some("- [ ] works".to_string())
    );
    assert_eq!(
        body.field("Validation").map(|f| f.text),
        Some("`cargo test`".to_string())
    );
    assert!(body.field("Context").is_none());
    let sections: Vec<String> = body.sections().into_iter().map(|s| s.name).collect();
    assert_eq!(sections, vec!["Goal".to_string(), "Notes".to_string()]);
}

#[test]
fn amendments_inside_a_full_log() {
    let text = "# Task 2: B\n\n## 10. Completion & Log\n\nStatus: completed\n\n### Amendment 1 — 2026-10-12\n\n- **Original criterion:** all 12 tests pass\n- **Observed:** 11 pass\n- **Disposition:** revised criterion\n- **Revised criterion:** 11 pass, 1 moved\n- **Reason:** flaky\n- **Authority:** developer\n- **Affected tasks:** Task 2\n- **Evidence invalidated:** none\n- **Evidence preserved:** t2 log\n";
    let tf = parse_task_file(text);
    let log = tf.body.completion_log().expect("log");
    assert!(log.text.contains("### Amendment 1"));
    let a = tf.body.amendments();
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].disposition_kind(), Some(Disposition::RevisedCriterion));
    assert_eq!(a[0].authority_kind(), Some(Authority::Developer));
    assert!(a[0].missing_or_empty().is_empty());
    assert_eq!(
        a[0].date.map(|d| d.to_string()),
        Some("2026-10-12".to_string())
    );
}

#[test]
fn invalid_utf8_is_an_error_with_offset() {
    let err = decode(b"# Task 1\n\xC0\x80").expect_err("overlong encoding");
    assert_eq!(err.offset, 9);
    assert!(err.to_string().contains("byte 9"));
}

#[test]
fn byte_entry_points_refuse_invalid_utf8() {
    assert_eq!(
        parse_readme_bytes(b"Plan Status: 1/2\n\xFF").err(),
        Some(InvalidUtf8 { offset: 17 })
    );
    let tf = parse_task_file_bytes("# Task 1: Café\n".as_bytes()).expect("valid UTF-8");
    assert_eq!(tf.title.map(|t| t.title), Some("Café".to_string()));
}

#[test]
fn state_spellings() {
    assert_eq!(LogStatus::InProgress.as_str(), "in_progress");
    assert_eq!(
        ApprovalValue::PreApproved.as_state_str(),
        Some("pre_approved")
    );
    assert_eq!(ApprovalValue::Unknown("x".into()).as_state_str(), None);
}

#[test]
fn a_versioned_standard_wins_over_a_versionless_one() {
    let r = parse_readme(
        "Standard: keep it tidy\n\n- **Standard:** DWP spec 5.0.0\n\n**Standard:** DWP spec 4.0.0\n",
    );
    let s = r.standard.expect("standard");
    assert_eq!((s.line, s.version), (3, Some(SpecVersion::new(5, 0, 0))));
    let only_prose = parse_readme("Standard: keep it tidy\n");
    assert_eq!(
        only_prose.standard.map(|s| (s.version, s.raw)),
        Some((None, "keep it tidy".to_string()))
    );
}

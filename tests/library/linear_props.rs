//! Regression tests for inputs that made a read-only command superlinear in what it reads
//! (scripts/bench/linear.sh measures the times). No clock here: each test checks that the linear
//! code gives exactly what the old scan-per-item code gave, on generated inputs, the old code
//! written out in the test as the reference.

use planseal::checkpoint::checks::{Inputs, check_text};
use planseal::checkpoint::diff::compare;
use planseal::checkpoint::doc::{AGENT_SECTIONS, find, normalize, sections};
use planseal::checkpoint::stories::{StoryFile, StoryLookup, find_story_table};
use planseal::gsd::document::Document;
use planseal::gsd::ops::{StateFile, StatusOptions, status};
use proptest::prelude::*;

/// The old `Document::line_number`: count the `\n` before the offset.
fn counted_line(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn state_md_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("---".to_string()),
        Just("status: executing".to_string()),
        Just("progress:".to_string()),
        Just("  percent: 40".to_string()),
        Just(String::new()),
        Just("## Current Position".to_string()),
        Just("```".to_string()),
        "[A-Z][a-z]{0,6}: [a-zé 0-9]{0,8}",
        "\\*\\*[A-Z][a-z]{0,6}:\\*\\* [a-z]{0,5}",
        "\\| [A-Z][a-z]{0,5} \\| [0-9]{1,3} \\|",
        "[a-zé\u{2028}\r ]{0,6}",
    ]
}

fn state_md() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((state_md_line(), prop::bool::ANY), 0..40),
        prop::bool::ANY,
    )
        .prop_map(|(lines, trailing)| {
            let mut text = String::new();
            for (i, (line, crlf)) in lines.iter().enumerate() {
                text.push_str(line);
                if i + 1 < lines.len() || trailing {
                    text.push_str(if *crlf { "\r\n" } else { "\n" });
                }
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// `gsd status` looked up the line of every body field by counting the newlines before it:
    /// quadratic in the file (81 s on a 1.26 MB STATE.md). The line index gives the same numbers.
    #[test]
    fn gsd_status_on_large_state_md_is_linear_line_numbers_are_the_counted_ones(text in state_md()) {
        let doc = Document::parse(text.clone());
        for offset in (0..=text.len() + 2).filter(|&o| o > text.len() || text.is_char_boundary(o)) {
            prop_assert_eq!(doc.line_number(offset), counted_line(&text, offset), "offset {}", offset);
        }
        for f in &doc.fields {
            prop_assert_eq!(doc.line_number(f.line.start), counted_line(&text, f.line.start));
        }
    }
}

/// The whole command on a STATE.md of 6,000 body fields: every row's line is the counted one, and
/// that line of the file holds the field.
#[test]
fn gsd_status_on_large_state_md_is_linear_every_body_field_row_names_its_line() {
    let mut text = String::from(
        "---\ngsd_state_version: '1.0'\nstatus: executing\n---\n# Project State\n\n## Current Position\n\nPhase: 2 of 4 (Build)\nStatus: Executing\n\n",
    );
    for i in 0..2000 {
        text.push_str(&format!(
            "Note {i}: plain\r\n**Decision {i}:** bold\n| Metric {i} | {i} |\n- bullet {i}\n\n"
        ));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".planning")).expect("mkdir");
    let path = dir.path().join(".planning/STATE.md");
    std::fs::write(&path, &text).expect("write");
    let out = status(&StatusOptions {
        state: StateFile {
            path,
            shown: ".planning/STATE.md".into(),
        },
        exit_code: false,
    })
    .expect("status");
    let doc = Document::parse(text.clone());
    assert_eq!(out.body_fields.len(), doc.fields.len());
    assert_eq!(out.body_fields.len(), 6002);
    let lines: Vec<&str> = text.split('\n').collect();
    for (row, field) in out.body_fields.iter().zip(&doc.fields) {
        assert_eq!(row.line, counted_line(&text, field.line.start), "{row:?}");
        assert!(lines[row.line - 1].contains(&row.name), "{row:?}");
    }
}

/// The old `Delta::of`: for each item, a scan of the other side.
fn pairwise(old: &[String], new: &[String]) -> (Vec<String>, Vec<String>) {
    let norm = |s: &String| s.trim().to_lowercase();
    let missing = |a: &[String], b: &[String]| -> Vec<String> {
        a.iter()
            .filter(|x| !b.iter().any(|y| norm(y) == norm(x)))
            .cloned()
            .collect()
    };
    (missing(old, new), missing(new, old))
}

fn story_id() -> impl Strategy<Value = String> {
    prop_oneof![
        "(CW-)?[1-3]\\.[1-3]",
        "(cw|AB|Ab|X1)-[1-3]\\.[1-3]",
        " [1-3]\\.[1-3] ",
        "[1-3]\\.[1-3]\\.story",
        "[1-3]\\.[1-3]\\.STORY",
    ]
}

fn checkpoint_text() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(story_id(), 0..12),
        prop::collection::vec("(Totais|Notas|Próximos Passos|Resumo) ?[0-9]?", 0..5),
        prop::collection::vec("Sess(ã|a)o 2026-0[1-3]-0[1-3]", 0..5),
    )
        .prop_map(|(rows, extra, sessions)| {
            let mut t = String::from(
                "# Project Checkpoint\n\n## Status das Stories\n\n| Story | Status |\n|---|---|\n",
            );
            for (i, r) in rows.iter().enumerate() {
                t.push_str(&format!("| {r} | {} |\n", ["Done", "Draft"][i % 2]));
            }
            for h in &extra {
                t.push_str(&format!("\n## {h}\n\n- x\n"));
            }
            t.push_str("\n## Último Trabalho Realizado\n\n");
            for s in &sessions {
                t.push_str(&format!("### {s}\n\n- y\n\n"));
            }
            t
        })
}

fn story_file() -> impl Strategy<Value = StoryFile> {
    (
        story_id(),
        story_id(),
        prop::option::of("(Done|Draft|InProgress)"),
    )
        .prop_map(|(id, stem, status)| StoryFile {
            path: format!("docs/stories/{}.md", stem.trim()).into(),
            id,
            stem,
            status,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// `checkpoint diff` compared every row (section, session) of one version with every one of
    /// the other. The hash sets give the same lost and gained items, in the same order.
    #[test]
    fn checkpoint_diff_of_large_checkpoints_is_linear_deltas_match_the_pairwise_scan(
        old in checkpoint_text(),
        new in checkpoint_text(),
    ) {
        let d = compare(&old, &new);
        let rows = |text: &str| {
            let secs = sections(text);
            find(&secs, AGENT_SECTIONS[1].0)
                .and_then(|s| find_story_table(text, s.body_start, s.end))
                .map(|t| t.ids())
                .unwrap_or_default()
        };
        let (lost, gained) = pairwise(&rows(&old), &rows(&new));
        prop_assert_eq!(&d.story_rows.lost, &lost);
        prop_assert_eq!(&d.story_rows.gained, &gained);
        let headings = |text: &str| sections(text).into_iter().map(|s| s.heading).collect::<Vec<_>>();
        let keys = |v: &[String]| v.iter().map(|h| normalize(h)).collect::<Vec<_>>();
        let (a, b) = (headings(&old), headings(&new));
        let (lost_keys, gained_keys) = pairwise(&keys(&a), &keys(&b));
        let written = |v: &[String], k: &[String]| -> Vec<String> {
            v.iter().filter(|h| k.contains(&normalize(h))).cloned().collect()
        };
        prop_assert_eq!(&d.sections.lost, &written(&a, &lost_keys));
        prop_assert_eq!(&d.sections.gained, &written(&b, &gained_keys));
    }

    /// `checkpoint status` and `refresh` compared every story file with every row of the story
    /// table. The lookup finds the same story as the first one that matches.
    #[test]
    fn checkpoint_status_with_many_stories_is_linear_lookup_is_the_first_match(
        stories in prop::collection::vec(story_file(), 0..10),
        cells in prop::collection::vec(story_id(), 0..10),
    ) {
        let lookup = StoryLookup::new(&stories);
        for cell in &cells {
            prop_assert_eq!(lookup.find(cell), stories.iter().position(|s| s.matches(cell)), "{:?}", cell);
        }
    }

    /// The story findings of `checkpoint status` are the ones the scan of every row per story
    /// (and every story per row) gave.
    #[test]
    fn checkpoint_status_with_many_stories_is_linear_story_findings_match_the_scan(
        stories in prop::collection::vec(story_file(), 0..10),
        text in checkpoint_text(),
    ) {
        let inputs = Inputs {
            multi_project: false,
            configured_prefix: None,
            stories: &stories,
            env: None,
            newer_story: None,
        };
        let story_ids = ["checkpoint-story-missing-row", "checkpoint-story-status-differs", "checkpoint-story-unknown-row"];
        let got: Vec<String> = check_text(&text, &inputs)
            .into_iter()
            .filter(|f| story_ids.contains(&f.id.as_str()))
            .map(|f| f.message)
            .collect();
        let secs = sections(&text);
        let table = find(&secs, AGENT_SECTIONS[1].0).and_then(|s| find_story_table(&text, s.body_start, s.end));
        let mut want = Vec::new();
        for s in &stories {
            let row = table.as_ref().and_then(|t| {
                t.rows.iter().find(|(_, r)| t.row_cells(r).get(t.story_col).is_some_and(|c| s.matches(c)))
            });
            let (Some(t), Some((_, row))) = (&table, row) else {
                want.push(format!("story `{}` has no row in the story table", s.id));
                continue;
            };
            if let (Some(col), Some(status)) = (t.status_col, &s.status) {
                let cell = t.row_cells(row).get(col).cloned().unwrap_or_default();
                let (c, st) = (normalize(&cell), normalize(status));
                if !(c == st || (!st.is_empty() && c.contains(&st))) {
                    want.push(format!("story `{}`: the table says `{cell}`, the story file says `{status}`", s.id));
                }
            }
        }
        for id in table.as_ref().map(|t| t.ids()).unwrap_or_default() {
            if !stories.iter().any(|s| s.matches(&id)) {
                want.push(format!("the story table lists `{id}`, but no story file has that id"));
            }
        }
        prop_assert_eq!(got, want);
    }
}

/// The old majority count: for each id, a scan of the prefixes seen so far.
fn majority_prefix(ids: &[&str]) -> Option<String> {
    let prefix = |id: &str| -> Option<String> {
        let (p, rest) = id.split_once('-')?;
        let ok = !p.is_empty()
            && p.chars().all(|c| c.is_ascii_alphanumeric())
            && p.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && rest.chars().next().is_some_and(|c| c.is_ascii_digit());
        ok.then(|| p.to_string())
    };
    let mut counts: Vec<(String, usize)> = Vec::new();
    for id in ids {
        if let Some(p) = prefix(id) {
            match counts.iter_mut().find(|(q, _)| q.eq_ignore_ascii_case(&p)) {
                Some(c) => c.1 += 1,
                None => counts.push((p, 1)),
            }
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    match counts.as_slice() {
        [(p, _)] => Some(p.clone()),
        [(p, n), (_, m), ..] if n > m => Some(p.clone()),
        _ => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// In multi-project mode the prefix most ids share is the one the scan of every prefix seen
    /// so far picked (ties and spellings included).
    #[test]
    fn checkpoint_status_with_many_stories_is_linear_majority_prefix_matches_the_scan(
        stories in prop::collection::vec(story_file(), 0..10),
        text in checkpoint_text(),
    ) {
        let inputs = Inputs {
            multi_project: true,
            configured_prefix: None,
            stories: &stories,
            env: None,
            newer_story: None,
        };
        let found = check_text(&text, &inputs);
        let secs = sections(&text);
        let rows = find(&secs, AGENT_SECTIONS[1].0)
            .and_then(|s| find_story_table(&text, s.body_start, s.end))
            .map(|t| t.ids())
            .unwrap_or_default();
        let mut ids: Vec<&str> = rows.iter().map(String::as_str).collect();
        ids.extend(stories.iter().map(|s| s.id.as_str()));
        let skipped = found.iter().any(|f| f.id == "checkpoint-story-prefix-unknown");
        let named = found
            .iter()
            .find(|f| f.id == "checkpoint-story-prefix" && f.message.starts_with("story ids carry"))
            .map(|f| f.message.clone());
        match majority_prefix(&ids) {
            _ if ids.is_empty() => prop_assert!(!skipped && named.is_none()),
            None => prop_assert!(skipped),
            Some(p) => {
                prop_assert!(!skipped);
                let lacking: Vec<&planseal::report::Finding> =
                    found.iter().filter(|f| f.message.contains("lacks the project prefix")).collect();
                let suffix = format!("lacks the project prefix `{p}-`");
                prop_assert!(lacking.iter().all(|f| f.message.ends_with(&suffix)), "{:?} {:?}", p, lacking);
                prop_assert_eq!(named.is_some(), lacking.is_empty());
            }
        }
    }
}

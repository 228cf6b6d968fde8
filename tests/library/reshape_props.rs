//! Property tests of the markdown writers of `refine --add-task` and `promote`
//! (`planseal::dwp::model::markdown::{rewrite, promotion}`) on generated plans — Lite or Full,
//! LF or CRLF, hand-written prose (non-ASCII, fenced look-alikes of records and checkboxes,
//! prose naming tasks) around the structure: the structure comes out as the plan's rules read
//! it, every line the edit does not own is kept in order, and the edits are idempotent.

use planseal::dwp::model::markdown::promotion::{readme_as_full, task_file_from_record};
use planseal::dwp::model::markdown::rewrite::{
    FullNames, TaskDraft, has_inserted_task, insert_task_before_final, renumber_task_file,
    task_slug,
};
use planseal::dwp::model::markdown::{PlanStatus, parse_readme, parse_task_file};
use proptest::prelude::*;

/// Hand-written lines: none of them is structure the readers take for a record, an index line
/// or a declaration (a fence hides what looks like one).
fn prose() -> impl Strategy<Value = Vec<String>> {
    let line = prop_oneof![
        Just("Notas à mão — revisão ✅".to_string()),
        Just("Tasks 1 to 3 are committed; Task 2 is slow.".to_string()),
        Just("```\n## Task 9: fenced {#task-9}\n- [ ] Task 9: fenced\n```".to_string()),
        Just("See the [Final Review](#task-1) later.".to_string()),
        Just("| col | 🚨 |".to_string()),
        "[a-zA-Z0-9 ,.é]{1,30}",
    ];
    prop::collection::vec(line, 0..3)
}

#[derive(Debug, Clone)]
struct Plan {
    lite: bool,
    crlf: bool,
    n: u32,
    checked: Vec<bool>,
    bold_labels: bool,
    list_first: bool,
    prose: Vec<Vec<String>>,
}

fn plan() -> impl Strategy<Value = Plan> {
    (
        2u32..6,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_flat_map(|(n, lite, crlf, bold_labels, list_first)| {
            (
                prop::collection::vec(any::<bool>(), n as usize - 1),
                prop::collection::vec(prose(), n as usize + 3),
            )
                .prop_map(move |(mut checked, prose)| {
                    checked.push(false);
                    Plan {
                        lite,
                        crlf,
                        n,
                        checked,
                        bold_labels,
                        list_first,
                        prose,
                    }
                })
        })
}

fn title(i: u32, n: u32) -> String {
    if i == n {
        "Final Review".into()
    } else {
        format!("Step {i} ação")
    }
}

fn file(i: u32, n: u32) -> String {
    if i == n {
        format!("{i}.task_final_review.md")
    } else {
        format!("{i}.task_step_{i}.md")
    }
}

fn record(p: &Plan, i: u32) -> String {
    let mut out = format!("## Task {i}: {} {{#task-{i}}}\n\n", title(i, p.n));
    for (name, value) in [
        ("Goal", "Do the thing; security, final-state, skills."),
        ("Context", "Where it starts."),
        ("Touched Surface", "a.py"),
        ("Acceptance Criteria", "- it works"),
        ("Validation", "`make test`"),
    ] {
        if p.bold_labels {
            out.push_str(&format!("**{name}:** {value}\n\n"));
        } else {
            out.push_str(&format!("### {name}\n\n{value}\n\n"));
        }
    }
    for l in &p.prose[i as usize] {
        out.push_str(l);
        out.push_str("\n\n");
    }
    out.push_str("### Completion & Log\n\nStatus: pending\n\n");
    out
}

fn readme(p: &Plan) -> String {
    let done = p.checked.iter().filter(|c| **c).count();
    let mut out = format!(
        "# Plan\n\n**Standard:** DWP spec 5.0.0\n\nPlan Format: {}\n\nPlan Status: {done}/{} completed\n\n",
        if p.lite { "Lite" } else { "Full" },
        p.n
    );
    for l in &p.prose[0] {
        out.push_str(l);
        out.push_str("\n\n");
    }
    out.push_str("## Goal\n\nG.\n\n## Context\n\nC.\n\n");
    let mut list = "## Task List\n\n".to_string();
    for i in 1..=p.n {
        let mark = if p.checked[i as usize - 1] { "x" } else { " " };
        list.push_str(&format!("- [{mark}] Task {i}: {}", title(i, p.n)));
        if !p.lite {
            let f = file(i, p.n);
            list.push_str(&format!(" — [{f}](./{f})"));
        }
        list.push('\n');
    }
    list.push('\n');
    let records: String = if p.lite {
        (1..=p.n).map(|i| record(p, i)).collect()
    } else {
        String::new()
    };
    if p.list_first || !p.lite {
        out.push_str(&list);
        out.push_str("## Notes\n\n");
        for l in &p.prose[p.n as usize + 1] {
            out.push_str(l);
            out.push_str("\n\n");
        }
        out.push_str(&records);
    } else {
        out.push_str(&records);
        out.push_str(&list);
    }
    for l in &p.prose[p.n as usize + 2] {
        out.push_str(l);
        out.push('\n');
    }
    if p.crlf {
        out = out.replace('\n', "\r\n");
    }
    out
}

/// `needle` appears in `hay` as a subsequence of lines.
fn keeps_in_order(hay: &str, needle: &[&str]) -> bool {
    let mut lines = hay.lines();
    needle.iter().all(|n| lines.any(|l| l == *n))
}

fn all_crlf(text: &str) -> bool {
    text.matches('\n').count() == text.matches("\r\n").count()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn an_inserted_task_takes_the_final_reviews_place_and_nothing_else_moves(p in plan(), new_title in "[A-Za-zé ]{1,20}") {
        let text = readme(&p);
        let n = p.n;
        let draft = TaskDraft { title: new_title.clone(), ..TaskDraft::default() };
        let names = FullNames {
            new_task: format!("{n}.task_{}.md", task_slug(&new_title)),
            final_before: file(n, n),
            final_after: format!("{}.task_final_review.md", n + 1),
        };
        let out = insert_task_before_final(&text, n, &draft, (!p.lite).then_some(&names)).unwrap();
        let parsed = parse_readme(&out);
        let index: Vec<u32> = parsed.task_index.entries.iter().map(|e| e.task).collect();
        prop_assert_eq!(index, (1..=n + 1).collect::<Vec<_>>());
        let shown = new_title.split_whitespace().collect::<Vec<_>>().join(" ");
        prop_assert_eq!(&parsed.task_index.entry(n).unwrap().title, &shown);
        prop_assert!(!parsed.task_index.entry(n).unwrap().checked);
        prop_assert_eq!(&parsed.task_index.entry(n + 1).unwrap().title, "Final Review");
        for i in 1..n {
            prop_assert_eq!(parsed.task_index.entry(i).unwrap().checked, p.checked[i as usize - 1]);
        }
        let done = p.checked.iter().filter(|c| **c).count() as u32;
        prop_assert_eq!(&parsed.plan_status().unwrap().status, &PlanStatus::Count { completed: done, total: n + 1 });
        if p.lite {
            let anchors: Vec<u32> = parsed.inline.records.iter().map(|r| r.anchor_number).collect();
            prop_assert_eq!(anchors, (1..=n + 1).collect::<Vec<_>>());
            prop_assert_eq!(&parsed.inline.record(n + 1).unwrap().title, "Final Review");
        } else {
            let fr = parsed.task_index.entry(n + 1).unwrap().link.clone().unwrap();
            prop_assert_eq!(fr.target, format!("./{}", names.final_after));
            prop_assert_eq!(parsed.task_index.entry(n).unwrap().link.clone().unwrap().file_name, names.new_task);
        }
        // Every line that does not name the Final Review or the count is kept, in order.
        let kept: Vec<&str> = text
            .lines()
            .filter(|l| !l.contains(&format!("Task {n}")) && !l.contains(&format!("#task-{n}")) && !l.contains("Plan Status"))
            .collect();
        prop_assert!(keeps_in_order(&out, &kept));
        prop_assert!(!p.crlf || all_crlf(&out), "CRLF kept");
        prop_assert!(has_inserted_task(&out, n, &new_title));
        prop_assert!(!has_inserted_task(&text, n, &new_title));
    }

    #[test]
    fn a_promoted_readme_links_every_file_keeps_the_rest_and_is_idempotent(p in plan()) {
        prop_assume!(p.lite);
        let text = readme(&p);
        let files: Vec<(u32, String)> = (1..=p.n).map(|i| (i, file(i, p.n))).collect();
        let out = readme_as_full(&text, &files);
        prop_assert_eq!(readme_as_full(&out, &files), out.clone(), "idempotent");
        let parsed = parse_readme(&out);
        prop_assert!(parsed.inline.records.is_empty());
        prop_assert_eq!(parsed.plan_format.as_ref().map(|d| d.raw.as_str()), Some("Full"));
        for (i, f) in &files {
            let entry = parsed.task_index.entry(*i).unwrap();
            prop_assert_eq!(&entry.link.clone().unwrap().file_name, f);
            prop_assert_eq!(entry.checked, p.checked[*i as usize - 1]);
        }
        // The lines outside the records are kept (index lines gain their link).
        let before = parse_readme(&text);
        let in_record = |number: usize| before.inline.records.iter().any(|r| {
            number >= r.heading_line && r.body.lines.last().is_none_or(|l| number <= l.number)
        });
        let kept: Vec<&str> = text
            .lines()
            .enumerate()
            .filter(|(i, l)| !in_record(i + 1) && !l.starts_with("- [") && !l.starts_with("Plan Format"))
            .map(|(_, l)| l)
            .filter(|l| !l.trim().is_empty())
            .collect();
        prop_assert!(keeps_in_order(&out, &kept));
        prop_assert!(!p.crlf || all_crlf(&out), "CRLF kept");
        // Each record as a task file: its number, its fields, its lines.
        for i in 1..=p.n {
            let promoted = task_file_from_record(&text, i, false).unwrap();
            let task = parse_task_file(&promoted.text);
            prop_assert_eq!(task.title.as_ref().and_then(|t| t.number), Some(i));
            prop_assert_eq!(task.title.as_ref().map(|t| t.title.clone()), Some(title(i, p.n)));
            let rec = before.inline.record(i).unwrap();
            for name in ["Goal", "Context", "Touched Surface", "Acceptance Criteria", "Validation"] {
                prop_assert_eq!(task.body.field_non_empty(name), rec.body.field_non_empty(name), "{}", name);
            }
            for name in ["Read Before Starting", "Instructions", "Outputs", "Execution Checklist"] {
                prop_assert!(task.body.field_non_empty(name), "{} added", name);
            }
            let body: Vec<String> = rec
                .body
                .lines
                .iter()
                .filter(|l| !l.text.trim().is_empty() && (l.in_fence || !l.text.starts_with('#')))
                .map(|l| l.text.to_string())
                .collect();
            let body: Vec<&str> = body.iter().map(String::as_str).collect();
            prop_assert!(keeps_in_order(&promoted.text, &body), "record {} kept", i);
            prop_assert!(!p.crlf || all_crlf(&promoted.text), "CRLF kept");
        }
    }

    #[test]
    fn slugs_are_file_name_safe(title in any::<String>()) {
        let slug = task_slug(&title);
        prop_assert!(!slug.is_empty() && slug.len() <= 40, "{}", slug);
        prop_assert!(slug.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'), "{}", slug);
        prop_assert!(!slug.starts_with('_') && !slug.ends_with('_') && !slug.contains("__"), "{}", slug);
    }

    #[test]
    fn a_task_file_is_renumbered_once(n in 1u32..50, tail in "[a-z \n#`]{0,60}", crlf in any::<bool>()) {
        let mut text = format!("# Task {n}: Title\n{tail}");
        if crlf {
            text = text.replace('\n', "\r\n");
        }
        let once = renumber_task_file(&text, n, n + 1);
        prop_assert_eq!(renumber_task_file(&once, n, n + 1), once.clone());
        prop_assert_eq!(parse_task_file(&once).title.and_then(|t| t.number), Some(n + 1));
        prop_assert_eq!(once.len(), text.len() + (n + 1).to_string().len() - n.to_string().len());
    }
}

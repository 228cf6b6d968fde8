//! PROGRESS.md: the entries that mirror amendments and refinements, and the dated
//! reconciliation entry `rebuild --write` appends.

use std::sync::LazyLock;

use regex::Regex;

use super::fences::lines;
use super::syntax::{checkbox, heading, task_mentions, unique_in_order};

/// One unit of PROGRESS.md: a paragraph or a top-level list item, with the heading it sits under.
/// A heading with nothing under it is a unit of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgressEntry {
    /// First line of the unit (the heading line for an empty heading).
    pub line: usize,
    /// Text of the nearest heading above, if any.
    pub heading: Option<String>,
    /// The unit's own text (lines joined with `\n`).
    pub text: String,
    /// `Amendment n` numbers named by the unit or its heading.
    pub amendments: Vec<u32>,
    /// `Task N` numbers named by the unit or its heading.
    pub tasks: Vec<u32>,
}

impl ProgressEntry {
    fn haystack(&self) -> String {
        match &self.heading {
            Some(h) => format!("{h}\n{}", self.text),
            None => self.text.clone(),
        }
    }

    /// The unit or its heading speaks of a refinement / reconciliation / skip.
    pub fn is_refinement(&self) -> bool {
        let lower = self.haystack().to_lowercase();
        [
            "refine",
            "skip",
            "out of scope",
            "descop",
            "removed from scope",
        ]
        .iter()
        .any(|w| lower.contains(w))
    }

    /// The unit or its heading speaks of a reconciliation (such as the entry `rebuild --write`
    /// appends).
    pub fn is_reconciliation(&self) -> bool {
        self.haystack().to_lowercase().contains("reconcil")
    }
}

static AMENDMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bamendment\s+#?([0-9]+)\b")
        .expect("constant regex is valid because it was tested")
});

fn amendment_mentions(text: &str) -> Vec<u32> {
    unique_in_order(
        AMENDMENT
            .captures_iter(text)
            .filter_map(|c| c.get(1).and_then(|m| m.as_str().parse().ok())),
    )
}

fn is_top_level_item(line: &str) -> bool {
    let starts_bullet = line.starts_with(['-', '*', '+']) && line[1..].starts_with([' ', '\t']);
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let starts_number = digits > 0
        && line[digits..].starts_with(['.', ')'])
        && line[digits + 1..].starts_with([' ', '\t']);
    starts_bullet || starts_number || checkbox(line).is_some() && !line.starts_with([' ', '\t'])
}

/// Splits PROGRESS.md into entries (fenced lines belong to the unit they sit in).
pub fn progress_entries(text: &str) -> Vec<ProgressEntry> {
    let mut out = Vec::new();
    let mut current_heading: Option<(usize, String)> = None;
    let mut heading_used = true;
    let mut unit: Vec<&str> = Vec::new();
    let mut unit_line = 0usize;

    let flush = |unit: &mut Vec<&str>,
                 unit_line: usize,
                 heading: &Option<(usize, String)>,
                 out: &mut Vec<ProgressEntry>| {
        if unit.is_empty() {
            return;
        }
        let text = unit.join("\n");
        let mut entry = ProgressEntry {
            line: unit_line,
            heading: heading.as_ref().map(|(_, h)| h.clone()),
            text,
            amendments: Vec::new(),
            tasks: Vec::new(),
        };
        let hay = entry.haystack();
        entry.amendments = amendment_mentions(&hay);
        entry.tasks = task_mentions(&hay);
        out.push(entry);
        unit.clear();
    };

    for l in lines(text) {
        if !l.in_fence {
            if let Some(h) = heading(l.text) {
                flush(&mut unit, unit_line, &current_heading, &mut out);
                if !heading_used && let Some((line, _)) = &current_heading {
                    let empty: Vec<&str> = vec![""];
                    let mut e = empty;
                    flush(&mut e, *line, &current_heading, &mut out);
                }
                current_heading = Some((l.number, h.text.to_string()));
                heading_used = false;
                continue;
            }
            if l.text.trim().is_empty() {
                flush(&mut unit, unit_line, &current_heading, &mut out);
                continue;
            }
            if is_top_level_item(l.text) {
                flush(&mut unit, unit_line, &current_heading, &mut out);
            }
        }
        if unit.is_empty() {
            unit_line = l.number;
            heading_used = true;
        }
        unit.push(l.text);
    }
    flush(&mut unit, unit_line, &current_heading, &mut out);
    if !heading_used && let Some((line, _)) = &current_heading {
        let mut e: Vec<&str> = vec![""];
        flush(&mut e, *line, &current_heading, &mut out);
    }
    out
}

/// True when some entry names both `Amendment n` and `Task task` (the mirroring check).
pub fn mirrors_amendment(entries: &[ProgressEntry], amendment: u32, task: u32) -> bool {
    entries
        .iter()
        .any(|e| e.amendments.contains(&amendment) && e.tasks.contains(&task))
}

/// True when a refinement entry names `Task task` (backing for a skipped task).
pub fn refinement_names_task(entries: &[ProgressEntry], task: u32) -> bool {
    entries
        .iter()
        .any(|e| e.tasks.contains(&task) && e.is_refinement())
}

/// A dated reconciliation entry to append.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReconciliationEntry {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// One sentence saying what was reconciled and by what.
    pub summary: String,
    /// One line per changed field (`task 2 status: pending → completed (source: README)`).
    pub changes: Vec<String>,
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Returns PROGRESS.md with the reconciliation entry appended (the input is kept byte for byte;
/// a missing final newline is added, then a blank line, then the entry):
///
/// ```text
/// ## Reconciliation — 2026-11-30
///
/// - <summary>
/// - <change>
/// ```
pub fn append_reconciliation_entry(existing: &[u8], entry: &ReconciliationEntry) -> Vec<u8> {
    append_dated_entry(existing, "Reconciliation", entry)
}

/// Appends a dated entry headed `## TITLE — DATE` (one summary bullet, one bullet per change),
/// the shape of every entry planseal's writers add to PROGRESS.md (reconciliation, approval).
pub fn append_dated_entry(existing: &[u8], title: &str, entry: &ReconciliationEntry) -> Vec<u8> {
    let mut out = existing.to_vec();
    if !out.is_empty() {
        if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        if !out.ends_with(b"\n\n") {
            out.push(b'\n');
        }
    }
    let mut block = format!(
        "## {} — {}\n\n- {}\n",
        one_line(title),
        one_line(&entry.date),
        one_line(&entry.summary)
    );
    for change in &entry.changes {
        block.push_str("- ");
        block.push_str(&one_line(change));
        block.push('\n');
    }
    out.extend_from_slice(block.as_bytes());
    out
}

/// A refinement that removes a task from scope, as `planseal refine --skip` writes it and as
/// `update --status skipped` requires it (`docs/refine.md`):
///
/// ```text
/// ## Refinement — 2026-10-05
///
/// - Task 3 (Operator docs) removed from scope: skipped by refine
/// - Authority: user
/// - Reason: the docs move to the wiki
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkipRefinement {
    /// `YYYY-MM-DD`: when the user decided.
    pub date: String,
    /// The task removed from scope.
    pub task: u32,
    /// Its title, for the reader.
    pub title: String,
    /// Why, in the user's words.
    pub reason: String,
}

impl SkipRefinement {
    /// The entry to append with [`append_dated_entry`] under the title `Refinement`.
    pub fn entry(&self) -> ReconciliationEntry {
        let title = one_line(&self.title);
        let named = if title.is_empty() {
            format!("Task {}", self.task)
        } else {
            format!("Task {} ({title})", self.task)
        };
        ReconciliationEntry {
            date: self.date.clone(),
            summary: format!("{named} removed from scope: skipped by refine"),
            changes: vec!["Authority: user".into(), format!("Reason: {}", self.reason)],
        }
    }
}

static REFINEMENT_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^refinement\b.*\b(\d{4}-\d{2}-\d{2})\b")
        .expect("constant regex is valid because it was tested")
});
static USER_AUTHORITY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?im)^\s*(?:[-*+]\s+)?\**authority\**\s*:\**\s*user\b")
        .expect("constant regex is valid because it was tested")
});
static REASON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?im)^\s*(?:[-*+]\s+)?\**reason\**\s*:\**[ \t]*\S")
        .expect("constant regex is valid because it was tested")
});

/// Whether PROGRESS.md holds a dated refinement section (`## Refinement — YYYY-MM-DD`) that
/// removes task `task` from scope with the user's authority and a reason: the record a skip
/// needs (an amendment is the other one). Its date is returned.
pub fn skip_refinement_date(text: &str, task: u32) -> Option<String> {
    let mut found = None;
    let mut section: Option<(String, Vec<&str>)> = None;
    let mut close = |section: &mut Option<(String, Vec<&str>)>| {
        if let Some((date, body)) = section.take() {
            let body = body.join("\n");
            let names_task = body.lines().any(|l| {
                let lower = l.to_lowercase();
                task_mentions(l).contains(&task)
                    && (lower.contains("skip") || lower.contains("removed from scope"))
            });
            if names_task && USER_AUTHORITY.is_match(&body) && REASON.is_match(&body) {
                found = Some(date);
            }
        }
    };
    for l in lines(text) {
        if !l.in_fence
            && let Some(h) = heading(l.text)
        {
            close(&mut section);
            if h.level <= 2
                && let Some(c) = REFINEMENT_HEADING.captures(h.text.trim())
            {
                section = Some((c[1].to_string(), Vec::new()));
            }
            continue;
        }
        if let Some((_, body)) = &mut section {
            body.push(l.text);
        }
    }
    close(&mut section);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRESS: &str = "# Progress\n\n## Decisions\n\n- Amendment 1 moved a criterion.\n- Task 2 is slow.\n\n### Amendment 2 — Task 3 (2026-10-12)\n\n- criterion deferred to Task 4\n\n## Refinements\n\n2026-10-13: Task 5 skipped by refine (user).\n";

    #[test]
    fn a_skip_is_backed_by_a_dated_refinement_with_the_users_authority_and_a_reason() {
        let record = SkipRefinement {
            date: "2026-10-05".into(),
            task: 3,
            title: "Operator docs".into(),
            reason: "the docs move to the wiki".into(),
        };
        let text = String::from_utf8(append_dated_entry(
            b"# Progress\n",
            "Refinement",
            &record.entry(),
        ))
        .unwrap();
        assert_eq!(
            text,
            "# Progress\n\n## Refinement — 2026-10-05\n\n- Task 3 (Operator docs) removed from scope: skipped by refine\n- Authority: user\n- Reason: the docs move to the wiki\n"
        );
        assert_eq!(
            skip_refinement_date(&text, 3).as_deref(),
            Some("2026-10-05")
        );
        assert_eq!(skip_refinement_date(&text, 2), None, "another task");
        for (what, from, to) in [
            ("undated", "Refinement — 2026-10-05", "Refinement"),
            (
                "developer's authority",
                "Authority: user",
                "Authority: developer",
            ),
            ("no reason", "- Reason: the docs move to the wiki\n", ""),
        ] {
            assert_eq!(
                skip_refinement_date(&text.replace(from, to), 3),
                None,
                "{what}"
            );
        }
        // Inside a fence it is an example, not a record.
        let fenced = format!(
            "# Progress\n\n```\n{}```\n",
            &text["# Progress\n\n".len()..]
        );
        assert_eq!(skip_refinement_date(&fenced, 3), None);
        // Written by hand: bold labels and a heading of its own words still count.
        let by_hand = "## Refinement (2026-10-06)\n\nTask 3 skipped at the user's request.\n**Authority:** user\n**Reason:** moved\n";
        assert_eq!(
            skip_refinement_date(by_hand, 3).as_deref(),
            Some("2026-10-06")
        );
    }

    #[test]
    fn mirroring_needs_one_unit_naming_both() {
        let e = progress_entries(PROGRESS);
        assert!(
            !mirrors_amendment(&e, 1, 2),
            "two different bullets do not mirror"
        );
        assert!(mirrors_amendment(&e, 2, 3), "heading names both");
        assert!(mirrors_amendment(&e, 2, 4), "heading + bullet");
        assert!(refinement_names_task(&e, 5));
        assert!(!refinement_names_task(&e, 2));
    }

    #[test]
    fn empty_headings_are_entries_and_fences_stay_inside_units() {
        let e = progress_entries(
            "## Amendment 3 for Task 1\n## Log\n\n- a\n  ```\n  ## not a heading\n\n  ```\n- b\n### Last",
        );
        let shape: Vec<(usize, Option<&str>, &str)> = e
            .iter()
            .map(|x| (x.line, x.heading.as_deref(), x.text.as_str()))
            .collect();
        assert_eq!(
            shape,
            vec![
                (1, Some("Amendment 3 for Task 1"), ""),
                (4, Some("Log"), "- a\n  ```\n  ## not a heading\n\n  ```"),
                (9, Some("Log"), "- b"),
                (10, Some("Last"), ""),
            ]
        );
        assert!(mirrors_amendment(&e, 3, 1));
    }

    #[test]
    fn append_keeps_bytes_and_adds_blank_line() {
        let entry = ReconciliationEntry {
            date: "2026-11-30".into(),
            summary: "state.json rebuilt from the markdown\nand git".into(),
            changes: vec!["task 2 status: pending → completed (source: README)".into()],
        };
        let out = append_reconciliation_entry(b"# Progress\nx", &entry);
        assert_eq!(
            String::from_utf8(out).expect("utf8"),
            "# Progress\nx\n\n## Reconciliation — 2026-11-30\n\n- state.json rebuilt from the markdown and git\n- task 2 status: pending → completed (source: README)\n"
        );
        let empty = append_reconciliation_entry(b"", &entry);
        assert!(empty.starts_with(b"## Reconciliation"));
        let already = append_reconciliation_entry(b"a\n\n", &entry);
        assert!(already.starts_with(b"a\n\n## "));
    }
}

//! The markdown of a Lite → Full promotion (`planseal promote`, `docs/promote.md`): each inline
//! record `## Task N: Title {#task-N}` becomes the task file `N.task_<slug>.md`, and the README
//! loses the records, links each index line to its file and says `Plan Format: Full`.
//!
//! A record moves whole: its text, the amendments and gate records of its log, its fenced
//! blocks, byte for byte, with its headings raised one level (`### Goal` → `## Goal`) under a
//! `# Task N: Title` heading. The sections a Full task file has and a Lite record does not
//! (Read Before Starting, Instructions, Outputs, Execution Checklist) are added, each right
//! after the section that precedes it in a Full file, holding an explicit placeholder.
//!
//! Both edits are idempotent: promoting a README that is already Full changes nothing, so an
//! interrupted promotion is finished by running it again.

use super::close_out::{PLACEHOLDER, line_ending};
use super::fields::heading_field_name;
use super::readme::{DeclSource, parse_readme};
use super::rewrite::RewriteError;
use crate::markdown::heading;

/// The sections of a Full task file, in order.
pub const FULL_SECTIONS: [&str; 10] = [
    "Context",
    "Read Before Starting",
    "Goal",
    "Touched Surface",
    "Instructions",
    "Acceptance Criteria",
    "Outputs",
    "Validation",
    "Execution Checklist",
    "Completion & Log",
];

/// The sections a Full task file has and a Lite record usually lacks: added on promotion.
pub const ADDED_SECTIONS: [&str; 4] = [
    "Read Before Starting",
    "Instructions",
    "Outputs",
    "Execution Checklist",
];

/// One inline record as a Full task file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromotedTask {
    /// The task's number.
    pub task: u32,
    /// The file's text.
    pub text: String,
    /// The sections added with a placeholder, in Full order.
    pub added: Vec<&'static str>,
}

/// The placeholder of an added section: a `TODO:` for a task still to do, a plain note for
/// one already closed (nothing is left to write there).
fn added_text(closed: bool) -> String {
    if closed {
        "Not recorded: the task was closed while the plan was Lite.".to_string()
    } else {
        format!("{PLACEHOLDER} not part of the Lite record; write it before the task starts")
    }
}

/// The task file of inline record `task` of `readme` (see the module comment). `closed`: the
/// task is completed or skipped, so an added section gets a note instead of a `TODO:`.
pub fn task_file_from_record(
    readme: &str,
    task: u32,
    closed: bool,
) -> Result<PromotedTask, RewriteError> {
    let nl = line_ending(readme);
    let parsed = parse_readme(readme);
    let record = parsed
        .inline
        .record(task)
        .ok_or(RewriteError::NoRecord(task))?;
    let raw: Vec<&str> = readme.split_inclusive('\n').collect();
    // The body, without the blank lines around it.
    let mut body: Vec<(String, bool)> = record
        .body
        .lines
        .iter()
        .map(|l| (raw[l.number - 1].to_string(), l.in_fence))
        .collect();
    while body.first().is_some_and(|(l, _)| l.trim().is_empty()) {
        body.remove(0);
    }
    while body.last().is_some_and(|(l, _)| l.trim().is_empty()) {
        body.pop();
    }
    if let Some((last, _)) = body.last_mut()
        && !last.ends_with('\n')
    {
        last.push_str(nl);
    }
    // Raise the headings so the record's sections are `##`.
    let top = body
        .iter()
        .filter(|(_, fenced)| !fenced)
        .filter_map(|(l, _)| heading(l).map(|h| h.level))
        .min();
    let raise = top.map_or(0, |level| level.saturating_sub(2));
    for (line, fenced) in &mut body {
        if !*fenced
            && heading(line).is_some()
            && let Some(at) = line.find('#')
        {
            line.replace_range(at..at + raise, "");
        }
    }
    // The sections (`##` headings) by name, with where each starts.
    let starts: Vec<(usize, String)> = body
        .iter()
        .enumerate()
        .filter(|(_, (_, fenced))| !fenced)
        .filter_map(|(i, (l, _))| {
            let h = heading(l)?;
            (h.level == 2).then(|| (i, heading_field_name(h.text).to_lowercase()))
        })
        .collect();
    let has = |name: &str| record.body.field(name).is_some();
    let mut inserts: Vec<(usize, &'static str)> = Vec::new();
    for (k, name) in FULL_SECTIONS.iter().enumerate() {
        if !ADDED_SECTIONS.contains(name) || has(name) {
            continue;
        }
        let start_of = |wanted: &str| starts.iter().position(|(_, n)| n == &wanted.to_lowercase());
        // After the nearest earlier Full section the record has, else before the nearest later
        // one, else at the end.
        let after = FULL_SECTIONS[..k]
            .iter()
            .rev()
            .find_map(|p| start_of(p))
            .map(|s| starts.get(s + 1).map_or(body.len(), |(i, _)| *i));
        let before = || {
            FULL_SECTIONS[k + 1..]
                .iter()
                .find_map(|p| start_of(p))
                .map(|s| starts[s].0)
        };
        inserts.push((after.or_else(before).unwrap_or(body.len()), name));
    }
    let note = added_text(closed);
    let mut out = format!("# Task {task}: {}{nl}{nl}", record.title);
    let mut pending = inserts.iter().peekable();
    for i in 0..=body.len() {
        while let Some((_, name)) = pending.next_if(|(at, _)| *at == i) {
            let section = format!("## {name}{nl}{nl}{note}{nl}");
            if i == body.len() {
                out.push_str(nl);
                out.push_str(&section);
            } else {
                out.push_str(&section);
                out.push_str(nl);
            }
        }
        if let Some((line, _)) = body.get(i) {
            out.push_str(line);
        }
    }
    let mut added: Vec<&'static str> = inserts.iter().map(|(_, n)| *n).collect();
    added.sort_by_key(|n| FULL_SECTIONS.iter().position(|f| f == n));
    Ok(PromotedTask {
        task,
        text: out,
        added,
    })
}

/// The README of the promoted plan: the inline records removed, each index line of a task in
/// `files` linking its file (` — [N.task_x.md](N.task_x.md)`, unless it links one already), and
/// the `Plan Format:` declaration saying `Full` (added after the `Standard` line, or at the top,
/// when there is none). A README already so is returned unchanged.
pub fn readme_as_full(readme: &str, files: &[(u32, String)]) -> String {
    let nl = line_ending(readme);
    let parsed = parse_readme(readme);
    let mut raw: Vec<Option<String>> = readme
        .split_inclusive('\n')
        .map(|l| Some(l.to_string()))
        .collect();
    let mut reaches_end = false;
    for r in &parsed.inline.records {
        let last = r.body.lines.last().map_or(r.heading_line, |l| l.number);
        for line in raw.iter_mut().take(last).skip(r.heading_line - 1) {
            *line = None;
        }
        reaches_end |= last == raw.len();
    }
    for entry in &parsed.task_index.entries {
        let Some((_, file)) = files.iter().find(|(n, _)| *n == entry.task) else {
            continue;
        };
        if entry.link.is_some() {
            continue;
        }
        if let Some(line) = raw[entry.line - 1].as_mut() {
            let body = line.trim_end_matches(['\n', '\r']);
            let ending = line[body.len()..].to_string();
            *line = format!("{} — [{file}]({file}){ending}", body.trim_end());
        }
    }
    let mut insert_format: Option<(usize, String)> = None;
    match &parsed.plan_format {
        Some(decl) => {
            if let Some(line) = raw[decl.line - 1].as_mut() {
                *line = with_full(line, &decl.raw, decl.source);
            }
        }
        None => {
            let after = parsed.standard.as_ref().map_or(0, |s| s.line);
            insert_format = Some((after, format!("{nl}Plan Format: Full{nl}")));
        }
    }
    let mut out = String::with_capacity(readme.len());
    for (i, line) in raw.iter().enumerate() {
        if let Some(line) = line {
            out.push_str(line);
        }
        if insert_format
            .as_ref()
            .is_some_and(|(after, _)| *after == i + 1)
        {
            out.push_str(&insert_format.take().map(|(_, t)| t).unwrap_or_default());
        }
    }
    if let Some((_, text)) = insert_format {
        // No Standard line: the declaration goes first.
        out = format!("{}{nl}{out}", text.trim_start_matches(['\r', '\n']));
    }
    if reaches_end {
        // The records ran to the end: the blank lines before them go too.
        let kept = out.trim_end_matches(['\r', '\n']).len();
        out.truncate(kept);
        out.push_str(nl);
    }
    out
}

/// A `Plan Format:` line (or table row) whose value `raw` says `Full`: the word `Lite` in it
/// replaced, the rest kept.
fn with_full(line: &str, raw: &str, source: DeclSource) -> String {
    let body = line.trim_end_matches(['\n', '\r']);
    let ending = &line[body.len()..];
    let Some(at) = body.rfind(raw).filter(|_| !raw.is_empty()) else {
        return match source {
            DeclSource::Line => format!("{} Full{ending}", body.trim_end()),
            DeclSource::TableRow => line.to_string(),
        };
    };
    let value = &body[at..at + raw.len()];
    let new_value = match value.to_ascii_lowercase().find("lite") {
        Some(w) => format!("{}Full{}", &value[..w], &value[w + 4..]),
        None if value.to_ascii_lowercase().contains("full") => value.to_string(),
        None => "Full".to_string(),
    };
    format!(
        "{}{new_value}{}{ending}",
        &body[..at],
        &body[at + raw.len()..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const LITE: &str = "# Plan\n\n**Standard:** DWP spec 5.0.0\n\nPlan Format: Lite\n\nPlan Status: 0/2 completed\n\n## Goal\n\nG.\n\n\
## Task 1: Limiter {#task-1}\n\nIntro line.\n\n### Goal\n\nAdd it.\n\n### Context\n\nNone yet.\n\n### Touched Surface\n\nx.py\n\n\
### Acceptance Criteria\n\n- works\n\n### Validation\n\n```\n### not a heading\n```\n\n### Completion & Log\n\nStatus: pending\n\n\
#### Amendment 1 — 2026-10-05\n\nReason: r\n\n\
## Task 2: Final Review {#task-2}\n\n**Goal:** review security, final-state, skills\n**Context:** after 1\n\n\
## Task List\n\n- [ ] Task 1: Limiter\n- [ ] Task 2: Final Review\n";

    #[test]
    fn a_record_becomes_a_full_task_file_with_its_bytes_and_the_missing_sections() {
        let t = task_file_from_record(LITE, 1, false).unwrap();
        assert_eq!(
            t.text,
            "# Task 1: Limiter\n\nIntro line.\n\n## Goal\n\nAdd it.\n\n## Context\n\nNone yet.\n\n\
## Read Before Starting\n\nTODO: not part of the Lite record; write it before the task starts\n\n\
## Touched Surface\n\nx.py\n\n\
## Instructions\n\nTODO: not part of the Lite record; write it before the task starts\n\n\
## Acceptance Criteria\n\n- works\n\n\
## Outputs\n\nTODO: not part of the Lite record; write it before the task starts\n\n\
## Validation\n\n```\n### not a heading\n```\n\n\
## Execution Checklist\n\nTODO: not part of the Lite record; write it before the task starts\n\n\
## Completion & Log\n\nStatus: pending\n\n### Amendment 1 — 2026-10-05\n\nReason: r\n"
        );
        assert_eq!(t.added, ADDED_SECTIONS);
        // Bold labels: no headings to place the sections by, so they go at the end.
        let last = task_file_from_record(LITE, 2, true).unwrap();
        assert!(
            last.text.starts_with("# Task 2: Final Review\n\n**Goal:** review security, final-state, skills\n**Context:** after 1\n\n## Read Before Starting\n\nNot recorded"),
            "{}",
            last.text
        );
        assert!(last.text.ends_with(
            "## Execution Checklist\n\nNot recorded: the task was closed while the plan was Lite.\n"
        ));
        assert_eq!(
            task_file_from_record(LITE, 3, false),
            Err(RewriteError::NoRecord(3))
        );
    }

    #[test]
    fn the_readme_loses_its_records_and_links_each_file_once() {
        let files = vec![
            (1, "1.task_limiter.md".to_string()),
            (2, "2.task_final_review.md".to_string()),
        ];
        let full = readme_as_full(LITE, &files);
        assert_eq!(
            full,
            "# Plan\n\n**Standard:** DWP spec 5.0.0\n\nPlan Format: Full\n\nPlan Status: 0/2 completed\n\n## Goal\n\nG.\n\n\
## Task List\n\n- [ ] Task 1: Limiter — [1.task_limiter.md](1.task_limiter.md)\n- [ ] Task 2: Final Review — [2.task_final_review.md](2.task_final_review.md)\n"
        );
        assert_eq!(readme_as_full(&full, &files), full, "idempotent");
        // Records at the end, CRLF, a table row and no trailing newline.
        let crlf = "| Plan Format | lite (small) |\r\n\r\n## Task List\r\n\r\n- [ ] Task 1: A\r\n\r\n## Task 1: A {#task-1}\r\n\r\n### Goal\r\n\r\nx";
        assert_eq!(
            readme_as_full(crlf, &files[..1]),
            "| Plan Format | Full (small) |\r\n\r\n## Task List\r\n\r\n- [ ] Task 1: A — [1.task_limiter.md](1.task_limiter.md)\r\n"
        );
        // No declaration: one is added after the Standard line.
        let bare = "# P\n**Standard:** DWP spec 5.0.0\n\n## Task List\n\n- [ ] Task 1: A\n";
        assert_eq!(
            readme_as_full(bare, &files[..1]),
            "# P\n**Standard:** DWP spec 5.0.0\n\nPlan Format: Full\n\n## Task List\n\n- [ ] Task 1: A — [1.task_limiter.md](1.task_limiter.md)\n"
        );
    }
}

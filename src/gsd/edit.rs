//! The body edits of GSD's four STATE.md record commands (`docs/gsd.md`, "Writers"): a decision,
//! a blocker added or resolved, a session recorded. Pure: the whole file in, the whole file with
//! only the writer's own lines changed out. The frontmatter is left to [`super::sync`].
//!
//! Each edit follows GSD's own writer (`gsd-tools state add-decision`, `add-blocker`,
//! `resolve-blocker`, `record-session`): the same section, found by the same heading rules (the
//! first level-2 or level-3 heading of the section's names, running to the next level-2 or
//! level-3 heading), the same placeholders removed, the same entry text, the same new section
//! when there is none — and the blank lines GSD's writers leave around the lines they write, so
//! that on a file GSD wrote the body comes out byte for byte as GSD's. What planseal does not do
//! (each with a recorded vector in `fixtures/vectors/gsd-writers/`):
//!
//! - reflow the rest of the file: GSD passes every write through a whole-file markdown formatter
//!   (blank lines around every heading and list, runs of blank lines collapsed, CRLF made LF);
//!   planseal changes only the lines it writes, in the file's own line ending;
//! - remove a placeholder word inside a sentence: only a placeholder that is the whole line goes;
//! - run a field's pattern into the next line when the field is empty (GSD then overwrites the
//!   line below it);
//! - rewrite a `## Session` section: the missing session lines are added, the others stay (GSD
//!   replaces the section, dropping its prose and a `Stopped at` it was not asked to change);
//! - replace a Blockers section's prose by `None` when the last blocker goes: the prose stays.

use super::document::Document;
use std::ops::Range;

/// The headings GSD's decision writer looks for (the first match wins).
fn is_decisions_heading(level: usize, text: &str) -> bool {
    if !(level == 2 || level == 3) {
        return false;
    }
    let t = text.to_ascii_lowercase();
    t == "decisions"
        || t == "decisions made"
        || (t.starts_with("accumulated") && t.ends_with("decisions"))
}

/// The headings GSD's blocker writers look for.
fn is_blockers_heading(level: usize, text: &str) -> bool {
    (level == 2 || level == 3)
        && ["blockers", "blockers/concerns", "concerns"]
            .iter()
            .any(|n| text.eq_ignore_ascii_case(n))
}

/// A line-ending-aware view of the body: each line's text (without `\n` or `\r\n`), where it
/// starts, and where the next line starts.
#[derive(Debug, Clone)]
struct Line {
    start: usize,
    /// End of the text, before the line ending.
    end: usize,
    /// Start of the next line (the end of the file for the last one).
    next: usize,
}

fn lines_from(text: &str, from: usize) -> Vec<Line> {
    let mut out = Vec::new();
    let mut at = from;
    while at < text.len() {
        let (end, next) = match text[at..].find('\n') {
            Some(i) => (at + i, at + i + 1),
            None => (text.len(), text.len()),
        };
        let end = if text[at..end].ends_with('\r') {
            end - 1
        } else {
            end
        };
        out.push(Line {
            start: at,
            end,
            next,
        });
        at = next;
    }
    out
}

/// A heading of the body, outside fenced code (GSD's heading tokenizer).
struct Heading {
    level: usize,
    text: String,
    /// Index into the line list.
    line: usize,
}

fn headings(text: &str, lines: &[Line]) -> Vec<Heading> {
    let mut out = Vec::new();
    // The open fence: its character and length.
    let mut fence: Option<(u8, usize)> = None;
    for (i, l) in lines.iter().enumerate() {
        let line = &text[l.start..l.end];
        let indent = line.len() - line.trim_start_matches(' ').len();
        let rest = &line[indent..];
        let fence_char = rest.bytes().next().filter(|c| *c == b'`' || *c == b'~');
        let run = fence_char.map_or(0, |c| rest.bytes().take_while(|b| *b == c).count());
        if indent <= 3 && run >= 3 {
            let c = fence_char.unwrap_or(b'`');
            let trailing = &rest[run..];
            match fence {
                None if !(c == b'`' && trailing.contains('`')) => {
                    fence = Some((c, run));
                    continue;
                }
                None => {}
                Some((open, len)) => {
                    if c == open && run >= len && trailing.trim().is_empty() {
                        fence = None;
                    }
                    continue;
                }
            }
        }
        if fence.is_some() {
            continue;
        }
        if let Some(h) = crate::markdown::heading(line) {
            out.push(Heading {
                level: h.level,
                text: h.text.to_string(),
                line: i,
            });
        }
    }
    out
}

/// The first section whose heading `pred` accepts: its heading line and its body lines (up to
/// the next level-2 or level-3 heading).
fn find_section(
    text: &str,
    lines: &[Line],
    pred: impl Fn(usize, &str) -> bool,
) -> Option<(usize, Range<usize>)> {
    let hs = headings(text, lines);
    let i = hs.iter().position(|h| pred(h.level, &h.text))?;
    let end = hs[i + 1..]
        .iter()
        .find(|h| h.level == 2 || h.level == 3)
        .map_or(lines.len(), |h| h.line);
    Some((hs[i].line, hs[i].line + 1..end))
}

/// A markdown list item (GSD's formatter puts a blank line between one and a line of prose).
fn is_list_item(line: &str) -> bool {
    let t = line.trim_start();
    let bullet =
        t.len() > 1 && t.starts_with(['-', '*', '+']) && t[1..].starts_with(char::is_whitespace);
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let numbered = digits > 0
        && t[digits..].starts_with('.')
        && t[digits + 1..].starts_with(char::is_whitespace);
    bullet || numbered
}

/// What a body edit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyEdit {
    /// The whole file after the edit (the frontmatter as it was).
    pub text: String,
    /// The line the writer added (a decision or blocker entry), or the blockers it removed.
    pub lines: Vec<String>,
    /// The session fields set (`Last session`, `Stopped At`, …), in GSD's names and order.
    pub updated: Vec<&'static str>,
    /// A section was created (there was none of its names).
    pub created: bool,
}

/// Why a body edit cannot be made; the file stays as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// `blocker resolve`: there is no Blockers / Blockers/Concerns / Concerns section.
    #[error("there is no `### Blockers` (or `Blockers/Concerns`, `Concerns`) section")]
    NoBlockersSection,
    /// `blocker resolve`: no blocker line contains the text; the open blockers are listed.
    #[error("no blocker contains `{text}`")]
    BlockerNotFound {
        /// The text asked for.
        text: String,
        /// The blocker lines there are (`- …`).
        open: Vec<String>,
    },
    /// `session record`: no session field to update and nothing given to add.
    #[error("no session field (Last session, Last Date, Stopped at, Resume file) to update")]
    NoSessionFields,
}

/// Appends `entry` to the section `pred` finds (its placeholders removed), or creates the section
/// `new_heading` at the end of the file.
fn append_entry(
    doc: &Document,
    pred: impl Fn(usize, &str) -> bool,
    placeholders: &[&str],
    new_heading: &str,
    entry: &str,
) -> BodyEdit {
    let text = &doc.text;
    let nl = doc.newline;
    let lines = lines_from(text, doc.body_start);
    let Some((heading, body)) = find_section(text, &lines, pred) else {
        let kept = text.trim_end();
        return BodyEdit {
            text: format!("{kept}{nl}{nl}{new_heading}{nl}{nl}{entry}{nl}"),
            lines: vec![entry.to_string()],
            updated: Vec::new(),
            created: true,
        };
    };
    let line_text = |i: usize| &text[lines[i].start..lines[i].end];
    // Placeholder lines go, with the blank lines after them (GSD's `None yet\.?\s*`).
    let mut kept: Vec<usize> = Vec::new();
    let mut dropping = false;
    for i in body.clone() {
        let t = line_text(i).trim();
        if placeholders.iter().any(|p| {
            t.eq_ignore_ascii_case(p)
                || t.strip_suffix('.')
                    .is_some_and(|s| s.eq_ignore_ascii_case(p))
        }) {
            dropping = true;
            continue;
        }
        if dropping && t.is_empty() {
            continue;
        }
        dropping = false;
        kept.push(i);
    }
    while kept.last().is_some_and(|&i| line_text(i).trim().is_empty()) {
        kept.pop();
    }
    let mut out = String::with_capacity(text.len() + entry.len() + 8);
    let heading_line = &lines[heading];
    out.push_str(&text[..heading_line.next]);
    if heading_line.next == heading_line.end {
        out.push_str(nl);
    }
    let last = kept.len().checked_sub(1);
    for (n, &i) in kept.iter().enumerate() {
        let l = &lines[i];
        if Some(n) == last {
            // The last line keeps its text without trailing blanks (GSD trims the section's end).
            out.push_str(text[l.start..l.end].trim_end());
            out.push_str(nl);
        } else {
            out.push_str(&text[l.start..l.next]);
            if l.next == l.end {
                out.push_str(nl);
            }
        }
    }
    let before = kept.last().map(|&i| line_text(i).trim_end());
    if before.is_none_or(|b| !is_list_item(b) && b.trim() != "---") {
        out.push_str(nl);
    }
    out.push_str(entry);
    out.push_str(nl);
    if body.end < lines.len() {
        out.push_str(nl);
        out.push_str(&text[lines[body.end].start..]);
    }
    BodyEdit {
        text: out,
        lines: vec![entry.to_string()],
        updated: Vec::new(),
        created: false,
    }
}

/// The decision line GSD writes: `- [Phase P]: SUMMARY — RATIONALE` (`?` without a phase).
pub fn decision_entry(phase: Option<&str>, summary: &str, rationale: Option<&str>) -> String {
    let phase = phase.filter(|p| !p.is_empty()).unwrap_or("?");
    match rationale.filter(|r| !r.is_empty()) {
        Some(r) => format!("- [Phase {phase}]: {summary} — {r}"),
        None => format!("- [Phase {phase}]: {summary}"),
    }
}

/// `gsd decision add`: the decision line at the end of the first Decisions / Decisions Made /
/// Accumulated … Decisions section (its `None yet.` / `No decisions yet.` removed), or a new
/// `## Decisions` section at the end of the file.
pub fn add_decision(doc: &Document, entry: &str) -> BodyEdit {
    append_entry(
        doc,
        is_decisions_heading,
        &["none yet", "no decisions yet"],
        "## Decisions",
        entry,
    )
}

/// `gsd blocker add`: `- TEXT` at the end of the first Blockers / Blockers/Concerns / Concerns
/// section (its `None` / `None yet.` removed), or a new `### Blockers` section at the end.
pub fn add_blocker(doc: &Document, text: &str) -> BodyEdit {
    append_entry(
        doc,
        is_blockers_heading,
        &["none", "none yet"],
        "### Blockers",
        &format!("- {text}"),
    )
}

/// `gsd blocker resolve`: removes every `- ` line of the Blockers section that contains `text`
/// (case-insensitively); when no blocker is left, the section says `None`.
pub fn resolve_blocker(doc: &Document, needle: &str) -> Result<BodyEdit, EditError> {
    let text = &doc.text;
    let nl = doc.newline;
    let lines = lines_from(text, doc.body_start);
    let (heading, body) =
        find_section(text, &lines, is_blockers_heading).ok_or(EditError::NoBlockersSection)?;
    let line_text = |i: usize| &text[lines[i].start..lines[i].end];
    let lower = needle.to_lowercase();
    let (removed, kept): (Vec<usize>, Vec<usize>) = body.clone().partition(|&i| {
        line_text(i).starts_with("- ") && line_text(i).to_lowercase().contains(&lower)
    });
    if removed.is_empty() {
        return Err(EditError::BlockerNotFound {
            text: needle.to_string(),
            open: body
                .filter(|&i| line_text(i).starts_with("- "))
                .map(|i| line_text(i).to_string())
                .collect(),
        });
    }
    let remaining: Vec<&str> = kept.iter().map(|&i| line_text(i)).collect();
    let still_listed = remaining.join("\n").contains("- ");
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..lines[heading].next]);
    if still_listed {
        for &i in &kept {
            out.push_str(&text[lines[i].start..lines[i].next]);
        }
        out.push_str(&text[lines.get(body.end).map_or(text.len(), |l| l.start)..]);
    } else {
        // No blocker left: the prose stays, `None` says so (GSD's placeholder).
        let mut prose: Vec<usize> = kept
            .iter()
            .copied()
            .skip_while(|&i| line_text(i).trim().is_empty())
            .collect();
        while prose
            .last()
            .is_some_and(|&i| line_text(i).trim().is_empty())
        {
            prose.pop();
        }
        out.push_str(nl);
        for &i in &prose {
            out.push_str(line_text(i));
            out.push_str(nl);
        }
        if !prose.is_empty() {
            out.push_str(nl);
        }
        out.push_str("None");
        out.push_str(nl);
        if body.end < lines.len() {
            out.push_str(nl);
            out.push_str(&text[lines[body.end].start..]);
        }
    }
    Ok(BodyEdit {
        text: out,
        lines: removed.iter().map(|&i| line_text(i).to_string()).collect(),
        updated: Vec::new(),
        created: false,
    })
}

/// Where a body field's value lies: the byte range of the value (without the line ending).
#[derive(Debug, Clone, PartialEq, Eq)]
struct FieldValue {
    range: Range<usize>,
    /// Nothing separates the value from its label (`**Stopped at:**` with nothing after it): a
    /// space goes in before a new value.
    needs_space: bool,
}

/// A body field as GSD's `stateReplaceField` finds it: the first `**Name:**` anywhere in the
/// body, else the first line starting `Name:`, else a two-cell table row `| Name | value |`;
/// names compared ignoring ASCII case.
fn find_field(text: &str, from: usize, name: &str) -> Option<FieldValue> {
    let lines = lines_from(text, from);
    let bold = format!("**{name}:**");
    let value_after = |line: &Line, label_end: usize| {
        let rest = &text[label_end..line.end];
        let start = label_end + (rest.len() - rest.trim_start_matches([' ', '\t']).len());
        FieldValue {
            range: start..line.end,
            needs_space: start == label_end,
        }
    };
    for l in &lines {
        let line = &text[l.start..l.end];
        if let Some(at) = find_ignore_ascii_case(line, &bold) {
            return Some(value_after(l, l.start + at + bold.len()));
        }
    }
    let plain = format!("{name}:");
    for l in &lines {
        let line = &text[l.start..l.end];
        if line.len() >= plain.len()
            && line.as_bytes()[..plain.len()].eq_ignore_ascii_case(plain.as_bytes())
        {
            return Some(value_after(l, l.start + plain.len()));
        }
    }
    for l in &lines {
        if let Some(range) = table_value(text, l, name) {
            return Some(FieldValue {
                range,
                needs_space: false,
            });
        }
    }
    None
}

fn find_ignore_ascii_case(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    (0..=h.len().checked_sub(n.len())?).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

/// The value cell of a `| Name | value |` row (exactly three pipes; not a separator row).
fn table_value(text: &str, l: &Line, name: &str) -> Option<Range<usize>> {
    let line = &text[l.start..l.end];
    if !line.starts_with('|') || line.matches('|').count() != 3 {
        return None;
    }
    if !line.trim_end_matches([' ', '\t']).ends_with('|') {
        return None;
    }
    let second = line[1..].find('|')? + 1;
    let cell = &line[1..second];
    let cell_trim = cell.trim();
    if cell_trim.chars().all(|c| matches!(c, '-' | ':' | ' ')) {
        return None;
    }
    // The name, after any leading blanks, then only blanks.
    let lead = cell.len() - cell.trim_start_matches([' ', '\t']).len();
    let after = &cell[lead..];
    if after.len() < name.len()
        || !after.as_bytes()[..name.len()].eq_ignore_ascii_case(name.as_bytes())
        || !after[name.len()..].trim_matches([' ', '\t']).is_empty()
    {
        return None;
    }
    let close = second + 1 + line[second + 1..].find('|')?;
    let mut start = l.start + second + 1;
    let mut end = l.start + close;
    let b = text.as_bytes();
    while start < end && matches!(b[start], b' ' | b'\t') {
        start += 1;
    }
    while end > start && matches!(b[end - 1], b' ' | b'\t') {
        end -= 1;
    }
    Some(start..end)
}

/// Sets a field's value (GSD's `stateReplaceField`); `None` when the body has no such field.
fn replace_field(text: &str, from: usize, name: &str, value: &str) -> Option<String> {
    let f = find_field(text, from, name)?;
    let space = if f.needs_space && !value.is_empty() {
        " "
    } else {
        ""
    };
    Some(format!(
        "{}{space}{value}{}",
        &text[..f.range.start],
        &text[f.range.end..]
    ))
}

/// The value of a field as GSD's `stateExtractField` reads it (trimmed).
fn field_value<'t>(text: &'t str, from: usize, name: &str) -> Option<&'t str> {
    find_field(text, from, name).map(|f| text[f.range].trim())
}

/// What `gsd session record` is asked to record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionRecord<'a> {
    /// The time of the session (GSD writes JavaScript's `toISOString()`).
    pub now: &'a str,
    /// `--stopped-at`.
    pub stopped_at: Option<&'a str>,
    /// `--resume-file`.
    pub resume_file: Option<&'a str>,
}

/// The line of a `## Session` heading (`## Session` or `## Session Continuity`, any case), the
/// first one.
fn session_heading(text: &str, from: usize, title: &str) -> Option<Line> {
    let want = format!("## {title}");
    lines_from(text, from).into_iter().find(|l| {
        let line = &text[l.start..l.end];
        line.len() >= want.len()
            && line.as_bytes()[..want.len()].eq_ignore_ascii_case(want.as_bytes())
            && line[want.len()..].trim_matches([' ', '\t']).is_empty()
    })
}

/// `gsd session record`: `Last session` (or `Last Date`) set to `now`, `Stopped at` and `Resume
/// file` to the values given — `Resume file` back to `None` when it holds GSD's own `None` and no
/// value was given. Fields that are missing are added under the session heading (or a new
/// `## Session` section) when a value was given.
pub fn record_session(doc: &Document, rec: &SessionRecord<'_>) -> Result<BodyEdit, EditError> {
    let from = doc.body_start;
    let nl = doc.newline;
    let mut text = doc.text.clone();
    let mut updated: Vec<&'static str> = Vec::new();
    let set =
        |text: &mut String, name: &str, value: &str| match replace_field(text, from, name, value) {
            Some(t) => {
                *text = t;
                true
            }
            None => false,
        };
    if set(&mut text, "Last session", rec.now) {
        updated.push("Last session");
    }
    if set(&mut text, "Last Date", rec.now) {
        updated.push("Last Date");
    }
    if let Some(stopped) = rec.stopped_at
        && set(&mut text, "Stopped At", stopped)
    {
        updated.push("Stopped At");
    }
    match rec.resume_file {
        Some(resume) => {
            if set(&mut text, "Resume File", resume) {
                updated.push("Resume File");
            }
        }
        None => {
            // Only GSD's own `None` (or nothing) is replaced: a path an executor wrote stays.
            let existing = field_value(&text, from, "Resume File");
            if existing.is_none_or(|v| v.is_empty() || v.eq_ignore_ascii_case("None"))
                && let Some(t) = replace_field(&text, from, "Resume File", "None")
                && t != text
            {
                text = t;
                updated.push("Resume File");
            }
        }
    }
    let supplied = rec.stopped_at.is_some() || rec.resume_file.is_some();
    let needs_stopped = rec.stopped_at.is_some() && !updated.contains(&"Stopped At");
    let needs_resume = rec.resume_file.is_some() && !updated.contains(&"Resume File");
    let needs_last = !updated.contains(&"Last session") && !updated.contains(&"Last Date");
    let mut created = false;
    if supplied && (needs_stopped || needs_resume || needs_last) {
        let heading = session_heading(&text, from, "Session")
            .or_else(|| session_heading(&text, from, "Session Continuity"));
        match heading {
            Some(h) => {
                let mut insert: Vec<String> = Vec::new();
                if needs_last {
                    insert.push(format!("**Last session:** {}", rec.now));
                }
                if let (true, Some(s)) = (needs_stopped, rec.stopped_at) {
                    insert.push(format!("**Stopped at:** {s}"));
                }
                if let (true, Some(r)) = (needs_resume, rec.resume_file) {
                    insert.push(format!("**Resume file:** {r}"));
                }
                let mut block = String::new();
                if h.next == h.end {
                    block.push_str(nl);
                }
                block.push_str(nl);
                for l in &insert {
                    block.push_str(l);
                    block.push_str(nl);
                }
                text.insert_str(h.next, &block);
            }
            None => {
                let kept = text.trim_end().len();
                text.truncate(kept);
                let stopped = rec.stopped_at.unwrap_or("None");
                let resume = rec.resume_file.unwrap_or("None");
                text.push_str(&format!(
                    "{nl}{nl}## Session{nl}{nl}**Last session:** {}{nl}**Stopped at:** {stopped}{nl}**Resume file:** {resume}{nl}",
                    rec.now
                ));
            }
        }
        created = true;
        if needs_last {
            updated.push("Last session");
        }
        if needs_stopped {
            updated.push("Stopped At");
        }
        if needs_resume {
            updated.push("Resume File");
        }
    }
    if updated.is_empty() {
        return Err(EditError::NoSessionFields);
    }
    Ok(BodyEdit {
        text,
        lines: Vec::new(),
        updated,
        created,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Document {
        Document::parse(text.to_string())
    }

    const STATE: &str = "---\nstatus: executing\n---\n\n# Project State\n\n## Accumulated Context\n\n### Decisions\n\nNone yet.\n\n### Blockers/Concerns\n\n- Waiting on keys\n\n## Session Continuity\n\nLast session: 2026-01-01\nStopped at: x\nResume file: None\n";

    #[test]
    fn a_decision_replaces_the_placeholder() {
        let e = add_decision(
            &doc(STATE),
            &decision_entry(Some("2"), "Use Rust", Some("speed")),
        );
        assert!(
            e.text
                .contains("### Decisions\n\n- [Phase 2]: Use Rust — speed\n\n### Blockers"),
            "{}",
            e.text
        );
        assert!(!e.created);
    }

    #[test]
    fn a_missing_section_is_created_at_the_end() {
        let e = add_blocker(&doc("# S\n\ntext\n\n\n"), "No CI");
        assert_eq!(e.text, "# S\n\ntext\n\n### Blockers\n\n- No CI\n");
        assert!(e.created);
    }

    #[test]
    fn resolving_the_last_blocker_leaves_none_and_an_unknown_one_is_refused() {
        let e = resolve_blocker(&doc(STATE), "KEYS").expect("resolved");
        assert!(
            e.text
                .contains("### Blockers/Concerns\n\nNone\n\n## Session"),
            "{}",
            e.text
        );
        assert_eq!(e.lines, ["- Waiting on keys"]);
        let err = resolve_blocker(&doc(STATE), "nothing").unwrap_err();
        assert_eq!(
            err,
            EditError::BlockerNotFound {
                text: "nothing".into(),
                open: vec!["- Waiting on keys".into()]
            }
        );
    }

    #[test]
    fn a_session_updates_its_fields_in_place() {
        let rec = SessionRecord {
            now: "2026-09-21T14:13:20.000Z",
            stopped_at: Some("Plan 2"),
            resume_file: None,
        };
        let e = record_session(&doc(STATE), &rec).expect("recorded");
        assert!(e.text.ends_with(
            "Last session: 2026-09-21T14:13:20.000Z\nStopped at: Plan 2\nResume file: None\n"
        ));
        assert_eq!(e.updated, ["Last session", "Stopped At"]);
    }

    #[test]
    fn an_empty_field_is_filled_on_its_own_line() {
        let text = "# S\n\n## Session Continuity\n\n**Stopped at:**\nResume file: a.md\n";
        let rec = SessionRecord {
            now: "T",
            stopped_at: Some("here"),
            resume_file: None,
        };
        let e = record_session(&doc(text), &rec).expect("recorded");
        assert!(
            e.text.contains("**Stopped at:** here\nResume file: a.md\n"),
            "{}",
            e.text
        );
    }

    #[test]
    fn crlf_stays_crlf() {
        let text = STATE.replace('\n', "\r\n");
        let e = add_decision(&doc(&text), &decision_entry(None, "x", None));
        assert!(
            e.text
                .contains("### Decisions\r\n\r\n- [Phase ?]: x\r\n\r\n### Blockers")
        );
        assert!(!e.text.replace("\r\n", "").contains('\n'));
    }
}

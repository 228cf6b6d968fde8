//! The faithful reader of a whole STATE.md: the frontmatter as ordered YAML-like key/values with
//! their exact text and quoting, the body's fields in all three spellings (`Field: value`,
//! `**Field:** value`, `| Field | value |`) and its sections. Every piece keeps its byte range,
//! so writers can change one key and leave every other byte where it was.
//!
//! It is deliberately tolerant where GSD's hook is not (a BOM, a leading blank line, a trailing
//! space on the fence): it still finds the frontmatter and records the deviation, so `verify` can
//! say why the statusline shows nothing.

use std::ops::Range;

/// One parsed STATE.md.
#[derive(Debug, Clone)]
pub struct Document {
    /// The whole file as read; every range below is a byte range into it.
    pub text: String,
    /// The frontmatter between the `---` fences; `None` when the file does not open with one
    /// (a byte-order mark or blank lines before it are tolerated and recorded).
    pub frontmatter: Option<Frontmatter>,
    /// Where the markdown body starts (after the closing fence, or 0).
    pub body_start: usize,
    /// Every ATX heading of the body (`#` to `######`), in order; headings inside the frontmatter
    /// are not read.
    pub headings: Vec<Heading>,
    /// Every body line that reads as a field, in any of the three spellings, in order.
    pub fields: Vec<BodyField>,
    /// `\r\n` when the file's first line ends that way, else `\n`.
    pub newline: &'static str,
    /// The byte offset where each line starts (0, then after every `\n`), built in the one pass
    /// of [`Document::parse`]: a line number is then a binary search, not a count of the text
    /// before it (counting made `gsd status` quadratic in the number of body fields).
    line_starts: Vec<usize>,
}

/// How the frontmatter fence deviates from what GSD's hook recognises.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FenceDeviations {
    /// The file starts with a byte-order mark (the hook then sees no frontmatter).
    pub bom: bool,
    /// Blank lines come before the opening `---`.
    pub leading_blank_lines: bool,
    /// The opening `---` has trailing spaces or tabs.
    pub trailing_space_on_open: bool,
    /// The closing `---` has trailing spaces or tabs.
    pub trailing_space_on_close: bool,
    /// No closing `---` line: everything after the opening fence was read as frontmatter.
    pub unclosed: bool,
}

impl FenceDeviations {
    /// Whether the fence deviates in any way: GSD's hook may then not read the frontmatter as
    /// planseal does.
    pub fn any(&self) -> bool {
        self.bom
            || self.leading_blank_lines
            || self.trailing_space_on_open
            || self.trailing_space_on_close
            || self.unclosed
    }
}

/// The frontmatter block: its fence, its keys in file order and the bytes around them.
#[derive(Debug, Clone)]
pub struct Frontmatter {
    /// How its fences deviate from what GSD's hook recognises.
    pub deviations: FenceDeviations,
    /// The lines between the fences (each with its line end).
    pub inner: Range<usize>,
    /// The top-level keys, in file order (a repeated key appears each time; the last one counts).
    pub entries: Vec<Entry>,
    /// Comment and blank lines after the last key.
    pub trailer: Range<usize>,
}

/// One top-level key.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The key as written, before its colon.
    pub key: String,
    /// Comment and blank lines directly above the key (kept with it when keys move).
    pub lead: Range<usize>,
    /// The key line and every line that belongs to it (children, list items, and comment or
    /// blank lines between them), each with its line end.
    pub span: Range<usize>,
    /// What the key holds.
    pub value: Value,
    /// A comment or blank line sits between the key and its last child line.
    pub gap_inside: bool,
}

/// What a top-level key holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A value on the key line (`key: value`, quoted or not).
    Scalar(Scalar),
    /// A nested block of `  key: value` lines.
    Map(Vec<Child>),
    /// `[a, b]` on the key line.
    FlowList(Vec<Scalar>),
    /// `- a` lines below the key.
    BlockList(Vec<Scalar>),
    /// `key:` with nothing on the line and nothing below.
    Empty,
}

/// One `  key: value` line of a nested block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Child {
    /// The child's key, as written before its colon.
    pub key: String,
    /// The child's whole line (with its line end).
    pub line: Range<usize>,
    /// Where the value text starts and ends inside the document (comment excluded).
    pub value_range: Range<usize>,
    /// The child's value.
    pub scalar: Scalar,
}

/// How a scalar is quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    /// Not quoted (`key: value`); `null`, `~` and nothing mean no value.
    Plain,
    /// In single quotes (`'it''s'`).
    Single,
    /// In double quotes, with backslash escapes (`"a\"b"`).
    Double,
}

/// A YAML-like scalar as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scalar {
    /// The text after the colon, trimmed, quotes and comment included.
    pub raw: String,
    /// The value: unquoted and unescaped; `None` for `null`, `~` and nothing.
    pub text: Option<String>,
    /// How the value is quoted.
    pub quote: Quote,
    /// An inline `# comment` after the value.
    pub comment: Option<String>,
}

impl Scalar {
    /// Reads a scalar from the text after a colon.
    pub fn parse(raw: &str) -> Scalar {
        let raw = raw.trim();
        let (text, quote, comment) = if let Some(rest) = raw.strip_prefix('"') {
            let mut out = String::new();
            let mut chars = rest.char_indices();
            let mut end = None;
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => match chars.next() {
                        Some((_, 'n')) => out.push('\n'),
                        Some((_, 't')) => out.push('\t'),
                        Some((_, other)) => out.push(other),
                        None => {}
                    },
                    '"' => {
                        end = Some(i + 1);
                        break;
                    }
                    other => out.push(other),
                }
            }
            let comment = end.and_then(|e| comment_after(&rest[e..]));
            (Some(out), Quote::Double, comment)
        } else if let Some(rest) = raw.strip_prefix('\'') {
            let mut out = String::new();
            let mut end = None;
            let mut iter = rest.char_indices().peekable();
            while let Some((i, c)) = iter.next() {
                if c == '\'' {
                    if iter.peek().is_some_and(|&(_, n)| n == '\'') {
                        out.push('\'');
                        iter.next();
                    } else {
                        end = Some(i + 1);
                        break;
                    }
                } else {
                    out.push(c);
                }
            }
            let comment = end.and_then(|e| comment_after(&rest[e..]));
            (Some(out), Quote::Single, comment)
        } else {
            let (value, comment) = split_plain_comment(raw);
            let text = match value {
                "" | "null" | "Null" | "NULL" | "~" => None,
                v => Some(v.to_string()),
            };
            (text, Quote::Plain, comment)
        };
        Scalar {
            raw: raw.to_string(),
            text,
            quote,
            comment,
        }
    }

    /// The value, unquoted and unescaped; `None` for `null`, `~` and nothing.
    pub fn as_str(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// The value as a whole number, when it is one (quoted or not).
    pub fn as_u64(&self) -> Option<u64> {
        self.text.as_deref()?.trim().parse().ok()
    }
}

/// A YAML comment starts at `#` preceded by whitespace (or at the very start).
fn split_plain_comment(s: &str) -> (&str, Option<String>) {
    let bytes = s.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'#' && (i == 0 || bytes[i - 1] == b' ' || bytes[i - 1] == b'\t') {
            return (s[..i].trim_end(), Some(s[i..].to_string()));
        }
    }
    (s, None)
}

fn comment_after(rest: &str) -> Option<String> {
    let t = rest.trim_start();
    t.starts_with('#').then(|| t.to_string())
}

/// A markdown ATX heading and the section it opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    /// How many `#` open the heading (1 to 6).
    pub level: usize,
    /// The heading's text, trimmed, without the `#`s (closing ones too).
    pub title: String,
    /// The heading line, without its line end.
    pub line: Range<usize>,
    /// The section: from the heading line to the next heading of the same or a higher level.
    pub section: Range<usize>,
}

/// How a body field is spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldStyle {
    /// `Field: value`
    Plain,
    /// `**Field:** value` (also as a `- ` bullet)
    Bold,
    /// `| Field | value |`
    Table,
}

/// One body field line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyField {
    /// The field's name, as written (`Status`, `Last activity`).
    pub name: String,
    /// The field's value, trimmed.
    pub value: String,
    /// How the field is spelled.
    pub style: FieldStyle,
    /// The whole line, without its line end.
    pub line: Range<usize>,
}

/// The lines of `text[range]`: (start, end without line end, end with line end).
fn lines_in(text: &str, range: Range<usize>) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    let mut pos = range.start;
    while pos < range.end {
        let nl = text[pos..range.end].find('\n').map(|i| pos + i);
        let (content_end, next) = match nl {
            Some(i) => (
                if i > pos && text.as_bytes()[i - 1] == b'\r' {
                    i - 1
                } else {
                    i
                },
                i + 1,
            ),
            None => (range.end, range.end),
        };
        out.push((pos, content_end, next));
        pos = next;
    }
    out
}

impl Document {
    /// Reads a whole STATE.md; never fails, however broken the text: what cannot be read is simply
    /// absent (a missing or unclosed frontmatter is recorded as such).
    pub fn parse(text: String) -> Document {
        let newline = match text.find('\n') {
            Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
            _ => "\n",
        };
        let (frontmatter, body_start) = parse_frontmatter(&text);
        let (headings, fields) = parse_body(&text, body_start);
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Document {
            text,
            frontmatter,
            body_start,
            headings,
            fields,
            newline,
            line_starts,
        }
    }

    /// The markdown body: everything after the closing fence (the whole text without a
    /// frontmatter).
    pub fn body(&self) -> &str {
        &self.text[self.body_start..]
    }

    /// The last top-level frontmatter entry named `key` (the one GSD's tools read).
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.frontmatter
            .as_ref()?
            .entries
            .iter()
            .rev()
            .find(|e| e.key == key)
    }

    /// A top-level scalar's value (`None` when absent or null).
    pub fn scalar(&self, key: &str) -> Option<&str> {
        match &self.entry(key)?.value {
            Value::Scalar(s) => s.as_str(),
            _ => None,
        }
    }

    /// A top-level scalar as written (quoting and comment included); `None` when the key is absent
    /// or does not hold a scalar.
    pub fn scalar_entry(&self, key: &str) -> Option<&Scalar> {
        match &self.entry(key)?.value {
            Value::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// A child of a nested block (`progress.percent`).
    pub fn child(&self, key: &str, child: &str) -> Option<&Child> {
        match &self.entry(key)?.value {
            Value::Map(children) => children.iter().find(|c| c.key == child),
            _ => None,
        }
    }

    /// The list items of a key in either list form.
    pub fn list(&self, key: &str) -> Option<Vec<String>> {
        match &self.entry(key)?.value {
            Value::FlowList(items) | Value::BlockList(items) => Some(
                items
                    .iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect(),
            ),
            _ => None,
        }
    }

    /// The heading whose title matches `title` (case-insensitive, trimmed) at one of `levels`.
    pub fn heading(&self, title: &str, levels: &[usize]) -> Option<&Heading> {
        self.headings
            .iter()
            .find(|h| levels.contains(&h.level) && h.title.eq_ignore_ascii_case(title))
    }

    /// A body field by name (case-insensitive), preferring GSD's order of spellings: bold, then
    /// plain, then table; within `within` when given.
    pub fn field(&self, name: &str, within: Option<&Range<usize>>) -> Option<&BodyField> {
        let candidates = || {
            self.fields.iter().filter(move |f| {
                f.name.eq_ignore_ascii_case(name)
                    && within.is_none_or(|r| r.start <= f.line.start && f.line.end <= r.end)
            })
        };
        [FieldStyle::Bold, FieldStyle::Plain, FieldStyle::Table]
            .into_iter()
            .find_map(|style| candidates().find(|f| f.style == style))
    }

    /// The text of a line range.
    pub fn slice(&self, r: &Range<usize>) -> &str {
        &self.text[r.clone()]
    }

    /// 1-based line number of a byte offset: one more than the number of `\n` before it (an
    /// offset past the end counts them all).
    pub fn line_number(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        // Line starts at or before `offset`; the first (0) always is.
        self.line_starts.partition_point(|&start| start <= offset)
    }
}

fn is_fence(line: &str) -> Option<bool> {
    // Some(true) = fence with trailing whitespace.
    let trimmed = line.trim_end_matches([' ', '\t']);
    (trimmed == "---").then_some(trimmed.len() != line.len())
}

fn parse_frontmatter(text: &str) -> (Option<Frontmatter>, usize) {
    let mut deviations = FenceDeviations::default();
    let mut pos = 0;
    if text.starts_with('\u{FEFF}') {
        deviations.bom = true;
        pos = '\u{FEFF}'.len_utf8();
    }
    let all = lines_in(text, pos..text.len());
    let mut idx = 0;
    while idx < all.len() && text[all[idx].0..all[idx].1].trim().is_empty() {
        idx += 1;
    }
    if idx > 0 {
        deviations.leading_blank_lines = true;
    }
    let Some(&(open_start, open_end, open_next)) = all.get(idx) else {
        return (None, 0);
    };
    let Some(open_space) = is_fence(&text[open_start..open_end]) else {
        return (None, 0);
    };
    deviations.trailing_space_on_open = open_space;
    let close = all[idx + 1..]
        .iter()
        .find_map(|&(s, e, n)| is_fence(&text[s..e]).map(|space| (s, n, space)));
    let (inner, body_start) = match close {
        Some((close_start, close_next, space)) => {
            deviations.trailing_space_on_close = space;
            (open_next..close_start, close_next)
        }
        None => {
            deviations.unclosed = true;
            (open_next..text.len(), text.len())
        }
    };
    let _ = open_start;
    let (entries, trailer) = parse_entries(text, inner.clone());
    (
        Some(Frontmatter {
            deviations,
            inner,
            entries,
            trailer,
        }),
        body_start,
    )
}

/// `key:` at the start of a line: the key and the byte offset after the colon.
fn top_level_key(line: &str) -> Option<(&str, usize)> {
    let first = line.chars().next()?;
    if !(first.is_ascii_alphanumeric() || first == '_') {
        return None;
    }
    let len = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(line.len());
    let rest = &line[len..];
    if rest.starts_with(':')
        && rest[1..]
            .chars()
            .next()
            .is_none_or(|c| c == ' ' || c == '\t')
    {
        Some((&line[..len], len + 1))
    } else {
        None
    }
}

fn parse_entries(text: &str, inner: Range<usize>) -> (Vec<Entry>, Range<usize>) {
    let lines = lines_in(text, inner.clone());
    let mut entries: Vec<Entry> = Vec::new();
    // Comment/blank lines seen since the last line that belonged to something.
    let mut pending: Option<usize> = None;
    let mut child_lines: Vec<Vec<(usize, usize, usize)>> = Vec::new();
    for &(start, end, next) in &lines {
        let line = &text[start..end];
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            pending.get_or_insert(start);
            continue;
        }
        if let Some((key, _)) = top_level_key(line) {
            let lead = pending.take().unwrap_or(start)..start;
            entries.push(Entry {
                key: key.to_string(),
                lead,
                span: start..next,
                value: Value::Empty,
                gap_inside: false,
            });
            child_lines.push(Vec::new());
            continue;
        }
        // An indented line or a list item: it belongs to the key above.
        match entries.last_mut() {
            Some(entry) => {
                if pending.take().is_some() {
                    entry.gap_inside = true;
                }
                entry.span.end = next;
                if let Some(children) = child_lines.last_mut() {
                    children.push((start, end, next));
                }
            }
            None => {
                // A stray line before any key: keep it as part of the first key's lead.
                pending.get_or_insert(start);
            }
        }
    }
    let trailer = pending.unwrap_or(inner.end)..inner.end;
    for (entry, children) in entries.iter_mut().zip(child_lines) {
        entry.value = entry_value(text, entry.span.start, &children);
    }
    (entries, trailer)
}

fn entry_value(text: &str, key_line_start: usize, children: &[(usize, usize, usize)]) -> Value {
    let key_line_end = text[key_line_start..]
        .find('\n')
        .map_or(text.len(), |i| key_line_start + i);
    let key_line = text[key_line_start..key_line_end].trim_end_matches('\r');
    let after_colon = top_level_key(key_line).map_or("", |(_, at)| &key_line[at..]);
    let inline = after_colon.trim();
    if inline.starts_with('[') {
        let (list_text, _) = split_plain_comment(inline);
        let inner = list_text
            .strip_prefix('[')
            .map(|s| s.strip_suffix(']').unwrap_or(s))
            .unwrap_or("");
        let items = inner
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(Scalar::parse)
            .collect();
        return Value::FlowList(items);
    }
    if !inline.is_empty() && !inline.starts_with('#') {
        return Value::Scalar(Scalar::parse(inline));
    }
    let meaningful: Vec<_> = children
        .iter()
        .filter(|&&(s, e, _)| {
            let t = text[s..e].trim();
            !t.is_empty() && !t.starts_with('#')
        })
        .collect();
    if meaningful.is_empty() {
        return if inline.is_empty() {
            Value::Empty
        } else {
            Value::Scalar(Scalar::parse(inline))
        };
    }
    if meaningful
        .iter()
        .all(|&&(s, e, _)| text[s..e].trim_start().starts_with('-'))
    {
        let items = meaningful
            .iter()
            .map(|&&(s, e, _)| Scalar::parse(text[s..e].trim_start()[1..].trim()))
            .collect();
        return Value::BlockList(items);
    }
    let children = meaningful
        .iter()
        .filter_map(|&&(s, e, n)| {
            let line = &text[s..e];
            let indent = line.len() - line.trim_start().len();
            let (key, at) = top_level_key(&line[indent..])?;
            let value_text = &line[indent + at..];
            let value_trim_start = value_text.len() - value_text.trim_start().len();
            let scalar = Scalar::parse(value_text);
            let value_len = match scalar.quote {
                Quote::Plain => split_plain_comment(value_text.trim()).0.len(),
                _ => scalar
                    .raw
                    .len()
                    .saturating_sub(scalar.comment.as_ref().map_or(0, |c| c.len())),
            };
            let value_start = s + indent + at + value_trim_start;
            let raw_value = &text[value_start..value_start + value_len.min(e - value_start)];
            let value_end = value_start + raw_value.trim_end().len();
            Some(Child {
                key: key.to_string(),
                line: s..n,
                value_range: value_start..value_end,
                scalar,
            })
        })
        .collect();
    Value::Map(children)
}

fn parse_body(text: &str, body_start: usize) -> (Vec<Heading>, Vec<BodyField>) {
    let mut headings: Vec<Heading> = Vec::new();
    let mut fields = Vec::new();
    let mut fence: Option<&str> = None;
    for (start, end, next) in lines_in(text, body_start..text.len()) {
        let line = &text[start..end];
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if indent <= 3 {
            for marker in ["```", "~~~"] {
                if trimmed.starts_with(marker) {
                    match fence {
                        None => fence = Some(marker),
                        Some(open) if open == marker => fence = None,
                        _ => {}
                    }
                }
            }
        }
        if fence.is_some() || trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            continue;
        }
        if let Some(h) = heading(line) {
            headings.push(Heading {
                level: h.0,
                title: h.1.to_string(),
                line: start..end,
                section: start..next,
            });
            continue;
        }
        if let Some((name, value, style)) = field_line(line) {
            fields.push(BodyField {
                name: name.to_string(),
                value: value.to_string(),
                style,
                line: start..end,
            });
        }
    }
    // A section runs to the next heading of the same or a higher level.
    for i in 0..headings.len() {
        let level = headings[i].level;
        let end = headings[i + 1..]
            .iter()
            .find(|h| h.level <= level)
            .map_or(text.len(), |h| h.line.start);
        headings[i].section.end = end;
    }
    (headings, fields)
}

/// `## Title` ⇒ (2, "Title"): the one heading recogniser ([`crate::markdown::heading`]).
pub fn heading(line: &str) -> Option<(usize, &str)> {
    crate::markdown::heading(line).map(|h| (h.level, h.text))
}

fn valid_field_name(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_alphabetic())
        && name.len() <= 60
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '.' | '/' | '(' | ')' | '-'))
}

/// One field line in any spelling: (name, value, style).
pub fn field_line(line: &str) -> Option<(&str, &str, FieldStyle)> {
    let trimmed = line.trim_start_matches([' ', '\t']);
    let bold = trimmed
        .strip_prefix("- ")
        .or_else(|| trimmed.strip_prefix("* "))
        .unwrap_or(trimmed);
    if let Some(rest) = bold.strip_prefix("**")
        && let Some(close) = rest.find(":**")
    {
        let name = rest[..close].trim();
        if valid_field_name(name) {
            return Some((name, rest[close + 3..].trim(), FieldStyle::Bold));
        }
    }
    if let Some(rest) = line.strip_prefix('|') {
        let row = rest.trim_end_matches([' ', '\t']).strip_suffix('|')?;
        let mut cells = row.split('|');
        let (name, value) = (cells.next()?.trim(), cells.next()?.trim());
        if cells.next().is_some() || name.chars().all(|c| matches!(c, '-' | ':' | ' ')) {
            return None;
        }
        return valid_field_name(name).then_some((name, value, FieldStyle::Table));
    }
    let colon = line.find(':')?;
    let name = &line[..colon];
    let value = &line[colon + 1..];
    if name != name.trim() || !valid_field_name(name) {
        return None;
    }
    if !(value.is_empty() || value.starts_with(' ') || value.starts_with('\t')) {
        return None;
    }
    Some((name, value.trim(), FieldStyle::Plain))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "---\ngsd_state_version: '1.0'\nmilestone: v2.0 # current\n\n# lifecycle\nactive_phase: \"4.5\"\nnext_phases: [\"4.5\", 5]\nprogress:\n  total_phases: 17\n  # note\n  percent: \"59\"\nlist:\n  - a\n  - 'b'\n---\n# Project State\n\n## Current Position\n\nPhase: 4 of 17 (Observability)\n**Status:** Executing Phase 4\n| Resume file | None |\n\n## Session\nStopped at: x\n";

    #[test]
    fn frontmatter_keys_in_order_with_quoting() {
        let d = Document::parse(SAMPLE.to_string());
        let fm = d.frontmatter.as_ref().unwrap();
        let keys: Vec<_> = fm.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "gsd_state_version",
                "milestone",
                "active_phase",
                "next_phases",
                "progress",
                "list"
            ]
        );
        assert_eq!(
            d.scalar_entry("gsd_state_version").unwrap().quote,
            Quote::Single
        );
        assert_eq!(d.scalar("milestone"), Some("v2.0"));
        assert_eq!(
            d.scalar_entry("milestone").unwrap().comment.as_deref(),
            Some("# current")
        );
        assert_eq!(
            d.slice(&d.entry("active_phase").unwrap().lead),
            "\n# lifecycle\n"
        );
        assert_eq!(d.list("next_phases").unwrap(), ["4.5", "5"]);
        assert!(d.entry("progress").unwrap().gap_inside);
        let pct = d.child("progress", "percent").unwrap();
        assert_eq!(pct.scalar.quote, Quote::Double);
        assert_eq!(d.slice(&pct.value_range), "\"59\"");
        assert_eq!(d.list("list").unwrap(), ["a", "b"]);
        assert!(!fm.deviations.any());
    }

    #[test]
    fn body_fields_and_sections() {
        let d = Document::parse(SAMPLE.to_string());
        let pos = d.heading("Current Position", &[2, 3]).unwrap();
        assert!(d.slice(&pos.section).starts_with("## Current Position"));
        assert!(!d.slice(&pos.section).contains("## Session"));
        let phase = d.field("Phase", Some(&pos.section)).unwrap();
        assert_eq!(phase.value, "4 of 17 (Observability)");
        assert_eq!(d.field("status", None).unwrap().style, FieldStyle::Bold);
        assert_eq!(d.field("Resume file", None).unwrap().value, "None");
        assert_eq!(d.field("Stopped at", None).unwrap().value, "x");
    }

    #[test]
    fn tolerant_fences_are_recorded() {
        let d = Document::parse("\u{feff}\n--- \na: 1\n---  \nbody\n".to_string());
        let dev = &d.frontmatter.as_ref().unwrap().deviations;
        assert!(dev.bom && dev.leading_blank_lines && dev.trailing_space_on_open);
        assert!(dev.trailing_space_on_close && !dev.unclosed);
        assert_eq!(d.scalar("a"), Some("1"));
        assert_eq!(d.body(), "body\n");
        let d = Document::parse("---\na: 1\n".to_string());
        assert!(d.frontmatter.unwrap().deviations.unclosed);
    }
}

//! Field extraction from a task body or a README.
//!
//! A field starts at a heading (`##`…`######`, optional `7.` number, the field name, optional
//! trailing `(…)`, nothing else) or at a bold label (`**Name:**`, `**Name**:`, `**Name** ·`,
//! `**Name** -`) at the start of a line (after blanks and one list marker). Its content runs to the
//! next heading or the next *known* bold label. Lines inside code fences never start or end a
//! field, but they are part of its content (a Validation section is often one fenced block).

use super::fences::{Line, fence_marker, lines};
use super::syntax::{bold_label_value, heading};

/// Labels whose bold form ends the content of the field before them.
pub const KNOWN_LABELS: &[&str] = &[
    "Context",
    "Goal",
    "Touched Surface",
    "Acceptance Criteria",
    "Validation",
    "Instructions",
    "Read Before Starting",
    "Completion & Log",
    "Completion log",
    "Skills disposition",
];

/// How a field was introduced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldForm {
    /// A heading of this level (2..=6).
    Heading(usize),
    /// A bold label at the start of a line.
    BoldLabel,
}

/// The content of one field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldText {
    /// Line number (1-based, in the text that was searched) of the heading or label line.
    pub line: usize,
    /// Whether the field was a heading or a bold label.
    pub form: FieldForm,
    /// The content: the rest of the label line (bold form) and the following lines, joined with
    /// `\n`, trimmed.
    pub text: String,
}

impl FieldText {
    /// True when the content holds any non-blank character. This is the helper's notion of a
    /// non-empty field (a plain strip), so template placeholders still count as content; see
    /// [`FieldText::is_placeholder_only`] for the stricter advisory notion.
    pub fn non_empty(&self) -> bool {
        !self.text.trim().is_empty()
    }

    /// True when the field is non-empty but carries nothing except placeholders: HTML comments,
    /// fence delimiters, `TBD`/`TODO`/`TBA`, `...`/`…`, or a whole line in angle brackets
    /// (`<fill in>`). Meant for advisories, never for failures.
    pub fn is_placeholder_only(&self) -> bool {
        self.non_empty() && !has_real_content(&self.text)
    }
}

fn has_real_content(text: &str) -> bool {
    let without_comments = strip_html_comments(text);
    without_comments.lines().any(|line| {
        if fence_marker(line).is_some() {
            return false;
        }
        let s = super::syntax::strip_list_marker(line)
            .trim_start_matches(['>', ' ', '\t'])
            .trim();
        let s = super::syntax::strip_emphasis(s);
        if s.is_empty() {
            return false;
        }
        let lower = s.to_ascii_lowercase();
        let placeholder = matches!(
            lower.as_str(),
            "tbd" | "todo" | "tba" | "..." | "…" | "-" | "—"
        ) || (s.starts_with('<') && s.ends_with('>') && !s.contains("</"));
        !placeholder
    })
}

fn strip_html_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("<!--") {
        out.push_str(&rest[..open]);
        match rest[open + 4..].find("-->") {
            Some(close) => rest = &rest[open + 4 + close + 3..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The field name part of a heading text: strips a leading `7.` number and a trailing `(…)`.
pub fn heading_field_name(text: &str) -> &str {
    let mut s = text.trim();
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0
        && let Some(rest) = s[digits..].strip_prefix('.')
    {
        s = rest.trim_start();
    }
    if s.ends_with(')')
        && let Some(open) = s.find('(')
    {
        s = s[..open].trim_end();
    }
    s
}

fn names_equal(a: &str, b: &str) -> bool {
    let mut x = a.split_whitespace();
    let mut y = b.split_whitespace();
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some(p), Some(q)) if p.eq_ignore_ascii_case(q) => {}
            _ => return false,
        }
    }
}

/// True when the line is a field heading (level ≥ 2) for `name`.
pub fn is_field_heading(line: &str, name: &str) -> bool {
    heading(line).is_some_and(|h| h.level >= 2 && names_equal(heading_field_name(h.text), name))
}

/// True when the (unfenced) line starts a known bold label.
pub fn starts_known_label(line: &str) -> bool {
    if !super::syntax::starts_bold(line) {
        return false;
    }
    KNOWN_LABELS
        .iter()
        .any(|label| bold_label_value(line, label).is_some())
}

/// The first field called `name` in `body` (name compared case-insensitively, blanks normalised).
pub fn field(body: &str, name: &str) -> Option<FieldText> {
    field_in_lines(&lines(body), name)
}

/// [`field`] over already split lines (any subset of a document, in order).
pub fn field_in_lines(lines: &[Line<'_>], name: &str) -> Option<FieldText> {
    let mut idx = 0;
    while idx < lines.len() {
        let line = &lines[idx];
        idx += 1;
        if line.in_fence {
            continue;
        }
        let (form, first) = if let Some(h) = heading(line.text) {
            if h.level >= 2 && names_equal(heading_field_name(h.text), name) {
                (FieldForm::Heading(h.level), "")
            } else {
                continue;
            }
        } else if let Some(value) = bold_label_value(line.text, name) {
            (FieldForm::BoldLabel, value)
        } else {
            continue;
        };
        let mut parts: Vec<&str> = Vec::new();
        if !first.is_empty() {
            parts.push(first);
        }
        for next in &lines[idx..] {
            if !next.in_fence && (heading(next.text).is_some() || starts_known_label(next.text)) {
                break;
            }
            parts.push(next.text);
        }
        return Some(FieldText {
            line: line.number,
            form,
            text: parts.join("\n").trim().to_string(),
        });
    }
    None
}

/// For each of `names`, whether [`field_in_lines`] finds that field with non-empty content —
/// the same answers, from one pass over the lines instead of one per name.
pub fn fields_non_empty_in_lines(lines: &[Line<'_>], names: &[&str]) -> Vec<bool> {
    let mut found: Vec<Option<bool>> = vec![None; names.len()];
    let mut open = names.len();
    // Lazily computed "this line ends a field's content" flags (unfenced heading or known label).
    let mut ends: Vec<Option<bool>> = vec![None; lines.len()];
    let mut ends_at = |j: usize| -> bool {
        *ends[j].get_or_insert_with(|| {
            let l = &lines[j];
            !l.in_fence && (heading(l.text).is_some() || starts_known_label(l.text))
        })
    };
    for (idx, line) in lines.iter().enumerate() {
        if open == 0 {
            break;
        }
        if line.in_fence {
            continue;
        }
        let head = heading(line.text);
        for (k, name) in names.iter().enumerate() {
            if found[k].is_some() {
                continue;
            }
            let first = match head {
                Some(h) if h.level >= 2 && names_equal(heading_field_name(h.text), name) => "",
                Some(_) => continue,
                None => match bold_label_value(line.text, name) {
                    Some(value) => value,
                    None => continue,
                },
            };
            // The content is non-empty when any of its parts holds a non-blank character.
            let mut non_empty = !first.trim().is_empty();
            let mut j = idx + 1;
            while !non_empty && j < lines.len() && !ends_at(j) {
                non_empty = !lines[j].text.trim().is_empty();
                j += 1;
            }
            found[k] = Some(non_empty);
            open -= 1;
        }
    }
    found.into_iter().map(|f| f == Some(true)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn body() -> impl Strategy<Value = String> {
        let line = prop::sample::select(vec![
            "## Goal",
            "## 2. Goal",
            "### goal (why)",
            "# Goal",
            "## Goal of it",
            "**Goal:** x",
            "- **Goal:**",
            "**Goal** · y",
            "__Context__: c",
            "**Context:**",
            "## Context",
            "## Touched Surface",
            "**Touched  surface:** a",
            "## 4. Acceptance Criteria",
            "**Validation:**",
            "## Validation",
            "**Note:** kept",
            "**Instructions:** i",
            "**Read Before Starting:**",
            "## 6. Completion & Log",
            "```",
            "~~~",
            "````bash",
            "## in fence?",
            "text",
            "  ",
            "",
            "\t",
            "- [ ] item",
            "* **Goal:** bullet",
            "**Completion log:** Status: done",
            "**Skills disposition:** none",
            "<!-- c -->",
        ]);
        prop::collection::vec(line, 0..14).prop_map(|v| v.join("\n"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn one_pass_agrees_with_field_by_field(text in body()) {
            let ls = lines(&text);
            let names = ["Goal", "Touched Surface", "Acceptance Criteria", "Validation", "Context"];
            let one_pass = fields_non_empty_in_lines(&ls, &names);
            let each: Vec<bool> = names
                .iter()
                .map(|n| field_in_lines(&ls, n).is_some_and(|f| f.non_empty()))
                .collect();
            prop_assert_eq!(one_pass, each);
        }
    }

    #[test]
    fn heading_names() {
        assert_eq!(
            heading_field_name("10. Completion & Log (filled by the agent)"),
            "Completion & Log"
        );
        assert_eq!(heading_field_name("Goal"), "Goal");
        assert_eq!(heading_field_name("7.Validation"), "Validation");
    }

    #[test]
    fn heading_field_runs_to_next_heading_and_keeps_fenced_lines() {
        let body =
            "## 8. Validation\n\n```bash\n## not a heading\npython3 -m x\n```\n\n## 9. Next\nafter";
        let f = field(body, "validation").expect("field present");
        assert_eq!(f.form, FieldForm::Heading(2));
        assert_eq!(f.line, 1);
        assert_eq!(f.text, "```bash\n## not a heading\npython3 -m x\n```");
        assert!(f.non_empty());
        assert!(!f.is_placeholder_only());
    }

    #[test]
    fn bold_label_runs_to_next_known_label() {
        let body = "**Goal:** do it\nmore\n**Note:** kept\n- **Context** · ctx\n";
        let goal = field(body, "Goal").expect("goal");
        assert_eq!(goal.text, "do it\nmore\n**Note:** kept");
        assert_eq!(goal.form, FieldForm::BoldLabel);
        assert_eq!(
            field(body, "Context").map(|f| f.text),
            Some("ctx".to_string())
        );
    }

    #[test]
    fn heading_with_extra_words_is_not_the_field() {
        assert!(field("## Goal of the day\nx", "Goal").is_none());
        assert!(field("# Goal\nx", "Goal").is_none());
    }

    #[test]
    fn empty_and_placeholders() {
        let f = field("### Goal\n\n### Context\nc", "Goal").expect("goal");
        assert!(!f.non_empty());
        let p = field(
            "### Goal\n<!-- fill -->\nTBD\n<describe the goal>\n",
            "Goal",
        )
        .expect("goal");
        assert!(p.non_empty());
        assert!(p.is_placeholder_only());
    }
}

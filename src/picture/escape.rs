//! The one way text from a plan reaches a page: its `.env` values hidden first, then escaped for
//! HTML and XML alike (the same bytes are safe in an element, in a quoted attribute and in a
//! standalone SVG file). Markup the page builds itself never passes through here; anything a plan
//! file, a commit or a message holds always does.

use crate::report::redact::EnvRedactor;
use std::fmt::Write;

/// Hides `.env` values, then escapes for HTML and XML.
#[derive(Debug, Clone, Default)]
pub struct Escaper {
    redactor: EnvRedactor,
}

impl Escaper {
    /// An escaper that hides the values `redactor` knows.
    pub fn new(redactor: EnvRedactor) -> Self {
        Self { redactor }
    }

    /// `s` with its `.env` values hidden, then escaped ([`escape`]).
    pub fn text(&self, s: &str) -> String {
        if self.redactor.is_empty() {
            escape(s)
        } else {
            escape(&self.redactor.clean(s))
        }
    }

    /// [`Escaper::text`] cut to `max` characters as shown (a control character counts as its
    /// `\u{…}`; an ellipsis marks the cut): a long title must not push a lane's label across the
    /// chart.
    pub fn short(&self, s: &str, max: usize) -> String {
        let clean = if self.redactor.is_empty() {
            std::borrow::Cow::Borrowed(s)
        } else {
            std::borrow::Cow::Owned(self.redactor.clean(s))
        };
        let shown = visible(&clean);
        if shown.chars().count() <= max {
            return markup_escaped(&shown);
        }
        let cut: String = shown.chars().take(max.saturating_sub(1)).collect();
        markup_escaped(&format!("{cut}…"))
    }

    /// The text with `.env` values hidden but not escaped (for a JSON document or a markdown
    /// table the caller escapes its own way).
    pub fn clean(&self, s: &str) -> String {
        self.redactor.clean(s)
    }
}

/// `&`, `<`, `>`, `"` and `'` as character references; a control character, a bidirectional
/// override or a code point XML does not allow as `\u{…}` text, so it is shown, never obeyed (a
/// title cannot reorder the line around it or end the document).
pub fn escape(s: &str) -> String {
    markup_escaped(&visible(s))
}

/// `s` with every character [`is_shown_escaped`] names written as `\u{…}`.
fn visible(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(is_shown_escaped) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_shown_escaped(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `&`, `<`, `>`, `"` and `'` as character references.
fn markup_escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Characters a page shows as `\u{…}`: controls but tab and newline (XML forbids most of them, and
/// a terminal-style escape must not reach a reader), the bidirectional embeddings, overrides and
/// isolates, and the two non-characters XML forbids.
fn is_shown_escaped(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{fffe}' | '\u{ffff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_quotes_become_references() {
        assert_eq!(
            escape(r#""><img src=x onerror='alert(1)'>&"#),
            "&quot;&gt;&lt;img src=x onerror=&#39;alert(1)&#39;&gt;&amp;"
        );
        assert_eq!(escape("<script>"), "&lt;script&gt;");
    }

    #[test]
    fn controls_and_overrides_are_shown_not_obeyed() {
        assert_eq!(
            escape("a\u{1b}[31mb\u{0}c\u{202e}d\u{7f}\te\nf"),
            "a\\u{1b}[31mb\\u{0}c\\u{202e}d\\u{7f}\te\nf"
        );
    }

    #[test]
    fn env_values_are_hidden_before_escaping() {
        let e = Escaper::new(EnvRedactor::from_env_bytes(Some(b"TOKEN=s3cr<t&value\n")));
        let shown = e.text("token s3cr<t&value here");
        assert_eq!(shown, "token [redacted .env value] here");
        assert!(!shown.contains("s3cr"));
    }

    #[test]
    fn a_short_text_is_cut_with_an_ellipsis() {
        let e = Escaper::default();
        assert_eq!(e.short("abcdef", 4), "abc…");
        assert_eq!(e.short("a<b", 4), "a&lt;b");
        // a control character counts as the text it is shown as
        assert_eq!(e.short("ab\u{1b}cdef", 6), "ab\\u{…");
    }
}

//! The markdown every format reads: one recogniser of ATX headings (`## Title`), shared by the
//! DWP readers, GSD's STATE.md and the checkpoint file, so a heading is a heading everywhere.
//! Hand-written: a line-level check runs on every line of large plans, and no markdown crate is
//! needed for it.

/// An ATX heading: `## 3. Goal (why)` → level 2, text `3. Goal (why)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heading<'a> {
    /// The number of `#`, 1 to 6.
    pub level: usize,
    /// Heading text, trimmed, without the optional closing `#` run.
    pub text: &'a str,
}

/// Recognises an ATX heading (at most three leading spaces, `#`×1..6, then a blank or the end).
pub fn heading(line: &str) -> Option<Heading<'_>> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let level = rest.bytes().take_while(|b| *b == b'#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let after = &rest[level..];
    if !after.is_empty() && !after.starts_with([' ', '\t']) {
        return None;
    }
    let mut text = after.trim();
    // A closing run of '#' preceded by a blank is decoration, not text.
    let without_close = text.trim_end_matches('#');
    if without_close.len() < text.len()
        && (without_close.is_empty() || without_close.ends_with([' ', '\t']))
    {
        text = without_close.trim_end();
    }
    Some(Heading { level, text })
}

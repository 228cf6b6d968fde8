//! Line splitting with code-fence tracking.
//!
//! A line whose first non-blank characters are three or more backticks or tildes opens a fence;
//! a later line that starts (after blanks) with a run of the *same* character at least as long
//! closes it. The opening and closing lines themselves count as fenced: nothing on them is
//! markdown content. An unclosed fence runs to the end of the text.

/// One line of a markdown text, without its line terminator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number.
    pub number: usize,
    /// Byte offset of the first character of the line in the whole text.
    pub start: usize,
    /// The line's text without `\n` / `\r\n`.
    pub text: &'a str,
    /// True for fence delimiters and every line between them.
    pub in_fence: bool,
}

impl Line<'_> {
    /// Byte offset just past the line's text (before its terminator).
    pub fn end(&self) -> usize {
        self.start + self.text.len()
    }
}

/// The fence marker a line starts with, if any: (character, run length).
pub fn fence_marker(line: &str) -> Option<(char, usize)> {
    let trimmed = line.trim_start();
    let first = trimmed.chars().next()?;
    if first != '`' && first != '~' {
        return None;
    }
    let run = trimmed.chars().take_while(|c| *c == first).count();
    (run >= 3).then_some((first, run))
}

/// Splits `text` into lines and marks fenced ones. Linear in the text length.
pub fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut open: Option<(char, usize)> = None;
    let mut start = 0usize;
    for (index, raw) in text.split_inclusive('\n').enumerate() {
        let number = index + 1;
        let body = raw.strip_suffix('\n').unwrap_or(raw);
        let body = body.strip_suffix('\r').unwrap_or(body);
        let marker = fence_marker(body);
        let in_fence = match (open, marker) {
            (None, Some(m)) => {
                open = Some(m);
                true
            }
            (Some((ch, len)), Some((mch, mlen))) if ch == mch && mlen >= len => {
                open = None;
                true
            }
            (Some(_), _) => true,
            (None, None) => false,
        };
        out.push(Line {
            number,
            start,
            text: body,
            in_fence,
        });
        start += raw.len();
    }
    out
}

/// Only the lines outside fences.
pub fn unfenced<'a, 'b>(lines: &'b [Line<'a>]) -> impl Iterator<Item = &'b Line<'a>> + 'b {
    lines.iter().filter(|l| !l.in_fence)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(text: &str) -> Vec<bool> {
        lines(text).iter().map(|l| l.in_fence).collect()
    }

    #[test]
    fn backtick_fence_closes_on_same_or_longer_run() {
        let text = "a\n```bash\n- [x] Task 1\n``\n````\nb\n";
        assert_eq!(flags(text), vec![false, true, true, true, true, false]);
    }

    #[test]
    fn tilde_does_not_close_backtick_fence() {
        let text = "```\n~~~\nx\n```\ny";
        assert_eq!(flags(text), vec![true, true, true, true, false]);
    }

    #[test]
    fn shorter_run_does_not_close() {
        let text = "~~~~\n~~~\n~~~~~\nz";
        assert_eq!(flags(text), vec![true, true, true, false]);
    }

    #[test]
    fn indented_fences_count_and_unclosed_runs_to_end() {
        let text = "   ```\nx\n";
        assert_eq!(flags(text), vec![true, true]);
    }

    #[test]
    fn crlf_and_offsets() {
        let text = "ab\r\ncd\nef";
        let ls = lines(text);
        assert_eq!(ls.len(), 3);
        assert_eq!(ls[0].text, "ab");
        assert_eq!(ls[1].start, 4);
        assert_eq!(ls[1].text, "cd");
        assert_eq!(&text[ls[2].start..ls[2].end()], "ef");
    }
}

//! Small line-level recognisers shared by every reader: ATX headings, label lines
//! (`Status: x`, `**Status:** x`, `- **Status:** x`), checkbox lines, `Task N` mentions and
//! links to task files. Each works on one line, so every reader stays linear.

use std::sync::LazyLock;

use regex::Regex;

pub use crate::markdown::{Heading, heading};

/// How a label was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelForm {
    /// `Name: value`
    Plain,
    /// `**Name:** value`, `**Name**: value`, `**Name** · value`, `**Name** - value` (also `__…__`)
    Bold,
}

/// A label line split into its form and its value (trimmed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabelValue<'a> {
    /// Plain or bold.
    pub form: LabelForm,
    /// The text after the label and its separator, trimmed.
    pub value: &'a str,
}

/// Strips blanks and one list marker (`- `, `* `, `+ `) from the front of a line.
pub fn strip_list_marker(line: &str) -> &str {
    let s = line.trim_start();
    for marker in ["- ", "* ", "+ ", "-\t", "*\t", "+\t"] {
        if let Some(rest) = s.strip_prefix(marker) {
            return rest.trim_start();
        }
    }
    s
}

/// Case-insensitive ASCII prefix match that also requires the label to end at a word edge.
fn strip_label<'a>(s: &'a str, label: &str) -> Option<&'a str> {
    let head = s.get(..label.len())?;
    if !head.eq_ignore_ascii_case(label) {
        return None;
    }
    let rest = &s[label.len()..];
    match rest.chars().next() {
        Some(c) if c.is_alphanumeric() || c == '_' => None,
        _ => Some(rest),
    }
}

/// Recognises `label` at the start of a line (after blanks and one list marker), in plain form
/// (a colon is required) or bold form (`\*\*Name\s*:?\*\*[ \t]*[:·-]?`).
/// The label is compared case-insensitively.
pub fn label_value<'a>(line: &'a str, label: &str) -> Option<LabelValue<'a>> {
    let s = strip_list_marker(line);
    for delim in ["**", "__"] {
        if let Some(inner) = s.strip_prefix(delim) {
            let rest = strip_label(inner, label)?;
            let rest = rest.trim_start();
            let rest = rest.strip_prefix(':').unwrap_or(rest);
            let rest = rest.strip_prefix(delim)?;
            let rest = rest.trim_start_matches([' ', '\t']);
            let rest = rest
                .strip_prefix([':', '·', '-'])
                .or_else(|| rest.strip_prefix('—'))
                .unwrap_or(rest);
            return Some(LabelValue {
                form: LabelForm::Bold,
                value: rest.trim(),
            });
        }
    }
    let rest = strip_label(s, label)?;
    let rest = rest.trim_start_matches([' ', '\t']).strip_prefix(':')?;
    Some(LabelValue {
        form: LabelForm::Plain,
        value: rest.trim(),
    })
}

/// Like [`label_value`] but only the bold form (field extraction).
pub fn bold_label_value<'a>(line: &'a str, label: &str) -> Option<&'a str> {
    // The bold form needs `**` or `__` right after the list marker; most lines fail here.
    if !starts_bold(line) {
        return None;
    }
    label_value(line, label)
        .filter(|lv| lv.form == LabelForm::Bold)
        .map(|lv| lv.value)
}

/// True when the line (after blanks and one list marker) opens with `**` or `__`: the one way a
/// bold label can start.
pub fn starts_bold(line: &str) -> bool {
    let s = strip_list_marker(line);
    s.starts_with("**") || s.starts_with("__")
}

/// A checkbox list item: `- [ ] text`, `* [x] text`, `+ [X] text`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckboxItem<'a> {
    /// `[x]` or `[X]`; `[ ]` is unchecked.
    pub checked: bool,
    /// The text after the box, trimmed.
    pub text: &'a str,
}

/// Recognises a checkbox line (any indentation; `x` case-insensitive).
pub fn checkbox(line: &str) -> Option<CheckboxItem<'_>> {
    let s = line.trim_start();
    let s = s.strip_prefix(['-', '*', '+'])?;
    if !s.starts_with([' ', '\t']) {
        return None;
    }
    let s = s.trim_start();
    let s = s.strip_prefix('[')?;
    let mut chars = s.chars();
    let mark = chars.next()?;
    let checked = match mark {
        ' ' => false,
        'x' | 'X' => true,
        _ => return None,
    };
    let s = chars.as_str().strip_prefix(']')?;
    Some(CheckboxItem {
        checked,
        text: s.trim(),
    })
}

static TASK_MENTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bTask\s+([0-9]+)\b").expect("constant regex is valid because it was tested")
});

/// Number of the first `Task N` mention (case-sensitive `Task`, as the helper's index reader).
pub fn first_task_mention(text: &str) -> Option<(u32, std::ops::Range<usize>)> {
    TASK_MENTION.captures_iter(text).find_map(|c| {
        let m = c.get(1)?;
        let whole = c.get(0)?;
        m.as_str().parse().ok().map(|n| (n, whole.range()))
    })
}

static TASK_MENTION_ANY_CASE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\btasks?\s+#?([0-9]+)\b")
        .expect("constant regex is valid because it was tested")
});

/// Numbers in first-seen order without repeats (a set beside the list keeps it linear).
pub fn unique_in_order(numbers: impl IntoIterator<Item = u32>) -> Vec<u32> {
    let mut seen = std::collections::HashSet::new();
    numbers.into_iter().filter(|n| seen.insert(*n)).collect()
}

/// Every task number mentioned as `Task N` / `task N` / `Task #N` (any case), in order, unique.
pub fn task_mentions(text: &str) -> Vec<u32> {
    unique_in_order(
        TASK_MENTION_ANY_CASE
            .captures_iter(text)
            .filter_map(|c| c.get(1).and_then(|m| m.as_str().parse().ok())),
    )
}

/// A markdown link whose target is a task file `<N>.task_<slug>.md` (optionally `./`-prefixed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskFileLink {
    /// The target as written, e.g. `./3.task_x.md`.
    pub target: String,
    /// The file name without `./`, e.g. `3.task_x.md`.
    pub file_name: String,
    /// The number in front of `.task_`.
    pub number: Option<u32>,
}

/// The link pattern the scanner below implements (kept for the tests that compare the two).
#[cfg(test)]
static LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+[^)]*)?\)")
        .expect("constant regex is valid because it was tested")
});

/// One markdown link: the byte range of the whole `[text](target …)` and of its target.
struct LinkMatch {
    whole: std::ops::Range<usize>,
    target: std::ops::Range<usize>,
}

/// The links of a text, left to right and without overlap, exactly as the leftmost-first
/// pattern `\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+[^)]*)?\)` finds them (`\s` is Unicode
/// White_Space, which is what `char::is_whitespace` tests). Hand-written because this runs on
/// every README index line and the pattern's capture search dominated reading a README.
fn links(text: &str) -> impl Iterator<Item = LinkMatch> + '_ {
    let mut from = 0;
    std::iter::from_fn(move || {
        while let Some(offset) = text.get(from..)?.find('[') {
            let start = from + offset;
            if let Some(m) = link_at(text, start) {
                from = m.whole.end;
                return Some(m);
            }
            from = start + 1;
        }
        from = text.len();
        None
    })
}

/// The link starting at the `[` at byte `start`, if the pattern matches there.
fn link_at(text: &str, start: usize) -> Option<LinkMatch> {
    let bytes = text.as_bytes();
    // `[^\]\n]*\]`: the first `]` or newline decides; then `(`.
    let close = start
        + 1
        + bytes[start + 1..]
            .iter()
            .position(|&c| c == b']' || c == b'\n')?;
    if bytes[close] != b']' || bytes.get(close + 1) != Some(&b'(') {
        return None;
    }
    // `\s*` takes every blank (a shorter run would leave a blank that nothing after accepts).
    let open = close + 2;
    let after_blanks = open
        + text[open..]
            .char_indices()
            .find(|&(_, c)| !c.is_whitespace())
            .map_or(text.len() - open, |(i, _)| i);
    // The target `[^)\s>]+` is greedy and only its longest run can be followed by `>`, a blank
    // or `)`. With `<` first, the pattern tries the target after it, then the target starting
    // with `<` (which only differs when nothing target-like follows the `<`).
    let attempt = |target_start: usize| -> Option<LinkMatch> {
        let target_end = target_start
            + text[target_start..]
                .char_indices()
                .find(|&(_, c)| c == ')' || c == '>' || c.is_whitespace())
                .map_or(text.len() - target_start, |(i, _)| i);
        if target_end == target_start {
            return None;
        }
        let end = link_tail(text, target_end)?;
        Some(LinkMatch {
            whole: start..end,
            target: target_start..target_end,
        })
    };
    if bytes.get(after_blanks) == Some(&b'<') {
        attempt(after_blanks + 1).or_else(|| attempt(after_blanks))
    } else {
        attempt(after_blanks)
    }
}

/// `>?(?:\s+[^)]*)?\)` at byte `at`: the end of the match, if it matches.
fn link_tail(text: &str, at: usize) -> Option<usize> {
    let at = if text.as_bytes().get(at) == Some(&b'>') {
        at + 1
    } else {
        at
    };
    match text[at..].chars().next()? {
        ')' => Some(at + 1),
        // a blank, then anything up to the first `)`
        c if c.is_whitespace() => text[at..].find(')').map(|i| at + i + 1),
        _ => None,
    }
}

/// The task file a link target names (`<N>.task_<slug>.md`, optionally `./`-prefixed).
fn task_file_link(target: &str) -> Option<TaskFileLink> {
    let file_name = target.strip_prefix("./").unwrap_or(target);
    if file_name.contains('/') || !file_name.ends_with(".md") {
        return None;
    }
    let (num, _) = file_name.split_once(".task_")?;
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(TaskFileLink {
        target: target.to_string(),
        file_name: file_name.to_string(),
        number: num.parse().ok(),
    })
}

/// Links to task files in one line, in order.
pub fn task_file_links(line: &str) -> Vec<TaskFileLink> {
    links(line)
        .filter_map(|m| task_file_link(&line[m.target]))
        .collect()
}

/// The text with every markdown link to a task file removed (other links are kept).
pub fn remove_task_file_links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut kept_to = 0;
    for m in links(text) {
        if task_file_link(&text[m.target.clone()]).is_some() {
            out.push_str(&text[kept_to..m.whole.start]);
            kept_to = m.whole.end;
        }
    }
    out.push_str(&text[kept_to..]);
    out
}

/// Removes `**`, `__` and backticks around a cell or value, and trims.
pub fn strip_emphasis(s: &str) -> &str {
    let mut s = s.trim();
    loop {
        let before = s.len();
        for d in ["**", "__", "`", "*", "_"] {
            if s.len() >= 2 * d.len()
                && let Some(inner) = s.strip_prefix(d).and_then(|x| x.strip_suffix(d))
            {
                s = inner.trim();
            }
        }
        if s.len() == before {
            return s;
        }
    }
}

/// Cells of a pipe-table row (`| a | b |` → `["a", "b"]`), or `None` for other lines.
pub fn table_cells(line: &str) -> Option<Vec<&str>> {
    let s = line.trim();
    let inner = s.strip_prefix('|')?;
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    Some(inner.split('|').map(str::trim).collect())
}

/// Test oracle: the number (group 1) and the trimmed rest (group 2) that `pattern` finds in
/// the trimmed `text`, as the hand readers' patterns were applied before.
#[cfg(test)]
pub(super) fn number_and_rest_by_pattern<'a>(
    pattern: &str,
    text: &'a str,
) -> Option<(u32, &'a str)> {
    let c = regex::Regex::new(pattern).unwrap().captures(text.trim())?;
    let n = c.get(1)?.as_str().parse().ok()?;
    Some((n, c.get(2).map_or("", |m| m.as_str().trim())))
}

/// After a heading's keyword: at least one white-space character, the number (after a `#` when
/// `hash` allows one), then any white space. The number and what follows it; `None` when the
/// text does not have that form or the number does not fit.
pub(super) fn number_after_space(text: &str, hash: bool) -> Option<(u32, &str)> {
    let spaced = text.trim_start_matches(char::is_whitespace);
    if spaced.len() == text.len() {
        return None;
    }
    let digits = if hash {
        spaced.strip_prefix('#').unwrap_or(spaced)
    } else {
        spaced
    };
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    if end == 0 {
        return None;
    }
    let n = digits[..end].parse().ok()?;
    Some((n, digits[end..].trim_start_matches(char::is_whitespace)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `\s` of the pattern and `char::is_whitespace` agree on every character.
    #[test]
    fn blank_classes_agree() {
        let blank = Regex::new(r"^\s$").expect("valid");
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            assert_eq!(blank.is_match(&c.to_string()), c.is_whitespace(), "{c:?}");
        }
    }

    fn by_pattern(text: &str) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
        LINK.captures_iter(text)
            .filter_map(|c| Some((c.get(0)?.range(), c.get(1)?.range())))
            .collect()
    }

    fn reference_remove(text: &str) -> String {
        LINK.replace_all(text, |c: &regex::Captures<'_>| {
            let whole = c.get(0).map_or("", |m| m.as_str());
            if task_file_links(whole).is_empty() {
                whole.to_string()
            } else {
                String::new()
            }
        })
        .into_owned()
    }

    fn link_text() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "[",
            "]",
            "(",
            ")",
            "<",
            ">",
            " ",
            "  ",
            "\t",
            "\n",
            "\u{A0}",
            "\u{2003}",
            "\u{85}",
            "—",
            "x",
            "./",
            "1.task_a.md",
            "12.task_final_review.md",
            "a/b.md",
            ".md",
            ".task_",
            "3",
            "[a](",
            "](",
            "[x]",
            "- [x] Task 1: A — ",
            "\"title\"",
            "é",
        ]);
        prop::collection::vec(piece, 0..16).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]

        #[test]
        fn link_scanner_agrees_with_the_pattern(text in link_text()) {
            let scanned: Vec<_> = super::links(&text).map(|m| (m.whole, m.target)).collect();
            prop_assert_eq!(scanned, by_pattern(&text));
            prop_assert_eq!(remove_task_file_links(&text), reference_remove(&text));
        }
    }

    #[test]
    fn headings() {
        assert_eq!(
            heading("## 10. Completion & Log").map(|h| (h.level, h.text)),
            Some((2, "10. Completion & Log"))
        );
        assert_eq!(heading("### Goal ###").map(|h| h.text), Some("Goal"));
        assert_eq!(heading("#hashtag"), None);
        assert_eq!(heading("    ## code"), None);
        assert_eq!(heading("####### seven"), None);
        assert_eq!(heading("#").map(|h| (h.level, h.text)), Some((1, "")));
    }

    #[test]
    fn label_forms() {
        let plain = label_value("Status: completed", "Status").map(|l| (l.form, l.value));
        assert_eq!(plain, Some((LabelForm::Plain, "completed")));
        let bold = label_value("**Status:** pending", "status").map(|l| (l.form, l.value));
        assert_eq!(bold, Some((LabelForm::Bold, "pending")));
        let bullet = label_value("- **Status:** pending", "Status").map(|l| l.value);
        assert_eq!(bullet, Some("pending"));
        assert_eq!(
            label_value("**Status**: done", "Status").map(|l| l.value),
            Some("done")
        );
        assert_eq!(
            label_value("**Status** · done", "Status").map(|l| l.value),
            Some("done")
        );
        assert_eq!(
            label_value("**Status** - done", "Status").map(|l| l.value),
            Some("done")
        );
        assert_eq!(label_value("Statuses: x", "Status"), None);
        assert_eq!(label_value("Status completed", "Status"), None);
        assert_eq!(label_value("Plan Status: 1/2", "Status"), None);
    }

    #[test]
    fn checkboxes() {
        assert_eq!(
            checkbox("- [X] Task 1"),
            Some(CheckboxItem {
                checked: true,
                text: "Task 1"
            })
        );
        assert_eq!(
            checkbox("  * [ ] a"),
            Some(CheckboxItem {
                checked: false,
                text: "a"
            })
        );
        assert_eq!(checkbox("-[x] a"), None);
        assert_eq!(checkbox("- [y] a"), None);
    }

    #[test]
    fn links() {
        let l = task_file_links(
            "- [x] Task 2 — [2.task_retry.md](./2.task_retry.md) [x](http://a/b.md)",
        );
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].file_name, "2.task_retry.md");
        assert_eq!(l[0].target, "./2.task_retry.md");
        assert_eq!(l[0].number, Some(2));
    }

    #[test]
    fn mentions() {
        assert_eq!(first_task_mention("- Task 12: x").map(|m| m.0), Some(12));
        assert_eq!(first_task_mention("Tasks 12"), None);
        assert_eq!(
            task_mentions("task 3, Task #4 and Tasks 5; Task 3"),
            vec![3, 4, 5]
        );
    }

    #[test]
    fn cells_and_emphasis() {
        assert_eq!(
            table_cells("| **Critical** | 0 |"),
            Some(vec!["**Critical**", "0"])
        );
        assert_eq!(strip_emphasis(" **`pending`** "), "pending");
    }
}

//! The compatibility layer: reads STATE.md exactly the way GSD's statusline hook does
//! (`docs/gsd.md`). The hook is a handful of JavaScript regular expressions run over the text, not
//! a YAML parser, and its quirks are part of what users see (a quoted percent hides the bar, an
//! inline comment leaks into the output, a BOM hides the whole frontmatter). Each function below
//! reproduces one of those expressions by hand, including JavaScript's whitespace set, its
//! multi-line anchors (which also fire after `\r`, U+2028 and U+2029) and the backtracking that
//! decides which of several candidate lines wins. No regex engine is compiled on this path: it runs
//! on every prompt.

/// What the hook extracted from one STATE.md. `None` is JavaScript's `null`/`undefined`; an
/// empty string is kept apart because the hook distinguishes "set to empty" (a later line may
/// have overwritten an earlier one) from "absent" in a few places.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookState {
    /// The frontmatter's `status:` (the last such line wins; `null` is absent), else the word the
    /// hook maps the first body `Status:` line to.
    pub status: Option<String>,
    /// The frontmatter's `milestone:` (`null` is absent).
    pub milestone: Option<String>,
    /// The frontmatter's `milestone_name:` (`null` is absent).
    pub milestone_name: Option<String>,
    /// The frontmatter's `active_phase:` (`null` and empty are absent).
    pub active_phase: Option<String>,
    /// The frontmatter's `next_action:` (`null` and empty are absent).
    pub next_action: Option<String>,
    /// The frontmatter's `next_phases`, flow (`[a, b]`) or block list; `None` when it lists
    /// nothing.
    pub next_phases: Option<Vec<String>>,
    /// Digit runs, kept as text (the hook compares them as strings).
    pub completed_phases: Option<String>,
    /// `total_phases:` in the `progress` block, its first digit run.
    pub total_phases: Option<String>,
    /// `percent:` in the `progress` block, its first digit run (a quoted percent has none).
    pub percent: Option<String>,
    /// From the first body line `Phase: <n> of <t> (<name>)`.
    pub phase_num: Option<String>,
    /// The `<t>` of that line.
    pub phase_total: Option<String>,
    /// The `<name>` of that line, when it has one.
    pub phase_name: Option<String>,
}

/// JavaScript's `\s` (and the set `String.prototype.trim` removes).
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// The characters JavaScript's `.` does not match and after which a multi-line `^` matches.
pub fn is_js_line_end(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// `String.prototype.trim`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// `.replace(/^["']|["']$/g, '')`: one leading and one trailing quote, independently.
pub fn strip_one_quote_each_side(s: &str) -> &str {
    let is_quote = |c: char| c == '"' || c == '\'';
    let mut out = s;
    if out.starts_with(is_quote) {
        out = &out[1..];
    }
    if out.ends_with(is_quote) {
        out = &out[..out.len() - 1];
    }
    out
}

/// Byte offsets where a multi-line `^` matches: 0 and after every JavaScript line terminator.
fn line_starts(s: &str) -> impl Iterator<Item = usize> + '_ {
    std::iter::once(0).chain(
        s.char_indices()
            .filter(|&(_, c)| is_js_line_end(c))
            .map(|(i, c)| i + c.len_utf8()),
    )
}

/// Length in bytes of the leading run of characters satisfying `pred`.
fn run_len(s: &str, pred: impl Fn(char) -> bool) -> usize {
    s.char_indices()
        .find(|&(_, c)| !pred(c))
        .map_or(s.len(), |(i, _)| i)
}

/// The value captured by `\s*(.+)` at the start of `s`, with JavaScript's backtracking: the
/// greedy `\s*` may give back one space so that `.+` has a character to match. `None` when the
/// pattern cannot match at all.
fn spaces_then_rest_of_line(s: &str) -> Option<&str> {
    let ws = run_len(s, is_js_space);
    let after = &s[ws..];
    let value = &after[..run_len(after, |c| !is_js_line_end(c))];
    if !value.is_empty() {
        return Some(value);
    }
    // `.+` can only start on a skipped space that is not itself a line end; whatever it then
    // captures is whitespace, so the caller's trim turns it into "".
    s[..ws].chars().any(|c| !is_js_line_end(c)).then_some("")
}

/// The frontmatter text of `/^---\r?\n([\s\S]*?)\r?\n---/`, or `None`.
pub fn frontmatter_text(content: &str) -> Option<&str> {
    let rest = content.strip_prefix("---")?;
    let rest = rest
        .strip_prefix("\r\n")
        .or_else(|| rest.strip_prefix('\n'))?;
    let start = content.len() - rest.len();
    let bytes = content.as_bytes();
    (start..bytes.len())
        .find(|&i| {
            (bytes[i] == b'\n' && bytes[i + 1..].starts_with(b"---"))
                || (bytes[i] == b'\r' && bytes[i + 1..].starts_with(b"\n---"))
        })
        .map(|end| &content[start..end])
}

/// `text.split(/\r?\n/)`.
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l))
}

/// Reads STATE.md text the way the hook's `parseStateMd` does.
pub fn parse(content: &str) -> HookState {
    let mut state = HookState::default();
    if let Some(fm) = frontmatter_text(content) {
        read_scalars(fm, &mut state);
        state.next_phases = next_phases(fm);
        if let Some(block) = progress_block(fm) {
            state.completed_phases = progress_digits(block, "completed_phases:");
            state.total_phases = progress_digits(block, "total_phases:");
            state.percent = progress_digits(block, "percent:");
        }
    }
    if let Some((num, total, name)) = body_phase_line(content) {
        state.phase_num = Some(num.to_string());
        state.phase_total = Some(total.to_string());
        state.phase_name = name.map(str::to_string);
    }
    if !truthy(&state.status)
        && let Some(status) = body_status_fallback(content)
    {
        state.status = Some(status.to_string());
    }
    state
}

/// JavaScript truthiness of an optional string.
pub fn truthy(v: &Option<String>) -> bool {
    v.as_deref().is_some_and(|s| !s.is_empty())
}

/// The top-level `key: value` lines (`/^(\w+):\s*(.+)/` per line; later lines win).
fn read_scalars(fm: &str, state: &mut HookState) {
    for line in split_lines(fm) {
        let key_len = run_len(line, |c| c.is_ascii_alphanumeric() || c == '_');
        if key_len == 0 || line.as_bytes().get(key_len) != Some(&b':') {
            continue;
        }
        let Some(raw) = spaces_then_rest_of_line(&line[key_len + 1..]) else {
            continue;
        };
        let v = strip_one_quote_each_side(js_trim(raw));
        let null_means_absent = |v: &str| (v != "null").then(|| v.to_string());
        let null_or_empty_absent = |v: &str| (v != "null" && !v.is_empty()).then(|| v.to_string());
        match &line[..key_len] {
            "status" => state.status = null_means_absent(v),
            "milestone" => state.milestone = null_means_absent(v),
            "milestone_name" => state.milestone_name = null_means_absent(v),
            "active_phase" => state.active_phase = null_or_empty_absent(v),
            "next_action" => state.next_action = null_or_empty_absent(v),
            _ => {}
        }
    }
}

/// `next_phases`: the flow form `[a, "b"]` first, else a block list directly below the key.
fn next_phases(fm: &str) -> Option<Vec<String>> {
    let clean = |item: &str| strip_one_quote_each_side(js_trim(item)).to_string();
    let non_empty = |items: Vec<String>| (!items.is_empty()).then_some(items);
    // /^next_phases:\s*\[([^\]]*)\]/m
    for start in line_starts(fm) {
        let Some(rest) = fm[start..].strip_prefix("next_phases:") else {
            continue;
        };
        let rest = &rest[run_len(rest, is_js_space)..];
        let Some(inner) = rest.strip_prefix('[') else {
            continue;
        };
        // No `]` after this `[` means none after any later `next_phases:` line either (its
        // text is a suffix of this one): stop, instead of scanning the rest again per line.
        let Some(close) = inner.find(']') else {
            break;
        };
        let items: Vec<String> = inner[..close]
            .split(',')
            .map(clean)
            .filter(|s| !s.is_empty())
            .collect();
        return non_empty(items);
    }
    // /^next_phases:\s*\r?\n((?:[ \t]*-[ \t]*[^\r\n]+\r?\n?)*)/m
    for start in line_starts(fm) {
        let Some(rest) = fm[start..].strip_prefix("next_phases:") else {
            continue;
        };
        let Some(block_start) = after_last_newline_of_space_run(rest) else {
            continue;
        };
        let block = &rest[block_start..];
        let mut pos = 0;
        while let Some(len) = dash_item_len(&block[pos..]) {
            pos += len;
        }
        let items: Vec<String> = split_lines(&block[..pos])
            .filter_map(|line| {
                let lead = run_len(line, |c| c == ' ' || c == '\t');
                let rest = line[lead..].strip_prefix('-')?;
                // (.+)$ : the rest of the line, with no line terminator inside it.
                (!rest.is_empty() && !rest.chars().any(is_js_line_end)).then(|| clean(rest))
            })
            .filter(|s| !s.is_empty())
            .collect();
        return non_empty(items);
    }
    None
}

/// Where `\s*\r?\n` can end at the start of `s`: just after the last `\n` inside the leading
/// whitespace run (the greedy `\s*` backs off to it). `None` when the run holds no `\n`.
fn after_last_newline_of_space_run(s: &str) -> Option<usize> {
    let ws = run_len(s, is_js_space);
    s[..ws].rfind('\n').map(|i| i + 1)
}

/// One repetition of `[ \t]*-[ \t]*[^\r\n]+\r?\n?`; its length, or `None`.
fn dash_item_len(s: &str) -> Option<usize> {
    let lead = run_len(s, |c| c == ' ' || c == '\t');
    let rest = s[lead..].strip_prefix('-')?;
    let text = run_len(rest, |c| c != '\r' && c != '\n');
    if text == 0 {
        return None;
    }
    let mut len = lead + 1 + text;
    if s[len..].starts_with('\r') {
        len += 1;
    }
    if s[len..].starts_with('\n') {
        len += 1;
    }
    Some(len)
}

/// The lines captured by `/^progress:\s*\r?\n((?:[ \t]+\w+:.+\r?\n?)+)/m`.
fn progress_block(fm: &str) -> Option<&str> {
    for start in line_starts(fm) {
        let Some(rest) = fm[start..].strip_prefix("progress:") else {
            continue;
        };
        let Some(block_start) = after_last_newline_of_space_run(rest) else {
            continue;
        };
        let block = &rest[block_start..];
        let mut pos = 0;
        while let Some(len) = indented_key_line_len(&block[pos..]) {
            pos += len;
        }
        if pos > 0 {
            return Some(&block[..pos]);
        }
    }
    None
}

/// The keys of the `progress:` lines GSD's hook reads (its block ends at the first comment or
/// blank line after the first key); `None` when it finds no block at all.
pub fn progress_keys_read(content: &str) -> Option<Vec<String>> {
    let block = progress_block(frontmatter_text(content)?)?;
    Some(
        split_lines(block)
            .filter_map(|line| {
                let key = line.trim_start_matches([' ', '\t']);
                let len = run_len(key, |c| c.is_ascii_alphanumeric() || c == '_');
                (len > 0).then(|| key[..len].to_string())
            })
            .collect(),
    )
}

/// One repetition of `[ \t]+\w+:.+\r?\n?`; its length, or `None`.
fn indented_key_line_len(s: &str) -> Option<usize> {
    let lead = run_len(s, |c| c == ' ' || c == '\t');
    if lead == 0 {
        return None;
    }
    let key = run_len(&s[lead..], |c| c.is_ascii_alphanumeric() || c == '_');
    if key == 0 || s.as_bytes().get(lead + key) != Some(&b':') {
        return None;
    }
    let value_at = lead + key + 1;
    let value = run_len(&s[value_at..], |c| !is_js_line_end(c));
    if value == 0 {
        return None;
    }
    let mut len = value_at + value;
    if s[len..].starts_with('\r') {
        len += 1;
    }
    if s[len..].starts_with('\n') {
        len += 1;
    }
    Some(len)
}

/// `/^[ \t]+<key>\s*(\d+)/m` over the progress block: the first digit run.
fn progress_digits(block: &str, key_with_colon: &str) -> Option<String> {
    line_starts(block).find_map(|start| {
        let line = &block[start..];
        let lead = run_len(line, |c| c == ' ' || c == '\t');
        if lead == 0 {
            return None;
        }
        let rest = line[lead..].strip_prefix(key_with_colon)?;
        let rest = &rest[run_len(rest, is_js_space)..];
        let digits = run_len(rest, |c| c.is_ascii_digit());
        (digits > 0).then(|| rest[..digits].to_string())
    })
}

/// `/^Phase:\s*(\d+)\s+of\s+(\d+)(?:\s+\(([^)]+)\))?/m` over the whole text.
fn body_phase_line(content: &str) -> Option<(&str, &str, Option<&str>)> {
    line_starts(content).find_map(|start| {
        let rest = content[start..].strip_prefix("Phase:")?;
        let rest = &rest[run_len(rest, is_js_space)..];
        let num_len = run_len(rest, |c| c.is_ascii_digit());
        if num_len == 0 {
            return None;
        }
        let (num, rest) = rest.split_at(num_len);
        let ws = run_len(rest, is_js_space);
        if ws == 0 {
            return None;
        }
        let rest = rest[ws..].strip_prefix("of")?;
        let ws = run_len(rest, is_js_space);
        if ws == 0 {
            return None;
        }
        let rest = &rest[ws..];
        let total_len = run_len(rest, |c| c.is_ascii_digit());
        if total_len == 0 {
            return None;
        }
        let (total, rest) = rest.split_at(total_len);
        let ws = run_len(rest, is_js_space);
        let name = (ws > 0)
            .then(|| rest[ws..].strip_prefix('('))
            .flatten()
            .and_then(|inner| {
                let close = inner.find(')')?;
                (close > 0).then(|| &inner[..close])
            });
        Some((num, total, name))
    })
}

/// The hook's fallback when the frontmatter has no status: the first plain `Status:` line,
/// mapped to one of three words (or nothing).
fn body_status_fallback(content: &str) -> Option<&'static str> {
    let raw = line_starts(content).find_map(|start| {
        let rest = content[start..].strip_prefix("Status:")?;
        spaces_then_rest_of_line(rest)
    })?;
    let raw = js_trim(raw).to_lowercase();
    if raw.contains("ready to plan") || raw.contains("planning") {
        Some("planning")
    } else if raw.contains("execut") {
        Some("executing")
    } else if raw.contains("complet") || raw.contains("archived") {
        Some("complete")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fence_must_be_exact() {
        assert_eq!(frontmatter_text("---\na: 1\n---\n"), Some("a: 1"));
        assert_eq!(frontmatter_text("---\r\na: 1\r\n---\r\n"), Some("a: 1"));
        assert_eq!(frontmatter_text("--- \na: 1\n---\n"), None);
        assert_eq!(frontmatter_text("\u{feff}---\na: 1\n---\n"), None);
        assert_eq!(frontmatter_text("---\n---\n"), None);
        assert_eq!(frontmatter_text("---\n\n---"), Some(""));
        // The closing fence needs no newline after it, and may be longer.
        assert_eq!(frontmatter_text("---\na: 1\n----x"), Some("a: 1"));
    }

    #[test]
    fn scalar_with_only_spaces_is_empty_not_absent() {
        let s = parse("---\nstatus: executing\nstatus:   \n---\n");
        assert_eq!(s.status.as_deref(), Some(""));
        let s = parse("---\nstatus: executing\nstatus:\n---\n");
        assert_eq!(s.status.as_deref(), Some("executing"));
    }

    #[test]
    fn blank_line_right_after_progress_is_absorbed() {
        let s = parse("---\nmilestone: v1\nprogress:\n\n  percent: 40\n---\n");
        assert_eq!(s.percent.as_deref(), Some("40"));
        let s = parse("---\nprogress:\n  total_phases: 3\n\n  percent: 40\n---\n");
        assert_eq!(s.total_phases.as_deref(), Some("3"));
        assert_eq!(s.percent, None);
    }

    #[test]
    fn progress_digits_may_continue_on_the_next_line() {
        // `\s*` crosses the line end, exactly as in the hook.
        let s = parse("---\nprogress:\n  percent:  \n  5: x\n---\n");
        assert_eq!(s.percent.as_deref(), Some("5"));
    }

    #[test]
    fn status_fallback_uses_only_the_first_status_line() {
        let s = parse("Status: Active\nStatus: executing\n");
        // The first line matches and maps to nothing, so nothing is taken.
        assert_eq!(s.status, None);
        // `\s*` crosses the line end: the next line becomes the value.
        let s = parse("Status: \t\nStatus: executing\n");
        assert_eq!(s.status.as_deref(), Some("executing"));
        let s = parse("Status:\nExecuting\n");
        assert_eq!(s.status.as_deref(), Some("executing"));
    }

    #[test]
    fn block_list_items() {
        let s = parse("---\nnext_phases:\n  - \"5\"\n  -6\n  - \n---\n");
        assert_eq!(s.next_phases, Some(vec!["5".to_string(), "6".to_string()]));
        let s = parse("---\nnext_phases: []\nnext_phases:\n  - 7\n---\n");
        assert_eq!(s.next_phases, None);
    }

    #[test]
    fn phase_line() {
        assert_eq!(
            body_phase_line("x\nPhase: 3 of 7 (Auth (v2))\n"),
            Some(("3", "7", Some("Auth (v2")))
        );
        assert_eq!(
            body_phase_line("Phase: 4.5 of 7\nPhase: 2 of 3\n"),
            Some(("2", "3", None))
        );
        assert_eq!(body_phase_line("Phase: 2 of 3()"), Some(("2", "3", None)));
    }
}

//! The Completion & Log of a task record and the lines it carries: the Status line in all three
//! forms, the timestamp, `Commit: none — <reason>` (why a completed task has no commit) and the
//! `Gate record:` lines `rebuild` recovers gates from.

use super::amendment::is_amendment_heading;
use super::fences::Line;
use super::fields::heading_field_name;
use super::syntax::{LabelForm, bold_label_value, heading, label_value, strip_emphasis};

/// The status a task log declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogStatus {
    /// `completed` (also `complete`).
    Completed,
    /// `pending`.
    Pending,
    /// `in_progress` (also `in-progress`, `in progress`).
    InProgress,
    /// `blocked`.
    Blocked,
    /// `skipped`.
    Skipped,
    /// Anything else, lower-cased as written.
    Other(String),
}

impl LogStatus {
    /// The state.json spelling (`completed`, `pending`, `in_progress`, `blocked`, `skipped`), or
    /// the text as written for [`LogStatus::Other`].
    pub fn as_str(&self) -> &str {
        match self {
            LogStatus::Completed => "completed",
            LogStatus::Pending => "pending",
            LogStatus::InProgress => "in_progress",
            LogStatus::Blocked => "blocked",
            LogStatus::Skipped => "skipped",
            LogStatus::Other(s) => s,
        }
    }

    /// Reads the first word(s) of a status value: `completed`, `Completed ✅`, `in progress`,
    /// `in_progress`, `` `pending` `` …
    pub fn parse(value: &str) -> LogStatus {
        let v = strip_emphasis(value).to_lowercase();
        // Leading decoration such as `✅ completed` or `[x] completed` is not part of the word.
        let v = v.trim().trim_start_matches(|c: char| !c.is_alphanumeric());
        let word: String = v
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
            .collect();
        match word.as_str() {
            "completed" | "complete" => LogStatus::Completed,
            "pending" => LogStatus::Pending,
            "in_progress" | "in-progress" => LogStatus::InProgress,
            "in" if v.starts_with("in progress") => LogStatus::InProgress,
            "blocked" => LogStatus::Blocked,
            "skipped" => LogStatus::Skipped,
            _ => LogStatus::Other(v.to_string()),
        }
    }
}

/// How the Status line was written — the three forms the DWP method allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusForm {
    /// `Status: completed`
    Plain,
    /// `**Status:** completed`
    Bold,
    /// `- **Status:** pending` (a list item; the helper misses this one)
    BulletBold,
    /// `- Status: pending`
    BulletPlain,
}

/// The Status line of a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusLine {
    /// 1-based line number in the text read.
    pub line: usize,
    /// Which of the allowed forms it was written in.
    pub form: StatusForm,
    /// The value as written, trimmed.
    pub raw: String,
    /// The value read as a status.
    pub status: LogStatus,
}

/// A `Label: value` line (label as it was matched).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabeledLine {
    /// 1-based line number in the text read.
    pub line: usize,
    /// The label that matched, in its canonical spelling (`Completed at`, `Summary`, …).
    pub label: &'static str,
    /// The text after the label, as the label reader returns it.
    pub value: String,
}

/// `Commit: …` in a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommitNote {
    /// `Commit: none — <reason>`; `reason` is empty when none was given (not a valid excuse).
    None {
        /// The reason after `none` and its dash, colon or parentheses, trimmed.
        reason: String,
    },
    /// `Commit: <7–40 lower-case hex>`
    Hash(String),
    /// Anything else, as written.
    Other(String),
}

impl CommitNote {
    /// Reads the value of a `Commit:` line.
    pub fn parse(value: &str) -> CommitNote {
        let v = strip_emphasis(value);
        let lower = v.to_ascii_lowercase();
        if lower == "none"
            || lower.starts_with("none ")
            || lower.starts_with("none—")
            || lower.starts_with("none–")
            || lower.starts_with("none-")
            || lower.starts_with("none:")
            || lower.starts_with("none(")
        {
            let reason = v[4..].trim_start_matches(|c: char| {
                c.is_whitespace() || matches!(c, '—' | '–' | '-' | ':' | '(')
            });
            let reason = reason
                .strip_suffix(')')
                .filter(|_| v[4..].trim_start().starts_with('('))
                .unwrap_or(reason);
            return CommitNote::None {
                reason: reason.trim().to_string(),
            };
        }
        let hex = v.split_whitespace().next().unwrap_or("");
        if (7..=40).contains(&hex.len())
            && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        {
            return CommitNote::Hash(hex.to_string());
        }
        CommitNote::Other(v.to_string())
    }

    /// A `none` note with a non-empty reason: the only excuse for a missing commit.
    pub fn is_justified_none(&self) -> bool {
        matches!(self, CommitNote::None { reason } if !reason.is_empty())
    }
}

/// One `Gate record:` line: `·`-separated fields — a backticked command, `exit <int>`, `k=v`
/// items (also several joined by `;`) and free fields such as `cwd: repo root`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateRecordLine {
    /// 1-based line number of the `Gate record:` line.
    pub line: usize,
    /// The value after the label, as written.
    pub raw: String,
    /// The first backticked field, without its backticks.
    pub command: Option<String>,
    /// `exit N` (also `exit code N`, `exit: N`, `exit=N`).
    pub exit_code: Option<i64>,
    /// `k=v` items in order (the `exit=` item excluded).
    pub items: Vec<(String, String)>,
    /// Fields that are none of the above (`cwd: repo root`, `scope: …`), trimmed.
    pub other: Vec<String>,
}

impl GateRecordLine {
    /// Parses the value of a `Gate record:` line.
    pub fn parse(line: usize, value: &str) -> GateRecordLine {
        let mut record = GateRecordLine {
            line,
            raw: value.trim().to_string(),
            command: None,
            exit_code: None,
            items: Vec::new(),
            other: Vec::new(),
        };
        for field in split_outside_backticks(value, '·') {
            let field = field.trim();
            if field.is_empty() {
                continue;
            }
            if record.command.is_none()
                && let Some(cmd) = backticked(field)
            {
                record.command = Some(cmd.to_string());
                continue;
            }
            if let Some(code) = exit_field(field) {
                record.exit_code.get_or_insert(code);
                continue;
            }
            let parts: Vec<&str> = field
                .split(';')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .collect();
            let pairs: Option<Vec<(&str, &str)>> = parts.iter().map(|p| key_value(p)).collect();
            match pairs {
                Some(pairs) if !pairs.is_empty() => {
                    for (k, v) in pairs {
                        if k.eq_ignore_ascii_case("exit")
                            && let Ok(code) = v.parse()
                        {
                            record.exit_code.get_or_insert(code);
                        } else {
                            record.items.push((k.to_string(), v.to_string()));
                        }
                    }
                }
                _ => record.other.push(field.to_string()),
            }
        }
        record
    }

    /// The value of the first item with this key.
    pub fn item(&self, key: &str) -> Option<&str> {
        self.items
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The items as evidence text: `k=v; k=v`.
    pub fn items_text(&self) -> String {
        self.items
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

fn split_outside_backticks(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut in_code = false;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if c == '`' {
            in_code = !in_code;
        } else if c == sep && !in_code {
            out.push(&s[start..i]);
            start = i + c.len_utf8();
        }
    }
    out.push(&s[start..]);
    out
}

fn backticked(field: &str) -> Option<&str> {
    let run = field.bytes().take_while(|b| *b == b'`').count();
    if run == 0 || field.len() < 2 * run + 1 {
        return None;
    }
    let inner = field[run..].strip_suffix(&field[..run])?;
    Some(inner.trim())
}

fn exit_field(field: &str) -> Option<i64> {
    let lower = field.to_ascii_lowercase();
    let rest = lower.strip_prefix("exit")?;
    let rest = rest.trim_start();
    let rest = rest.strip_prefix("code").unwrap_or(rest).trim_start();
    let rest = rest.strip_prefix([':', '=']).unwrap_or(rest).trim();
    rest.parse().ok()
}

fn key_value(part: &str) -> Option<(&str, &str)> {
    let (k, v) = part.split_once('=')?;
    let k = k.trim();
    let valid_key = !k.is_empty()
        && k.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    valid_key.then(|| (k, v.trim()))
}

/// The Completion & Log section of one task record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionLog {
    /// Line of the heading or bold label.
    pub line: usize,
    /// Heading level, or `None` for a bold label.
    pub heading_level: Option<usize>,
    /// The section's content (lines after the heading; for a bold label also the rest of its line).
    pub text: String,
    /// The first Status line in the section.
    pub status: Option<StatusLine>,
    /// `Completed:` / `Completed at:` / `Timestamp:` / `Date:` — the first one.
    pub timestamp: Option<LabeledLine>,
    /// The first `Summary:` line.
    pub summary: Option<LabeledLine>,
    /// The first `Outputs:` line.
    pub outputs: Option<LabeledLine>,
    /// The value of `Skills disposition:` inside the section (the literal-presence rule of the
    /// helper is [`super::TaskBody::has_skills_disposition`]).
    pub skills_disposition: Option<LabeledLine>,
    /// The first `Documentation decision:` line.
    pub documentation_decision: Option<LabeledLine>,
    /// The first `Commit:` line: its 1-based line number and what it says.
    pub commit: Option<(usize, CommitNote)>,
}

impl CompletionLog {
    /// The declared status, if the Status line exists.
    pub fn log_status(&self) -> Option<&LogStatus> {
        self.status.as_ref().map(|s| &s.status)
    }
}

/// True when a heading text names the Completion & Log (`10. Completion & Log (filled …)`,
/// `Completion log`, `Completion and Log`).
pub fn is_completion_log_name(name: &str) -> bool {
    // Word by word, ASCII case-insensitively, without allocating (called for every heading).
    let mut words = name.split_whitespace();
    let is = |w: Option<&str>, want: &str| w.is_some_and(|w| w.eq_ignore_ascii_case(want));
    let (a, b, c, d) = (words.next(), words.next(), words.next(), words.next());
    if is(a, "completion&log") {
        return b.is_none();
    }
    if !is(a, "completion") {
        return false;
    }
    if is(b, "log") {
        return c.is_none();
    }
    (is(b, "&") || is(b, "and")) && is(c, "log") && d.is_none()
}

const LOG_LABELS: [&str; 3] = ["Completion & Log", "Completion log", "Completion and Log"];

/// Finds the Completion & Log among the lines of one task body.
///
/// A heading form runs to the next heading of the same or a higher level that is not an
/// amendment heading (amendments are appended to the log); a bold label runs to the next
/// heading of level ≤ 2 that is not an amendment heading.
pub fn completion_log_in_lines(lines: &[Line<'_>]) -> Option<CompletionLog> {
    let mut start = None;
    for (i, line) in lines.iter().enumerate() {
        if line.in_fence {
            continue;
        }
        if let Some(h) = heading(line.text) {
            if h.level >= 2 && is_completion_log_name(heading_field_name(h.text)) {
                start = Some((i, Some(h.level), ""));
                break;
            }
        } else if let Some(v) = LOG_LABELS
            .iter()
            .find_map(|l| bold_label_value(line.text, l))
        {
            start = Some((i, None, v));
            break;
        }
    }
    let (i, level, first) = start?;
    let limit = level.unwrap_or(2);
    let mut end = lines.len();
    for (j, line) in lines.iter().enumerate().skip(i + 1) {
        if line.in_fence {
            continue;
        }
        if let Some(h) = heading(line.text)
            && h.level <= limit
            && !is_amendment_heading(line.text)
        {
            end = j;
            break;
        }
    }
    let section = &lines[i + 1..end];
    let mut text_parts: Vec<&str> = Vec::new();
    if !first.is_empty() {
        text_parts.push(first);
    }
    text_parts.extend(section.iter().map(|l| l.text));
    let mut log = CompletionLog {
        line: lines[i].number,
        heading_level: level,
        text: text_parts.join("\n").trim().to_string(),
        status: None,
        timestamp: None,
        summary: None,
        outputs: None,
        skills_disposition: None,
        documentation_decision: None,
        commit: None,
    };
    // The label line itself may carry `**Completion log:** Status: completed`: scan its value
    // as if it were the first line of the section.
    let label_line = (!first.is_empty()).then(|| Line {
        number: lines[i].number,
        start: lines[i].start,
        text: first,
        in_fence: false,
    });
    for line in label_line
        .iter()
        .chain(section.iter().filter(|l| !l.in_fence))
    {
        if log.status.is_none() {
            log.status = status_line(line);
        }
        if log.timestamp.is_none() {
            log.timestamp = first_label(
                line,
                &["Completed at", "Completed", "Timestamp", "Date", "Closed"],
            );
        }
        if log.summary.is_none() {
            log.summary = first_label(line, &["Summary"]);
        }
        if log.outputs.is_none() {
            log.outputs = first_label(line, &["Outputs"]);
        }
        if log.skills_disposition.is_none() {
            log.skills_disposition = first_label(line, &["Skills disposition"]);
        }
        if log.documentation_decision.is_none() {
            log.documentation_decision = first_label(line, &["Documentation decision"]);
        }
        if log.commit.is_none()
            && let Some(lv) = label_value(line.text, "Commit")
        {
            log.commit = Some((line.number, CommitNote::parse(lv.value)));
        }
    }
    Some(log)
}

fn first_label(line: &Line<'_>, labels: &[&'static str]) -> Option<LabeledLine> {
    labels.iter().find_map(|label| {
        label_value(line.text, label).map(|lv| LabeledLine {
            line: line.number,
            label,
            value: lv.value.to_string(),
        })
    })
}

/// Recognises a Status line in any of its forms.
pub fn status_line(line: &Line<'_>) -> Option<StatusLine> {
    let lv = label_value(line.text, "Status")?;
    let trimmed = line.text.trim_start();
    let bullet = trimmed.starts_with(['-', '*', '+'])
        && !trimmed.starts_with("**")
        && !trimmed.starts_with("__");
    let form = match (bullet, lv.form) {
        (false, LabelForm::Plain) => StatusForm::Plain,
        (false, LabelForm::Bold) => StatusForm::Bold,
        (true, LabelForm::Bold) => StatusForm::BulletBold,
        (true, LabelForm::Plain) => StatusForm::BulletPlain,
    };
    Some(StatusLine {
        line: line.number,
        form,
        raw: lv.value.to_string(),
        status: LogStatus::parse(lv.value),
    })
}

/// Every `Gate record:` line (plain, bold or list item) among unfenced lines.
pub fn gate_records_in_lines(lines: &[Line<'_>]) -> Vec<GateRecordLine> {
    lines
        .iter()
        .filter(|l| !l.in_fence)
        .filter_map(|l| {
            label_value(l.text, "Gate record").map(|lv| GateRecordLine::parse(l.number, lv.value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::fences::lines;
    use super::*;

    /// The allocation-free word match against the word-list form it replaced.
    #[test]
    fn completion_log_names_match_the_word_lists() {
        fn by_words(name: &str) -> bool {
            let words: Vec<String> = name
                .split_whitespace()
                .map(|w| w.to_ascii_lowercase())
                .collect();
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            matches!(
                words.as_slice(),
                ["completion", "&" | "and", "log"] | ["completion", "log"] | ["completion&log"]
            )
        }
        let parts = [
            "completion",
            "Completion",
            "&",
            "and",
            "AND",
            "log",
            "Log",
            "completion&log",
            "x",
            " ",
            "\t",
        ];
        for a in parts {
            for b in parts {
                for c in parts {
                    for d in ["", " log", " x", " "] {
                        let name = format!("{a} {b} {c}{d}");
                        assert_eq!(is_completion_log_name(&name), by_words(&name), "{name:?}");
                        let short = format!("{a}{d}");
                        assert_eq!(
                            is_completion_log_name(&short),
                            by_words(&short),
                            "{short:?}"
                        );
                        let two = format!("{a} {b}{d}");
                        assert_eq!(is_completion_log_name(&two), by_words(&two), "{two:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn gate_record_fields() {
        let g = GateRecordLine::parse(
            7,
            "`python3 -m unittest tests.test_ratelimit` · cwd: repo root · scope: tests/test_ratelimit.py · fp=f52b629+dirty · exit 0 · ran=4/4 · log=analysis_results/gates/t1-unittest.log",
        );
        assert_eq!(
            g.command.as_deref(),
            Some("python3 -m unittest tests.test_ratelimit")
        );
        assert_eq!(g.exit_code, Some(0));
        assert_eq!(g.item("fp"), Some("f52b629+dirty"));
        assert_eq!(g.item("ran"), Some("4/4"));
        assert_eq!(
            g.item("log"),
            Some("analysis_results/gates/t1-unittest.log")
        );
        assert_eq!(
            g.other,
            vec!["cwd: repo root", "scope: tests/test_ratelimit.py"]
        );
        assert_eq!(
            g.items_text(),
            "fp=f52b629+dirty; ran=4/4; log=analysis_results/gates/t1-unittest.log"
        );
    }

    #[test]
    fn gate_record_command_with_separator_and_pipe() {
        let g = GateRecordLine::parse(1, "`a · b | tail -n 3` · exit=2 · scope=unit; ran=1/1");
        assert_eq!(g.command.as_deref(), Some("a · b | tail -n 3"));
        assert_eq!(g.exit_code, Some(2));
        assert_eq!(g.items.len(), 2);
    }

    #[test]
    fn commit_notes() {
        assert_eq!(
            CommitNote::parse("none — docs live outside git"),
            CommitNote::None {
                reason: "docs live outside git".into()
            }
        );
        assert!(!CommitNote::parse("none").is_justified_none());
        assert_eq!(
            CommitNote::parse("`abc1234`"),
            CommitNote::Hash("abc1234".into())
        );
        assert_eq!(
            CommitNote::parse("nonesuch"),
            CommitNote::Other("nonesuch".into())
        );
    }

    #[test]
    fn log_with_amendment_keeps_status_and_ends_at_same_level() {
        let text = "## 10. Completion & Log (filled by the agent)\n\n- **Status:** pending\nCompleted: 2026-10-12\nCommit: none — no code\n\n### Amendment 1 — 2026-10-12\nReason: r\n\n## 11. After\nStatus: completed\n";
        let ls = lines(text);
        let log = completion_log_in_lines(&ls).expect("log");
        assert_eq!(log.line, 1);
        let status = log.status.expect("status");
        assert_eq!(status.form, StatusForm::BulletBold);
        assert_eq!(status.status, LogStatus::Pending);
        assert_eq!(log.timestamp.map(|t| t.value), Some("2026-10-12".into()));
        assert!(log.text.contains("Amendment 1"));
        assert!(!log.text.contains("After"));
        assert!(matches!(log.commit, Some((5, CommitNote::None { .. }))));
    }

    #[test]
    fn status_on_the_label_line() {
        let ls = lines("**Completion log:** Status: completed · Skills disposition: none\nmore");
        let log = completion_log_in_lines(&ls).expect("log");
        assert_eq!(log.log_status(), Some(&LogStatus::Completed));
        assert_eq!(log.status.map(|s| s.line), Some(1));
    }

    #[test]
    fn statuses() {
        assert_eq!(LogStatus::parse("Completed ✅"), LogStatus::Completed);
        assert_eq!(LogStatus::parse("in progress"), LogStatus::InProgress);
        assert_eq!(LogStatus::parse("`pending`"), LogStatus::Pending);
        assert_eq!(LogStatus::parse("done"), LogStatus::Other("done".into()));
        assert_eq!(LogStatus::parse("✅ completed"), LogStatus::Completed);
        assert_eq!(LogStatus::parse("In_Progress").as_str(), "in_progress");
    }
}

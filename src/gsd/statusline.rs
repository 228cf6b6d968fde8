//! The GSD state segment of the statusline, byte for byte as GSD's hook renders it (see
//! docs/gsd.md). Which STATE.md to render is [`super::locate`]'s question.
//!
//! Everything here is cheap on purpose: the statusline runs on every prompt.

use super::compat::{self, HookState, truthy};
use super::rules::{CANONICAL_STATUSES, normalize_status};

/// What the hook prints when workstream mode is on and no workstream resolves.
pub const NO_ACTIVE_WORKSTREAM: &str = "no active workstream";

pub use super::layout::Format;

/// Renders STATE.md text; "" means print nothing.
pub fn render_text(content: &str, format: Format) -> String {
    let state = compat::parse(content);
    match format {
        Format::Full => render_full(&state),
        Format::Compact => render_compact(&state),
    }
}

fn non_empty(v: &Option<String>) -> Option<&str> {
    v.as_deref().filter(|s| !s.is_empty())
}

/// `[█████░░░░░] 59%`, or `None` when the hook draws no bar.
fn progress_bar(percent: Option<&str>) -> Option<String> {
    let digits = percent?;
    let pct = digit_value(digits).min(100);
    let filled = (pct / 10) as usize;
    Some(format!(
        "[{}{}] {pct}%",
        "█".repeat(filled),
        "░".repeat(10 - filled)
    ))
}

/// The value of a digit run, saturating (anything over 100 is clamped by the callers anyway).
fn digit_value(digits: &str) -> u64 {
    digits.bytes().fold(0u64, |acc, b| {
        acc.saturating_mul(10).saturating_add(u64::from(b - b'0'))
    })
}

/// `Number(percent) === 100`.
fn percent_is_100(percent: Option<&str>) -> bool {
    percent.is_some_and(|d| digit_value(d) == 100)
}

/// Scene 3's phase test: both counters present and equal as strings (`05` ≠ `5`; `0` = `0`).
fn phases_all_done(s: &HookState) -> bool {
    match (non_empty(&s.completed_phases), non_empty(&s.total_phases)) {
        (Some(c), Some(t)) => c == t,
        _ => false,
    }
}

fn phases_joined(s: &HookState) -> Option<String> {
    s.next_phases
        .as_ref()
        .filter(|p| !p.is_empty())
        .map(|p| p.join("/"))
}

/// GSD's default rendering (`formatGsdState`).
pub fn render_full(s: &HookState) -> String {
    let mut parts: Vec<String> = Vec::new();
    if truthy(&s.milestone) || truthy(&s.milestone_name) {
        let mut pieces: Vec<String> = Vec::new();
        if let Some(m) = non_empty(&s.milestone) {
            pieces.push(m.to_string());
        }
        if let Some(name) = non_empty(&s.milestone_name).filter(|n| *n != "milestone") {
            pieces.push(name.to_string());
        }
        if let Some(bar) = progress_bar(s.percent.as_deref()) {
            pieces.push(bar);
        }
        if !pieces.is_empty() {
            parts.push(pieces.join(" "));
        }
    }
    if let Some(active) = non_empty(&s.active_phase) {
        parts.push(match non_empty(&s.status) {
            Some(stage) => format!("Phase {active} {stage}"),
            None => format!("Phase {active}"),
        });
    } else if let (Some(action), Some(phases)) = (non_empty(&s.next_action), phases_joined(s)) {
        parts.push(format!("next {action} {phases}"));
    } else if percent_is_100(s.percent.as_deref()) || phases_all_done(s) {
        parts.push("milestone complete".into());
    } else {
        if let Some(status) = non_empty(&s.status) {
            parts.push(status.to_string());
        }
        if let (Some(n), Some(t)) = (non_empty(&s.phase_num), non_empty(&s.phase_total)) {
            parts.push(match non_empty(&s.phase_name) {
                Some(name) => format!("{name} ({n}/{t})"),
                None => format!("ph {n}/{t}"),
            });
        }
    }
    parts.join(" · ")
}

/// GSD's compact rendering (`formatGsdStateCompact`).
pub fn render_compact(s: &HookState) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(m) = non_empty(&s.milestone) {
        parts.push(m.to_string());
    }
    let phase_id = non_empty(&s.active_phase).or(non_empty(&s.phase_num));
    if let Some(id) = phase_id {
        parts.push(match non_empty(&s.phase_total) {
            Some(total) => format!("P{id}/{total}"),
            None => format!("P{id}"),
        });
    }
    let done = non_empty(&s.active_phase).is_none()
        && (percent_is_100(s.percent.as_deref()) || phases_all_done(s));
    if done {
        parts.push("complete".into());
    } else if let Some(short) = non_empty(&s.status).and_then(short_status) {
        parts.push(short);
    } else if phase_id.is_none()
        && let Some(action) = non_empty(&s.next_action)
    {
        parts.push(match phases_joined(s) {
            Some(p) => format!("next {action} {p}"),
            None => format!("next {action}"),
        });
    }
    parts.join(" · ")
}

/// One keyword for a free-text status: the canonical value (`PAUSED` shouted), else the first
/// word of the text, at most 16 UTF-16 code units as in JavaScript's `slice`.
fn short_status(status: &str) -> Option<String> {
    let norm = normalize_status(status, None);
    if CANONICAL_STATUSES.contains(&norm.as_str()) {
        return Some(if norm == "paused" {
            "PAUSED".into()
        } else {
            norm
        });
    }
    let trimmed = compat::js_trim(&norm);
    let is_separator =
        |c: char| compat::is_js_space(c) || matches!(c, '\u{2014}' | '\u{2013}' | '-');
    let first = trimmed.split(is_separator).next().unwrap_or("");
    (!first.is_empty()).then(|| utf16_prefix(first, 16))
}

/// The first `units` UTF-16 code units of `s`. A surrogate pair cut in half leaves a lone
/// surrogate in JavaScript, which Node writes to stdout as U+FFFD.
fn utf16_prefix(s: &str, units: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let width = c.len_utf16();
        if used + width <= units {
            out.push(c);
            used += width;
        } else {
            if used < units {
                out.push('\u{FFFD}');
            }
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_cut_of_a_pair_becomes_replacement() {
        assert_eq!(
            utf16_prefix("abcdefghijklmno😀x", 16),
            "abcdefghijklmno\u{FFFD}"
        );
        assert_eq!(utf16_prefix("abc", 16), "abc");
    }

    #[test]
    fn short_status_first_word() {
        assert_eq!(short_status("Awaiting—next"), Some("Awaiting".into()));
        assert_eq!(short_status("— x"), None);
        assert_eq!(short_status("Stopped"), Some("PAUSED".into()));
    }
}

//! The markdown edits of a task's close-out and of an amendment (`docs/task.md`,
//! `docs/amend.md`): tick the task's README box, update `Plan Status`, fill the Completion & Log,
//! add the PROGRESS.md entry, append an amendment record. Pure text in, text out; every line the
//! edit does not own is kept byte for byte (its line ending included), and a new line takes the
//! file's own line ending.
//!
//! Each edit is idempotent: applied to its own output it changes nothing, so a close-out cut
//! short by a crash is finished by running the same command again.

use super::amendment::is_amendment_heading;
use super::completion_log::completion_log_in_lines;
use super::fences::{Line, lines};
use super::readme::parse_readme;
use super::syntax::label_value;
use crate::markdown::heading;

/// The value a label is given when no flag supplies one: the close-out then refuses the state
/// transition until a person or the agent replaces it.
pub const PLACEHOLDER: &str = "TODO:";

/// The labels of a Completion & Log that a close-out fills, in the order it writes them.
pub const LOG_LABELS: [&str; 6] = [
    "Status",
    "Completed",
    "Summary",
    "Outputs",
    "Skills disposition",
    "Documentation decision",
];

/// What a close-out writes into the Completion & Log. `None`: keep what is there, or write a
/// placeholder when the label is missing or holds one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogValues {
    /// `Completed:` — the day, `YYYY-MM-DD` (kept when the log already has a date).
    pub completed: String,
    /// `Summary:`.
    pub summary: Option<String>,
    /// `Outputs:`.
    pub outputs: Option<String>,
    /// `Skills disposition:`.
    pub skills_disposition: Option<String>,
    /// `Documentation decision:`.
    pub documentation_decision: Option<String>,
    /// One `Gate record:` line each (added unless the same line is there).
    pub gate_records: Vec<String>,
    /// `Commit:`.
    pub commit: Option<String>,
}

/// A Completion & Log after the close-out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClosedLog {
    /// The whole file's text.
    pub text: String,
    /// The labels that still hold a placeholder (or are empty), in [`LOG_LABELS`] order.
    pub placeholders: Vec<&'static str>,
}

/// Why a record could not be edited.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CloseOutError {
    /// The README has no task-list line for the task.
    #[error("README.md has no task-list line for task {0}")]
    NoIndexLine(u32),
    /// The README has no `Plan Status:` line.
    #[error("README.md has no `Plan Status:` line")]
    NoPlanStatus,
}

/// The file's line ending: `\r\n` when its first line ends so, else `\n`.
pub fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// The raw lines of `text`, each with its ending.
fn raw_lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `line` with the `len` bytes at `at` (its value) replaced by `new`, its ending kept. An empty
/// value (`Summary:` and nothing after) gets one blank before the new one.
fn with_value(line: &str, at: usize, len: usize, new: &str) -> String {
    let body = line.trim_end_matches(['\n', '\r']);
    let ending = &line[body.len()..];
    if len == 0 {
        return format!("{} {new}{ending}", body.trim_end());
    }
    format!("{}{new}{}{ending}", &body[..at], &body[at + len..])
}

/// Where `value` (a slice of `line`) starts in it.
fn offset_in(line: &str, value: &str) -> usize {
    value.as_ptr() as usize - line.as_ptr() as usize
}

/// Fills the Completion & Log of the task record that spans lines `first..=last` of `text` (a
/// whole task file: 1 to its last line; an inline record: its heading to its last line). The
/// status becomes `completed`; a label a value is given for gets it; a missing label is added
/// with its value or a placeholder after the last label there is; gate records and the commit are
/// added unless already there. A record without a Completion & Log gets one at its end, at
/// `log_level` (`##` in a task file, `###` in an inline record).
pub fn close_log(
    text: &str,
    first: usize,
    last: usize,
    log_level: usize,
    values: &LogValues,
) -> ClosedLog {
    let nl = line_ending(text);
    let all = lines(text);
    let record: Vec<Line<'_>> = all
        .iter()
        .copied()
        .filter(|l| l.number >= first && l.number <= last)
        .collect();
    let raw: Vec<String> = raw_lines(text).into_iter().map(str::to_string).collect();
    let Some(log) = completion_log_in_lines(&record) else {
        // No log yet: a pending one at the end of the record (a blank line, the heading, a
        // blank line, the status: four lines), then that one filled.
        let cut = last.min(raw.len());
        let mut out = raw[..cut].concat();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(nl);
        }
        out.push_str(&format!(
            "{nl}{} Completion & Log{nl}{nl}Status: pending{nl}",
            "#".repeat(log_level)
        ));
        let rest = raw[cut..].concat();
        if !rest.is_empty() {
            out.push_str(nl);
            out.push_str(&rest);
        }
        return close_log(&out, first, cut + 4, log_level, values);
    };
    // The section: from the log's line to the next heading of its level or above that is not
    // an amendment; our labels live before its first amendment.
    let limit = log.heading_level.unwrap_or(2);
    let start = record
        .iter()
        .position(|l| l.number == log.line)
        .unwrap_or(0);
    let mut end = record.len();
    for (j, l) in record.iter().enumerate().skip(start + 1) {
        if !l.in_fence
            && let Some(h) = heading(l.text)
            && h.level <= limit
            && !is_amendment_heading(l.text)
        {
            end = j;
            break;
        }
    }
    let mut raw = raw;
    let own_end = record[start + 1..end]
        .iter()
        .position(|l| !l.in_fence && is_amendment_heading(l.text))
        .map_or(end, |p| start + 1 + p);
    let section: Vec<Line<'_>> = record[start + 1..own_end]
        .iter()
        .copied()
        .filter(|l| !l.in_fence)
        .collect();

    let given = |label: &str| -> Option<String> {
        match label {
            "Status" => Some("completed".into()),
            "Completed" => Some(values.completed.clone()),
            "Summary" => values.summary.clone(),
            "Outputs" => values.outputs.clone(),
            "Skills disposition" => values.skills_disposition.clone(),
            "Documentation decision" => values.documentation_decision.clone(),
            _ => None,
        }
    };
    let mut placeholders = Vec::new();
    let mut last_label_line = log.line;
    let mut missing: Vec<String> = Vec::new();
    for label in LOG_LABELS {
        let found = section.iter().find_map(|l| {
            let lv = label_value(l.text, label)?;
            Some((l.number, offset_in(l.text, lv.value), lv.value))
        });
        match found {
            Some((number, at, value)) => {
                last_label_line = last_label_line.max(number);
                let keep_date =
                    label == "Completed" && !value.is_empty() && !value.starts_with(PLACEHOLDER);
                let new = if keep_date { None } else { given(label) };
                let now = match new {
                    Some(v) if v != value => {
                        let replaced = with_value(&raw[number - 1], at, value.len(), &one_line(&v));
                        raw[number - 1] = replaced;
                        v
                    }
                    _ => value.to_string(),
                };
                if now.trim().is_empty() || now.trim_start().starts_with(PLACEHOLDER) {
                    placeholders.push(label);
                }
            }
            None => {
                let value = given(label)
                    .unwrap_or_else(|| format!("{PLACEHOLDER} {}", placeholder_hint(label)));
                if value.trim_start().starts_with(PLACEHOLDER) {
                    placeholders.push(label);
                }
                missing.push(format!("{label}: {}", one_line(&value)));
            }
        }
    }
    for g in &values.gate_records {
        let line = format!("Gate record: {}", one_line(g));
        let there = section.iter().any(|l| {
            label_value(l.text, "Gate record").is_some_and(|lv| one_line(lv.value) == one_line(g))
        });
        if !there {
            missing.push(line);
        }
    }
    if let Some(commit) = &values.commit {
        match section.iter().find_map(|l| {
            label_value(l.text, "Commit")
                .map(|lv| (l.number, offset_in(l.text, lv.value), lv.value))
        }) {
            Some((number, at, value)) if value != commit => {
                raw[number - 1] = with_value(&raw[number - 1], at, value.len(), commit);
            }
            Some(_) => {}
            None => missing.push(format!("Commit: {commit}")),
        }
    }
    // Gate record lines already there count as labels for where new lines go.
    for l in &section {
        if label_value(l.text, "Gate record").is_some() || label_value(l.text, "Commit").is_some() {
            last_label_line = last_label_line.max(l.number);
        }
    }
    if !missing.is_empty() {
        let at = last_label_line; // insert after this line (1-based)
        let mut block = String::new();
        if at == log.line {
            block.push_str(nl);
        }
        for m in &missing {
            block.push_str(m);
            block.push_str(nl);
        }
        if !raw[at - 1].ends_with('\n') {
            raw[at - 1].push_str(nl);
        }
        // A log heading followed directly by a blank line: the labels go after that blank.
        let (index, block) = if at == log.line && raw.get(at).is_some_and(|l| l.trim().is_empty()) {
            (at + 1, block.trim_start_matches(['\r', '\n']).to_string())
        } else {
            (at, block)
        };
        raw.insert(index, block);
    }
    ClosedLog {
        text: raw.concat(),
        placeholders,
    }
}

fn placeholder_hint(label: &str) -> &'static str {
    match label {
        "Summary" => "one line on what the task did",
        "Outputs" => "the files or artifacts it produced",
        "Skills disposition" => "none | update X | create Y | defer — reason",
        "Documentation decision" => "what documentation changed, or why none did",
        _ => "fill in",
    }
}

/// The README with task `task`'s box ticked and every `Plan Status: X/N completed` line saying
/// how many boxes are ticked now, out of how many tasks the index lists. Lines already so are
/// left alone.
pub fn tick_task(readme: &str, task: u32) -> Result<String, CloseOutError> {
    set_task_box(readme, task, true)
}

/// The README with task `task`'s box unticked and every `Plan Status:` line counting the boxes
/// left ticked: what a reopened task reads like (markdown first, so the README never says done
/// while state.json says the task is open again). Lines already so are left alone.
pub fn untick_task(readme: &str, task: u32) -> Result<String, CloseOutError> {
    set_task_box(readme, task, false)
}

fn set_task_box(readme: &str, task: u32, done: bool) -> Result<String, CloseOutError> {
    let parsed = parse_readme(readme);
    let entry = parsed
        .task_index
        .entries
        .iter()
        .find(|e| e.task == task)
        .ok_or(CloseOutError::NoIndexLine(task))?;
    let mut raw: Vec<String> = raw_lines(readme).into_iter().map(str::to_string).collect();
    let line = &raw[entry.line - 1];
    let (from, to): (&[&str], &str) = if done {
        (&["[ ]"], "[x]")
    } else {
        (&["[x]", "[X]"], "[ ]")
    };
    if entry.checked != done
        && let Some(at) = from.iter().filter_map(|box_| line.find(box_)).min()
    {
        raw[entry.line - 1] = format!("{}{to}{}", &line[..at], &line[at + 3..]);
    }
    let total = parsed.task_index.entries.len();
    let ticked = parsed
        .task_index
        .entries
        .iter()
        .filter(|e| if e.task == task { done } else { e.checked })
        .count();
    set_plan_status(&mut raw, &parsed, &format!("{ticked}/{total} completed"))?;
    Ok(raw.concat())
}

fn set_plan_status(
    raw: &mut [String],
    parsed: &super::readme::Readme<'_>,
    value: &str,
) -> Result<(), CloseOutError> {
    if parsed.plan_status_lines.is_empty() {
        return Err(CloseOutError::NoPlanStatus);
    }
    for status in &parsed.plan_status_lines {
        let line = raw[status.line - 1].clone();
        let body = line.trim_end_matches(['\n', '\r']);
        if let Some(lv) = label_value(body, "Plan Status")
            && lv.value != value
        {
            raw[status.line - 1] =
                with_value(&line, offset_in(body, lv.value), lv.value.len(), value);
        }
    }
    Ok(())
}

/// A task's entry in PROGRESS.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskEntry {
    /// The task.
    pub task: u32,
    /// Its title.
    pub title: String,
    /// `YYYY-MM-DD`.
    pub date: String,
    /// The bullets (one line each).
    pub bullets: Vec<String>,
}

/// PROGRESS.md with the task's entry added under its task-entry section (a heading that speaks
/// of task entries or completed tasks; a `(none yet)`-style placeholder line there is dropped),
/// or in a new `## Task entries` section at the end. A heading `Task N` there already: left as
/// it is (the entry was written before).
pub fn add_task_entry(progress: &str, entry: &TaskEntry) -> String {
    let nl = line_ending(progress);
    let all = lines(progress);
    let named = |text: &str| {
        let lower = text.to_lowercase();
        lower.starts_with(&format!("task {} ", entry.task))
            || lower.starts_with(&format!("task {}:", entry.task))
            || lower == format!("task {}", entry.task)
            || lower.starts_with(&format!("task {} —", entry.task))
    };
    if all
        .iter()
        .any(|l| !l.in_fence && heading(l.text).is_some_and(|h| h.level >= 3 && named(h.text)))
    {
        return progress.to_string();
    }
    let title = one_line(&entry.title);
    let mut block = format!(
        "### Task {} — {} ({}){nl}{nl}",
        entry.task,
        if title.is_empty() { "closed" } else { &title },
        entry.date
    );
    for b in &entry.bullets {
        block.push_str(&format!("- {}{nl}", one_line(b)));
    }
    let section = all.iter().position(|l| {
        !l.in_fence
            && heading(l.text).is_some_and(|h| {
                let t = h.text.to_lowercase();
                h.level == 2 && (t.contains("task entries") || t.contains("completed tasks"))
            })
    });
    let mut raw: Vec<String> = raw_lines(progress)
        .into_iter()
        .map(str::to_string)
        .collect();
    if raw.last().is_some_and(|l| !l.ends_with('\n')) {
        let last = raw.len() - 1;
        raw[last].push_str(nl);
    }
    match section {
        Some(i) => {
            // The section runs to the next `##` heading (or the end).
            let end = all[i + 1..]
                .iter()
                .position(|l| !l.in_fence && heading(l.text).is_some_and(|h| h.level <= 2))
                .map_or(all.len(), |p| i + 1 + p);
            // A placeholder such as `(none yet)` or `None yet.` goes.
            for k in (i + 1..end).rev() {
                let t = all[k].text.trim().to_lowercase();
                if t.starts_with("(none") || t == "none yet." || t == "none yet" || t == "none." {
                    raw.remove(k);
                    return insert_entry(raw, i + 1, end - 1, &block, nl);
                }
            }
            insert_entry(raw, i + 1, end, &block, nl)
        }
        None => {
            let mut out = raw.concat();
            if !out.is_empty() && !out.ends_with(&format!("{nl}{nl}")) {
                out.push_str(nl);
            }
            out.push_str(&format!("## Task entries{nl}{nl}"));
            out.push_str(&block);
            out
        }
    }
}

/// Inserts `block` at the end of the section whose content is raw lines `from..to` (0-based
/// `to` exclusive), after its last non-blank line, separated by one blank line.
fn insert_entry(mut raw: Vec<String>, from: usize, to: usize, block: &str, nl: &str) -> String {
    let last = (from..to).rev().find(|k| !raw[*k].trim().is_empty());
    let (at, lead) = match last {
        Some(k) => (k + 1, nl.to_string()),
        None => (
            from + usize::from(raw.get(from).is_some_and(|l| l.trim().is_empty())),
            String::new(),
        ),
    };
    // A heading right after the entry gets its blank line.
    let trail = if raw.get(at).is_some_and(|l| !l.trim().is_empty()) {
        nl
    } else {
        ""
    };
    raw.insert(at, format!("{lead}{block}{trail}"));
    raw.concat()
}

/// `block` appended at the end of the record that spans lines `first..=last` of `text` (after
/// its last non-blank line, one blank line between), the lines after the record kept as they
/// are, one blank line before them.
pub fn append_to_record(text: &str, last: usize, block: &str) -> String {
    let nl = line_ending(text);
    let mut raw: Vec<String> = raw_lines(text).into_iter().map(str::to_string).collect();
    let last = last.min(raw.len());
    let end = (0..last)
        .rev()
        .find(|k| !raw[*k].trim().is_empty())
        .map_or(0, |k| k + 1);
    if end > 0 && !raw[end - 1].ends_with('\n') {
        raw[end - 1].push_str(nl);
    }
    let mut insert = String::new();
    if end > 0 {
        insert.push_str(nl);
    }
    insert.push_str(&block.replace('\n', nl).replace(&format!("\r{nl}"), nl));
    if end < raw.len() {
        insert.push_str(nl);
        // the blank lines between the record and what follows are replaced by one
        while end < raw.len() && raw[end].trim().is_empty() {
            raw.remove(end);
        }
    }
    raw.insert(end, insert);
    raw.concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TASK: &str =
        "# Task 1: Backoff\n\n## 3. Goal\n\nDo it.\n\n## 10. Completion & Log\n\nStatus: pending\n";

    fn values() -> LogValues {
        LogValues {
            completed: "2026-10-12".into(),
            summary: Some("schedule in place".into()),
            outputs: Some("`webhookd/backoff.py`".into()),
            skills_disposition: Some("none".into()),
            documentation_decision: Some("not applicable — internal".into()),
            gate_records: vec!["`make test` · exit 0 · ran=4/4".into()],
            commit: None,
        }
    }

    #[test]
    fn a_pending_log_is_closed_with_every_label_in_order() {
        let lines = TASK.lines().count();
        let closed = close_log(TASK, 1, lines, 2, &values());
        assert_eq!(
            closed.text,
            "# Task 1: Backoff\n\n## 3. Goal\n\nDo it.\n\n## 10. Completion & Log\n\nStatus: completed\nCompleted: 2026-10-12\nSummary: schedule in place\nOutputs: `webhookd/backoff.py`\nSkills disposition: none\nDocumentation decision: not applicable — internal\nGate record: `make test` · exit 0 · ran=4/4\n"
        );
        assert!(closed.placeholders.is_empty());
        // Idempotent.
        let again = close_log(&closed.text, 1, closed.text.lines().count(), 2, &values());
        assert_eq!(again.text, closed.text);
    }

    #[test]
    fn missing_values_become_placeholders_and_written_ones_are_kept() {
        let text = TASK.replace(
            "Status: pending\n",
            "- **Status:** pending\n- **Summary:** written by hand\n",
        );
        let mut v = values();
        v.summary = None;
        v.skills_disposition = None;
        let closed = close_log(&text, 1, text.lines().count(), 2, &v);
        assert!(
            closed
                .text
                .contains("- **Status:** completed\n- **Summary:** written by hand\n")
        );
        assert!(
            closed
                .text
                .contains("Skills disposition: TODO: none | update X")
        );
        assert_eq!(closed.placeholders, ["Skills disposition"]);
    }

    #[test]
    fn crlf_files_keep_crlf_and_amendments_stay_below_the_labels() {
        let text =
            format!("{}\n### Amendment 1 — 2026-10-13\n\nReason: x\n", TASK).replace('\n', "\r\n");
        let closed = close_log(&text, 1, text.lines().count(), 2, &values());
        assert!(
            !closed.text.replace("\r\n", "").contains('\n'),
            "{:?}",
            closed.text
        );
        let labels = closed.text.find("Documentation decision").unwrap();
        let amendment = closed.text.find("### Amendment 1").unwrap();
        assert!(labels < amendment);
    }

    #[test]
    fn a_record_without_a_log_gets_one() {
        let text = "## Task 2: Wire it {#task-2}\n\n### Goal\n\nx\n\n## Task 3: Next {#task-3}\n";
        let closed = close_log(text, 1, 5, 3, &values());
        assert!(
            closed.text.starts_with("## Task 2: Wire it {#task-2}\n\n### Goal\n\nx\n\n### Completion & Log\n\nStatus: completed\nCompleted: 2026-10-12\n"),
            "{}",
            closed.text
        );
        assert!(
            closed.text.ends_with("\n\n## Task 3: Next {#task-3}\n"),
            "{}",
            closed.text
        );
    }

    #[test]
    fn ticking_a_task_updates_the_plan_status_once() {
        let readme = "# Plan\n\nPlan Status: 1/3 completed\n\n## Task List\n\n- [x] Task 1: A\n- [ ] Task 2: B\n- [ ] Task 3: C\n";
        let ticked = tick_task(readme, 2).unwrap();
        assert_eq!(
            ticked,
            "# Plan\n\nPlan Status: 2/3 completed\n\n## Task List\n\n- [x] Task 1: A\n- [x] Task 2: B\n- [ ] Task 3: C\n"
        );
        assert_eq!(tick_task(&ticked, 2).unwrap(), ticked);
        assert_eq!(tick_task(readme, 9), Err(CloseOutError::NoIndexLine(9)));
    }

    #[test]
    fn unticking_a_reopened_task_updates_the_plan_status_once() {
        let readme = "# Plan\r\n\r\nPlan Status: 2/3 completed\r\n\r\n- [x] Task 1: A\r\n- [X] Task 2: B\r\n- [ ] Task 3: C\r\n";
        let open = untick_task(readme, 2).unwrap();
        assert_eq!(
            open,
            "# Plan\r\n\r\nPlan Status: 1/3 completed\r\n\r\n- [x] Task 1: A\r\n- [ ] Task 2: B\r\n- [ ] Task 3: C\r\n"
        );
        assert_eq!(untick_task(&open, 2).unwrap(), open);
        assert_eq!(
            tick_task(&open, 2)
                .unwrap()
                .replace("[x] Task 2", "[X] Task 2"),
            readme
        );
    }

    #[test]
    fn the_progress_entry_replaces_the_placeholder_once() {
        let progress = "# Progress\n\n## Task entries\n\n(none yet)\n\n## Decisions\n\n- a\n";
        let entry = TaskEntry {
            task: 1,
            title: "Backoff".into(),
            date: "2026-10-12".into(),
            bullets: vec!["schedule in place".into(), "Gate: 4/4".into()],
        };
        let once = add_task_entry(progress, &entry);
        assert_eq!(
            once,
            "# Progress\n\n## Task entries\n\n### Task 1 — Backoff (2026-10-12)\n\n- schedule in place\n- Gate: 4/4\n\n## Decisions\n\n- a\n"
        );
        assert_eq!(add_task_entry(&once, &entry), once);
        let second = add_task_entry(
            &once,
            &TaskEntry {
                task: 2,
                ..entry.clone()
            },
        );
        assert!(second.contains("- Gate: 4/4\n\n### Task 2 — Backoff (2026-10-12)\n\n- schedule in place\n- Gate: 4/4\n\n## Decisions"), "{second}");
        let bare = add_task_entry("# Progress\n", &entry);
        assert_eq!(
            bare,
            "# Progress\n\n## Task entries\n\n### Task 1 — Backoff (2026-10-12)\n\n- schedule in place\n- Gate: 4/4\n"
        );
    }

    #[test]
    fn a_block_is_appended_at_the_end_of_its_record() {
        let text = "## Task 1 {#task-1}\n\nStatus: completed\n\n\n## Task 2 {#task-2}\n";
        let out = append_to_record(text, 4, "### Amendment 1 — 2026-10-13\n\nReason: r\n");
        assert_eq!(
            out,
            "## Task 1 {#task-1}\n\nStatus: completed\n\n### Amendment 1 — 2026-10-13\n\nReason: r\n\n## Task 2 {#task-2}\n"
        );
        let file = "# Task 1\n\nStatus: completed\n";
        assert_eq!(
            append_to_record(file, 3, "X\n"),
            "# Task 1\n\nStatus: completed\n\nX\n"
        );
    }
}

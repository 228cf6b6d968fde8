//! The markdown facts the checks need (SPEC §1.4), read from the text of README.md and the task
//! files: fences, the README task index, the `Plan Status`/`Standard`/`Approval` lines, Lite
//! inline records, field extraction by heading or bold label, the Completion & Log status line
//! (all three forms) and the SECURITY_REVIEW.md rules of item 16.
//!
//! Interim home: `dwp::markdown` (branch dwp-markdown) owns these readers; the checks call this
//! module so that switching to it is a change of one file.

use regex::Regex;
use std::sync::LazyLock;

/// Lines with their fence state: `true` when the line is inside a fenced block (or is a fence).
pub fn fenced_lines(text: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let mut open: Option<(char, usize)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let fence = ['`', '~'].into_iter().find_map(|c| {
            let n = trimmed.chars().take_while(|&x| x == c).count();
            (n >= 3).then_some((c, n))
        });
        match (open, fence) {
            (None, Some(f)) => {
                open = Some(f);
                out.push((line, true));
            }
            (Some((c, n)), Some((fc, fnum))) if fc == c && fnum >= n => {
                open = None;
                out.push((line, true));
            }
            (Some(_), _) => out.push((line, true)),
            (None, None) => out.push((line, false)),
        }
    }
    out
}

/// One checkbox line of the README task index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    pub task: u64,
    pub checked: bool,
    pub line: String,
    /// The task file the line links, if any (`(3.task_x.md)` or `(./3.task_x.md)`).
    pub link: Option<String>,
}

static CHECKBOX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*[-*+]\s+\[([ xX])\]\s+(.*)$").expect("constant pattern"));
static TASK_NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bTask\s+([0-9]+)\b").expect("constant pattern"));
static TASK_LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\]\((?:\./)?([0-9]+\.task_[A-Za-z0-9_]+\.md)\)").expect("constant pattern")
});
static LITE_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^##\s+Task\s+([0-9]+)\s*:\s*(.*?)\s*\{#task-([0-9]+)\}\s*$")
        .expect("constant pattern")
});
static ANCHOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{#task-([0-9]+)\}").expect("constant pattern"));

/// The README task index: the unfenced checkbox lines naming a task inside the first `##`
/// section titled `Task List`/`Tasks`; without one, every unfenced checkbox line outside the
/// inline `{#task-N}` records.
pub fn task_index(readme: &str) -> Vec<IndexEntry> {
    let lines = fenced_lines(readme);
    let is_list_heading = |l: &str| {
        let Some(h) = l.strip_prefix("## ") else {
            return false;
        };
        let h = h.trim();
        let h = match h.find('(') {
            Some(i) if h.ends_with(')') => h[..i].trim(),
            _ => h,
        };
        h.eq_ignore_ascii_case("task list") || h.eq_ignore_ascii_case("tasks")
    };
    let section_start = lines
        .iter()
        .position(|(l, fenced)| !fenced && is_list_heading(l));
    let mut out = Vec::new();
    let mut in_record = false;
    for (i, (line, fenced)) in lines.iter().enumerate() {
        if *fenced {
            continue;
        }
        match section_start {
            Some(start) => {
                if i <= start {
                    continue;
                }
                if line.starts_with("## ") || line.starts_with("# ") {
                    break;
                }
            }
            None => {
                if line.starts_with("## ") {
                    in_record = ANCHOR.is_match(line);
                }
                if in_record {
                    continue;
                }
            }
        }
        if let Some(c) = CHECKBOX.captures(line)
            && let Some(t) = TASK_NUMBER.captures(&c[2])
            && let Ok(task) = t[1].parse()
        {
            out.push(IndexEntry {
                task,
                checked: &c[1] != " ",
                line: line.to_string(),
                link: TASK_LINK.captures(&c[2]).map(|m| m[1].to_string()),
            });
        }
    }
    out
}

/// The `Plan Status:` line: `Some(Ok((done, total)))`, `Some(Err(text))` for another value
/// (`materializing`), `None` when there is no such line.
pub fn plan_status(readme: &str) -> Option<Result<(u64, u64), String>> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?im)^[\s>*-]*(?:\*\*)?Plan Status:?(?:\*\*)?:?\s*(.*?)\s*$")
            .expect("constant pattern")
    });
    static COUNT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\**\s*([0-9]+)\s*/\s*([0-9]+)").expect("constant pattern"));
    for (line, fenced) in fenced_lines(readme) {
        if fenced {
            continue;
        }
        if let Some(c) = RE.captures(line) {
            let value = c[1].trim();
            if value.is_empty() {
                continue;
            }
            return Some(match COUNT.captures(value) {
                Some(n) => match (n[1].parse(), n[2].parse()) {
                    (Ok(a), Ok(b)) => Ok((a, b)),
                    _ => Err(value.to_string()),
                },
                None => Err(value.to_string()),
            });
        }
    }
    None
}

/// `**Standard:** DWP spec X.Y.Z` → `X.Y.Z`.
pub fn standard(readme: &str) -> Option<String> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\*\*Standard:?\*\*:?\s*DWP spec\s+v?([0-9]+\.[0-9]+(?:\.[0-9]+)?)")
            .expect("constant pattern")
    });
    fenced_lines(readme)
        .into_iter()
        .filter(|(_, f)| !f)
        .find_map(|(l, _)| RE.captures(l).map(|c| c[1].to_string()))
}

/// A `Label: value` line (plain, bold or bullet) or a `| Label | value |` table row.
pub fn labelled_value(readme: &str, label: &str) -> Option<String> {
    let plain = Regex::new(&format!(
        r"(?i)^[\s>*-]*(?:\*\*)?{}:?(?:\*\*)?:?\s*(.+?)\s*$",
        regex::escape(label)
    ))
    .ok()?;
    let row = Regex::new(&format!(
        r"(?i)^\s*\|\s*(?:\*\*)?{}(?:\*\*)?\s*\|\s*(.+?)\s*\|",
        regex::escape(label)
    ))
    .ok()?;
    fenced_lines(readme)
        .into_iter()
        .filter(|(_, f)| !f)
        .find_map(|(l, _)| {
            plain
                .captures(l)
                .or_else(|| row.captures(l))
                .map(|c| c[1].trim_matches('*').trim().to_string())
        })
}

/// Approval from the README line: approved / pending / pre_approved.
pub fn approval_from_readme(readme: &str) -> Option<&'static str> {
    let v = labelled_value(readme, "Approval")?.to_ascii_lowercase();
    if v.starts_with("approved") {
        Some("approved")
    } else if v.starts_with("pending") {
        Some("pending")
    } else if v.starts_with("pre-approved") || v.starts_with("pre_approved") {
        Some("pre_approved")
    } else {
        None
    }
}

/// The body of the first `## NAME` section (to the next `## ` or `# ` heading), unfenced.
pub fn section<'a>(text: &'a str, name: &str) -> Option<String> {
    let mut out: Option<String> = None;
    for (line, fenced) in fenced_lines(text) {
        if !fenced && (line.starts_with("## ") || line.starts_with("# ")) {
            if out.is_some() {
                break;
            }
            let h = line.trim_start_matches('#').trim();
            if h.eq_ignore_ascii_case(name) {
                out = Some(String::new());
            }
            continue;
        }
        if let Some(o) = out.as_mut() {
            o.push_str(line);
            o.push('\n');
        }
    }
    let _: &'a str = text;
    out
}

/// One inline task record of a Lite plan.
#[derive(Debug, Clone)]
pub struct LiteRecord {
    pub task: u64,
    pub title: String,
    /// The anchor number written in `{#task-N}`.
    pub anchor: u64,
    pub body: String,
}

/// The inline records: `## Task N: Title {#task-N}` up to the next `## ` heading.
pub fn lite_records(readme: &str) -> Vec<LiteRecord> {
    let mut out: Vec<LiteRecord> = Vec::new();
    let mut current: Option<LiteRecord> = None;
    for (line, fenced) in fenced_lines(readme) {
        if !fenced && line.starts_with("## ") {
            if let Some(r) = current.take() {
                out.push(r);
            }
            if let Some(c) = LITE_HEADING.captures(line) {
                current = Some(LiteRecord {
                    task: c[1].parse().unwrap_or(0),
                    title: c[2].to_string(),
                    anchor: c[3].parse().unwrap_or(0),
                    body: String::new(),
                });
            }
            continue;
        }
        if let Some(r) = current.as_mut() {
            r.body.push_str(line);
            r.body.push('\n');
        }
    }
    out.extend(current);
    out
}

/// How many times `{#task-N}` appears (unfenced) in the README.
pub fn anchor_count(readme: &str, task: u64) -> usize {
    fenced_lines(readme)
        .into_iter()
        .filter(|(_, f)| !f)
        .flat_map(|(l, _)| ANCHOR.captures_iter(l).collect::<Vec<_>>())
        .filter(|c| c[1].parse::<u64>().ok() == Some(task))
        .count()
}

/// The labels that end a bold-label field.
const KNOWN_LABELS: [&str; 10] = [
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

fn heading_field(line: &str) -> Option<String> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^#{2,6}\s+(?:[0-9]+\.\s*)?(.+?)\s*(?:\(.*\))?\s*$").expect("constant pattern")
    });
    RE.captures(line).map(|c| c[1].trim().to_string())
}

/// Where the content after a bold label `**Name:**` / `**Name**:` / `**Name** ·` starts, when
/// the line opens with that label.
fn label_at(line: &str, name: &str) -> Option<usize> {
    static LABEL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^\s*(?:[-*]\s+)?\*\*([^*]+?)\s*:?\*\*[ \t]*[:·-]?").expect("constant pattern")
    });
    let c = LABEL.captures(line)?;
    c[1].trim()
        .trim_end_matches(':')
        .trim()
        .eq_ignore_ascii_case(name)
        .then(|| c.get(0).map_or(0, |m| m.end()))
}

/// A field's content by heading (`## 3. Goal`, `### Goal (…)`) or bold label (`**Goal:** …`),
/// running to the next heading or known label; `None` when the field is absent.
pub fn field(body: &str, name: &str) -> Option<String> {
    let lines = fenced_lines(body);
    let mut out: Option<String> = None;
    for (line, fenced) in &lines {
        if !fenced {
            if line.starts_with('#') && heading_field(line).is_some() {
                if out.is_some() {
                    break;
                }
                if heading_field(line).is_some_and(|h| h.eq_ignore_ascii_case(name)) {
                    out = Some(String::new());
                }
                continue;
            }
            if out.is_some() && KNOWN_LABELS.iter().any(|l| label_at(line, l).is_some()) {
                break;
            }
            if out.is_none()
                && let Some(end) = label_at(line, name)
            {
                out = Some(format!("{}\n", &line[end..]));
                continue;
            }
        }
        if let Some(o) = out.as_mut() {
            o.push_str(line);
            o.push('\n');
        }
    }
    out
}

/// True when the field exists and holds more than whitespace.
pub fn field_non_empty(body: &str, name: &str) -> bool {
    field(body, name).is_some_and(|f| !f.trim().is_empty())
}

/// The Completion & Log part of a task body: from its heading or bold label to the end.
pub fn completion_log(body: &str) -> Option<String> {
    static HEADING: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^#{2,6}\s+(?:[0-9]+\.\s*)?Completion\s*(?:&|and)?\s*Log\b")
            .expect("constant pattern")
    });
    static LABEL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^\s*(?:[-*]\s+)?\*\*Completion\s*(?:&|and)?\s*Log")
            .expect("constant pattern")
    });
    let mut out: Option<String> = None;
    for (line, fenced) in fenced_lines(body) {
        if out.is_none() && !fenced && (HEADING.is_match(line) || LABEL.is_match(line)) {
            out = Some(String::new());
            continue;
        }
        if let Some(o) = out.as_mut() {
            o.push_str(line);
            o.push('\n');
        }
    }
    out
}

/// The `Status:` value in a Completion & Log (`Status: x`, `**Status:** x`, `- **Status:** x`).
pub fn log_status(log: &str) -> Option<String> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^\s*(?:[-*]\s+)?(?:\*\*)?Status(?:\*\*)?\s*:\s*(?:\*\*)?\s*([A-Za-z_-]+)")
            .expect("constant pattern")
    });
    fenced_lines(log)
        .into_iter()
        .filter(|(_, f)| !f)
        .find_map(|(l, _)| RE.captures(l).map(|c| c[1].to_ascii_lowercase()))
}

/// The parts a Final Review names (lower-cased body): security, final-state, skills — missing ones.
pub fn final_review_missing_parts(body: &str) -> Vec<&'static str> {
    let lower = body.to_lowercase();
    ["security", "final-state", "skills"]
        .into_iter()
        .filter(|p| !lower.contains(p))
        .collect()
}

/// SECURITY_REVIEW.md by the two rules of SPEC §1.10 item 16 (with the `| Critical | 0 |`
/// correction): `Err(open)` when an unresolved critical finding is reported, `Err(unclear)` when
/// `critical` appears without a clearing phrase, `Ok` otherwise.
pub fn security_review(text: &str) -> Result<(), SecurityVerdict> {
    static OPEN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)open critical finding|critical finding remains|unresolved critical finding:",
        )
        .expect("constant pattern")
    });
    static UNRESOLVED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)unresolved critical").expect("constant pattern"));
    static CLEARED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)no unresolved critical|without (?:an )?unresolved critical|0 unresolved critical|zero unresolved critical")
            .expect("constant pattern")
    });
    static WORD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?im)(?:^|[|\s])critical(?:[|\s]|$)|🚨 critical").expect("constant pattern")
    });
    static OTHER_CLEAR: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)0 critical|zero critical|explicitly accepted|accepted by the (?:user|developer)|criticals?:\s*0|no findings|no criticals?|criticals?:?\**\s*none|fixed in|resolved in")
            .expect("constant pattern")
    });
    static ZERO_ROW: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?im)^\s*\|\s*\**critical\**\s*\|\s*\**(?:0|none)\**\s*\|")
            .expect("constant pattern")
    });
    let cleared = CLEARED.is_match(text);
    if OPEN.is_match(text) || (UNRESOLVED.is_match(text) && !cleared) {
        return Err(SecurityVerdict::Open);
    }
    if WORD.is_match(text) && !cleared && !OTHER_CLEAR.is_match(text) && !ZERO_ROW.is_match(text) {
        return Err(SecurityVerdict::Unclear);
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecurityVerdict {
    Open,
    Unclear,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_from_the_task_list_section_ignores_fences_and_records() {
        let readme = "# P\n\n## Task 1: A {#task-1}\n\n- [x] Task 2 is mentioned here\n\n## Task List\n\n- [x] Task 1: A — [1.task_a.md](./1.task_a.md)\n```\n- [x] Task 9: fenced\n```\n- [ ] Task 2: B\n\n## After\n- [x] Task 3: not in the index\n";
        let idx = task_index(readme);
        assert_eq!(idx.len(), 2);
        assert_eq!((idx[0].task, idx[0].checked), (1, true));
        assert_eq!(idx[0].link.as_deref(), Some("1.task_a.md"));
        assert_eq!((idx[1].task, idx[1].checked), (2, false));
    }

    #[test]
    fn index_without_a_section_skips_inline_records() {
        let readme = "## Task 1: A {#task-1}\n- [x] Task 2 criterion\n## Other\n- [X] Task 1: A\n";
        let idx = task_index(readme);
        assert_eq!(idx.len(), 1);
        assert!(idx[0].checked);
    }

    #[test]
    fn plan_status_and_standard() {
        assert_eq!(
            plan_status("x\nPlan Status: 2/4 completed\n"),
            Some(Ok((2, 4)))
        );
        assert_eq!(
            plan_status("Plan Status: materializing\n"),
            Some(Err("materializing".into()))
        );
        assert_eq!(plan_status("nothing"), None);
        assert_eq!(
            standard("- **Standard:** DWP spec 5.0.0\n").as_deref(),
            Some("5.0.0")
        );
        assert_eq!(
            approval_from_readme("Approval: pre-approved (trust)\n"),
            Some("pre_approved")
        );
        assert_eq!(
            approval_from_readme("| Approval | pending |\n"),
            Some("pending")
        );
    }

    #[test]
    fn three_status_forms() {
        for form in [
            "Status: pending",
            "**Status:** pending",
            "- **Status:** pending",
        ] {
            let body = format!("# Task 1\n\n## 8. Completion & Log\n\n{form}\n");
            let log = completion_log(&body).unwrap();
            assert_eq!(log_status(&log).as_deref(), Some("pending"), "{form}");
        }
    }

    #[test]
    fn fields_by_heading_and_label() {
        let body =
            "## 3. Goal\n\nDo it.\n\n## 4. Touched Surface\n\n\n## 5. Validation (commands)\n`x`\n";
        assert!(field_non_empty(body, "Goal"));
        assert!(!field_non_empty(body, "Touched Surface"));
        assert!(field_non_empty(body, "Validation"));
        let labels = "**Goal:** ship\n**Context** · none yet\n**Validation:**\n";
        assert_eq!(field(labels, "Goal").unwrap().trim(), "ship");
        assert!(field_non_empty(labels, "Context"));
        assert!(!field_non_empty(labels, "Validation"));
    }

    #[test]
    fn security_review_rules() {
        assert_eq!(
            security_review("Result: 0 unresolved critical findings"),
            Ok(())
        );
        assert_eq!(
            security_review("1 open critical finding"),
            Err(SecurityVerdict::Open)
        );
        assert_eq!(
            security_review("| Critical | 1 |"),
            Err(SecurityVerdict::Unclear)
        );
        assert_eq!(security_review("| Critical | 0 |"), Ok(()));
        assert_eq!(security_review("critical: fixed in abc"), Ok(()));
        assert_eq!(
            security_review("unresolved critical: x"),
            Err(SecurityVerdict::Open)
        );
    }
}

//! The plan README: declarations (`Plan Status:`, `**Standard:**`, `Plan Format:`,
//! `Materialization:`, `Approval:`), Goal and Context, the task index, and Lite inline records.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::LazyLock;

use regex::Regex;

use super::fences::{Line, lines};
use super::fields::{FieldText, field_in_lines};
use super::syntax::{
    TaskFileLink, checkbox, first_task_mention, heading, label_value, remove_task_file_links,
    strip_emphasis, table_cells, task_file_links,
};
use super::task_record::{TaskBody, split_task_title};

/// A semantic version `X.Y.Z` (the declared DWP standard).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SpecVersion {
    /// The `X`.
    pub major: u64,
    /// The `Y`.
    pub minor: u64,
    /// The `Z`.
    pub patch: u64,
}

impl SpecVersion {
    /// The version `major.minor.patch`.
    pub const fn new(major: u64, minor: u64, patch: u64) -> SpecVersion {
        SpecVersion {
            major,
            minor,
            patch,
        }
    }

    /// Parses the first `X.Y.Z` (optionally `v`-prefixed) in a text.
    pub fn find_in(text: &str) -> Option<SpecVersion> {
        let c = SEMVER.captures(text)?;
        Some(SpecVersion {
            major: c.get(1)?.as_str().parse().ok()?,
            minor: c.get(2)?.as_str().parse().ok()?,
            patch: c.get(3)?.as_str().parse().ok()?,
        })
    }
}

impl fmt::Display for SpecVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

static SEMVER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bv?([0-9]+)\.([0-9]+)\.([0-9]+)\b")
        .expect("constant regex is valid because it was tested")
});
static DWP_SPEC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bDWP\s+spec\s+(v?[0-9]+\.[0-9]+\.[0-9]+)\b")
        .expect("constant regex is valid because it was tested")
});
static MIGRATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\(\s*migrated\s+from\s+(.+?)\s+on\s+([0-9]{4}-[0-9]{2}-[0-9]{2})\s*(?:[—–:-]+\s*(.*?))?\s*\)")
        .expect("constant regex is valid because it was tested")
});
static ANCHOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\{#task-([0-9]+)\}").expect("constant regex is valid because it was tested")
});

/// Every match of [`ANCHOR`] contains this literal; lines without it skip the pattern.
fn has_anchor_literal(text: &str) -> bool {
    text.contains("{#task-")
}

/// `(migrated from A on DATE — reason)` after the declared standard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migration {
    /// What follows `migrated from`, as written.
    pub from_raw: String,
    /// The first `X.Y.Z` of `from_raw`; `None` when it names no version.
    pub from: Option<SpecVersion>,
    /// `YYYY-MM-DD` as written.
    pub date: String,
    /// What follows the date and its dash, trimmed; empty when no reason is given.
    pub reason: String,
}

/// `**Standard:** DWP spec X.Y.Z [(migrated from A on DATE — reason)]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandardDecl {
    /// 1-based line of the declaration.
    pub line: usize,
    /// The declared value as written, trimmed.
    pub raw: String,
    /// The version after `DWP spec` (or the first `X.Y.Z` of the value).
    pub version: Option<SpecVersion>,
    /// The `(migrated from …)` note, when the value has one.
    pub migration: Option<Migration>,
}

/// The value of a `Plan Status:` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanStatus {
    /// `X/N completed`
    Count {
        /// The `X`: how many tasks the README says are completed.
        completed: u32,
        /// The `N`: how many tasks the plan has.
        total: u32,
    },
    /// `materializing`
    Materializing,
    /// Anything else, as written.
    Other(String),
}

/// One `Plan Status:` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanStatusLine {
    /// 1-based line number.
    pub line: usize,
    /// The value after `Plan Status:`, as written.
    pub raw: String,
    /// The value read.
    pub status: PlanStatus,
}

/// `Plan Format: Lite|Full` (the value's first word, any case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclaredFormat {
    /// `Lite`: the tasks are inline records of the README.
    Lite,
    /// `Full`: each task has its own file.
    Full,
}

/// `Materialization:` values (the value's first word, any case).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MaterializationValue {
    /// `materializing`: the plan is still being written.
    Materializing,
    /// `ready`: the plan is written out.
    Ready,
    /// `promoting`: a Lite → Full promotion is in flight.
    Promoting,
    /// Anything else, trimmed as written.
    Other(String),
}

/// The README's approval declaration (`approved` → approved, `pending` → pending,
/// `pre-approved …` → pre_approved; anything else is unknown and keeps its text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalValue {
    /// `approved`.
    Approved,
    /// `pending`.
    Pending,
    /// `pre-approved …` (also `pre_approved`, `preapproved`).
    PreApproved,
    /// Anything else, trimmed as written.
    Unknown(String),
}

impl ApprovalValue {
    /// The state.json spelling (`approved`, `pending`, `pre_approved`); `None` when unknown.
    pub fn as_state_str(&self) -> Option<&'static str> {
        match self {
            ApprovalValue::Approved => Some("approved"),
            ApprovalValue::Pending => Some("pending"),
            ApprovalValue::PreApproved => Some("pre_approved"),
            ApprovalValue::Unknown(_) => None,
        }
    }

    /// Reads the first word of an `Approval:` value, case-insensitive and without emphasis.
    pub fn parse(value: &str) -> ApprovalValue {
        let v = strip_emphasis(value).to_lowercase();
        let word: String = v
            .trim()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        match word.as_str() {
            "approved" => ApprovalValue::Approved,
            "pending" => ApprovalValue::Pending,
            "pre-approved" | "pre_approved" | "preapproved" => ApprovalValue::PreApproved,
            _ => ApprovalValue::Unknown(value.trim().to_string()),
        }
    }
}

/// Where the approval was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclSource {
    /// `Approval: x` / `**Approval:** x` / `- **Approval:** x`
    Line,
    /// `| Approval | x |` (a Plan Variables table row)
    TableRow,
}

/// A declaration line: where, how and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared<T> {
    /// 1-based line of the declaration.
    pub line: usize,
    /// A label line or a table row.
    pub source: DeclSource,
    /// The value as written (trimmed).
    pub raw: String,
    /// The value read.
    pub value: T,
}

/// Where the task index was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexSource {
    /// The first `##` section titled `Task List` / `Tasks`.
    Section {
        /// 1-based line of the section's heading.
        heading_line: usize,
    },
    /// No such section: every unfenced checkbox line outside `{#task-N}` records.
    WholeReadme,
}

/// One checkbox line that names a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    /// 1-based line number.
    pub line: usize,
    /// The `N` of the first `Task N` on the line.
    pub task: u32,
    /// The box is ticked (`[x]` or `[X]`).
    pub checked: bool,
    /// The text after `Task N` without separators and task-file links.
    pub title: String,
    /// The first link to a task file on the line.
    pub link: Option<TaskFileLink>,
    /// The checkbox text as written.
    pub text: String,
}

/// A checkbox line of the index section that names no task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnnumberedCheckbox {
    /// 1-based line number.
    pub line: usize,
    /// The box is ticked.
    pub checked: bool,
    /// The text after the box, as written (trimmed).
    pub text: String,
}

/// The README task index: the unfenced checkbox lines that name a task, read from the Task List
/// section (see [`IndexSource`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskIndex {
    /// Where the entries were read from.
    pub source: IndexSource,
    /// Index entries in README order.
    pub entries: Vec<IndexEntry>,
    /// Checkbox lines inside the index section that name no task.
    pub unnumbered: Vec<UnnumberedCheckbox>,
    /// Unfenced checkbox lines outside the index that name a task (acceptance criteria inside
    /// records, execution checklists…). Report them only when they contradict the index.
    pub elsewhere: Vec<IndexEntry>,
}

impl TaskIndex {
    /// The number of entries (a task listed twice counts twice).
    pub fn total(&self) -> usize {
        self.entries.len()
    }
    /// The number of ticked entries.
    pub fn checked_count(&self) -> usize {
        self.entries.iter().filter(|e| e.checked).count()
    }
    /// The task numbers in README order.
    pub fn task_numbers(&self) -> Vec<u32> {
        self.entries.iter().map(|e| e.task).collect()
    }
    /// The first entry for task `n` (a linear scan; use [`TaskIndex::entry_map`] for many lookups).
    pub fn entry(&self, n: u32) -> Option<&IndexEntry> {
        self.entries.iter().find(|e| e.task == n)
    }
    /// The first entry per task number.
    pub fn entry_map(&self) -> BTreeMap<u32, &IndexEntry> {
        let mut map = BTreeMap::new();
        for e in &self.entries {
            map.entry(e.task).or_insert(e);
        }
        map
    }
    /// Task numbers that appear on more than one index line.
    pub fn duplicate_tasks(&self) -> Vec<u32> {
        let mut seen = BTreeMap::new();
        for e in &self.entries {
            *seen.entry(e.task).or_insert(0usize) += 1;
        }
        seen.into_iter()
            .filter(|(_, c)| *c > 1)
            .map(|(n, _)| n)
            .collect()
    }
    /// Checkbox lines elsewhere whose checked state disagrees with the index entry of the task
    /// they name.
    pub fn contradicting_elsewhere(&self) -> Vec<&IndexEntry> {
        let map = self.entry_map();
        self.elsewhere
            .iter()
            .filter(|e| map.get(&e.task).is_some_and(|i| i.checked != e.checked))
            .collect()
    }
}

/// A Lite inline record: `## Task N: Title {#task-N}` up to the next `##` (or `#`) heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineRecord<'a> {
    /// 1-based line of the record's heading.
    pub heading_line: usize,
    /// The number after `Task` in the heading, when present.
    pub heading_number: Option<u32>,
    /// The number in `{#task-N}`.
    pub anchor_number: u32,
    /// The heading's title (without `Task N:` and the anchor).
    pub title: String,
    /// The lines after the heading, up to the record's end.
    pub body: TaskBody<'a>,
}

impl InlineRecord<'_> {
    /// Heading number and anchor number agree.
    pub fn numbers_agree(&self) -> bool {
        self.heading_number == Some(self.anchor_number)
    }
}

/// The Lite inline records of a README and every `{#task-N}` anchor occurrence.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InlineRecords<'a> {
    /// Every record, in README order.
    pub records: Vec<InlineRecord<'a>>,
    /// How often each `{#task-N}` appears on unfenced lines (must be exactly once per task).
    pub anchor_counts: BTreeMap<u32, usize>,
}

impl<'a> InlineRecords<'a> {
    /// The first record whose anchor is `{#task-n}` (a linear scan; use
    /// [`InlineRecords::record_map`] for many lookups).
    pub fn record(&self, n: u32) -> Option<&InlineRecord<'a>> {
        self.records.iter().find(|r| r.anchor_number == n)
    }
    /// The first record per anchor number.
    pub fn record_map(&self) -> BTreeMap<u32, &InlineRecord<'a>> {
        let mut map = BTreeMap::new();
        for r in &self.records {
            map.entry(r.anchor_number).or_insert(r);
        }
        map
    }
    /// How often `{#task-n}` appears on unfenced lines; 0 when it never does.
    pub fn anchor_count(&self, n: u32) -> usize {
        self.anchor_counts.get(&n).copied().unwrap_or(0)
    }
}

/// A parsed README.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readme<'a> {
    /// The whole text parsed.
    pub text: &'a str,
    /// Its lines, fenced ones marked.
    pub lines: Vec<Line<'a>>,
    /// Every unfenced `Plan Status:` line outside inline records, in order.
    pub plan_status_lines: Vec<PlanStatusLine>,
    /// The `Standard:` declaration (outside inline records): the first that names a version,
    /// else the first one.
    pub standard: Option<StandardDecl>,
    /// The first `Plan Format:` declaration outside inline records; its value is `None` when it
    /// is neither Lite nor Full.
    pub plan_format: Option<Declared<Option<DeclaredFormat>>>,
    /// The first `Materialization:` declaration outside inline records.
    pub materialization: Option<Declared<MaterializationValue>>,
    /// The first `Approval:` declaration (a line or a Plan Variables row) outside inline
    /// records.
    pub approval: Option<Declared<ApprovalValue>>,
    /// The checkbox lines that name tasks.
    pub task_index: TaskIndex,
    /// The Lite inline records and their anchors.
    pub inline: InlineRecords<'a>,
}

impl<'a> Readme<'a> {
    /// The first `Plan Status:` line.
    pub fn plan_status(&self) -> Option<&PlanStatusLine> {
        self.plan_status_lines.first()
    }

    /// True while the README still says `Plan Status: materializing`.
    pub fn is_materializing(&self) -> bool {
        self.plan_status()
            .is_some_and(|p| p.status == PlanStatus::Materializing)
    }

    /// The README's Goal section (inline records are not searched).
    pub fn goal(&self) -> Option<FieldText> {
        field_in_lines(&self.lines_outside_records(), "Goal")
    }

    /// The README's Context section (inline records are not searched).
    pub fn context(&self) -> Option<FieldText> {
        field_in_lines(&self.lines_outside_records(), "Context")
    }

    /// Every unfenced link to a task file `<N>.task_<slug>.md`, with its line number.
    pub fn task_file_links(&self) -> Vec<(usize, TaskFileLink)> {
        self.lines
            .iter()
            .filter(|l| !l.in_fence)
            .flat_map(|l| {
                task_file_links(l.text)
                    .into_iter()
                    .map(move |k| (l.number, k))
            })
            .collect()
    }

    fn lines_outside_records(&self) -> Vec<Line<'a>> {
        // Ranges are sorted and disjoint: copy the gaps between them.
        let mut out = Vec::new();
        let mut next = 0;
        for r in record_line_ranges(&self.lines) {
            out.extend_from_slice(&self.lines[next..r.start]);
            next = r.end;
        }
        out.extend_from_slice(&self.lines[next..]);
        out
    }
}

/// Index ranges (into `lines`) of inline records: heading line through the line before the next
/// heading of level ≤ 2.
fn record_line_ranges(lines: &[Line<'_>]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = &lines[i];
        let is_record = !l.in_fence
            && heading(l.text).is_some_and(|h| {
                h.level == 2 && has_anchor_literal(h.text) && ANCHOR.is_match(h.text)
            });
        if !is_record {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < lines.len() {
            let n = &lines[j];
            if !n.in_fence && heading(n.text).is_some_and(|h| h.level <= 2) {
                break;
            }
            j += 1;
        }
        out.push(i..j);
        i = j;
    }
    out
}

fn is_task_list_heading(text: &str) -> bool {
    let mut t = text.trim();
    if t.ends_with(')')
        && let Some(open) = t.find('(')
    {
        t = t[..open].trim_end();
    }
    let words: Vec<String> = t.split_whitespace().map(str::to_lowercase).collect();
    matches!(
        words
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        ["task", "list"] | ["tasks"]
    )
}

fn entry_from(line: &Line<'_>, checked: bool, text: &str) -> Option<IndexEntry> {
    let (task, range) = first_task_mention(text)?;
    let rest = &text[range.end..];
    let title = remove_task_file_links(rest).replace("()", "");
    let title = title
        .trim_start_matches(|c: char| {
            c.is_whitespace() || matches!(c, ':' | '.' | '—' | '–' | '-' | '*' | '_')
        })
        .trim_end_matches(|c: char| {
            c.is_whitespace() || matches!(c, '—' | '–' | '-' | '|' | ':' | '*' | '_')
        })
        .to_string();
    Some(IndexEntry {
        line: line.number,
        task,
        checked,
        title,
        link: task_file_links(text).into_iter().next(),
        text: text.to_string(),
    })
}

fn parse_index(lines: &[Line<'_>], records: &[std::ops::Range<usize>]) -> TaskIndex {
    let section = lines.iter().enumerate().find_map(|(i, l)| {
        if l.in_fence {
            return None;
        }
        let h = heading(l.text)?;
        (h.level == 2 && is_task_list_heading(h.text)).then_some(i)
    });
    let section_range = section.map(|start| {
        let end = lines
            .iter()
            .enumerate()
            .skip(start + 1)
            .find(|(_, l)| !l.in_fence && heading(l.text).is_some_and(|h| h.level <= 2))
            .map_or(lines.len(), |(j, _)| j);
        start..end
    });
    let mut index = TaskIndex {
        source: match section {
            Some(i) => IndexSource::Section {
                heading_line: lines[i].number,
            },
            None => IndexSource::WholeReadme,
        },
        entries: Vec::new(),
        unnumbered: Vec::new(),
        elsewhere: Vec::new(),
    };
    let mut record_iter = records.iter().peekable();
    for (i, line) in lines.iter().enumerate() {
        if line.in_fence {
            continue;
        }
        let Some(cb) = checkbox(line.text) else {
            continue;
        };
        while record_iter.peek().is_some_and(|r| r.end <= i) {
            record_iter.next();
        }
        let in_record = record_iter.peek().is_some_and(|r| r.contains(&i));
        let in_index = match &section_range {
            Some(r) => r.contains(&i),
            None => !in_record,
        };
        match entry_from(line, cb.checked, cb.text) {
            Some(entry) if in_index => index.entries.push(entry),
            Some(entry) => index.elsewhere.push(entry),
            None if in_index && section_range.is_some() => {
                index.unnumbered.push(UnnumberedCheckbox {
                    line: line.number,
                    checked: cb.checked,
                    text: cb.text.to_string(),
                })
            }
            None => {}
        }
    }
    index
}

fn parse_records<'a>(
    text: &'a str,
    lines: &[Line<'a>],
    ranges: &[std::ops::Range<usize>],
) -> InlineRecords<'a> {
    let mut out = InlineRecords::default();
    for l in lines
        .iter()
        .filter(|l| !l.in_fence && has_anchor_literal(l.text))
    {
        for c in ANCHOR.captures_iter(l.text) {
            if let Some(n) = c.get(1).and_then(|m| m.as_str().parse::<u32>().ok()) {
                *out.anchor_counts.entry(n).or_insert(0) += 1;
            }
        }
    }
    for r in ranges {
        let head = &lines[r.start];
        let Some(h) = heading(head.text) else {
            continue;
        };
        let Some(c) = ANCHOR.captures(h.text) else {
            continue;
        };
        let Some(anchor_number) = c.get(1).and_then(|m| m.as_str().parse::<u32>().ok()) else {
            continue;
        };
        let whole = c.get(0).map_or(0..0, |m| m.range());
        let without_anchor = format!("{}{}", &h.text[..whole.start], &h.text[whole.end..]);
        let (heading_number, title) = match split_task_title(without_anchor.trim()) {
            Some((n, t)) => (Some(n), t.trim().to_string()),
            None => (None, without_anchor.trim().to_string()),
        };
        let body_lines: Vec<Line<'a>> = lines[r.start + 1..r.end].to_vec();
        let body_text = match (body_lines.first(), body_lines.last()) {
            (Some(first), Some(last)) => &text[first.start..last.end()],
            _ => "",
        };
        out.records.push(InlineRecord {
            heading_line: head.number,
            heading_number,
            anchor_number,
            title,
            body: TaskBody {
                text: body_text,
                lines: body_lines,
            },
        });
    }
    out
}

fn plan_status_value(value: &str) -> PlanStatus {
    let cleaned = value.replace(['*', '`'], "");
    let v = cleaned.trim();
    let digits_a: String = v.chars().take_while(char::is_ascii_digit).collect();
    if !digits_a.is_empty() {
        let rest = v[digits_a.len()..].trim_start();
        if let Some(rest) = rest.strip_prefix('/') {
            let digits_b: String = rest
                .trim_start()
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let (Ok(completed), Ok(total)) = (digits_a.parse(), digits_b.parse()) {
                return PlanStatus::Count { completed, total };
            }
        }
    }
    if v.to_lowercase().starts_with("materializing") {
        return PlanStatus::Materializing;
    }
    PlanStatus::Other(v.to_string())
}

fn standard_decl(line: usize, value: &str) -> StandardDecl {
    let version = DWP_SPEC
        .captures(value)
        .and_then(|c| c.get(1))
        .and_then(|m| SpecVersion::find_in(m.as_str()))
        .or_else(|| SpecVersion::find_in(value));
    let migration = MIGRATED.captures(value).map(|c| {
        let from_raw = c.get(1).map_or("", |m| m.as_str()).trim().to_string();
        Migration {
            from: SpecVersion::find_in(&from_raw),
            from_raw,
            date: c.get(2).map_or("", |m| m.as_str()).to_string(),
            reason: c.get(3).map_or("", |m| m.as_str()).trim().to_string(),
        }
    });
    StandardDecl {
        line,
        raw: value.trim().to_string(),
        version,
        migration,
    }
}

/// A declaration from a label line or a two-column table row `| Label | value |`.
fn declaration<'t>(line: &'t str, label: &str) -> Option<(DeclSource, &'t str)> {
    if let Some(lv) = label_value(line, label) {
        return Some((DeclSource::Line, lv.value));
    }
    let cells = table_cells(line)?;
    if cells.len() >= 2
        && strip_emphasis(cells[0])
            .trim_end_matches(':')
            .eq_ignore_ascii_case(label)
    {
        return Some((DeclSource::TableRow, cells[1]));
    }
    None
}

/// Decodes (strict UTF-8, see [`super::decode`]) and parses a README.
pub fn parse_readme_bytes(bytes: &[u8]) -> Result<Readme<'_>, super::InvalidUtf8> {
    super::decode(bytes).map(parse_readme)
}

/// Parses a README. Never fails; missing parts are `None` / empty.
pub fn parse_readme(text: &str) -> Readme<'_> {
    let lines = lines(text);
    let ranges = record_line_ranges(&lines);
    let task_index = parse_index(&lines, &ranges);
    let inline = parse_records(text, &lines, &ranges);
    let mut readme = Readme {
        text,
        lines: Vec::new(),
        plan_status_lines: Vec::new(),
        standard: None,
        plan_format: None,
        materialization: None,
        approval: None,
        task_index,
        inline,
    };
    let mut record_iter = ranges.iter().peekable();
    for (i, l) in lines.iter().enumerate() {
        if l.in_fence {
            continue;
        }
        while record_iter.peek().is_some_and(|r| r.end <= i) {
            record_iter.next();
        }
        if record_iter.peek().is_some_and(|r| r.contains(&i)) {
            continue;
        }
        let status_source = heading(l.text).map_or(l.text, |h| h.text);
        if let Some(lv) = label_value(status_source, "Plan Status") {
            readme.plan_status_lines.push(PlanStatusLine {
                line: l.number,
                raw: lv.value.to_string(),
                status: plan_status_value(lv.value),
            });
            continue;
        }
        // The first declaration that names a version wins; a versionless `Standard:` line (prose,
        // a template) is kept only until a real one appears.
        if readme.standard.as_ref().is_none_or(|s| s.version.is_none())
            && let Some((_, v)) = declaration(l.text, "Standard")
        {
            let decl = standard_decl(l.number, v);
            if readme.standard.is_none() || decl.version.is_some() {
                readme.standard = Some(decl);
            }
            continue;
        }
        if readme.plan_format.is_none()
            && let Some((source, v)) = declaration(l.text, "Plan Format")
        {
            let word = strip_emphasis(v).to_ascii_lowercase();
            let value = if word.starts_with("lite") {
                Some(DeclaredFormat::Lite)
            } else if word.starts_with("full") {
                Some(DeclaredFormat::Full)
            } else {
                None
            };
            readme.plan_format = Some(Declared {
                line: l.number,
                source,
                raw: v.trim().to_string(),
                value,
            });
            continue;
        }
        if readme.materialization.is_none()
            && let Some((source, v)) = declaration(l.text, "Materialization")
        {
            let word = strip_emphasis(v).to_ascii_lowercase();
            let value = if word.starts_with("ready") {
                MaterializationValue::Ready
            } else if word.starts_with("materializing") {
                MaterializationValue::Materializing
            } else if word.starts_with("promoting") {
                MaterializationValue::Promoting
            } else {
                MaterializationValue::Other(v.trim().to_string())
            };
            readme.materialization = Some(Declared {
                line: l.number,
                source,
                raw: v.trim().to_string(),
                value,
            });
            continue;
        }
        if readme.approval.is_none()
            && let Some((source, v)) = declaration(l.text, "Approval")
        {
            readme.approval = Some(Declared {
                line: l.number,
                source,
                raw: v.trim().to_string(),
                value: ApprovalValue::parse(v),
            });
        }
    }
    readme.lines = lines;
    readme
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchor_literal_is_necessary_for_the_pattern() {
        for t in [
            "{#task-1}",
            "x {#task-12} y",
            "{#task-}",
            "{#Task-1}",
            "{# task-1}",
            "{#task-1",
            "#task-1}",
        ] {
            if ANCHOR.is_match(t) {
                assert!(has_anchor_literal(t), "{t}");
            }
        }
    }

    #[test]
    fn plan_status_values() {
        assert_eq!(
            plan_status_value("3/4 completed"),
            PlanStatus::Count {
                completed: 3,
                total: 4
            }
        );
        assert_eq!(
            plan_status_value("**2 / 5** completed"),
            PlanStatus::Count {
                completed: 2,
                total: 5
            }
        );
        assert_eq!(
            plan_status_value("materializing"),
            PlanStatus::Materializing
        );
        assert_eq!(plan_status_value("done"), PlanStatus::Other("done".into()));
        let r = parse_readme("## Plan Status: 2/3 completed\n");
        assert_eq!(r.plan_status().map(|p| p.line), Some(1));
    }

    #[test]
    fn standard_with_migration() {
        let s = standard_decl(
            1,
            "DWP spec 5.0.0 (migrated from 4.0.1 on 2026-10-01 — new gates)",
        );
        assert_eq!(s.version, Some(SpecVersion::new(5, 0, 0)));
        let m = s.migration.expect("migration");
        assert_eq!(m.from, Some(SpecVersion::new(4, 0, 1)));
        assert_eq!(m.date, "2026-10-01");
        assert_eq!(m.reason, "new gates");
    }

    #[test]
    fn approvals() {
        assert_eq!(ApprovalValue::parse("approved"), ApprovalValue::Approved);
        assert_eq!(
            ApprovalValue::parse("Pre-approved (trusted repo)"),
            ApprovalValue::PreApproved
        );
        assert_eq!(ApprovalValue::parse("`pending`"), ApprovalValue::Pending);
        assert_eq!(
            ApprovalValue::parse("maybe"),
            ApprovalValue::Unknown("maybe".into())
        );
        let r = parse_readme(
            "## Plan Variables\n\n| Variable | Value |\n|---|---|\n| **Approval** | pre-approved (ci) |\n",
        );
        let a = r.approval.expect("approval");
        assert_eq!(a.source, DeclSource::TableRow);
        assert_eq!(a.value, ApprovalValue::PreApproved);
    }

    #[test]
    fn task_list_heading_forms() {
        assert!(is_task_list_heading("Task List"));
        assert!(is_task_list_heading("tasks (4)"));
        assert!(!is_task_list_heading("Task List extras"));
    }
}

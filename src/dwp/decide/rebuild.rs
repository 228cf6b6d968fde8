//! `rebuild`: regenerate state.json from every record the plan has (`docs/history.md`).
//!
//! Precedence, each value with its [`Source`]: the markdown wins every disagreement (tasks,
//! titles and statuses come from the README index and the task logs); then the on-disk
//! state.json when it parses; else the newest committed state.json that parses (or the one of
//! `--from REV`), rolled forward by [`replay`]ing the journal lines whose `before_sha256` chain
//! starts at its hash — with no copy anywhere, the whole journal replayed onto a new state; then
//! the task logs' `Gate record:` lines; then the git log (the most recent commit reachable from
//! HEAD naming the task). A `completed_at` or `commit` on a task the README says is not
//! completed is dropped. Conflicts are reported, never overwritten, so a second rebuild changes
//! nothing.
//!
//! [`gather_with`] reads the plan folder, the journal and git (I/O); [`rebuild`] is a pure
//! function of what was read; [`write()`] commits the result through the store (lock,
//! compare-and-swap, a copy of an unparseable state.json, atomic write) and appends a dated
//! reconciliation entry to PROGRESS.md. A completed result is published by the caller through
//! the finalization transaction. [`committed_manifest`] and [`write_manifest`] restore a lost
//! manifest.json from git.
//!
//! ## Limitations
//! - A value that cannot be recovered (a completed task without a commit naming it, a gate the
//!   log does not record, the content of a journal line of the first format) stays missing and
//!   is reported as `unrecoverable`; nothing is invented.

pub use crate::dwp::model::markdown::MarkdownTask;

use crate::dwp::history::{TaskCommits, task_commits};
use crate::dwp::layout;
use crate::dwp::model::markdown::{
    ApprovalValue, DeclaredFormat, GateRecordLine, LogStatus, PlanStatus, decode, parse_readme,
    parse_task_file,
};
use crate::dwp::model::{Era, parse_json};
use crate::recovery::git::{CommitTime, GitError, Repo};
use crate::report::read_refusal;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Where a rebuilt value came from. In JSON: `{"kind": "readme"}`, `{"kind": "commit",
/// "detail": "<short id>"}`, … (kebab-case kinds).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "detail")]
pub enum Source {
    /// README.md: its task index (tick, title, task file link), `Plan Format:` or `Approval:`
    /// line.
    Readme,
    /// A task's own markdown: its Completion & Log status or its `Gate record:` lines.
    TaskLog,
    /// The commit naming the task (its short id).
    Commit(String),
    /// The earliest line of the task in the transition journal
    /// (`analysis_results/STATE_JOURNAL.ndjson`).
    Journal,
    /// The state.json being rebuilt, whose non-empty value was kept.
    OldState,
    /// manifest.json (the schema era, the `plan_format`).
    Manifest,
    /// Counted or derived from the other fields (counts, status).
    Derived,
    /// No source has the value: it stays missing and the change is a report, not a write.
    Unrecoverable,
    /// The newest committed state.json that parses (or the one of `--from REV`): the commit's
    /// short id.
    CommittedState(String),
    /// A journal line replayed onto the copy: the line's `time`.
    JournalLine(String),
    /// The same record found in several sources (a gate record in the journal and the task log).
    Both(Vec<Source>),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Readme => f.write_str("README"),
            Source::TaskLog => f.write_str("task log"),
            Source::Commit(short) => write!(f, "commit {short}"),
            Source::Journal => f.write_str("journal"),
            Source::OldState => f.write_str("old state"),
            Source::Manifest => f.write_str("manifest"),
            Source::Derived => f.write_str("derived"),
            Source::Unrecoverable => f.write_str("unrecoverable"),
            Source::CommittedState(short) => write!(f, "state.json of commit {short}"),
            Source::JournalLine(time) => write!(f, "journal line {time}"),
            Source::Both(all) => {
                let names: Vec<String> = all.iter().map(ToString::to_string).collect();
                f.write_str(&names.join(" + "))
            }
        }
    }
}

/// One field the rebuild changed, could not recover, or kept against a conflicting source.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Change {
    /// The task whose field it is; `None` for a field of the plan itself.
    pub task: Option<u64>,
    /// The state.json key (`status`, `completed_at`, `gates`, …).
    pub field: String,
    /// The value before the rebuild; `None` when the key was absent or `null`.
    pub old: Option<Value>,
    /// The value after the rebuild; `None` when the key is removed or stays absent. In a report
    /// (a value kept, or one that could not be recovered) it equals `old`.
    pub new: Option<Value>,
    /// Where the new value came from, or [`Source::Unrecoverable`].
    pub source: Source,
    /// Why, when the line needs more than the source (conflicts, unrecoverable values).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

fn show(v: &Option<Value>) -> String {
    match v {
        None => "(absent)".into(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) if a.iter().all(Value::is_object) => {
            format!("{} record(s)", a.len())
        }
        Some(other) => other.to_string(),
    }
}

impl Change {
    /// `task N <field>: <old> → <new> (source: …)`.
    pub fn line(&self) -> String {
        let task = self.task.map(|n| format!("task {n} ")).unwrap_or_default();
        let note = self
            .note
            .as_deref()
            .map(|n| format!(" — {n}"))
            .unwrap_or_default();
        format!(
            "{task}{}: {} → {} (source: {}){note}",
            self.field,
            show(&self.old),
            show(&self.new),
            self.source
        )
    }
}

/// The commit that completed a task, as git gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitTask {
    /// The commit's full hexadecimal id.
    pub id: String,
    /// Its abbreviated id (the shortest unique prefix git would show).
    pub short: String,
    /// Its committer time.
    pub time: CommitTime,
    /// Committer time of the commit's first parent, when it is readable.
    pub parent_time: Option<CommitTime>,
}

/// Everything the rebuild reads, gathered once.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// The plan folder's name (`PLAN_x`), which the rebuilt state's `plan` must equal.
    pub plan: String,
    /// One task per distinct number of the README index, in index order, with what its inline
    /// record or task file says (title, log status, gate record lines).
    pub tasks: Vec<MarkdownTask>,
    /// The README's `Plan Format:` value; `None` without the line or for an unknown value.
    pub readme_format: Option<DeclaredFormat>,
    /// The README's `Approval:` value; `None` without the line.
    pub readme_approval: Option<ApprovalValue>,
    /// manifest.json as parsed; `None` when it is absent or not valid JSON.
    pub manifest: Option<Value>,
    /// The old state.json as parsed (`None` when absent, unparseable or not an object: the
    /// state is then rebuilt from scratch).
    pub old_state: Option<Value>,
    /// The old state.json's raw bytes: the write refuses if the file no longer holds them, and
    /// keeps their JSON style when they parse. `None` when it is absent.
    pub old_bytes: Option<Vec<u8>>,
    /// Earliest journal time per task.
    pub journal_first: BTreeMap<u64, String>,
    /// The most recent commit naming each task; `None` without git.
    pub git: Option<BTreeMap<u64, GitTask>>,
    /// The git walk hit a shallow boundary.
    pub truncated: bool,
    /// Commits the state records for a task that are no commit of the repository (never
    /// filled in a shallow clone, where a missing commit may lie beyond the boundary): git's
    /// commit naming the task replaces them.
    pub missing_commits: BTreeSet<String>,
    /// The README's `Plan Status: X/N` count, when it has one.
    pub plan_status: Option<(u64, u64)>,
    /// When the on-disk state.json is missing or does not parse: the copy the rebuild starts
    /// from instead (a committed state.json rolled forward by the journal, or the journal
    /// replayed onto a new state), each value with its source.
    pub base: Option<Base>,
}

/// The state a rebuild starts from when the on-disk state.json is missing or unparseable.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Base {
    /// The state, after the replay.
    pub state: Value,
    /// Where the copy came from: [`Source::CommittedState`], or [`Source::Journal`] when there
    /// was no copy and the whole journal was replayed onto a new state.
    pub origin: Option<Source>,
    /// The source of each value the replay set: `(task, field)` (`None` for a plan field).
    pub provenance: BTreeMap<(Option<u64>, String), Source>,
    /// Journal lines replayed.
    pub replayed: usize,
    /// Of those, lines in the old format (hashes and statuses only).
    pub old_format: usize,
    /// The committed copy's bytes, when the state started from one: restored as they are when
    /// nothing replayed or rebuilt changes a value.
    pub copy_bytes: Option<Vec<u8>>,
}

impl Base {
    /// The copy stands as committed: no journal line replayed onto it.
    fn untouched_copy(&self) -> bool {
        self.copy_bytes.is_some() && self.replayed == 0
    }
}

impl Base {
    fn source_of(&self, task: Option<u64>, field: &str) -> Option<Source> {
        self.provenance
            .get(&(task, field.to_string()))
            .cloned()
            // A value the replay did not set is the copy's; a new state (the journal replayed
            // onto nothing) has no copy to have it.
            .or_else(|| {
                self.origin
                    .clone()
                    .filter(|o| matches!(o, Source::CommittedState(_)))
            })
    }
}

/// What a rebuild reads besides the plan folder.
#[derive(Debug, Clone, Default)]
pub struct GatherOptions {
    /// Take the committed state.json (and manifest.json) of this revision instead of the newest
    /// that holds one.
    pub from: Option<String>,
}

/// What went wrong reading the plan.
#[derive(Debug, thiserror::Error)]
pub enum RebuildError {
    /// A plan file could not be read or decoded. README.md must exist; a task file,
    /// manifest.json or state.json fails only when it exists and cannot be read.
    #[error("{path}: {reason}")]
    Unreadable {
        /// The file that could not be read or decoded.
        path: PathBuf,
        /// The I/O or decoding error, as text.
        reason: String,
    },
    /// The operating system failed reading a plan file that exists (EIO, EACCES): kept as the
    /// OS error, so a writer reports it as an I/O error (exit 3), not as bad input.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file that could not be read.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// Reading the commits that name the plan's tasks failed.
    #[error("{0}")]
    Git(#[from] GitError),
    /// A plan file is refused under the reading discipline (`docs/reading.md`): a FIFO, a
    /// folder or a device in its place, a symlink out of the plan, a file over its cap.
    #[error(transparent)]
    Refused(#[from] crate::report::Refusal),
}

fn unreadable(path: &Path, reason: impl std::fmt::Display) -> RebuildError {
    RebuildError::Unreadable {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    }
}

fn read_optional(plan_dir: &Path, rel: &str) -> Result<Option<Vec<u8>>, RebuildError> {
    crate::dwp::read::read_plan_file(plan_dir, rel).map_err(|e| match read_refusal(&e) {
        Some(refusal) => RebuildError::Refused(refusal),
        None => match e {
            planseal_recovery::read::ReadError::Io { path, source } => {
                RebuildError::Io { path, source }
            }
            other => unreadable(other.path(), other.reason()),
        },
    })
}

/// Reads the plan folder (README, task logs, manifest, old state, journal) and git.
pub fn gather(plan_dir: &Path, repo: Option<&Repo>) -> Result<Inputs, RebuildError> {
    gather_with(plan_dir, repo, &GatherOptions::default())
}

/// [`gather`], with a revision to take the committed state.json from.
pub fn gather_with(
    plan_dir: &Path,
    repo: Option<&Repo>,
    options: &GatherOptions,
) -> Result<Inputs, RebuildError> {
    let plan = crate::dwp::layout::plan_name(plan_dir);
    let readme_path = plan_dir.join(layout::README_FILE);
    let readme_bytes = read_optional(plan_dir, layout::README_FILE)?.ok_or_else(|| {
        unreadable(
            &readme_path,
            "No such file or directory (os error 2); the README is the source of truth a rebuild needs",
        )
    })?;
    let readme_text = decode(&readme_bytes).map_err(|e| unreadable(&readme_path, e))?;
    let readme = parse_readme(readme_text);
    let mut tasks = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    // One map of the inline records and one listing of the folder, not a scan per task.
    let records = readme.inline.record_map();
    let task_files = std::cell::OnceCell::new();
    for entry in &readme.task_index.entries {
        let id = u64::from(entry.task);
        if !seen.insert(id) {
            continue;
        }
        let mut task = MarkdownTask {
            id,
            checked: entry.checked,
            title: entry.title.trim().to_string(),
            ..Default::default()
        };
        if let Some(record) = records.get(&entry.task) {
            if task.title.is_empty() {
                task.title = record.title.trim().to_string();
            }
            task.log_status = record
                .body
                .completion_log()
                .and_then(|l| l.log_status().cloned());
            task.gate_lines = record.body.gate_records();
        } else {
            let file = entry
                .link
                .as_ref()
                .map(|l| l.file_name.clone())
                .or_else(|| {
                    task_files
                        .get_or_init(|| task_files_by_id(plan_dir))
                        .get(&id)
                        .cloned()
                });
            if let Some(name) = &file {
                let path = plan_dir.join(name);
                if let Some(bytes) = read_optional(plan_dir, name)? {
                    let text = decode(&bytes).map_err(|e| unreadable(&path, e))?;
                    let parsed = parse_task_file(text);
                    if task.title.is_empty()
                        && let Some(t) = &parsed.title
                    {
                        task.title = t.title.trim().to_string();
                    }
                    task.log_status = parsed
                        .body
                        .completion_log()
                        .and_then(|l| l.log_status().cloned());
                    task.gate_lines = parsed.body.gate_records();
                }
            }
            task.file = file;
        }
        tasks.push(task);
    }
    let manifest = match read_optional(plan_dir, layout::MANIFEST_FILE)? {
        Some(bytes) => parse_json(&bytes).ok(),
        None => None,
    };
    let old_bytes = read_optional(plan_dir, layout::STATE_FILE)?;
    let old_state = match &old_bytes {
        // An unparseable state is treated as lost: the markdown and git rebuild it.
        Some(bytes) => parse_json(bytes).ok().filter(Value::is_object),
        None => None,
    };
    let journal_lines = read_journal_lines(plan_dir);
    let journal_first = journal_first_times(&journal_lines);
    let base = if old_state.is_none() {
        let copy = match repo {
            Some(repo) => committed_state(repo, plan_dir, options.from.as_deref())?,
            None => None,
        };
        let v1 = manifest
            .as_ref()
            .and_then(|m| crate::dwp::model::manifest_era(m).ok())
            == Some(Era::V1);
        match copy {
            Some((state, short, bytes)) => {
                let hash = crate::recovery::hash::sha256_hex(&bytes);
                let mut base = replay(
                    state,
                    Source::CommittedState(short),
                    Some(&hash),
                    &journal_lines,
                );
                base.copy_bytes = Some(bytes);
                Some(base)
            }
            None if journal_lines.iter().any(is_state_line) => {
                Some(replay(new_state(v1), Source::Journal, None, &journal_lines))
            }
            None => None,
        }
    } else {
        None
    };
    let (git, truncated) = match repo {
        Some(repo) => {
            let commits = task_commits(repo, &plan)?;
            (Some(git_tasks(repo, &commits)?), commits.truncated)
        }
        None => (None, false),
    };
    let mut missing_commits = BTreeSet::new();
    if let Some(repo) = repo.filter(|r| !r.is_shallow()) {
        let recorded = old_state
            .as_ref()
            .or(base.as_ref().map(|b| &b.state))
            .and_then(|s| s["tasks"].as_array())
            .into_iter()
            .flatten()
            .filter_map(|t| t["commit"].as_str())
            .filter(|c| !c.is_empty());
        for commit in recorded {
            // An ambiguous prefix names something that exists.
            if let Ok(false) = repo.commit_exists(commit) {
                missing_commits.insert(commit.to_string());
            }
        }
    }
    Ok(Inputs {
        plan,
        tasks,
        readme_format: readme.plan_format.as_ref().and_then(|d| d.value),
        readme_approval: readme.approval.as_ref().map(|d| d.value.clone()),
        manifest,
        old_state,
        old_bytes,
        journal_first,
        base,
        git,
        truncated,
        missing_commits,
        plan_status: match readme.plan_status().map(|p| &p.status) {
            Some(PlanStatus::Count { completed, total }) => {
                Some((*completed as u64, *total as u64))
            }
            _ => None,
        },
    })
}

/// For each task id, the first (in byte order) `<id>.task_*.md` file of the plan folder.
fn task_files_by_id(plan_dir: &Path) -> BTreeMap<u64, String> {
    let mut out: BTreeMap<u64, String> = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(plan_dir) else {
        return out;
    };
    for e in entries.filter_map(|e| e.ok()) {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some((number, rest)) = name.split_once('.') else {
            continue;
        };
        // `<id>.task_` as the id prints: no sign, no leading zero.
        let Ok(id) = number.parse::<u64>() else {
            continue;
        };
        if id.to_string() != number || !rest.starts_with("task_") || !name.ends_with(".md") {
            continue;
        }
        match out.get(&id) {
            Some(first) if *first <= name => {}
            _ => {
                out.insert(id, name);
            }
        }
    }
    out
}

fn git_tasks(repo: &Repo, commits: &TaskCommits) -> Result<BTreeMap<u64, GitTask>, GitError> {
    let mut out = BTreeMap::new();
    for (n, list) in &commits.by_task {
        let Some(c) = list.first() else { continue };
        let parent_time = match c.parents.first() {
            Some(p) => repo.find_commit(p)?.map(|p| p.committer_time),
            None => None,
        };
        out.insert(
            *n,
            GitTask {
                id: c.id.clone(),
                short: c.short.clone(),
                time: c.committer_time,
                parent_time,
            },
        );
    }
    Ok(out)
}

/// Every line of the journal that parses as a JSON object, in order; a torn line is skipped.
fn read_journal_lines(plan_dir: &Path) -> Vec<Value> {
    let read = planseal_recovery::read::read_inside(
        plan_dir,
        layout::JOURNAL_FILE,
        planseal_recovery::read::Kind::Journal,
    );
    let Some(text) = read.ok().flatten().and_then(|b| String::from_utf8(b).ok()) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(Value::is_object)
        .collect()
}

/// The earliest `time` of each task's journal lines.
fn journal_first_times(lines: &[Value]) -> BTreeMap<u64, String> {
    let mut out: BTreeMap<u64, (jiff::Timestamp, String)> = BTreeMap::new();
    for v in lines {
        let (Some(task), Some(time)) = (v["task"].as_u64(), v["time"].as_str()) else {
            continue;
        };
        let Ok(ts) = time.parse::<jiff::Timestamp>() else {
            continue;
        };
        match out.get(&task) {
            Some((known, _)) if *known <= ts => {}
            _ => {
                out.insert(task, (ts, time.to_string()));
            }
        }
    }
    out.into_iter().map(|(k, (_, s))| (k, s)).collect()
}

/// The newest committed state.json of the plan that parses as an object (or the one at
/// `from`): the state, the commit's short id and the committed bytes.
fn committed_state(
    repo: &Repo,
    plan_dir: &Path,
    from: Option<&str>,
) -> Result<Option<(Value, String, Vec<u8>)>, RebuildError> {
    use crate::recovery::git::HistoryOptions;
    let Ok(rel) = repo.relative_to_work_tree(&plan_dir.join(layout::STATE_FILE)) else {
        return Ok(None);
    };
    let parsed = |bytes: &[u8]| parse_json(bytes).ok().filter(Value::is_object);
    if let Some(rev) = from {
        let Some(id) = repo.resolve(rev)? else {
            return Ok(None);
        };
        let short = repo
            .find_commit(&id)?
            .map(|c| c.short)
            .unwrap_or_else(|| id.chars().take(7).collect());
        return Ok(repo
            .file_at(&id, &rel)?
            .and_then(|b| parsed(&b).map(|v| (v, short, b))));
    }
    // Versions newest first, by tree ids alone; a blob is read only until one parses.
    let history = repo.file_versions(&rel, &HistoryOptions::default())?;
    for v in history.versions {
        if v.blob_id.is_none() {
            continue;
        }
        if let Some(bytes) = repo.file_at(&v.commit.id, &rel)?
            && let Some(state) = parsed(&bytes)
        {
            return Ok(Some((state, v.commit.short, bytes)));
        }
    }
    Ok(None)
}

/// A journal line about state.json: a transition, or a line carrying the applied content.
fn is_state_line(line: &Value) -> bool {
    line.get("applied").is_some_and(Value::is_object)
        || (line["task"].as_u64().is_some() && line["to"].is_string())
}

/// The state of a new plan, its keys in the helper's order.
fn new_state(v1: bool) -> Value {
    let mut m = Map::new();
    for key in [
        "schema",
        "plan",
        "updated_at",
        "status",
        "completed_count",
        "task_count",
    ] {
        m.insert(key.into(), Value::Null);
    }
    if !v1 {
        for key in [
            "format",
            "materialization",
            "approval",
            "promotion",
            "checkpoint",
            "blocked",
        ] {
            m.insert(key.into(), Value::Null);
        }
    } else {
        m.insert("checkpoint".into(), Value::Null);
    }
    m.insert("tasks".into(), Value::Array(Vec::new()));
    Value::Object(m)
}

fn task_mut(state: &mut Map<String, Value>, n: u64) -> &mut Map<String, Value> {
    if !state.get("tasks").is_some_and(Value::is_array) {
        state.insert("tasks".into(), Value::Array(Vec::new()));
    }
    let tasks = state
        .get_mut("tasks")
        .and_then(Value::as_array_mut)
        .expect("made an array above");
    let at = match tasks
        .iter()
        .position(|t| t.get("id").and_then(Value::as_u64) == Some(n))
    {
        Some(i) => i,
        None => {
            tasks.push(json!({"id": n}));
            tasks.len() - 1
        }
    };
    if !tasks[at].is_object() {
        tasks[at] = json!({"id": n});
    }
    tasks[at].as_object_mut().expect("an object")
}

/// Replays journal lines onto `start`: with `start_hash`, only the chain of lines whose
/// `before_sha256` starts at that hash (each next line starting at the previous one's
/// `after_sha256`); without it, every state line in order. A line with the `applied` field set
/// (`docs/journal.md`) replays what the transition applied; an older line gives its task's
/// status only. Pure.
pub fn replay(start: Value, origin: Source, start_hash: Option<&str>, lines: &[Value]) -> Base {
    let mut base = Base {
        state: start,
        origin: Some(origin),
        ..Default::default()
    };
    let mut hash = start_hash.map(str::to_string);
    for line in lines {
        if let Some(h) = &hash {
            if crate::write::before_sha256(line) != Some(h.as_str()) {
                continue;
            }
            match crate::write::after_sha256(line) {
                Some(after) => hash = Some(after.to_string()),
                None => continue,
            }
        } else if !is_state_line(line) {
            continue;
        }
        let time = line["time"].as_str().unwrap_or("?").to_string();
        let source = Source::JournalLine(time);
        let Some(state) = base.state.as_object_mut() else {
            break;
        };
        let applied = line
            .get("applied")
            .filter(|a| a["version"].as_u64().is_some_and(|v| v >= 2));
        let Some(applied) = applied else {
            match (line["task"].as_u64(), line["to"].as_str()) {
                (Some(n), Some(to)) => {
                    base.replayed += 1;
                    base.old_format += 1;
                    let to = Value::from(to);
                    if task_mut(state, n).insert("status".into(), to.clone()) != Some(to) {
                        base.provenance
                            .insert((Some(n), "status".into()), source.clone());
                    }
                }
                // A line that changed the file without saying how (a publication of a
                // candidate file, an older rebuild): its content is not recoverable.
                _ if crate::write::before_sha256(line) != crate::write::after_sha256(line)
                    && crate::write::after_sha256(line).is_some() =>
                {
                    base.replayed += 1;
                    base.old_format += 1;
                }
                _ => {}
            }
            continue;
        };
        base.replayed += 1;
        if let Some(replaced) = applied.get("replaced").filter(|r| r.is_object()) {
            base.state = replaced.clone();
            base.provenance.clear();
            base.origin = Some(source);
            continue;
        }
        if let Some(n) = applied["task"].as_u64() {
            let task = task_mut(state, n);
            if !task.contains_key("gates") && applied["gates_added"].is_array() {
                task.insert("gates".into(), Value::Array(Vec::new()));
            }
            for (k, v) in applied["set"].as_object().into_iter().flatten() {
                // A value the line restates keeps the source that had it first.
                if task.insert(k.clone(), v.clone()).as_ref() != Some(v) {
                    base.provenance.insert((Some(n), k.clone()), source.clone());
                }
            }
            for k in applied["removed"].as_array().into_iter().flatten() {
                if let Some(k) = k.as_str() {
                    task.shift_remove(k);
                    base.provenance.remove(&(Some(n), k.to_string()));
                }
            }
            let added = applied["gates_added"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            if !added.is_empty()
                && let Some(gates) = task.get_mut("gates").and_then(Value::as_array_mut)
            {
                gates.extend(added);
                base.provenance
                    .insert((Some(n), "gates".into()), source.clone());
            }
        }
        for (k, v) in applied["plan_set"].as_object().into_iter().flatten() {
            if state.insert(k.clone(), v.clone()).as_ref() != Some(v) {
                base.provenance.insert((None, k.clone()), source.clone());
            }
        }
        for k in applied["plan_removed"].as_array().into_iter().flatten() {
            if let Some(k) = k.as_str() {
                state.shift_remove(k);
            }
        }
    }
    base
}

/// The result of a rebuild.
#[derive(Debug, Clone, PartialEq)]
pub struct Rebuilt {
    /// The rebuilt state.json, a JSON object.
    pub state: Value,
    /// Fields that changed, in order.
    pub changes: Vec<Change>,
    /// Values kept against a conflicting source, and values that could not be recovered.
    pub reports: Vec<Change>,
}

impl Rebuilt {
    /// At least one field changed: the state differs from the old one and a write would replace
    /// it.
    pub fn changed(&self) -> bool {
        !self.changes.is_empty()
    }
}

/// The era the rebuilt state takes: the old state's, else the manifest's, else v5.
fn era_of(inputs: &Inputs) -> Era {
    let declared =
        |v: &Option<Value>, era: fn(&Value) -> Result<Era, _>| v.as_ref().and_then(|v| era(v).ok());
    let start = inputs
        .old_state
        .clone()
        .or_else(|| inputs.base.as_ref().map(|b| b.state.clone()));
    declared(&start, crate::dwp::model::state_era)
        .or_else(|| declared(&inputs.manifest, crate::dwp::model::manifest_era))
        .unwrap_or(Era::V5)
}

fn iso(t: &CommitTime) -> String {
    t.to_utc_iso()
}

fn non_empty(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| match v {
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        _ => true,
    })
}

struct Recorder {
    changes: Vec<Change>,
    reports: Vec<Change>,
}

impl Recorder {
    /// Sets `key` to `new` (removes it for `None`), recording a change when the value differs.
    fn set(
        &mut self,
        obj: &mut Map<String, Value>,
        task: Option<u64>,
        key: &str,
        new: Option<Value>,
        source: Source,
    ) {
        let old = obj.get(key).cloned();
        if old == new {
            return;
        }
        // A `null` placeholder (or a JSON null) reads as absent.
        let shown_old = if old == Some(Value::Null) { None } else { old };
        match &new {
            Some(v) => {
                obj.insert(key.to_string(), v.clone());
            }
            None => {
                obj.shift_remove(key);
            }
        }
        self.changes.push(Change {
            task,
            field: key.to_string(),
            old: shown_old,
            new,
            source,
            note: None,
        });
    }

    fn report(
        &mut self,
        task: Option<u64>,
        field: &str,
        value: Option<Value>,
        source: Source,
        note: String,
    ) {
        self.reports.push(Change {
            task,
            field: field.to_string(),
            old: value.clone(),
            new: value,
            source,
            note: Some(note),
        });
    }
}

fn status_from_markdown(task: &MarkdownTask, old: Option<&str>) -> (&'static str, Source) {
    if task.checked {
        return ("completed", Source::Readme);
    }
    // Unticked: the old state's non-completed status stands; otherwise the log says.
    match old {
        Some("in_progress") => ("in_progress", Source::OldState),
        Some("blocked") => ("blocked", Source::OldState),
        Some("skipped") => ("skipped", Source::OldState),
        Some("pending") => ("pending", Source::OldState),
        _ => match task.log_status {
            Some(LogStatus::InProgress) => ("in_progress", Source::TaskLog),
            Some(LogStatus::Blocked) => ("blocked", Source::TaskLog),
            Some(LogStatus::Skipped) => ("skipped", Source::TaskLog),
            _ => ("pending", Source::Readme),
        },
    }
}

fn recover_gates(lines: &[GateRecordLine], last_run: &str) -> Vec<Value> {
    lines
        .iter()
        .filter_map(|g| {
            let command = g.command.as_ref()?;
            let exit = g.exit_code?;
            let items = g.items_text();
            let evidence = if items.is_empty() {
                "src=task-log".to_string()
            } else {
                format!("{items}; src=task-log")
            };
            Some(json!({
                "command": command,
                "passes": exit == 0,
                "exit_code": exit,
                "last_run": last_run,
                "evidence": evidence,
            }))
        })
        .collect()
}

fn earliest(times: &[String]) -> Option<String> {
    times
        .iter()
        .filter_map(|t| t.parse::<jiff::Timestamp>().ok().map(|ts| (ts, t)))
        .min_by_key(|(ts, _)| *ts)
        .map(|(_, t)| t.clone())
}

/// Rebuilds the state by the rules of the module header. `now` stamps `updated_at` when anything
/// changed (and a new state).
pub fn rebuild(inputs: &Inputs, now: &str) -> Rebuilt {
    let era = era_of(inputs);
    let v1 = era == Era::V1;
    let fresh = inputs.old_state.is_none() && inputs.base.is_none();
    let restored = inputs.old_state.is_none() && inputs.base.is_some();
    let mut rec = Recorder {
        changes: Vec::new(),
        reports: Vec::new(),
    };
    let start = match (&inputs.old_state, &inputs.base) {
        (Some(old), _) => old.clone(),
        (None, Some(base)) => base.state.clone(),
        (None, None) => new_state(v1),
    };
    let mut state: Map<String, Value> = match start {
        Value::Object(m) => m,
        _ => match new_state(v1) {
            Value::Object(m) => m,
            _ => Map::new(),
        },
    };

    // Identity and era.
    let schema = state
        .get("schema")
        .and_then(Value::as_str)
        .filter(|s| Era::from_state_url(s).is_some())
        .map(str::to_string)
        .unwrap_or_else(|| era.state_url().to_string());
    rec.set(
        &mut state,
        None,
        "schema",
        Some(schema.into()),
        Source::Manifest,
    );
    rec.set(
        &mut state,
        None,
        "plan",
        Some(inputs.plan.clone().into()),
        Source::Derived,
    );

    let format_is_lite;
    if !v1 {
        let format = non_empty(state.get("format"))
            .and_then(Value::as_str)
            .map(|s| (s.to_string(), Source::OldState))
            .or_else(|| {
                inputs.readme_format.as_ref().map(|f| {
                    let s = match f {
                        DeclaredFormat::Lite => "lite",
                        DeclaredFormat::Full => "full",
                    };
                    (s.to_string(), Source::Readme)
                })
            })
            .or_else(|| {
                inputs
                    .manifest
                    .as_ref()
                    .and_then(|m| m["plan_format"].as_str())
                    .map(|s| (s.to_string(), Source::Manifest))
            });
        match format {
            Some((f, source)) => {
                format_is_lite = f == "lite";
                rec.set(&mut state, None, "format", Some(f.into()), source);
            }
            None => {
                format_is_lite = inputs.tasks.iter().all(|t| t.file.is_none());
                let f = if format_is_lite { "lite" } else { "full" };
                rec.set(&mut state, None, "format", Some(f.into()), Source::Derived);
            }
        }
        if non_empty(state.get("materialization")).is_none() {
            rec.set(
                &mut state,
                None,
                "materialization",
                Some("ready".into()),
                Source::Derived,
            );
        }
        if non_empty(state.get("approval")).is_none() {
            match &inputs.readme_approval {
                Some(ApprovalValue::Approved) => rec.set(
                    &mut state,
                    None,
                    "approval",
                    Some("approved".into()),
                    Source::Readme,
                ),
                Some(ApprovalValue::Pending) => rec.set(
                    &mut state,
                    None,
                    "approval",
                    Some("pending".into()),
                    Source::Readme,
                ),
                Some(ApprovalValue::PreApproved) => rec.set(
                    &mut state,
                    None,
                    "approval",
                    Some("pre_approved".into()),
                    Source::Readme,
                ),
                _ => {
                    if state.get("approval") == Some(&Value::Null) {
                        state.shift_remove("approval");
                    }
                    rec.report(
                        None,
                        "approval",
                        None,
                        Source::Unrecoverable,
                        "README.md has no Approval line; left absent, which reads as pending"
                            .into(),
                    );
                }
            }
        }
    } else {
        format_is_lite = false;
    }

    // Tasks.
    let old_tasks: Vec<Map<String, Value>> = state
        .get("tasks")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|t| t.as_object().cloned()).collect())
        .unwrap_or_default();
    // The first old record of each id: looked up per README task, not scanned for.
    let mut old_by_id: BTreeMap<u64, &Map<String, Value>> = BTreeMap::new();
    for t in &old_tasks {
        if let Some(n) = t.get("id").and_then(Value::as_u64) {
            old_by_id.entry(n).or_insert(t);
        }
    }
    let mut new_tasks = Vec::new();
    let mut last_completion: Option<String> = None;
    for md in &inputs.tasks {
        let n = md.id;
        let existing = old_by_id.get(&n).copied();
        let from_old = existing.is_some();
        let mut t: Map<String, Value> = existing.cloned().unwrap_or_else(|| {
            // Key order of a new task record, as the helper writes one.
            let mut m = Map::new();
            m.insert("id".into(), n.into());
            if v1 {
                m.insert("file".into(), Value::Null);
            } else {
                m.insert("locator".into(), Value::Null);
            }
            m.insert("title".into(), Value::Null);
            m.insert("status".into(), Value::Null);
            if !v1 {
                m.insert("gates".into(), Value::Array(Vec::new()));
            }
            m
        });
        let task = Some(n);
        if !from_old {
            rec.changes.push(Change {
                task,
                field: "id".into(),
                old: None,
                new: Some(n.into()),
                source: Source::Readme,
                note: Some("new task record".into()),
            });
        }
        // Where the task's record lives.
        if v1 {
            if non_empty(t.get("file")).is_none() {
                match &md.file {
                    Some(f) => {
                        rec.set(&mut t, task, "file", Some(f.clone().into()), Source::Readme)
                    }
                    None => rec.report(
                        task,
                        "file",
                        None,
                        Source::Unrecoverable,
                        "no task file found".into(),
                    ),
                }
            }
        } else if non_empty(t.get("locator")).is_none() {
            let locator = if format_is_lite {
                Some(json!({"kind": "inline", "value": format!("#task-{n}")}))
            } else {
                md.file
                    .as_ref()
                    .map(|f| json!({"kind": "file", "value": f}))
            };
            match locator {
                Some(l) => rec.set(&mut t, task, "locator", Some(l), Source::Readme),
                None => rec.report(
                    task,
                    "locator",
                    None,
                    Source::Unrecoverable,
                    "no task file found".into(),
                ),
            }
        }
        // Title and status: the markdown wins.
        if !md.title.is_empty() {
            rec.set(
                &mut t,
                task,
                "title",
                Some(md.title.clone().into()),
                Source::Readme,
            );
        }
        let old_status = t.get("status").and_then(Value::as_str).map(str::to_string);
        let (status, status_source) = status_from_markdown(md, old_status.as_deref());
        rec.set(&mut t, task, "status", Some(status.into()), status_source);
        let completed = status == "completed";
        if !v1 && !t.contains_key("gates") {
            rec.set(
                &mut t,
                task,
                "gates",
                Some(Value::Array(Vec::new())),
                Source::Derived,
            );
        }
        let git = inputs.git.as_ref().and_then(|g| g.get(&n));
        if !completed {
            // A completion on a task the README says is not completed contradicts it.
            for key in ["completed_at", "commit"] {
                if t.contains_key(key) {
                    rec.set(&mut t, task, key, None, Source::Readme);
                }
            }
        } else {
            // commit
            match (non_empty(t.get("commit")).and_then(Value::as_str), git) {
                (Some(recorded), Some(g)) if inputs.missing_commits.contains(recorded) => {
                    rec.set(
                        &mut t,
                        task,
                        "commit",
                        Some(g.id.clone().into()),
                        Source::Commit(g.short.clone()),
                    );
                }
                (Some(recorded), None) if inputs.missing_commits.contains(recorded) => {
                    rec.report(
                        task,
                        "commit",
                        Some(recorded.into()),
                        Source::OldState,
                        "the recorded commit is no commit of this repository, and no commit reachable from HEAD names the task: kept, but unproven".into(),
                    );
                }
                (Some(recorded), Some(g)) => {
                    if !g.id.starts_with(recorded) && !recorded.starts_with(&g.id) {
                        rec.report(
                            task,
                            "commit",
                            Some(recorded.into()),
                            Source::OldState,
                            format!("conflict: git's most recent commit naming the task is {}; the old state's value is kept", g.short),
                        );
                    }
                }
                (Some(_), None) => {}
                (None, Some(g)) => rec.set(
                    &mut t,
                    task,
                    "commit",
                    Some(g.id.clone().into()),
                    Source::Commit(g.short.clone()),
                ),
                (None, None) => rec.report(
                    task,
                    "commit",
                    None,
                    Source::Unrecoverable,
                    if inputs.truncated {
                        "no commit naming the task before the shallow-clone boundary".into()
                    } else if inputs.git.is_none() {
                        "the plan is not in a git repository".into()
                    } else {
                        "no commit reachable from HEAD names the task".into()
                    },
                ),
            }
            // completed_at
            if non_empty(t.get("completed_at")).is_none() {
                match git {
                    Some(g) => rec.set(
                        &mut t,
                        task,
                        "completed_at",
                        Some(iso(&g.time).into()),
                        Source::Commit(g.short.clone()),
                    ),
                    None => rec.report(
                        task,
                        "completed_at",
                        None,
                        Source::Unrecoverable,
                        "no commit gives the completion time".into(),
                    ),
                }
            }
            // gates: recovered from the log only when the old state has none.
            let has_gates = t
                .get("gates")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty());
            if !has_gates {
                let last_run = git.map(|g| iso(&g.time)).or_else(|| {
                    t.get("completed_at")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                });
                let recovered = match &last_run {
                    Some(at) => recover_gates(&md.gate_lines, at),
                    None => Vec::new(),
                };
                if recovered.is_empty() {
                    rec.report(
                        task,
                        "gates",
                        None,
                        Source::Unrecoverable,
                        "the task log has no usable `Gate record:` line; no gate is invented"
                            .into(),
                    );
                } else {
                    rec.set(
                        &mut t,
                        task,
                        "gates",
                        Some(Value::Array(recovered)),
                        Source::TaskLog,
                    );
                }
            }
        }
        // started_at: the earliest evidence, for every task that has begun.
        if status != "pending" && non_empty(t.get("started_at")).is_none() {
            let mut candidates: Vec<(String, Source)> = Vec::new();
            if let Some(j) = inputs.journal_first.get(&n) {
                candidates.push((j.clone(), Source::Journal));
            }
            if let Some(first) = t
                .get("gates")
                .and_then(Value::as_array)
                .and_then(|g| g.first())
                .and_then(|g| g["last_run"].as_str())
            {
                let source = if first.contains("src=task-log") {
                    Source::TaskLog
                } else {
                    Source::OldState
                };
                candidates.push((first.to_string(), source));
            }
            if let Some(g) = git
                && let Some(p) = &g.parent_time
            {
                candidates.push((iso(p), Source::Commit(g.short.clone())));
            }
            let times: Vec<String> = candidates.iter().map(|(t, _)| t.clone()).collect();
            match earliest(&times) {
                Some(best) => {
                    let source = candidates
                        .iter()
                        .find(|(t, _)| *t == best)
                        .map(|(_, s)| s.clone())
                        .unwrap_or(Source::Derived);
                    rec.set(&mut t, task, "started_at", Some(best.into()), source);
                }
                None => rec.report(
                    task,
                    "started_at",
                    None,
                    Source::Unrecoverable,
                    "no journal line, gate or parent commit dates the start".into(),
                ),
            }
        }
        if completed {
            last_completion = t
                .get("completed_at")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        if restored {
            t = in_helper_order(t);
        }
        new_tasks.push(Value::Object(t));
    }
    let listed: BTreeSet<u64> = inputs.tasks.iter().map(|t| t.id).collect();
    for old in &old_tasks {
        let id = old.get("id").and_then(Value::as_u64);
        if id.is_some_and(|id| !listed.contains(&id)) {
            rec.changes.push(Change {
                task: id,
                field: "id".into(),
                old: id.map(Value::from),
                new: None,
                source: Source::Readme,
                note: Some("the README index does not list it".into()),
            });
        }
    }
    let tasks_value = Value::Array(new_tasks);
    if state.get("tasks") != Some(&tasks_value) {
        state.insert("tasks".into(), tasks_value.clone());
    }

    // Derived counts and status.
    let tasks = tasks_value.as_array().cloned().unwrap_or_default();
    let count_status = |s: &str| tasks.iter().filter(|t| t["status"] == s).count();
    let completed = count_status("completed");
    let total = tasks.len();
    rec.set(
        &mut state,
        None,
        "task_count",
        Some(total.into()),
        Source::Derived,
    );
    rec.set(
        &mut state,
        None,
        "completed_count",
        Some(completed.into()),
        Source::Derived,
    );
    // A blocker record stays only while its task is still blocked.
    let blocker_task = state.get("blocked").and_then(|b| b["task"].as_u64());
    if let Some(bt) = blocker_task {
        let still = tasks
            .iter()
            .any(|t| t["id"].as_u64() == Some(bt) && t["status"] == "blocked");
        if !still {
            rec.set(
                &mut state,
                None,
                "blocked",
                Some(Value::Null),
                Source::Readme,
            );
        }
    }
    let any_blocked =
        count_status("blocked") > 0 || state.get("blocked").is_some_and(|b| b.is_object());
    let status = if any_blocked {
        "blocked"
    } else if total > 0 && completed == total {
        "completed"
    } else if tasks.iter().any(|t| t["status"] != "pending") {
        "in_progress"
    } else {
        "pending"
    };
    rec.set(
        &mut state,
        None,
        "status",
        Some(status.into()),
        Source::Derived,
    );
    if status == "completed" {
        let last = tasks
            .last()
            .and_then(|t| t["id"].as_u64())
            .unwrap_or(total as u64);
        let current = state.get("checkpoint");
        let terminal =
            current.is_some_and(|c| c["task"].as_u64() == Some(last) && c["step"] == "done");
        if !terminal {
            match &last_completion {
                Some(at) => rec.set(
                    &mut state,
                    None,
                    "checkpoint",
                    Some(
                        json!({"task": last, "step": "done", "at": at, "note": "Plan completed."}),
                    ),
                    Source::Derived,
                ),
                None => rec.report(
                    None,
                    "checkpoint",
                    current.cloned(),
                    Source::Unrecoverable,
                    "the last task's completion time is unknown".into(),
                ),
            }
        }
    }
    // `null` placeholders of a new state that nothing filled stay, as the helper writes them.
    // A committed copy nothing changes is restored as it is, its `updated_at` included.
    let as_committed = restored
        && rec.changes.is_empty()
        && inputs.base.as_ref().is_some_and(Base::untouched_copy);
    if rec.changes.iter().any(|c| c.field != "updated_at") || fresh || (restored && !as_committed) {
        let old = state.get("updated_at").cloned().filter(|v| !v.is_null());
        state.insert("updated_at".into(), now.into());
        if fresh || restored {
            rec.changes.push(Change {
                task: None,
                field: "updated_at".into(),
                old,
                new: Some(now.into()),
                source: Source::Derived,
                note: None,
            });
        }
    }
    let state = Value::Object(state);
    if let (true, Some(base)) = (restored, &inputs.base) {
        rec.changes = with_provenance(&state, rec.changes, base, inputs);
        if base.old_format > 0 {
            rec.reports.push(Change {
                task: None,
                field: "journal".into(),
                old: None,
                new: None,
                source: Source::Unrecoverable,
                note: Some(format!(
                    "{} of the {} journal line(s) replayed carry no applied content (the old line format): they give hashes and statuses only, so the gates, outcomes, checkpoint, blocker and approval changes they made are not recovered",
                    base.old_format, base.replayed
                )),
            });
        }
    }
    Rebuilt {
        state,
        changes: rec.changes,
        reports: rec.reports,
    }
}

/// A task record's keys in the order the helper writes them (a record the replay built holds
/// them in the order the journal set them).
fn in_helper_order(mut t: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for key in [
        "id",
        "file",
        "locator",
        "title",
        "status",
        "gates",
        "started_at",
        "completed_at",
        "commit",
        "outcome",
    ] {
        if let Some(v) = t.shift_remove(key) {
            out.insert(key.into(), v);
        }
    }
    out.extend(t);
    out
}

/// The change list of a state restored from a copy (the on-disk state.json is missing or does
/// not parse): every value of the rebuilt state, in its order, with its source — the rebuild's
/// own decision where it made one, else where the copy or the journal had it.
fn with_provenance(
    state: &Value,
    decided: Vec<Change>,
    base: &Base,
    inputs: &Inputs,
) -> Vec<Change> {
    let mut decided: Vec<Option<Change>> = decided.into_iter().map(Some).collect();
    // Where the decisions on each (task, field) are, in order: `take` pops the first one left
    // instead of scanning every decision per value.
    let mut slots: BTreeMap<(Option<u64>, String), std::collections::VecDeque<usize>> =
        BTreeMap::new();
    for (i, c) in decided.iter().enumerate() {
        if let Some(c) = c {
            slots
                .entry((c.task, c.field.clone()))
                .or_default()
                .push_back(i);
        }
    }
    let mut take = |task: Option<u64>, field: &str| {
        let i = slots.get_mut(&(task, field.to_string()))?.pop_front()?;
        decided[i].take()
    };
    let fix = |mut c: Change| {
        if c.new.is_some() {
            c.old = None;
        }
        if c.source == Source::OldState
            && let Some(s) = base.source_of(c.task, &c.field)
        {
            c.source = s;
        }
        c
    };
    let ticked_ids: BTreeSet<u64> = inputs
        .tasks
        .iter()
        .filter(|t| t.checked)
        .map(|t| t.id)
        .collect();
    let md_by_id = first_task_by_id(&inputs.tasks);
    let kept = |task: Option<u64>, field: &str, v: &Value| {
        let ticked = task.is_some_and(|n| ticked_ids.contains(&n));
        let source = match base.source_of(task, field) {
            _ if field == "gates" => gate_sources(task, v, base, &md_by_id),
            // The README ticks the task: the markdown says so too (and wins any disagreement).
            Some(s) if field == "status" && ticked => Source::Both(vec![Source::Readme, s]),
            Some(s) => s,
            None => Source::Derived,
        };
        Change {
            task,
            field: field.to_string(),
            old: None,
            new: Some(v.clone()),
            source,
            note: None,
        }
    };
    let mut out = Vec::new();
    let empty = Map::new();
    for (k, v) in state.as_object().unwrap_or(&empty) {
        if k == "tasks" {
            continue;
        }
        match take(None, k) {
            Some(c) => out.push(fix(c)),
            None if !v.is_null() => out.push(kept(None, k, v)),
            None => {}
        }
    }
    for t in state["tasks"].as_array().into_iter().flatten() {
        let Some(obj) = t.as_object() else { continue };
        let n = obj.get("id").and_then(Value::as_u64);
        for (k, v) in obj {
            match take(n, k) {
                Some(c) => out.push(fix(c)),
                None if k == "id" => {}
                None if !v.is_null() => out.push(kept(n, k, v)),
                None => {}
            }
        }
    }
    out.extend(decided.into_iter().flatten().map(fix));
    out
}

/// The source of a task's gate records kept from the copy: a record the task log's `Gate
/// record:` lines also hold (same command and exit code, and the same `last_run` when the line
/// gives one) is one record found in both.
fn gate_sources(
    task: Option<u64>,
    gates: &Value,
    base: &Base,
    md_by_id: &BTreeMap<u64, &MarkdownTask>,
) -> Source {
    let own = base.source_of(task, "gates").unwrap_or(Source::Derived);
    let Some(md) = task.and_then(|n| md_by_id.get(&n)) else {
        return own;
    };
    // The log's lines by (command, exit code): those without a `last_run` match any record of
    // theirs, the others only the record run then. Sets, not a scan of the lines per record.
    let mut any_time: BTreeSet<(Option<&str>, Option<i64>)> = BTreeSet::new();
    let mut at_time: BTreeSet<(Option<&str>, Option<i64>, &str)> = BTreeSet::new();
    for l in &md.gate_lines {
        let key = (l.command.as_deref(), l.exit_code);
        match l.items.iter().find(|(k, _)| k == "last_run") {
            None => any_time.insert(key),
            Some((_, at)) => at_time.insert((key.0, key.1, at.as_str())),
        };
    }
    let in_log = gates.as_array().into_iter().flatten().any(|g| {
        let key = (g["command"].as_str(), g["exit_code"].as_i64());
        any_time.contains(&key)
            || g["last_run"]
                .as_str()
                .is_some_and(|run| at_time.contains(&(key.0, key.1, run)))
    });
    if in_log {
        Source::Both(vec![own, Source::TaskLog])
    } else {
        own
    }
}

/// The first markdown task of each id (what a scan from the start finds).
fn first_task_by_id(tasks: &[MarkdownTask]) -> BTreeMap<u64, &MarkdownTask> {
    let mut out = BTreeMap::new();
    for t in tasks {
        out.entry(t.id).or_insert(t);
    }
    out
}

/// The lines a dry run prints and the reconciliation entry records.
pub fn change_lines(rebuilt: &Rebuilt) -> Vec<String> {
    rebuilt.changes.iter().map(Change::line).collect()
}

/// What `rebuild --write` wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The SHA-256 (hex) of the state.json replaced; `None` when there was none.
    pub before_sha256: Option<String>,
    /// The SHA-256 (hex) of the state.json written; `None` when state.json was left for the
    /// finalization transaction to publish.
    pub after_sha256: Option<String>,
    /// The reconciliation entry appended to PROGRESS.md.
    pub progress_entry: Vec<String>,
    /// The name of the copy an unparseable state.json was kept as
    /// (`state.json.corrupt-<sha256 prefix>`), when there was one.
    pub corrupt_copy: Option<String>,
    /// What after the first replaced file could not be confirmed (a folder sync, the journal
    /// line, the lock release); what was written stays.
    pub confirmation: crate::write::Confirmation,
}

/// The name an unparseable state.json is kept as before it is replaced.
pub fn corrupt_copy_name(bytes: &[u8]) -> String {
    let sha = crate::recovery::hash::sha256_hex(bytes);
    format!("{}{}", layout::CORRUPT_COPY_PREFIX, &sha[..12])
}

/// The bytes the rebuilt state is written as: a committed copy restored unchanged as it was
/// committed; else the old file's JSON style when it parsed, else the helper's.
pub fn state_bytes(inputs: &Inputs, rebuilt: &Rebuilt) -> Vec<u8> {
    // A committed copy restored unchanged: byte for byte.
    if inputs.old_state.is_none()
        && let Some(bytes) = inputs.base.as_ref().and_then(|b| b.copy_bytes.as_ref())
        && parse_json(bytes).ok().as_ref() == Some(&rebuilt.state)
    {
        return bytes.clone();
    }
    let style = match &inputs.old_bytes {
        Some(bytes) if inputs.old_state.is_some() => crate::jsonfmt::JsonStyle::detect(bytes),
        _ => crate::jsonfmt::JsonStyle::python_pretty(),
    };
    crate::jsonfmt::to_bytes(&rebuilt.state, &style)
}

/// The journal line of a rebuild that replaced state.json with `state` (its content, for a
/// replay: `applied.replaced`).
pub fn journal_line(
    now: &str,
    operation: &str,
    inputs: &Inputs,
    state: &Value,
    hashes: (Option<String>, Option<String>),
    lines: &[String],
) -> crate::write::JournalEntry {
    crate::write::JournalEntry::for_plan(now, operation, &inputs.plan)
        .transition(None, Value::Null, Value::Null)
        .reason(Some(
            "state.json regenerated from the markdown, the committed copies, the journal and git"
                .to_string(),
        ))
        .hashes(hashes.0, hashes.1)
        .with("changes", lines.to_vec())
        .with(
            "applied",
            json!({"version": crate::dwp::decide::update::APPLIED_VERSION, "replaced": state}),
        )
}

/// Writes the rebuilt state through one transaction: the lock of state.json, a re-read of
/// state.json and PROGRESS.md under it (refused with `state-changed` if either moved since
/// [`gather`]), the copy of an unparseable state.json, an atomic replace of both (state.json
/// only when `replace_state`: a completed state is left to the finalization transaction), one
/// journal line, release. `now` is the rebuild's time stamp.
pub fn write(
    plan_dir: &Path,
    inputs: &Inputs,
    rebuilt: &Rebuilt,
    now: &str,
    replace_state: bool,
) -> Result<Written, crate::write::WriteError> {
    use crate::recovery::hash::sha256_hex;
    use crate::write::Writer;
    let state_path = layout::state_path(plan_dir);
    let progress_path = plan_dir.join(layout::PROGRESS_FILE);
    let new_bytes = state_bytes(inputs, rebuilt);
    let target = layout::state_target(plan_dir);
    let Reconciliation {
        progress_before,
        progress_after,
        corrupt_copy,
        lines,
    } = reconciliation(plan_dir, inputs, rebuilt, now, replace_state)?;

    let tx = Writer::from_env().begin(&target, "rebuild", now)?;
    tx.expect_unchanged(&state_path, inputs.old_bytes.as_deref())?;
    tx.expect_unchanged(&progress_path, progress_before.as_deref())?;
    // A journal leading out of the plan refuses the rebuild before anything is written.
    target.check_writable(&[])?;
    if let (Some(copy), Some(bytes)) = (&corrupt_copy, &inputs.old_bytes) {
        tx.replace(&plan_dir.join(copy), bytes)?;
    }
    let before_sha256 = inputs.old_bytes.as_deref().map(sha256_hex);
    let after_sha256 = replace_state.then(|| sha256_hex(&new_bytes));
    if replace_state {
        tx.replace(&state_path, &new_bytes)?;
    }
    tx.replace(&progress_path, &progress_after)?;
    if plan_dir.join(layout::RESULTS_DIR).is_dir() {
        let line = if replace_state {
            journal_line(
                now,
                "rebuild",
                inputs,
                &rebuilt.state,
                (before_sha256.clone(), after_sha256.clone()),
                &lines,
            )
        } else {
            // state.json is untouched here; the publication's own line records its content.
            crate::write::JournalEntry::for_plan(now, "rebuild", &inputs.plan)
                .transition(None, Value::Null, Value::Null)
                .reason(Some(
                    "reconciliation recorded; the completed state goes to the finalization transaction"
                        .to_string(),
                ))
                .hashes(before_sha256.clone(), before_sha256.clone())
                .with("changes", lines.clone())
        };
        // After the renames: a journal line that cannot be written is reported, not an error.
        tx.journal_applied(&line);
    }
    Ok(Written {
        before_sha256,
        after_sha256,
        progress_entry: lines,
        corrupt_copy,
        confirmation: tx.close(),
    })
}

/// What `rebuild --write` adds besides state.json: the PROGRESS.md reconciliation entry and, for
/// an unparseable state.json, the name of its kept copy.
struct Reconciliation {
    progress_before: Option<Vec<u8>>,
    progress_after: Vec<u8>,
    corrupt_copy: Option<String>,
    lines: Vec<String>,
}

fn reconciliation(
    plan_dir: &Path,
    inputs: &Inputs,
    rebuilt: &Rebuilt,
    now: &str,
    replace_state: bool,
) -> Result<Reconciliation, crate::write::WriteError> {
    let progress_before = crate::dwp::read::read_plan_file(plan_dir, layout::PROGRESS_FILE)
        .map_err(crate::write::WriteError::read)?;
    let corrupt_copy = match &inputs.old_bytes {
        Some(bytes) if inputs.old_state.is_none() => Some(corrupt_copy_name(bytes)),
        _ => None,
    };
    let mut lines = Vec::new();
    if let Some(copy) = &corrupt_copy {
        lines.push(format!(
            "state.json did not parse; its bytes are kept as {copy}"
        ));
    }
    lines.extend(change_lines(rebuilt));
    lines.extend(rebuilt.reports.iter().map(Change::line));
    if !replace_state {
        lines.push(
            "the rebuilt state is completed: it is published through the finalization transaction (receipt included)"
                .into(),
        );
    }
    let entry = crate::dwp::model::markdown::ReconciliationEntry {
        date: now.get(..10).unwrap_or(now).to_string(),
        summary: format!(
            "state.json rebuilt by planseal from {}: {} field(s) changed; the markdown wins every disagreement",
            sources_summary(inputs),
            rebuilt.changes.len()
        ),
        changes: lines.clone(),
    };
    let progress_after = crate::dwp::model::markdown::append_reconciliation_entry(
        progress_before.as_deref().unwrap_or_default(),
        &entry,
    );

    Ok(Reconciliation {
        progress_before,
        progress_after,
        corrupt_copy,
        lines,
    })
}

/// A completed rebuilt state is published by the finalization transaction; the PROGRESS.md
/// entry (and the copy of an unparseable state.json) are written inside it, after its marker
/// and before state.json, so that the whole `rebuild --write` is one transaction. Returns the
/// files and the entry's lines.
pub fn publication_companions(
    plan_dir: &Path,
    inputs: &Inputs,
    rebuilt: &Rebuilt,
    now: &str,
) -> Result<(Vec<crate::dwp::publish::Companion>, Vec<String>), crate::write::WriteError> {
    use crate::dwp::publish::Companion;
    let r = reconciliation(plan_dir, inputs, rebuilt, now, false)?;
    let mut companions = Vec::new();
    if let (Some(copy), Some(bytes)) = (&r.corrupt_copy, &inputs.old_bytes) {
        companions.push(Companion {
            file: copy.clone(),
            before: crate::dwp::read::read_plan_file(plan_dir, copy)
                .map_err(crate::write::WriteError::read)?,
            after: bytes.clone(),
        });
    }
    companions.push(Companion {
        file: layout::PROGRESS_FILE.to_string(),
        before: r.progress_before,
        after: r.progress_after,
    });
    Ok((companions, r.lines))
}

/// The sources a rebuild read, for the reconciliation entry's summary.
fn sources_summary(inputs: &Inputs) -> String {
    let mut parts = vec!["the README index".to_string(), "the task logs".to_string()];
    if let Some(base) = &inputs.base {
        if let Some(Source::CommittedState(short)) = &base.origin {
            parts.push(format!("the state.json of commit {short}"));
        }
        if base.replayed > 0 {
            parts.push(format!("{} journal line(s)", base.replayed));
        }
    }
    if inputs.git.is_some() {
        parts.push("the git log".into());
    }
    let last = parts.pop().unwrap_or_default();
    format!("{} and {last}", parts.join(", "))
}

/// A manifest.json as a revision of the repository holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestCopy {
    /// Its bytes, restored as they are.
    pub bytes: Vec<u8>,
    /// The short id of the commit it was taken from.
    pub commit: String,
}

/// The plan's manifest.json as the newest commit that holds it has it (or as revision `from`
/// has it); `None` when no revision does.
pub fn committed_manifest(
    repo: &Repo,
    plan_dir: &Path,
    from: Option<&str>,
) -> Result<Option<ManifestCopy>, RebuildError> {
    use crate::recovery::git::HistoryOptions;
    let Ok(rel) = repo.relative_to_work_tree(&plan_dir.join(layout::MANIFEST_FILE)) else {
        return Ok(None);
    };
    if let Some(rev) = from {
        let Some(id) = repo.resolve(rev)? else {
            return Ok(None);
        };
        let commit = repo
            .find_commit(&id)?
            .map(|c| c.short)
            .unwrap_or_else(|| id.chars().take(7).collect());
        return Ok(repo
            .file_at(&id, &rel)?
            .map(|bytes| ManifestCopy { bytes, commit }));
    }
    let history = repo.file_versions(
        &rel,
        &HistoryOptions {
            with_content: true,
            ..Default::default()
        },
    )?;
    Ok(history.versions.into_iter().find_map(|v| {
        v.content.map(|bytes| ManifestCopy {
            bytes,
            commit: v.commit.short,
        })
    }))
}

/// The manifest values the README and state.json suggest, `(field, value, source)`, for a
/// person recreating a manifest no revision holds. Never written by planseal.
pub fn manifest_suggestion(inputs: &Inputs) -> Vec<(String, String, Source)> {
    let mut out = vec![("name".to_string(), inputs.plan.clone(), Source::Derived)];
    let state = inputs
        .old_state
        .as_ref()
        .or(inputs.base.as_ref().map(|b| &b.state));
    if let Some(era) = state.and_then(|s| crate::dwp::model::state_era(s).ok()) {
        out.push((
            "schema".into(),
            era.manifest_url().to_string(),
            Source::OldState,
        ));
    }
    out.push((
        "task_count".into(),
        inputs.tasks.len().to_string(),
        Source::Readme,
    ));
    match inputs.readme_format {
        Some(DeclaredFormat::Lite) => {
            out.push(("plan_format".into(), "lite".into(), Source::Readme))
        }
        Some(DeclaredFormat::Full) => {
            out.push(("plan_format".into(), "full".into(), Source::Readme))
        }
        None => {
            if let Some(f) = state.and_then(|s| s["format"].as_str()) {
                out.push(("plan_format".into(), f.to_string(), Source::OldState));
            }
        }
    }
    out
}

/// Restores manifest.json from `copy` through one transaction (the state.json lock): the
/// manifest byte for byte, a dated entry in PROGRESS.md, one journal line.
pub fn write_manifest(
    plan_dir: &Path,
    inputs: &Inputs,
    copy: &ManifestCopy,
    current: Option<&[u8]>,
    now: &str,
) -> Result<(Vec<String>, crate::write::Confirmation), crate::write::WriteError> {
    use crate::recovery::hash::sha256_hex;
    use crate::write::{JournalEntry, Writer};
    let manifest_path = plan_dir.join(layout::MANIFEST_FILE);
    let progress_path = plan_dir.join(layout::PROGRESS_FILE);
    let progress_before = crate::dwp::read::read_plan_file(plan_dir, layout::PROGRESS_FILE)
        .map_err(crate::write::WriteError::read)?;
    let lines = vec![format!(
        "manifest.json: {} → restored byte for byte (source: commit {}, sha256 {})",
        if current.is_some() {
            "(altered)"
        } else {
            "(absent)"
        },
        copy.commit,
        &sha256_hex(&copy.bytes)[..12]
    )];
    let entry = crate::dwp::model::markdown::ReconciliationEntry {
        date: now.get(..10).unwrap_or(now).to_string(),
        summary: format!(
            "manifest.json restored by planseal from commit {}; a manifest records the plan's creation and is never derived",
            copy.commit
        ),
        changes: lines.clone(),
    };
    let progress_after = crate::dwp::model::markdown::append_reconciliation_entry(
        progress_before.as_deref().unwrap_or_default(),
        &entry,
    );
    let target = layout::state_target(plan_dir);
    let tx = Writer::from_env().begin(&target, "rebuild --manifest", now)?;
    tx.expect_unchanged(&manifest_path, current)?;
    tx.expect_unchanged(&progress_path, progress_before.as_deref())?;
    target.check_writable(&[])?;
    tx.replace(&manifest_path, &copy.bytes)?;
    tx.replace(&progress_path, &progress_after)?;
    if plan_dir.join(layout::RESULTS_DIR).is_dir() {
        let state_sha = inputs.old_bytes.as_deref().map(sha256_hex);
        let line = JournalEntry::for_plan(now, "rebuild --manifest", &inputs.plan)
            .transition(None, Value::Null, Value::Null)
            .reason(Some(format!(
                "manifest.json restored from commit {}",
                copy.commit
            )))
            .hashes(state_sha.clone(), state_sha)
            .with("restored", layout::MANIFEST_FILE)
            .with("file_sha256", sha256_hex(&copy.bytes))
            .with("commit", copy.commit.clone());
        // After the renames: a journal line that cannot be written is reported, not an error.
        tx.journal_applied(&line);
    }
    Ok((lines, tx.close()))
}

#[cfg(test)]
mod replay_tests {
    use super::*;

    fn line(time: &str, before: &str, after: &str, applied: Value) -> Value {
        json!({"time": time, "plan": "PLAN_x", "task": 1, "from": "pending", "to": "completed",
               "before_sha256": before, "after_sha256": after, "applied": applied})
    }

    #[test]
    fn the_chain_starts_at_the_copy_and_stops_where_it_breaks() {
        let start = json!({"status": "in_progress", "tasks": [{"id": 1, "status": "in_progress", "gates": [], "note": "x"}]});
        let lines = [
            // Not part of the chain: it starts elsewhere.
            line(
                "t0",
                "zz",
                "aa",
                json!({"version": 2, "task": 1, "set": {"status": "blocked"}}),
            ),
            line(
                "t1",
                "aa",
                "bb",
                json!({"version": 2, "task": 1, "set": {"status": "completed", "commit": "abc1234"},
                       "removed": ["note"], "gates_added": [{"command": "make test", "exit_code": 0}],
                       "plan_set": {"status": "completed"}}),
            ),
            line(
                "t2",
                "cc",
                "dd",
                json!({"version": 2, "task": 1, "set": {"status": "pending"}}),
            ),
        ];
        let base = replay(
            start,
            Source::CommittedState("c0ffee1".into()),
            Some("aa"),
            &lines,
        );
        assert_eq!(base.replayed, 1);
        assert_eq!(base.old_format, 0);
        let t = &base.state["tasks"][0];
        assert_eq!(t["status"], "completed");
        assert_eq!(t["commit"], "abc1234");
        assert!(t.get("note").is_none());
        assert_eq!(t["gates"][0]["command"], "make test");
        assert_eq!(base.state["status"], "completed");
        assert_eq!(
            base.source_of(Some(1), "commit"),
            Some(Source::JournalLine("t1".into()))
        );
        // A value the replay did not touch keeps the copy as its source.
        assert_eq!(
            base.source_of(None, "approval"),
            Some(Source::CommittedState("c0ffee1".into()))
        );
    }

    #[test]
    fn an_old_format_line_gives_its_status_only() {
        let mut old = line("t1", "aa", "bb", Value::Null);
        old.as_object_mut().expect("object").remove("applied");
        let base = replay(new_state(false), Source::Journal, None, &[old]);
        assert_eq!(base.replayed, 1);
        assert_eq!(base.old_format, 1);
        assert_eq!(
            base.state["tasks"][0],
            json!({"id": 1, "status": "completed"})
        );
        // No copy: a value nothing set has no source.
        assert_eq!(base.source_of(None, "approval"), None);
    }
}

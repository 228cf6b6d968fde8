//! `log`: the plan's timeline from git — which commit completed which task and when, and where
//! git and the plan disagree ([`timeline`]) — or the commits that changed one file
//! ([`file_history`]).
//!
//! An outcome holds commit subjects and plan text as they are: whoever shows it hides the
//! project's `.env` values first.

use super::{OpError, paint};
use crate::dwp::history::{PlanLog, plan_log};
use crate::dwp::locate::{Git, GitProgress, open_plan};
use crate::recovery::git::HistoryOptions;
use crate::report::HintedError;
use serde::Serialize;
use std::path::PathBuf;

/// `planseal log PLAN_DIR`.
#[derive(Debug, Clone)]
pub struct LogOptions {
    /// The directory the command runs in; relative paths are taken from here.
    pub cwd: PathBuf,
    /// The plan folder as given.
    pub plan_dir: PathBuf,
}

/// The timeline (the `--json` document is the [`PlanLog`] itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct LogOutcome {
    /// The plan's tasks, their commits and the disagreements between git and the plan.
    pub log: PlanLog,
}

/// Reads the plan's README.md and state.json and the task commits of its repository.
pub fn timeline(opts: &LogOptions, progress: Option<GitProgress>) -> Result<LogOutcome, OpError> {
    let plan = open_plan(&opts.cwd, &opts.plan_dir, Git::Open(progress))?;
    let log = plan_log(&plan.dir, plan.repo.as_ref()).map_err(|source| OpError::History {
        plan_dir: plan.dir.clone(),
        source,
    })?;
    Ok(LogOutcome { log })
}

impl LogOutcome {
    /// Git and the plan disagree somewhere (`--exit-code` exits 1).
    pub fn differs(&self) -> bool {
        !self.log.differences.is_empty()
    }

    /// A header, one line per task (with its earlier commits), then the differences.
    pub fn to_text(&self, color: bool) -> String {
        let log = &self.log;
        let mut out = String::new();
        match &log.repository {
            None => {
                out.push_str(&format!(
                    "Plan: {} (not in a git repository)\n",
                    paint(&log.plan, "1", color)
                ));
            }
            Some(repo) => {
                let at = repo
                    .head
                    .as_deref()
                    .map(|h| h[..h.len().min(7)].to_string())
                    .unwrap_or_else(|| "no commits yet".into());
                let branch = repo
                    .branch
                    .as_deref()
                    .map(|b| format!("branch {b}"))
                    .unwrap_or_else(|| "detached HEAD".into());
                let shallow = if repo.shallow { ", shallow clone" } else { "" };
                out.push_str(&format!(
                    "Plan: {} ({branch} at {at}{shallow})\n",
                    paint(&log.plan, "1", color)
                ));
            }
        }
        for note in &log.notes {
            out.push_str(&format!("  note: {note}\n"));
        }
        let width = log
            .tasks
            .iter()
            .map(|t| t.task.to_string().len())
            .max()
            .unwrap_or(1);
        let status_width = log
            .tasks
            .iter()
            .map(|t| t.state_status.as_deref().unwrap_or("-").len())
            .max()
            .unwrap_or(1);
        for t in &log.tasks {
            let box_ = match t.readme_checked {
                Some(true) => "[x]",
                Some(false) => "[ ]",
                None => "[?]",
            };
            let status = t.state_status.as_deref().unwrap_or("-");
            let line = match &t.commit {
                Some(c) => format!(
                    "{}  {}  {}",
                    paint(&c.short, "33", color),
                    c.committed_at,
                    c.subject
                ),
                None if log.truncated => {
                    "no commit names it before the shallow boundary".to_string()
                }
                None if log.repository.is_some() => "no commit names this task".to_string(),
                None => String::new(),
            };
            out.push_str(
                format!(
                    "  {box_} task {:<width$}  {status:<status_width$}  {line}",
                    t.task
                )
                .trim_end(),
            );
            out.push('\n');
            for c in &t.earlier_commits {
                out.push_str(&format!(
                    "        earlier: {}  {}  {}\n",
                    c.short, c.committed_at, c.subject
                ));
            }
        }
        if log.truncated {
            out.push_str("  note: history truncated at the shallow-clone boundary; older commits were not read\n");
        }
        if log.repository.is_some() {
            if log.differences.is_empty() {
                out.push_str("No differences between git and the plan.\n");
            } else {
                out.push_str(&format!("Differences ({}):\n", log.differences.len()));
                for d in &log.differences {
                    out.push_str(&format!(
                        "  {} {}: {}\n",
                        paint("!", "31", color),
                        d.kind,
                        d.message
                    ));
                }
            }
        }
        out
    }
}

/// `planseal log PLAN_DIR --file FILE [--max-count N]`.
#[derive(Debug, Clone)]
pub struct FileHistoryOptions {
    /// Where the command runs and the plan whose repository is walked.
    pub plan: LogOptions,
    /// The file, relative to the working directory.
    pub file: PathBuf,
    /// Stop after this many versions.
    pub max_count: Option<usize>,
}

/// The commits that changed a file, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FileHistoryOutcome {
    /// The file relative to the work tree.
    pub path: String,
    /// One row per commit that changed the file, newest first.
    pub versions: Vec<FileVersionRow>,
    /// Commits walked.
    pub walked: u64,
    /// The walk reached the boundary of a shallow clone.
    pub truncated: bool,
}

/// One version of the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FileVersionRow {
    /// The commit's full hexadecimal id.
    pub commit: String,
    /// Its shortest unique prefix, at least 7 digits.
    pub short: String,
    /// Committer time, UTC.
    pub committed_at: String,
    /// The first line of its message, trailing whitespace removed.
    pub subject: String,
    /// The file's blob after the commit; `None` when the commit deleted it.
    pub blob: Option<String>,
}

/// Walks the history of `opts.file` in the repository around the plan.
pub fn file_history(
    opts: &FileHistoryOptions,
    progress: Option<GitProgress>,
) -> Result<FileHistoryOutcome, OpError> {
    let plan = open_plan(&opts.plan.cwd, &opts.plan.plan_dir, Git::Open(progress))?;
    let Some(repo) = plan.repo.as_ref() else {
        return Err(HintedError::usage(format!(
            "{} is not in a git repository; there is no file history to show",
            plan.dir.display()
        ))
        .into());
    };
    let path = repo.relative_to_work_tree(&opts.plan.cwd.join(&opts.file))?;
    let history = repo.file_versions(
        &path,
        &HistoryOptions {
            limit: opts.max_count,
            ..Default::default()
        },
    )?;
    let versions = history
        .versions
        .iter()
        .map(|v| FileVersionRow {
            commit: v.commit.id.clone(),
            short: v.commit.short.clone(),
            committed_at: v.commit.committer_time.to_utc_iso(),
            subject: v.commit.subject.trim_end().to_string(),
            blob: v.blob_id.clone(),
        })
        .collect();
    Ok(FileHistoryOutcome {
        path,
        versions,
        walked: history.walked,
        truncated: history.truncated,
    })
}

impl FileHistoryOutcome {
    /// One line per version: `<hash> <committer time> <subject>`.
    pub fn to_text(&self) -> String {
        self.versions
            .iter()
            .map(|v| format!("{} {} {}\n", v.commit, v.committed_at, v.subject))
            .collect()
    }
}

//! What the writers that reshape a plan (`refine`, `promote`) share: the plan opened for an
//! edit (state.json read once, its compare-and-swap checked, parsed), markdown read as text,
//! and an [`Edit`] — the files read and the ordered steps that change them — shown as a diff
//! or applied under state.json's lock with a crash point after each step.

use crate::dwp::layout;
use crate::dwp::model::markdown::{ReconciliationEntry, append_dated_entry};
use crate::dwp::ops::{OpError, OpenedPlan};
use crate::dwp::read::read_plan_file;
use crate::report::text::unified_diff;
use crate::report::{Refusal, RefusalKind};
use crate::write::{Confirmation, JournalEntry, WriteError, Writer};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A plan opened for a reshaping edit: the plan as every markdown writer opens it
/// ([`super::OpenedPlan`]: the folder resolved, state.json read, the caller's snapshot
/// checked), with state.json parsed and an interrupted publication refused.
#[derive(Debug, Clone)]
pub(crate) struct PlanUnderEdit {
    /// The plan folder, resolved.
    pub dir: PathBuf,
    /// Its name (`PLAN_x`).
    pub name: String,
    /// state.json as read.
    pub state_bytes: Vec<u8>,
    /// … and parsed.
    pub state: Value,
}

impl PlanUnderEdit {
    /// Opens the plan; refuses a state that does not parse and a plan with an interrupted
    /// publication (`marker-present`).
    pub(crate) fn open(plan_dir: &Path, expected: Option<&str>) -> Result<Self, OpError> {
        let OpenedPlan {
            dir,
            name,
            state_bytes,
        } = OpenedPlan::open(
            plan_dir,
            expected,
            "the plan is reshaped once it is materialized: state.json is missing",
        )?;
        let state: Value = crate::dwp::model::parse_json(&state_bytes).map_err(|e| {
            Refusal::new(
                RefusalKind::StateUnparseable,
                format!("state.json: {e}; nothing was written"),
            )
            .hint(format!("`planseal rebuild {}` restores it", dir.display()))
        })?;
        if dir.join(layout::MARKER_FILE).exists() {
            return Err(Refusal::new(
                RefusalKind::MarkerPresent,
                format!(
                    "{name}: an interrupted publication left {}; nothing was written",
                    layout::MARKER_FILE
                ),
            )
            .hint(format!(
                "`planseal recover {}` resolves it first",
                dir.display()
            ))
            .into());
        }
        Ok(Self {
            dir,
            name,
            state_bytes,
            state,
        })
    }

    /// The bytes of the plan file `rel` (`None` when it does not exist).
    pub(crate) fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, OpError> {
        Ok(read_plan_file(&self.dir, rel)?)
    }

    /// The plan file `rel` as UTF-8 text, which must exist.
    pub(crate) fn read_text(&self, rel: &str) -> Result<(Vec<u8>, String), OpError> {
        let bytes = self.read(rel)?.ok_or_else(|| {
            Refusal::new(
                RefusalKind::FileNotFound,
                format!("{}: no {rel}; nothing was written", self.name),
            )
            .hint(format!("restore {rel}, then run the command again"))
        })?;
        let text = text_of(rel, &bytes)?;
        Ok((bytes, text))
    }

    /// The state's tasks (an empty list when it has none).
    pub(crate) fn tasks(&self) -> &[Value] {
        self.state
            .get("tasks")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// The ids of the state's tasks, listed for a refusal.
    pub(crate) fn task_ids(&self) -> String {
        self.tasks()
            .iter()
            .filter_map(|t| t.get("id").and_then(Value::as_u64))
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `bytes` as UTF-8 text, or the refusal that names `rel`.
pub(crate) fn text_of(rel: &str, bytes: &[u8]) -> Result<String, Refusal> {
    String::from_utf8(bytes.to_vec()).map_err(|_| {
        Refusal::new(
            RefusalKind::NotUtf8,
            format!("{rel} is not UTF-8 text; nothing was written"),
        )
        .hint("save the file as UTF-8, then run the command again")
    })
}

/// One step of an edit: `rel` replaced by `after` (`None`: removed), then the crash point.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub rel: String,
    pub after: Option<Vec<u8>>,
    pub crash_point: String,
}

/// The files an edit read (as read: each must still be so under the lock) and its steps.
#[derive(Debug, Clone, Default)]
pub(crate) struct Edit {
    read: Vec<(String, Option<Vec<u8>>)>,
    steps: Vec<Step>,
}

impl Edit {
    /// Records what `rel` held when the edit was decided (the first record of a file counts).
    pub(crate) fn read_as(&mut self, rel: &str, bytes: Option<&[u8]>) {
        if !self.read.iter().any(|(r, _)| r == rel) {
            self.read.push((rel.to_string(), bytes.map(<[u8]>::to_vec)));
        }
    }

    /// What `rel` holds at this point of the edit: its last step's bytes, else as read.
    pub(crate) fn current(&self, rel: &str) -> Option<&[u8]> {
        match self.steps.iter().rev().find(|s| s.rel == rel) {
            Some(step) => step.after.as_deref(),
            None => self
                .read
                .iter()
                .find(|(r, _)| r == rel)
                .and_then(|(_, b)| b.as_deref()),
        }
    }

    /// Adds the step that writes `after` to `rel` (nothing when the file holds it already),
    /// followed by the crash point `crash_point`.
    pub(crate) fn write(&mut self, rel: &str, after: Vec<u8>, crash_point: &str) {
        if self.current(rel) != Some(after.as_slice()) {
            self.steps.push(Step {
                rel: rel.to_string(),
                after: Some(after),
                crash_point: crash_point.to_string(),
            });
        }
    }

    /// Adds the step that removes `rel` (nothing when it is not there).
    pub(crate) fn remove(&mut self, rel: &str, crash_point: &str) {
        if self.current(rel).is_some() {
            self.steps.push(Step {
                rel: rel.to_string(),
                after: None,
                crash_point: crash_point.to_string(),
            });
        }
    }

    /// Adds the step that appends `entry` to PROGRESS.md as a dated `## TITLE — DATE` entry
    /// (the file is created when missing), unless the file holds that very entry already — a
    /// run cut short wrote it, and the same command run again does not write it twice. Returns
    /// whether it was there.
    pub(crate) fn append_progress_once(
        &mut self,
        plan: &PlanUnderEdit,
        title: &str,
        entry: &ReconciliationEntry,
        crash_point: &str,
    ) -> Result<bool, OpError> {
        let before = plan.read(layout::PROGRESS_FILE)?;
        self.read_as(layout::PROGRESS_FILE, before.as_deref());
        let block = append_dated_entry(b"", title, entry);
        let there = match &before {
            Some(bytes) => {
                text_of(layout::PROGRESS_FILE, bytes)?.contains(&*String::from_utf8_lossy(&block))
            }
            None => false,
        };
        if !there {
            let after = append_dated_entry(before.as_deref().unwrap_or_default(), title, entry);
            self.write(layout::PROGRESS_FILE, after, crash_point);
        }
        Ok(there)
    }

    /// Whether the edit changes anything.
    pub(crate) fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The files written, in the order of their first step (removed ones left out).
    pub(crate) fn written(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in &self.steps {
            if !out.contains(&s.rel) && self.current(&s.rel).is_some() {
                out.push(s.rel.clone());
            }
        }
        out
    }

    /// The files removed.
    pub(crate) fn removed(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in &self.steps {
            if !out.contains(&s.rel) && self.current(&s.rel).is_none() {
                out.push(s.rel.clone());
            }
        }
        out
    }

    /// The unified diff of every file the edit changes, from its bytes as read to its bytes at
    /// the end (an absent file is empty).
    pub(crate) fn diff(&self) -> String {
        let mut out = String::new();
        let mut seen: Vec<&str> = Vec::new();
        for s in &self.steps {
            if seen.contains(&s.rel.as_str()) {
                continue;
            }
            seen.push(&s.rel);
            let before = self
                .read
                .iter()
                .find(|(r, _)| *r == s.rel)
                .and_then(|(_, b)| b.as_deref());
            let after = self.current(&s.rel);
            out.push_str(&unified_diff(
                &String::from_utf8_lossy(before.unwrap_or_default()),
                &String::from_utf8_lossy(after.unwrap_or_default()),
                &s.rel,
            ));
        }
        out
    }

    /// Applies the steps under state.json's lock: every file read must still be as read, each
    /// step is durable before its crash point and the next step, and `line` is journaled after
    /// the last one. An error stops at the step that failed (the earlier ones stay written).
    pub(crate) fn apply(
        &self,
        plan_dir: &Path,
        operation: &str,
        line: &JournalEntry,
    ) -> Result<Confirmation, WriteError> {
        let target = layout::state_target(plan_dir);
        let tx = Writer::from_env().begin(&target, operation, &line.time)?;
        for (rel, bytes) in &self.read {
            tx.expect_unchanged(&plan_dir.join(rel), bytes.as_deref())?;
        }
        let rels: Vec<&str> = self.steps.iter().map(|s| s.rel.as_str()).collect();
        target.check_writable(&rels)?;
        for step in &self.steps {
            let path = plan_dir.join(&step.rel);
            match &step.after {
                Some(bytes) => tx.replace(&path, bytes)?,
                None => tx.remove(&path)?,
            }
            tx.step(&step.crash_point);
        }
        if plan_dir.join(layout::RESULTS_DIR).is_dir() {
            tx.journal_applied(line);
        }
        Ok(tx.close())
    }
}

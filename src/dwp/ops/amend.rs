//! `planseal amend PLAN --task N …`: an amendment record, written where the plan's rules read
//! it, and applied (`docs/amend.md`).
//!
//! The record — `### Amendment <n> — <today>` and its nine labels — is appended to the task's
//! log (its task file, or its inline record in a Lite README), mirrored by a dated PROGRESS.md
//! entry naming the amendment and the task, and applied to state.json: the gate runs it
//! invalidates are marked (`invalidated by refine (Amendment <n>): ` in front of their evidence,
//! never a new key), and a completed task is reopened — the reopen `update --reopen-reason`
//! would make, with the amendment's reason. Markdown first, state.json last, all under
//! state.json's lock, one journal line.

use crate::clock::Clock;
use crate::dwp::decide::amendment::{LoggedAmendment, designates, mark_invalidated};
use crate::dwp::decide::update::{UpdateRequest, applied_content, plan_transition_parsed};
use crate::dwp::layout;
use crate::dwp::model::markdown::close_out::{append_to_record, untick_task};
use crate::dwp::model::markdown::{
    AMENDMENT_LABELS, Authority, Disposition, ReconciliationEntry, TaskBody, append_dated_entry,
    parse_readme,
};
use crate::dwp::model::{Task, TaskStatus, parse_json};
use crate::dwp::ops::update::read_plan_facts_of;
use crate::dwp::ops::{OpError, OpenedPlan};
use crate::dwp::read::read_plan_file;
use crate::jsonfmt::to_python_pretty;
use crate::recovery::hash::sha256_hex;
use crate::report::text::unified_diff;
use crate::report::{Refusal, RefusalKind};
use crate::write::{Confirmation, JournalEntry, WriteError, Writer};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What `amend` is asked: the nine labels and where they go.
#[derive(Debug, Clone)]
pub struct AmendRequest {
    /// The plan folder.
    pub plan_dir: PathBuf,
    /// The task whose criterion changes.
    pub task: u64,
    /// `Original criterion:` — verbatim.
    pub criterion: String,
    /// `Observed:`.
    pub observed: String,
    /// `Disposition:`.
    pub disposition: Disposition,
    /// `Revised criterion:` (`none` when absent).
    pub revised: Option<String>,
    /// `Reason:`.
    pub reason: String,
    /// `Authority:`.
    pub authority: Authority,
    /// `Affected tasks:` (the task itself when empty).
    pub affects: Vec<u32>,
    /// `Evidence invalidated:` — gate commands (or log names) of the task.
    pub invalidates: Vec<String>,
    /// `Evidence preserved:`.
    pub preserves: Vec<String>,
    /// The SHA-256 of state.json as the caller last read it.
    pub expected_sha256: Option<String>,
    /// Show the change; write nothing.
    pub dry_run: bool,
    /// `--agent` / `--model`, for the reopen's `updated_by`.
    pub agent: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// The clock: the record's date, `updated_at`, the journal line.
    pub clock: Clock,
}

/// What `amend` did (or would do).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct AmendOutcome {
    /// `applied`, `unchanged` (recorded and applied already), or `ok` for a dry run.
    pub result: &'static str,
    /// The plan's name.
    pub plan: String,
    /// The task amended.
    pub task: u64,
    /// The amendment's number.
    pub amendment: u32,
    /// Its date.
    pub date: String,
    /// The files changed, in write order.
    pub files: Vec<String>,
    /// How many gate records were marked invalidated.
    pub invalidated_records: usize,
    /// The task was completed and is reopened (to `in_progress`).
    pub reopened: bool,
    /// The unified diff of every file (a dry run).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub diff: String,
    /// SHA-256 of state.json after the change.
    pub state_sha256: String,
    /// What the write could not confirm.
    #[serde(skip)]
    pub confirmation: Confirmation,
}

impl AmendOutcome {
    /// The text output.
    pub fn to_text(&self) -> String {
        if self.result == "unchanged" {
            return format!(
                "{}: Amendment {} of task {} ({}) is recorded and applied already; nothing written\n",
                self.plan, self.amendment, self.task, self.date
            );
        }
        let verb = if self.result == "ok" {
            "would record"
        } else {
            "recorded"
        };
        let mut out = format!(
            "{}: Amendment {} of task {} ({}) {verb} in {}",
            self.plan,
            self.amendment,
            self.task,
            self.date,
            self.files.join(", ")
        );
        if self.invalidated_records > 0 {
            out.push_str(&format!(
                "; {} gate record(s) marked invalidated",
                self.invalidated_records
            ));
        }
        if self.reopened {
            out.push_str(&format!("; task {} reopened (in_progress)", self.task));
        }
        out.push('\n');
        if self.result == "ok" {
            out.push_str(&self.diff);
            out.push_str("nothing written (--dry-run)\n");
        }
        out
    }
}

fn one_line(flag: &str, text: &str) -> Result<String, Refusal> {
    let t = text.trim();
    if t.is_empty() || t.contains(['\n', '\r']) || t.chars().count() > 1000 {
        return Err(Refusal::new(
            RefusalKind::UsageError,
            format!("{flag} must be one line of 1 to 1000 characters"),
        )
        .hint("each label of an amendment is one line"));
    }
    Ok(t.to_string())
}

fn disposition_text(d: Disposition) -> &'static str {
    match d {
        Disposition::RevisedCriterion => "revised criterion",
        Disposition::DeferredRequirement => "deferred requirement",
        Disposition::UnexecutedScenario => "unexecuted scenario",
        Disposition::FailedGate => "failed gate",
    }
}

fn authority_text(a: Authority) -> &'static str {
    match a {
        Authority::User => "user",
        Authority::Developer => "developer",
        Authority::Evidence => "evidence",
    }
}

fn listed(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Records and applies the amendment (see the module comment).
pub fn amend(req: AmendRequest) -> Result<AmendOutcome, OpError> {
    let mut clock = req.clock.clone();
    let criterion = one_line("--criterion", &req.criterion)?;
    let observed = one_line("--observed", &req.observed)?;
    let reason = one_line("--reason", &req.reason)?;
    let revised = match &req.revised {
        Some(r) => one_line("--revised", r)?,
        None => "none".into(),
    };
    for n in req.invalidates.iter().chain(&req.preserves) {
        one_line("--invalidates/--preserves", n)?;
    }
    let opened = OpenedPlan::open(
        &req.plan_dir,
        req.expected_sha256.as_deref(),
        "an amendment is applied to state.json: the plan has none",
    )?;
    let (plan_dir, plan, state_bytes) = (opened.dir, opened.name, opened.state_bytes);
    let read = |rel: &str| read_plan_file(&plan_dir, rel).map_err(WriteError::read);
    let parsed = parse_json(&state_bytes);
    let state = parsed.as_ref().map_err(|e| {
        Refusal::new(
            RefusalKind::StateUnreadable,
            format!("state.json: {e}; nothing was written"),
        )
        .hint(format!(
            "`planseal rebuild {}` restores it",
            plan_dir.display()
        ))
    })?;
    let tasks: Vec<Task> = state["tasks"]
        .as_array()
        .map(|t| {
            t.iter()
                .enumerate()
                .map(|(i, v)| Task::from_value(i, v))
                .collect()
        })
        .unwrap_or_default();
    let ids: Vec<u64> = tasks.iter().filter_map(|t| t.id).collect();
    let unknown = |n: u64| {
        Refusal::new(
            RefusalKind::UnknownTask,
            format!(
                "task {n} is not in {plan}; its tasks are {}",
                ids.iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .hint("name tasks of this plan")
    };
    let task = tasks
        .iter()
        .find(|t| t.id == Some(req.task))
        .cloned()
        .ok_or_else(|| unknown(req.task))?;
    let n = u32::try_from(req.task).unwrap_or(u32::MAX);
    let mut affects = if req.affects.is_empty() {
        vec![n]
    } else {
        req.affects.clone()
    };
    affects.dedup();
    for a in &affects {
        if !ids.contains(&u64::from(*a)) {
            return Err(unknown(u64::from(*a)).into());
        }
    }
    if req.disposition == Disposition::DeferredRequirement && !affects.iter().any(|a| *a != n) {
        return Err(Refusal::new(
            RefusalKind::UsageError,
            "a deferred requirement moves the criterion to another task: name it with --affects",
        )
        .hint(format!("e.g. --affects {n} --affects {}", n + 1))
        .into());
    }
    for name in &req.invalidates {
        let recorded = task
            .gates
            .iter()
            .any(|g| designates(name, g.command.as_deref().unwrap_or(""), g.evidence_text()));
        if !recorded {
            let commands: Vec<String> = task
                .gates
                .iter()
                .filter_map(|g| g.command.clone())
                .map(|c| format!("`{c}`"))
                .collect();
            return Err(Refusal::new(
                RefusalKind::GateNotRecorded,
                format!(
                    "--invalidates `{name}`: task {} has no gate record of that command or log; its gate commands are {}",
                    req.task,
                    if commands.is_empty() { "none".to_string() } else { commands.join(", ") }
                ),
            )
            .hint("name the gate by its exact command, or by the name of the log it cites")
            .into());
        }
    }

    // The task's record: where the amendment goes, and the number and date it takes.
    let record = TaskRecord::read(&plan_dir, &task, n)?;
    let body = TaskBody::new(&record.text);
    let amendments = body.amendments();
    let in_record: Vec<_> = amendments
        .iter()
        .filter(|a| a.line >= record.first && a.line <= record.last)
        .collect();
    let now = clock.now_iso();
    let date = now.get(..10).unwrap_or(&now).to_string();
    let affected = affects
        .iter()
        .map(|a| format!("Task {a}"))
        .collect::<Vec<_>>()
        .join(", ");
    let values: [String; 9] = [
        criterion.clone(),
        observed.clone(),
        disposition_text(req.disposition).to_string(),
        revised.clone(),
        reason.clone(),
        authority_text(req.authority).to_string(),
        affected.clone(),
        listed(&req.invalidates),
        listed(&req.preserves),
    ];
    // The same amendment as the task's last one, written today: a run cut short after the
    // record was appended. It is applied, not written again.
    let written_before = in_record.last().filter(|a| {
        a.date.map(|d| d.to_string()).as_deref() == Some(date.as_str())
            && a.values
                .iter()
                .zip(&values)
                .all(|(v, want)| v.as_deref().map(str::trim) == Some(want.as_str()))
    });
    let number = match written_before {
        Some(a) => a.number,
        None => in_record.iter().map(|a| a.number).max().unwrap_or(0) + 1,
    };
    if let Some(latest) = in_record.iter().filter_map(|a| a.date).max()
        && latest.to_string() > date
    {
        return Err(Refusal::new(
            RefusalKind::AmendmentBackdated,
            format!(
                "task {} already has an amendment dated {latest}, after today ({date}); an amendment is never backdated",
                req.task
            ),
        )
        .hint("check the machine's clock (or PLANSEAL_FAKE_NOW)")
        .into());
    }
    let has_log = crate::dwp::model::markdown::completion_log::completion_log_in_lines(
        &body
            .lines
            .iter()
            .copied()
            .filter(|l| l.number >= record.first && l.number <= record.last)
            .collect::<Vec<_>>(),
    )
    .is_some();
    if !has_log {
        return Err(Refusal::new(
            RefusalKind::TaskRecordMissing,
            format!(
                "task {}: its record in {} has no Completion & Log; amendments are appended to it",
                req.task, record.file
            ),
        )
        .hint("add the task's `Completion & Log` section (Status: pending), then run amend again")
        .into());
    }
    let mut block = format!("### Amendment {number} — {date}\n\n");
    for (label, value) in AMENDMENT_LABELS.iter().zip(&values) {
        block.push_str(&format!("{label}: {value}\n"));
    }
    let mut record_after = if written_before.is_some() {
        record.text.clone()
    } else {
        append_to_record(&record.text, record.last, &block)
    };
    // A reopened task is open in the README too — its box unticked, `Plan Status` recounted —
    // before state.json says so: both the DWP checker and `verify` read a ticked box on an
    // open task as a contradiction. A Lite record lives in the README itself.
    let reopened = task.is_completed();
    let untick = |text: &str| {
        untick_task(text, n).map_err(|e| {
            Refusal::new(RefusalKind::ReadmeIndexMissing, format!("{e}; nothing was written"))
                .hint("the README needs its task list (`- [x] Task N: …`) and a `Plan Status: X/N completed` line")
        })
    };
    let mut readme = None;
    if reopened && record.file == layout::README_FILE {
        record_after = untick(&record_after)?;
    } else if reopened {
        let before = read(layout::README_FILE)?.unwrap_or_default();
        let text = std::str::from_utf8(&before).map_err(|_| {
            Refusal::new(
                RefusalKind::NotUtf8,
                "README.md is not UTF-8 text; nothing was written",
            )
        })?;
        let after = untick(text)?.into_bytes();
        readme = Some((before, after));
    }
    let progress_before = read(layout::PROGRESS_FILE)?;
    let entry = ReconciliationEntry {
        date: date.clone(),
        summary: format!(
            "Amendment {number} of Task {}: {} — {reason} (authority: {})",
            req.task,
            disposition_text(req.disposition),
            authority_text(req.authority)
        ),
        changes: vec![
            format!("Affected tasks: {affected}"),
            format!("Evidence invalidated: {}", listed(&req.invalidates)),
        ],
    };
    let progress_text = String::from_utf8_lossy(progress_before.as_deref().unwrap_or_default());
    let progress_after = if progress_text.contains(&entry.summary) {
        progress_text.as_bytes().to_vec()
    } else {
        append_dated_entry(progress_text.as_bytes(), "Amendment", &entry)
    };

    // state.json: reopen a completed task (the reopen marks the records), or mark them here.
    let logged = LoggedAmendment {
        number,
        date: date.clone(),
        by_user: req.authority == Authority::User,
        reason: reason.clone(),
        affected: affects.clone(),
        invalidated: req.invalidates.clone(),
    };
    let mut journal;
    let (state_after, marked) = if reopened {
        let mut facts = read_plan_facts_of(
            &plan_dir,
            Some(state),
            i64::try_from(req.task).unwrap_or(-1),
        )
        .map_err(WriteError::read)?;
        match facts.amendments.iter_mut().find(|(t, _)| *t == req.task) {
            Some((_, list)) => list.push(logged.clone()),
            None => facts.amendments.push((req.task, vec![logged.clone()])),
        }
        let mut request = UpdateRequest::new(
            i64::try_from(req.task).unwrap_or(i64::MAX),
            TaskStatus::InProgress,
        );
        request.reopen_reason = Some(format!("Amendment {number}: {reason}"));
        request.agent = req.agent.clone();
        request.model = req.model.clone();
        let t = plan_transition_parsed(&state_bytes, parsed.clone(), &request, &facts, &mut clock)?;
        let marked = count_marks(&t.candidate, req.task, number);
        journal = t.journal_entry(&request, &plan);
        (t.candidate_bytes, marked)
    } else {
        let mut value = state.clone();
        let marked = match value["tasks"]
            .as_array_mut()
            .and_then(|list| list.iter_mut().find(|t| t["id"].as_u64() == Some(req.task)))
            .and_then(|t| t.get_mut("gates"))
            .and_then(Value::as_array_mut)
        {
            Some(gates) => mark_invalidated(gates, req.task, &logged)?,
            None => 0,
        };
        if marked == 0 {
            journal = JournalEntry::for_plan(now.clone(), "amend", &plan);
            (state_bytes.clone(), 0)
        } else {
            value["updated_at"] = now.clone().into();
            let bytes = to_python_pretty(&value);
            let status = task.status.map_or("?", |s| s.as_str());
            journal = JournalEntry::for_plan(now.clone(), "amend", &plan)
                .transition(Some(req.task), status.into(), status.into())
                .with("applied", applied_content(state, &value, req.task));
            (bytes, marked)
        }
    };
    journal.operation = "amend".into();
    journal = journal
        .with("amendment", number)
        .with("invalidated_records", marked)
        .hashes(
            Some(sha256_hex(&state_bytes)),
            Some(sha256_hex(&state_after)),
        );

    let mut files = Vec::new();
    let mut diff = String::new();
    let mut show = |name: &str, before: &[u8], after: &[u8]| {
        if before != after {
            files.push(name.to_string());
            diff.push_str(&unified_diff(
                &String::from_utf8_lossy(before),
                &String::from_utf8_lossy(after),
                name,
            ));
        }
    };
    show(
        &record.file,
        record.text.as_bytes(),
        record_after.as_bytes(),
    );
    if let Some((before, after)) = &readme {
        show(layout::README_FILE, before, after);
    }
    show(
        layout::PROGRESS_FILE,
        progress_before.as_deref().unwrap_or_default(),
        &progress_after,
    );
    show(layout::STATE_FILE, &state_bytes, &state_after);
    let mut outcome = AmendOutcome {
        result: "ok",
        plan: plan.clone(),
        task: req.task,
        amendment: number,
        date,
        files,
        invalidated_records: marked,
        reopened,
        diff,
        state_sha256: sha256_hex(&state_after),
        confirmation: Confirmation::Confirmed,
    };
    if outcome.files.is_empty() {
        // Recorded and applied already (the same amendment, today).
        outcome.result = "unchanged";
        return Ok(outcome);
    }
    if req.dry_run {
        return Ok(outcome);
    }
    let target = layout::state_target(&plan_dir);
    let tx = Writer::from_env().begin(&target, "amend", &now)?;
    let state_path = layout::state_path(&plan_dir);
    let record_path = plan_dir.join(&record.file);
    let progress_path = plan_dir.join(layout::PROGRESS_FILE);
    tx.expect_unchanged(&state_path, Some(&state_bytes))?;
    tx.expect_unchanged(&record_path, Some(record.text.as_bytes()))?;
    tx.expect_unchanged(&progress_path, progress_before.as_deref())?;
    let readme_path = plan_dir.join(layout::README_FILE);
    if let Some((before, _)) = &readme {
        tx.expect_unchanged(&readme_path, Some(before))?;
    }
    target.check_writable(&[])?;
    // The task's log first, then the README, PROGRESS.md, state.json last.
    tx.replace(&record_path, record_after.as_bytes())?;
    tx.step("amend.after_record");
    if let Some((before, after)) = &readme
        && before != after
    {
        tx.replace(&readme_path, after)?;
        tx.step("amend.after_readme");
    }
    tx.replace(&progress_path, &progress_after)?;
    tx.step("amend.after_progress");
    if state_after != state_bytes {
        tx.replace(&state_path, &state_after)?;
    }
    if plan_dir.join(layout::RESULTS_DIR).is_dir() {
        tx.journal_applied(&journal);
    }
    outcome.confirmation = tx.close();
    outcome.result = "applied";
    Ok(outcome)
}

/// How many of the task's records in `candidate` carry the mark of amendment `number`.
fn count_marks(candidate: &Value, task: u64, number: u32) -> usize {
    let mark = crate::dwp::decide::amendment::mark_of(number);
    candidate["tasks"]
        .as_array()
        .and_then(|list| list.iter().find(|t| t["id"].as_u64() == Some(task)))
        .and_then(|t| t["gates"].as_array())
        .map(|gates| {
            gates
                .iter()
                .filter(|g| g["evidence"].as_str().is_some_and(|e| e.starts_with(&mark)))
                .count()
        })
        .unwrap_or(0)
}

/// The file holding a task's record, and the record's lines in it.
struct TaskRecord {
    /// Plan-relative name: the task file, or README.md for an inline record.
    file: String,
    text: String,
    /// First and last line of the record (1-based).
    first: usize,
    last: usize,
}

impl TaskRecord {
    fn read(plan_dir: &Path, task: &Task, n: u32) -> Result<TaskRecord, OpError> {
        let file = task
            .artifact_file()
            .unwrap_or(layout::README_FILE)
            .to_string();
        let bytes = read_plan_file(plan_dir, &file)
            .map_err(WriteError::read)?
            .ok_or_else(|| {
                Refusal::new(
                    RefusalKind::TaskRecordMissing,
                    format!("{file}: the file of task {n}'s record is missing"),
                )
                .hint("restore it, then run amend again")
            })?;
        let text = String::from_utf8(bytes).map_err(|_| {
            Refusal::new(
                RefusalKind::NotUtf8,
                format!("{file} is not UTF-8 text; nothing was written"),
            )
        })?;
        if task.artifact_file().is_some() {
            let last = text.lines().count().max(1);
            return Ok(TaskRecord {
                file,
                text,
                first: 1,
                last,
            });
        }
        let (first, last) = {
            let readme = parse_readme(&text);
            let record = readme.inline.record(n).ok_or_else(|| {
                Refusal::new(
                    RefusalKind::TaskRecordMissing,
                    format!("README.md has no inline record `{{#task-{n}}}` for task {n}"),
                )
                .hint("add the task's record to the README, then run amend again")
            })?;
            let first = record.heading_line;
            (first, record.body.lines.last().map_or(first, |l| l.number))
        };
        Ok(TaskRecord {
            file,
            text,
            first,
            last,
        })
    }
}

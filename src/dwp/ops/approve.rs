//! `planseal approve PLAN --by NAME [--pre REASON]`: the user's approval of a plan's proposal,
//! written where the plan's rules read it — state.json `approval` and the README `Approval:`
//! line — with the approver named in a dated PROGRESS.md entry and the journal line, never in
//! state.json (docs/approve.md).
//!
//! The files change in the completion order every DWP writer keeps — markdown first, state.json
//! last — under state.json's lock, so a crash in between leaves the README saying more than the
//! state, never the state more than the README; running the same command again finishes it.

use crate::clock::Clock;
use crate::dwp::layout;
use crate::dwp::model::STATE_SCHEMA_V1;
use crate::dwp::model::markdown::{
    ApprovalValue, DeclSource, Declared, ReconciliationEntry, append_dated_entry, parse_readme,
};
use crate::dwp::ops::{OpError, OpenedPlan};
use crate::dwp::read::read_plan_file;
use crate::jsonfmt::{JsonStyle, to_bytes};
use crate::recovery::hash::sha256_hex;
use crate::report::text::unified_diff;
use crate::report::{Refusal, RefusalKind};
use crate::write::{Confirmation, JournalEntry, WriteError, Writer};
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;

/// What `approve` is asked.
#[derive(Debug, Clone)]
pub struct ApproveRequest {
    /// The plan folder (absolute, or relative to the working folder already joined).
    pub plan_dir: PathBuf,
    /// Who approves (journal and PROGRESS.md only).
    pub by: String,
    /// `Some(reason)`: pre-approval (`pre_approved`, README `pre-approved (reason)`).
    pub pre: Option<String>,
    /// The SHA-256 of state.json as the caller last read it (compare-and-swap).
    pub expected_sha256: Option<String>,
    /// Decide and show the change; write nothing.
    pub dry_run: bool,
    /// The clock for `updated_at`, the PROGRESS date and the journal line.
    pub clock: Clock,
}

/// What `approve` did (or, with `--dry-run`, would do).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ApproveOutcome {
    /// `applied` (written), `unchanged` (already so) or `ok` (a dry run).
    pub result: &'static str,
    /// The plan's name.
    pub plan: String,
    /// `approved` or `pre_approved`.
    pub approval: &'static str,
    /// The approval before (`pending` when neither state.json nor the README said).
    pub previous: String,
    /// Whether anything changed (false: already so — nothing written).
    pub changed: bool,
    /// Whether the files were written (false on a dry run and when nothing changed).
    pub written: bool,
    /// The files the change touches, in write order.
    pub files: Vec<String>,
    /// The unified diff of every file (empty when nothing changes).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub diff: String,
    /// SHA-256 of state.json after the change.
    pub state_sha256: String,
    /// What the write could not confirm.
    #[serde(skip)]
    pub confirmation: Confirmation,
}

impl ApproveOutcome {
    /// The text output.
    pub fn to_text(&self) -> String {
        if !self.changed {
            return format!(
                "{}: already {}; nothing written\n",
                self.plan, self.approval
            );
        }
        let verb = if self.written { "set" } else { "would set" };
        let mut out = format!(
            "{}: approval {verb} {} → {} ({})\n",
            self.plan,
            self.previous,
            self.approval,
            self.files.join(", ")
        );
        if !self.written {
            out.push_str(&self.diff);
            out.push_str("nothing written (--dry-run)\n");
        }
        out
    }
}

/// Sets the plan's approval (see the module comment).
pub fn approve(req: ApproveRequest) -> Result<ApproveOutcome, OpError> {
    let mut clock = req.clock.clone();
    check_text("--by", &req.by)?;
    if let Some(reason) = &req.pre {
        check_text("--pre", reason)?;
    }
    let opened = OpenedPlan::open(
        &req.plan_dir,
        req.expected_sha256.as_deref(),
        "approval is recorded in state.json: materialize the plan first",
    )?;
    let (plan_dir, plan, state_bytes) = (opened.dir, opened.name, opened.state_bytes);
    let read = |rel: &str| read_plan_file(&plan_dir, rel).map_err(WriteError::read);
    let mut state: Value = serde_json::from_slice(&state_bytes).map_err(|e| {
        Refusal::new(
            RefusalKind::StateUnparseable,
            format!("state.json: {e}; nothing was written"),
        )
        .hint(format!(
            "`planseal rebuild {}` restores it",
            plan_dir.display()
        ))
    })?;
    let readme_bytes = read(layout::README_FILE)?.ok_or_else(|| {
        Refusal::new(
            RefusalKind::FileNotFound,
            format!("{}: no README.md", plan_dir.display()),
        )
    })?;
    let readme_text = String::from_utf8(readme_bytes.clone()).map_err(|_| {
        Refusal::new(
            RefusalKind::NotUtf8,
            "README.md is not UTF-8; nothing was written",
        )
    })?;
    let (approval, readme_value) = match &req.pre {
        None => ("approved", "approved".to_string()),
        Some(reason) => ("pre_approved", format!("pre-approved ({reason})")),
    };
    let declared = parse_readme(&readme_text).approval;
    let previous = match state.get("approval").and_then(Value::as_str) {
        Some(v) => v.to_string(),
        None => declared
            .as_ref()
            .and_then(|d| d.value.as_state_str())
            .unwrap_or("pending")
            .to_string(),
    };
    let unchanged = |previous: String| ApproveOutcome {
        result: "unchanged",
        plan: plan.clone(),
        approval,
        previous,
        changed: false,
        written: false,
        files: Vec::new(),
        diff: String::new(),
        state_sha256: sha256_hex(&state_bytes),
        confirmation: Confirmation::Confirmed,
    };
    // v1 states have no approval: they are approved by definition.
    if state.get("schema").and_then(Value::as_str) == Some(STATE_SCHEMA_V1) {
        return Ok(unchanged("approved".into()));
    }
    if state.get("status").and_then(Value::as_str) == Some("completed") {
        return Err(Refusal::new(
            RefusalKind::PlanCompleted,
            format!("{plan} is completed and published; its approval is part of the sealed record"),
        )
        .hint("a published plan is not approved again; start a new plan for new work")
        .into());
    }
    let readme_says = declared.as_ref().map(|d| &d.value);
    let readme_agrees = match readme_says {
        Some(ApprovalValue::Approved) => req.pre.is_none(),
        Some(ApprovalValue::PreApproved) => {
            declared.as_ref().is_some_and(|d| d.raw == readme_value)
        }
        _ => false,
    };
    if previous == approval && readme_agrees {
        return Ok(unchanged(previous));
    }

    let now = clock.now_iso();
    let date = now.get(..10).unwrap_or(&now).to_string();
    let readme_after = set_readme_approval(&readme_text, declared.as_ref(), &readme_value)?;
    let progress_before = read(layout::PROGRESS_FILE)?;
    let reason = req
        .pre
        .as_ref()
        .map(|r| format!(" before review: {r}"))
        .unwrap_or_default();
    let entry = ReconciliationEntry {
        date,
        summary: format!(
            "Plan {approval} by {}{reason} (recorded by planseal approve)",
            req.by
        ),
        changes: vec![format!("approval: {previous} → {approval}")],
    };
    let progress_after = append_dated_entry(
        progress_before.as_deref().unwrap_or_default(),
        "Approval",
        &entry,
    );
    set_approval(&mut state, approval, &now);
    let state_after = to_bytes(&state, &JsonStyle::detect(&state_bytes));

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
    show(layout::README_FILE, &readme_bytes, readme_after.as_bytes());
    show(
        layout::PROGRESS_FILE,
        progress_before.as_deref().unwrap_or_default(),
        &progress_after,
    );
    show(layout::STATE_FILE, &state_bytes, &state_after);
    let mut outcome = ApproveOutcome {
        result: "ok",
        plan: plan.clone(),
        approval,
        previous: previous.clone(),
        changed: true,
        written: false,
        files,
        diff,
        state_sha256: sha256_hex(&state_after),
        confirmation: Confirmation::Confirmed,
    };
    if req.dry_run {
        return Ok(outcome);
    }

    let target = layout::state_target(&plan_dir);
    let state_path = layout::state_path(&plan_dir);
    let readme_path = plan_dir.join(layout::README_FILE);
    let progress_path = plan_dir.join(layout::PROGRESS_FILE);
    let tx = Writer::from_env().begin(&target, "approve", &now)?;
    tx.expect_unchanged(&state_path, Some(&state_bytes))?;
    tx.expect_unchanged(&readme_path, Some(&readme_bytes))?;
    tx.expect_unchanged(&progress_path, progress_before.as_deref())?;
    target.check_writable(&[])?;
    // Markdown first, state.json last: after a crash the state is stale, never ahead.
    if readme_after.as_bytes() != readme_bytes {
        tx.replace(&readme_path, readme_after.as_bytes())?;
        tx.step("approve.after_readme");
    }
    tx.replace(&progress_path, &progress_after)?;
    tx.step("approve.after_progress");
    tx.replace(&state_path, &state_after)?;
    if plan_dir.join(layout::RESULTS_DIR).is_dir() {
        let line = JournalEntry::for_plan(now.clone(), "approve", &plan)
            .transition(None, previous.into(), approval.into())
            .reason(req.pre.clone())
            .hashes(
                Some(sha256_hex(&state_bytes)),
                Some(outcome.state_sha256.clone()),
            )
            .with("approved_by", req.by.clone());
        tx.journal_applied(&line);
    }
    outcome.confirmation = tx.close();
    outcome.written = true;
    outcome.result = "applied";
    Ok(outcome)
}

/// A flag's text: one line, not empty, at most 200 characters.
fn check_text(flag: &str, text: &str) -> Result<(), Refusal> {
    let t = text.trim();
    if t.is_empty() || t.contains(['\n', '\r']) || t.chars().count() > 200 {
        return Err(Refusal::new(
            RefusalKind::UsageError,
            format!("{flag} must be one line of 1 to 200 characters"),
        )
        .hint(format!("e.g. {flag} \"Ana Lima\"")));
    }
    Ok(())
}

/// `approval` (inserted after `materialization`, or before `tasks`, when absent) and
/// `updated_at`.
fn set_approval(state: &mut Value, approval: &str, now: &str) {
    let Some(map) = state.as_object_mut() else {
        return;
    };
    if let Some(v) = map.get_mut("approval") {
        *v = approval.into();
    } else {
        let index_of = |key: &str| map.keys().position(|k| k == key);
        let at = index_of("materialization")
            .map(|i| i + 1)
            .or_else(|| index_of("tasks"))
            .unwrap_or(map.len());
        map.shift_insert(at, "approval".into(), approval.into());
    }
    if let Some(v) = map.get_mut("updated_at") {
        *v = now.into();
    }
}

/// The README with its `Approval:` declaration saying `value`: the value of the existing line or
/// table row replaced in place (the rest of the line kept), or — when there is none — a line
/// `Approval: value` after the `Materialization:` / `Plan Format:` line (else the title).
fn set_readme_approval(
    text: &str,
    declared: Option<&Declared<ApprovalValue>>,
    value: &str,
) -> Result<String, Refusal> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    if let Some(d) = declared {
        let idx = d.line - 1;
        let line = lines.get(idx).copied().unwrap_or_default();
        let body = line.trim_end_matches(['\n', '\r']);
        let ending = &line[body.len()..];
        let new_body = match (d.raw.is_empty(), body.rfind(d.raw.as_str())) {
            (false, Some(at)) => format!("{}{value}{}", &body[..at], &body[at + d.raw.len()..]),
            (true, _) if d.source == DeclSource::Line => format!("{} {value}", body.trim_end()),
            _ => {
                return Err(Refusal::new(
                    RefusalKind::UsageError,
                    format!(
                        "README.md line {}: the Approval value cannot be located",
                        d.line
                    ),
                )
                .hint("write the line as `Approval: pending`, then run approve again"));
            }
        };
        let mut out: String = lines[..idx].concat();
        out.push_str(&new_body);
        out.push_str(ending);
        out.push_str(&lines[idx + 1..].concat());
        return Ok(out);
    }
    let ending = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let anchor = ["Materialization:", "Plan Format:", "**Standard:**", "# "]
        .iter()
        .find_map(|label| {
            lines
                .iter()
                .position(|l| l.trim_start_matches(['-', ' ', '*']).starts_with(label))
        });
    let mut out = String::new();
    match anchor {
        Some(i) => {
            out.push_str(&lines[..=i].concat());
            if !out.ends_with('\n') {
                out.push_str(ending);
            }
            out.push_str(&format!("{ending}Approval: {value}{ending}"));
            out.push_str(&lines[i + 1..].concat());
        }
        None => {
            out.push_str(&format!("Approval: {value}{ending}{ending}"));
            out.push_str(text);
        }
    }
    Ok(out)
}

//! State semantics (derived fields, approval, blocker and checkpoint rules): pure functions over
//! the typed [`State`] and [`Manifest`] giving [`Finding`]s, plus the strict candidate validation
//! writers run before they write ([`validate_candidate`]).
//!
//! Findings (ids):
//! `task-ids-not-contiguous`, `task-count-mismatch`, `completed-count-mismatch`,
//! `status-incoherent`, `blocker-task-not-blocked`, `blocked-task-without-record` (strict only),
//! `checkpoint-task-missing`, `terminal-checkpoint-missing` (strict only),
//! `promotion-materialization-mismatch`, `completed-at-missing`, `duplicate-locator`,
//! `locator-id-mismatch`, `unknown-approval`, `created-by-secret`, `parent-plan-malformed`.
//!
//! ```
//! use planseal::dwp::model::{TaskStatus, PlanStatus};
//! use planseal::dwp::check::semantics::derive_status;
//! use TaskStatus::*;
//! assert_eq!(derive_status(&[Completed, Skipped], false), PlanStatus::InProgress);
//! assert_eq!(derive_status(&[Completed, Completed], false), PlanStatus::Completed);
//! assert_eq!(derive_status(&[Pending, Pending], true), PlanStatus::Blocked);
//! ```

pub use crate::dwp::model::{derive_status, derive_status_of};

use crate::dwp::check::gates::state_gate_findings;
use crate::dwp::layout;
use crate::dwp::model::schema::{shape_findings, validate_state_as};
use crate::dwp::model::{
    Approval, Era, LocatorKind, Manifest, Materialization, PlanFile, PlanStatus, State, TaskStatus,
    state_era,
};
use crate::report::{Finding, Severity};
use regex::Regex;
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;
use std::sync::LazyLock;

/// How strictly a state is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckMode {
    /// What is about to be written (a writer's candidate) and what `verify` reports: every rule,
    /// including "a blocked task needs a blocker record" and "a completed plan ends on the
    /// `done` checkpoint".
    Strict,
    /// A writer's input, the state *as read*: those two rules are left out, so that an update
    /// that repairs them is not refused.
    AsRead,
}

/// Where the effective approval came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalSource {
    /// The state's own `approval` field.
    State,
    /// v2/v5 state without `approval`: the README `Approval:` line.
    Readme,
    /// v2/v5 state without `approval` and no readable README line: `pending` (a v2/v5 plan is approved only when something says so;
    /// the helper would say approved).
    DefaultPending,
    /// v1 states have no approval and are treated as approved.
    LegacyImplied,
}

/// The approval that governs execution, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EffectiveApproval {
    /// The approval that applies; an unknown value counts as [`Approval::Pending`].
    pub approval: Approval,
    /// Which record it was taken from.
    pub source: ApprovalSource,
}

/// The approval that counts: v1 ⇒ approved; v2/v5 with `approval` ⇒ that; absent ⇒ the README line
/// (`approved`, `pending`, `pre-approved …`); neither ⇒ pending. An `approval` value that is
/// present but unknown does not approve (it reads as pending; see [`unknown_approval`]).
pub fn approval_effective(state: &State, readme_approval_line: Option<&str>) -> EffectiveApproval {
    if state.is_legacy() {
        return EffectiveApproval {
            approval: Approval::Approved,
            source: ApprovalSource::LegacyImplied,
        };
    }
    if state.approval_raw.is_some() {
        return EffectiveApproval {
            approval: state.approval.unwrap_or(Approval::Pending),
            source: ApprovalSource::State,
        };
    }
    match readme_approval_line.and_then(parse_readme_approval) {
        Some(approval) => EffectiveApproval {
            approval,
            source: ApprovalSource::Readme,
        },
        None => EffectiveApproval {
            approval: Approval::Pending,
            source: ApprovalSource::DefaultPending,
        },
    }
}

/// Reads the value of a README `Approval:` line (plain line or Plan Variables row):
/// `approved` → approved, `pending` → pending, `pre-approved (…)` → pre_approved. Case and
/// surrounding `*`/`` ` `` are ignored; anything else is `None`.
pub fn parse_readme_approval(text: &str) -> Option<Approval> {
    let t = text
        .trim()
        .trim_matches(|c: char| c == '*' || c == '`' || c.is_whitespace())
        .to_lowercase();
    let t = t.as_str();
    if [
        "pre-approved",
        "pre_approved",
        "preapproved",
        "pre approved",
    ]
    .iter()
    .any(|p| t.starts_with(p))
    {
        Some(Approval::PreApproved)
    } else if t.starts_with("approved") {
        Some(Approval::Approved)
    } else if t.starts_with("pending") {
        Some(Approval::Pending)
    } else {
        None
    }
}

/// Check 4 of `docs/verify.md`: a v2/v5 `approval` that is a string outside the enum.
pub fn unknown_approval(state: &State) -> Option<Finding> {
    let raw = state.approval_raw.as_deref()?;
    (state.approval.is_none() && !state.is_legacy()).then(|| {
        Finding::fail(
            "unknown-approval",
            format!(
                "state.json approval `{raw}` is not one of {}",
                Approval::choices()
            ),
        )
        .file(layout::STATE_FILE)
        .hint("set approval to approved, pre_approved or pending")
    })
}

/// Every semantic finding of a state (no gate rules: see [`crate::dwp::check::gates`]).
pub fn check_state(state: &State, mode: CheckMode) -> Vec<Finding> {
    let mut out = Vec::new();
    let file = |f: Finding| f.file(layout::STATE_FILE);

    // ids 1..n in order, n == task_count
    let n = state.tasks.len();
    let ids_ok = state
        .tasks
        .iter()
        .enumerate()
        .all(|(i, t)| t.id == Some(i as u64 + 1));
    if !ids_ok {
        let listed: Vec<String> = state
            .tasks
            .iter()
            .map(|t| t.id.map_or_else(|| "?".to_string(), |id| id.to_string()))
            .collect();
        out.push(file(
            Finding::fail(
                "task-ids-not-contiguous",
                format!(
                    "task ids must run 1..{n} in order, found [{}]",
                    abbreviate_list(&listed)
                ),
            )
            .hint("renumber the tasks (ids follow the task files / README index)"),
        ));
    }
    if let Some(count) = state.task_count
        && count != n as u64
    {
        out.push(file(
            Finding::fail(
                "task-count-mismatch",
                format!("task_count is {count} but tasks has {n} entries"),
            )
            .hint("task_count must equal the number of task entries"),
        ));
    }
    let completed = state.completed_tasks();
    if let Some(count) = state.completed_count
        && count != completed
    {
        out.push(file(
            Finding::fail(
                "completed-count-mismatch",
                format!("completed_count is {count} but {completed} task(s) are completed"),
            )
            .hint("completed_count must equal the number of completed tasks"),
        ));
    }
    let derived = state.derived_status();
    if let Some(status) = state.status
        && status != derived
    {
        out.push(file(
            Finding::fail(
                "status-incoherent",
                format!("plan status is `{status}` but the tasks and blocker give `{derived}`"),
            )
            .hint("status is derived: blocked > completed (all tasks) > in_progress > pending"),
        ));
    }

    // blocker record ↔ blocked tasks
    if let Some(blocker) = &state.blocked {
        match blocker.task.and_then(|id| state.task(id)) {
            Some(t) if t.status == Some(TaskStatus::Blocked) => {}
            Some(t) => out.push(file(
                Finding::fail(
                    "blocker-task-not-blocked",
                    format!(
                        "the blocker record names task {} whose status is `{}`, not blocked",
                        t.id.unwrap_or(0),
                        t.status_raw.as_deref().unwrap_or("?")
                    ),
                )
                .task(t.id.unwrap_or(0))
                .hint("resolve the blocker (--resolve-blocker) or block the task it names"),
            )),
            None => out.push(file(
                Finding::fail(
                    "blocker-task-not-blocked",
                    format!(
                        "the blocker record names task {}, which does not exist",
                        blocker.task.map_or("?".to_string(), |t| t.to_string())
                    ),
                )
                .hint("the blocker must name an existing blocked task"),
            )),
        }
    }
    if mode == CheckMode::Strict && state.blocked.is_none() {
        for t in state
            .tasks
            .iter()
            .filter(|t| t.status == Some(TaskStatus::Blocked))
        {
            let id = t.id.unwrap_or(t.index as u64 + 1);
            out.push(file(
                Finding::fail(
                    "blocked-task-without-record",
                    format!("task {id} is blocked but there is no blocker record"),
                )
                .task(id)
                .hint("block with --block-reason so the record says why and what it needs")
                .group("blocked-task-without-record"),
            ));
        }
    }

    // checkpoint
    if let Some(cp) = &state.checkpoint
        && let Some(task) = cp.task
        && state.task(task).is_none()
    {
        out.push(file(
            Finding::fail(
                "checkpoint-task-missing",
                format!("the checkpoint names task {task}, which does not exist"),
            )
            .hint("the checkpoint must name an existing task"),
        ));
    }
    let plan_completed =
        state.status == Some(PlanStatus::Completed) || (n > 0 && derived == PlanStatus::Completed);
    if mode == CheckMode::Strict && plan_completed {
        let last = state.tasks.last().and_then(|t| t.id);
        let terminal = state.checkpoint.as_ref().is_some_and(|cp| {
            cp.step.as_deref() == Some("done") && cp.task.is_some() && cp.task == last
        });
        if !terminal {
            out.push(file(
                Finding::fail(
                    "terminal-checkpoint-missing",
                    format!(
                        "a completed plan ends on the checkpoint {{task: {}, step: \"done\"}}",
                        last.map_or("<last id>".to_string(), |l| l.to_string())
                    ),
                )
                .hint("write checkpoint {task: <last id>, step: \"done\", at, note: \"Plan completed.\"}"),
            ));
        }
    }

    // current-era fields
    if state.era.is_some_and(Era::is_current) {
        let promoting = state.materialization == Some(Materialization::Promoting);
        if promoting != state.promotion.is_some() {
            let msg = if promoting {
                "materialization is `promoting` but there is no promotion record".to_string()
            } else {
                format!(
                    "a promotion record is present but materialization is `{}`",
                    state.materialization.map_or("?", |m| m.as_str())
                )
            };
            out.push(file(
                Finding::fail("promotion-materialization-mismatch", msg)
                    .hint("a promotion object exists exactly while materialization is `promoting`"),
            ));
        }
        let mut seen: HashSet<&str> = HashSet::with_capacity(n);
        for t in &state.tasks {
            let Some(loc) = &t.locator else { continue };
            let Some(value) = loc.value.as_deref() else {
                continue;
            };
            let id = t.id.unwrap_or(t.index as u64 + 1);
            if !seen.insert(value) {
                out.push(file(
                    Finding::fail(
                        "duplicate-locator",
                        format!("task {id}: locator `{value}` is used by an earlier task too"),
                    )
                    .task(id)
                    .group("duplicate-locator"),
                ));
            }
            if let (Some(kind), Some(tid)) = (loc.kind, t.id) {
                let agrees = match kind {
                    LocatorKind::Inline => value == format!("#task-{tid}"),
                    LocatorKind::File => value.starts_with(&format!("{tid}.task_")),
                };
                if !agrees {
                    out.push(file(
                        Finding::fail(
                            "locator-id-mismatch",
                            format!("task {tid}: locator `{value}` does not name task {tid}"),
                        )
                        .task(tid)
                        .hint(match kind {
                            LocatorKind::Inline => format!("use `#task-{tid}`"),
                            LocatorKind::File => format!("the file name starts with `{tid}.task_`"),
                        })
                        .group("locator-id-mismatch"),
                    ));
                }
            }
        }
        if let Some(f) = unknown_approval(state) {
            out.push(f);
        }
    }

    // per task
    for t in &state.tasks {
        if t.is_completed() && t.completed_at.is_none() {
            let id = t.id.unwrap_or(t.index as u64 + 1);
            out.push(file(
                Finding::fail(
                    "completed-at-missing",
                    format!("task {id} is completed but has no completed_at"),
                )
                .task(id)
                .hint("a completed task records when it was completed")
                .group("completed-at-missing"),
            ));
        }
    }
    out
}

fn abbreviate_list(items: &[String]) -> String {
    if items.len() <= 12 {
        items.join(", ")
    } else {
        format!("{}, … ({} more)", items[..10].join(", "), items.len() - 10)
    }
}

static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}")
        .expect("static pattern is valid")
});
static TOKEN_PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\b(sk-[A-Za-z0-9_\-]{8,}",
        r"|gh[pousr]_[A-Za-z0-9]{8,}",
        r"|github_pat_[A-Za-z0-9_]{8,}",
        r"|xox[abprs]-[A-Za-z0-9\-]{8,}",
        r"|AKIA[0-9A-Z]{12,}",
        r"|glpat-[A-Za-z0-9_\-]{8,})"
    ))
    .expect("static pattern is valid")
});
static LONG_RUN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9+/=_]{24,}").expect("static pattern is valid"));

/// Why a display name looks like it holds a secret or an identifier, if it does. The reason
/// never repeats the value.
pub fn token_shape(text: &str) -> Option<&'static str> {
    if TOKEN_PREFIX.is_match(text) {
        return Some("an access-token prefix (sk-, ghp_, github_pat_, xox…, AKIA…, glpat-)");
    }
    if EMAIL.is_match(text) {
        return Some("an e-mail address");
    }
    // Long unbroken runs with letters and digits and high entropy: keys, not model names
    // (model names are broken up by `-` and `.`).
    for m in LONG_RUN.find_iter(text) {
        let run = m.as_str();
        let has_digit = run.bytes().any(|b| b.is_ascii_digit());
        let has_alpha = run.bytes().any(|b| b.is_ascii_alphabetic());
        // hex keys have at most 4 bits per character, so a long hex run counts on its own
        let long_hex = run.len() >= 32 && run.bytes().all(|b| b.is_ascii_hexdigit());
        let entropy = shannon_entropy(run);
        if has_digit && has_alpha && (entropy >= 3.5 || (long_hex && entropy >= 3.0)) {
            return Some("a long high-entropy string");
        }
    }
    None
}

/// The Shannon entropy of the bytes of `s`, in bits per byte: Σ p·log₂(1/p) over the byte
/// values, with p = count / length, computed as Σ (count / length)·(log₂ length − log₂ count).
fn shannon_entropy(s: &str) -> f64 {
    let mut counts = [0usize; 256];
    for b in s.bytes() {
        counts[b as usize] += 1;
    }
    let len = s.len() as f64;
    let log_len = log2_of_count(s.len());
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| c as f64 / len * (log_len - log2_of_count(c)))
        .sum()
}

/// log₂ of a positive count, exact for powers of two. Computed here rather than through the C
/// math library, which the binary would otherwise load at every start for this one function:
/// n = 2^e · m with m in [1, 2), and ln m = 2·atanh((m − 1)/(m + 1)) by its series, whose terms
/// shrink ninefold each (|z| < 1/3): after 24 of them what is left is far below an f64's
/// precision, and the sums round within a few units of its last place (tested).
fn log2_of_count(n: usize) -> f64 {
    if n == 0 {
        return f64::NEG_INFINITY;
    }
    let e = usize::BITS - 1 - n.leading_zeros();
    let m = n as f64 / (1u64 << e) as f64;
    let z = (m - 1.0) / (m + 1.0);
    let z2 = z * z;
    let mut term = z;
    let mut sum = 0.0;
    for k in 0..24 {
        sum += term / f64::from(2 * k + 1);
        term *= z2;
    }
    f64::from(e) + 2.0 * sum / std::f64::consts::LN_2
}

static PARENT_PLAN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[^:\s/\\][^:\s]*:PLAN_[a-z0-9_]+$").expect("static pattern is valid")
});

/// Manifest rules beyond its shape: `created_by` holds no secret or identifier, and
/// `parent_plan` has the form `<repo>:<plan>`.
pub fn check_manifest(manifest: &Manifest) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(by) = &manifest.created_by {
        for (field, value) in [("agent", &by.agent), ("model", &by.model)] {
            if let Some(reason) = value.as_deref().and_then(token_shape) {
                out.push(
                    Finding::fail(
                        "created-by-secret",
                        format!(
                            "manifest.json created_by.{field} holds something token-shaped ({reason}); \
                             it may carry only a display name"
                        ),
                    )
                    .file(layout::MANIFEST_FILE)
                    .hint("replace it with the agent / model display name and revoke the secret if it was real"),
                );
            }
        }
    }
    if let Some(parent) = &manifest.parent_plan
        && !PARENT_PLAN.is_match(parent)
    {
        out.push(
            Finding::fail(
                "parent-plan-malformed",
                format!(
                    "manifest.json parent_plan `{parent}` is not of the form `<repo>:PLAN_<name>`"
                ),
            )
            .file(layout::MANIFEST_FILE)
            .hint("write parent_plan as \"<repo>:PLAN_<name>\" or null"),
        );
    }
    out
}

/// The strict validation a writer runs on the state it is about to write: supported schema,
/// closed shape, semantics in [`CheckMode::Strict`], and the gate rules with log pointers
/// resolved against `plan_dir`. Only failures are returned (a non-ISO timestamp is not one).
/// An empty list means the candidate may be written.
pub fn validate_candidate(value: &Value, plan_dir: &Path) -> Vec<Finding> {
    let era = match state_era(value) {
        Ok(era) => era,
        Err(e) => return vec![e.finding()],
    };
    let issues = validate_state_as(value, era);
    let mut out: Vec<Finding> = shape_findings(&issues, PlanFile::State)
        .into_iter()
        .filter(|f| f.severity == Severity::Fail)
        .collect();
    let state = State::from_value(value);
    out.extend(check_state(&state, CheckMode::Strict));
    out.extend(state_gate_findings(&state, Some(plan_dir)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_of_a_count_is_exact_for_powers_of_two_and_close_to_the_real_one_elsewhere() {
        for e in 0..40u32 {
            assert_eq!(log2_of_count(1usize << e), f64::from(e));
        }
        for n in (1..5000usize).chain([12_345_678, 987_654_321]) {
            let known = (n as f64).log2();
            assert!(
                (log2_of_count(n) - known).abs() <= 4.0 * f64::EPSILON * known.max(1.0),
                "{n}"
            );
        }
    }

    #[test]
    fn token_shapes() {
        for bad in [
            "sk-abcdefghijklmnop1234",
            "agent ghp_ABCDEFGHijklmnop1234",
            "ana@example.com",
            "Ana <ana.silva@corp.example.org>",
            "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg",
            "d41d8cd98f00b204e9800998ecf8427e",
        ] {
            assert!(token_shape(bad).is_some(), "{bad}");
        }
        for fine in [
            "claude-code",
            "planrunner",
            "example-model-1",
            "claude-3-5-sonnet-20241022",
            "gpt-4o-2024-08-06",
            "Ana Silva",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1",
            "sk-short",
        ] {
            assert!(token_shape(fine).is_none(), "{fine}");
        }
    }

    #[test]
    fn readme_approval_values() {
        assert_eq!(parse_readme_approval("approved"), Some(Approval::Approved));
        assert_eq!(
            parse_readme_approval(" **Approved** "),
            Some(Approval::Approved)
        );
        assert_eq!(
            parse_readme_approval("pre-approved (user, 2026-10-01)"),
            Some(Approval::PreApproved)
        );
        assert_eq!(parse_readme_approval("`pending`"), Some(Approval::Pending));
        assert_eq!(parse_readme_approval("maybe"), None);
    }
}

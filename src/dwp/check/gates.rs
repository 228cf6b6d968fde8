//! Gate records and evidence truth: what a recorded validation run may and may not claim.
//!
//! - [`latest_per_command`]: evaluation uses the latest record of each distinct command;
//! - [`is_identical_replay`] / [`replays_latest`]: a record equal except `last_run` is not
//!   appended again;
//! - [`completion_problems`]: the rule a task must meet to be marked completed;
//! - [`task_gate_findings`] / [`state_gate_findings`]: the findings that make a state invalid
//!   (zero selection, admitted non-execution, evidence invalidated by refine, log pointers that
//!   leave the plan or dangle, a completed task whose latest record of a command failed, records
//!   without a boolean `passes`);
//! - [`parse_gate_spec`]: the `--gate "command|exit_code|evidence"` argument.
//!
//! The text rules are pure ([`is_zero_selection`], [`admits_non_execution`], [`is_invalidated`],
//! [`log_pointers`]); only [`check_log_pointer`] touches the file system. These rules assert what
//! the records say; nothing here runs a stored gate command.
//!
//! ```
//! use planseal::dwp::check::gates::{is_zero_selection, admits_non_execution, log_pointers};
//! assert!(is_zero_selection("scope=unit; overran=0"));
//! assert!(!is_zero_selection("Ran 0 tests"));
//! assert!(admits_non_execution("the suite cannot run here"));
//! assert_eq!(log_pointers("ran=3/3; log=analysis_results/gates/t1.log; LOG=x"), ["analysis_results/gates/t1.log"]);
//! ```

use crate::dwp::model::{GateRecord, State, Task, TaskStatus};
pub use crate::dwp::read::{PlanDir, Resolved};
use crate::report::{Finding, RefusalKind};
use planseal_recovery::paths::{PathError, check_relative};
use regex::Regex;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;

// Python's `\s` on text also matches U+001C..U+001F, which Unicode White_Space does not include;
// the helper's patterns run on Python, so ours add them to stay equivalent.
static ZERO_SELECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(ran|selected|executed)[\s\x1C-\x1F]*=[\s\x1C-\x1F]*0(?:\b|/)|no tests? (ran|found|collected)",
    )
    .expect("static pattern is valid")
});

static NON_EXECUTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)(?:never|not)[\s\x1C-\x1F]+(?:ran|run|entered|executed|performed)",
        r"|did[\s\x1C-\x1F]+not[\s\x1C-\x1F]+(?:run|enter|execute|perform)",
        r"|structurally[\s\x1C-\x1F]+impossible",
        r"|cannot[\s\x1C-\x1F]+be[\s\x1C-\x1F]+(?:run|executed|measured|verified)",
        r"|\bunexecuted\b",
    ))
    .expect("static pattern is valid")
});

static LOG_POINTER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\blog=([^\s\x1C-\x1F;]+)").expect("static pattern is valid"));

/// The prefix refine stamps on evidence it invalidates (compared trimmed and lower-cased).
pub const INVALIDATED_PREFIX: &str = "invalidated by refine";

/// Evidence shows an empty selection (`ran=0`, `selected = 0/…`, "no tests ran").
pub fn is_zero_selection(evidence: &str) -> bool {
    may_be_zero_selection(evidence) && ZERO_SELECTION.is_match(evidence)
}

/// Evidence concedes that the check did not execute ("not run", "cannot be verified", …).
pub fn admits_non_execution(evidence: &str) -> bool {
    may_admit_non_execution(evidence) && NON_EXECUTION.is_match(evidence)
}

// Cheap necessary conditions, checked before a pattern is compiled or run, so that ordinary
// evidence (`ran=3/3; log=…`) never pays for the regexes. Each is a superset of the pattern's
// matches (property-tested below). Under `(?i)` the only non-ASCII characters that match an
// ASCII letter are U+017F (ſ ~ s) and U+212A (K ~ k); the literals searched here avoid `s` and
// `k`, so an ASCII case-insensitive search is exact for them.

/// ASCII case-insensitive substring search.
fn contains_ignore_ascii_case(haystack: &str, needle: &str) -> bool {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// Necessary for [`ZERO_SELECTION`]: an `=` followed (after blanks, or anything non-ASCII,
/// to stay on the safe side) by `0`, or the words `no t…` (`no tests? …`).
fn may_be_zero_selection(evidence: &str) -> bool {
    let bytes = evidence.as_bytes();
    let zero_after_equals = bytes.iter().enumerate().any(|(i, &b)| {
        b == b'='
            && bytes[i + 1..].iter().find(|&&c| {
                !(c.is_ascii_whitespace() || c == 0x0B || (0x1C..=0x1F).contains(&c) || c >= 0x80)
            }) == Some(&b'0')
    });
    zero_after_equals || contains_ignore_ascii_case(evidence, "no t")
}

/// Necessary for [`NON_EXECUTION`]: every alternative contains `not`, `never`, `tructurally`
/// or `unexecuted` (`did not` and `cannot` contain `not`).
fn may_admit_non_execution(evidence: &str) -> bool {
    ["not", "never", "tructurally", "unexecuted"]
        .iter()
        .any(|w| contains_ignore_ascii_case(evidence, w))
}

/// Evidence is preserved history marked by refine, never passing evidence.
pub fn is_invalidated(evidence: &str) -> bool {
    evidence
        .trim()
        .to_lowercase()
        .starts_with(INVALIDATED_PREFIX)
}

/// Every `log=` pointer in the evidence, in order (case-sensitive: `LOG=` is not one).
pub fn log_pointers(evidence: &str) -> Vec<&str> {
    if !evidence.contains("log=") {
        return Vec::new();
    }
    if !evidence.is_ascii() {
        // Unicode word boundaries and blanks: leave them to the pattern.
        return LOG_POINTER
            .captures_iter(evidence)
            .filter_map(|c| c.get(1).map(|m| m.as_str()))
            .collect();
    }
    ascii_log_pointers(evidence)
}

/// [`LOG_POINTER`] on ASCII text, by hand: `\b` before `log=` is "start of text or a byte that
/// is not `[0-9A-Za-z_]`", and the pointer runs to a blank (`\t\n\v\f\r` or space), a byte
/// 0x1C..=0x1F or `;`. Empty pointers are not matches (`+`).
fn ascii_log_pointers(evidence: &str) -> Vec<&str> {
    let bytes = evidence.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let ends = |b: u8| matches!(b, b'\t'..=b'\r' | b' ' | 0x1C..=0x1F | b';');
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = evidence[from..].find("log=").map(|i| from + i) {
        let start = at + 4;
        if at > 0 && is_word(bytes[at - 1]) {
            from = at + 1;
            continue;
        }
        let len = bytes[start..].iter().take_while(|&&b| !ends(b)).count();
        if len == 0 {
            from = at + 1;
            continue;
        }
        out.push(&evidence[start..start + len]);
        from = start + len;
    }
    out
}

/// What is wrong with the evidence text of a passing record (the pure part of the rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvidenceProblem {
    /// The evidence shows that nothing was selected or ran ([`is_zero_selection`]).
    ZeroSelection,
    /// The evidence concedes the check did not execute ([`admits_non_execution`]).
    NonExecution,
}

impl EvidenceProblem {
    /// The finding id that reports this problem: `zero-selection-evidence` or
    /// `non-execution-evidence`.
    pub fn id(self) -> &'static str {
        match self {
            EvidenceProblem::ZeroSelection => "zero-selection-evidence",
            EvidenceProblem::NonExecution => "non-execution-evidence",
        }
    }
}

/// Zero selection, else (only then) admitted non-execution.
pub fn evidence_problem(evidence: &str) -> Option<EvidenceProblem> {
    if is_zero_selection(evidence) {
        Some(EvidenceProblem::ZeroSelection)
    } else if admits_non_execution(evidence) {
        Some(EvidenceProblem::NonExecution)
    } else {
        None
    }
}

/// Why a `log=` pointer is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogPointerProblem {
    /// Absolute, a `..` component, empty, or leaving the plan through a symlink.
    OutsidePlan(PathError),
    /// Inside the plan, but the file does not exist (or cannot be reached).
    Missing(Option<String>),
    /// A folder (or another non-file) — nothing a receipt could hash as the log.
    NotAFile,
    /// A file the publication itself writes (state.json, the marker, the receipt, the journal):
    /// its hash changes when the plan is published, so it cannot be the evidence of a gate.
    WrittenByPublication,
}

/// The files a publication writes, which no `log=` may name.
const PUBLICATION_FILES: [&str; 4] = [
    crate::dwp::layout::STATE_FILE,
    crate::dwp::layout::MARKER_FILE,
    crate::dwp::layout::RECEIPT_FILE,
    crate::dwp::layout::JOURNAL_FILE,
];

impl LogPointerProblem {
    /// The finding id that reports this problem: `log-pointer-outside-plan` or
    /// `log-pointer-missing`.
    pub fn id(&self) -> &'static str {
        match self {
            LogPointerProblem::OutsidePlan(_) => "log-pointer-outside-plan",
            LogPointerProblem::Missing(_) => "log-pointer-missing",
            LogPointerProblem::NotAFile => "log-pointer-not-a-file",
            LogPointerProblem::WrittenByPublication => "log-pointer-publication-file",
        }
    }
}

/// Checks one pointer against the plan folder: textual checks first, then the symlink-aware
/// resolution.
pub fn check_log_pointer(plan_dir: &Path, rel: &str) -> Result<(), LogPointerProblem> {
    check_pointer_in(&PlanDir::new(plan_dir), rel)
}

fn check_pointer_in(plan: &PlanDir, rel: &str) -> Result<(), LogPointerProblem> {
    let normal: Vec<String> = Path::new(rel)
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if PUBLICATION_FILES.contains(&normal.join("/").as_str()) {
        return Err(LogPointerProblem::WrittenByPublication);
    }
    match plan.resolve(rel) {
        Ok(Resolved::Inside {
            regular_file: false,
            ..
        }) => Err(LogPointerProblem::NotAFile),
        Ok(Resolved::Inside { .. }) => Ok(()),
        Ok(Resolved::Missing) => Err(LogPointerProblem::Missing(None)),
        Err(PathError::Io(e)) => Err(LogPointerProblem::Missing(Some(e))),
        Err(PathError::Missing) => Err(LogPointerProblem::Missing(None)),
        Err(e) => Err(LogPointerProblem::OutsidePlan(e)),
    }
}

/// The latest record of each distinct command, in the order the commands first appear.
/// Records without a boolean `passes` are skipped (they cannot be read as a result).
pub fn latest_per_command(gates: &[GateRecord]) -> Vec<&GateRecord> {
    let mut position: HashMap<Option<&str>, usize> = HashMap::new();
    let mut latest: Vec<&GateRecord> = Vec::new();
    for gate in gates.iter().filter(|g| !g.is_malformed()) {
        match position.get(&gate.command.as_deref()) {
            Some(&i) => latest[i] = gate,
            None => {
                position.insert(gate.command.as_deref(), latest.len());
                latest.push(gate);
            }
        }
    }
    latest
}

/// The record counts as failing: `passes` false, or an `exit_code` other than 0 (a missing
/// exit code reads as 0, as the helper reads it).
pub fn is_failing(gate: &GateRecord) -> bool {
    gate.passes != Some(true) || gate.exit_code.unwrap_or(0) != 0
}

/// Two gate records are the same run replayed: equal in every field but `last_run` (key order
/// does not matter).
pub fn is_identical_replay(a: &Value, b: &Value) -> bool {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return false;
    };
    let significant =
        |m: &serde_json::Map<String, Value>| m.keys().filter(|k| *k != "last_run").count();
    significant(a) == significant(b)
        && a.iter()
            .filter(|(k, _)| *k != "last_run")
            .all(|(k, v)| b.get(k) == Some(v))
}

/// Whether `new` replays the latest existing record of the same command, so that a writer
/// must not append it again.
pub fn replays_latest(gates: &[Value], new: &Value) -> bool {
    let command = new.get("command");
    gates
        .iter()
        .rev()
        .find(|g| g.get("command") == command)
        .is_some_and(|g| is_identical_replay(g, new))
}

/// Why a task may not be marked completed (it needs ≥ 1 gate, and every latest-per-command
/// record passing, exit 0, with a command and evidence): empty when it may.
/// Each item is a sentence naming the command concerned.
pub fn completion_problems(task: &Task) -> Vec<String> {
    let mut problems = Vec::new();
    let latest = latest_per_command(&task.gates);
    if latest.is_empty() {
        problems.push("no gate record: run the task's validation and record it (--gate)".into());
    }
    for g in latest {
        let name = command_label(g);
        if g.command.as_deref().is_none_or(|c| c.trim().is_empty()) {
            problems.push("a gate record has an empty command".to_string());
        }
        if g.evidence.as_deref().is_none_or(|e| e.trim().is_empty()) {
            problems.push(format!("gate {name} has no evidence"));
        }
        if g.passes != Some(true) {
            problems.push(format!("the latest run of gate {name} did not pass"));
        }
        match g.exit_code {
            Some(0) => {}
            Some(code) => problems.push(format!("the latest run of gate {name} exited {code}")),
            None => problems.push(format!("the latest run of gate {name} has no exit_code")),
        }
    }
    let malformed = task.gates.iter().filter(|g| g.is_malformed()).count() + task.non_object_gates;
    if malformed > 0 {
        problems.push(format!(
            "{malformed} gate record(s) lack a boolean `passes` and cannot be read"
        ));
    }
    problems
}

/// The completion rule as a finding (`completion-gates-unsuccessful`), `None` when it holds.
pub fn completion_finding(task: &Task) -> Option<Finding> {
    let problems = completion_problems(task);
    let id = task.id.unwrap_or(task.index as u64 + 1);
    (!problems.is_empty()).then(|| {
        Finding::fail(
            "completion-gates-unsuccessful",
            format!("task {id} cannot be completed: {}", problems.join("; ")),
        )
        .task(id)
        .hint("rerun the failing gate until it passes and record the run with its evidence")
    })
}

fn command_label(g: &GateRecord) -> String {
    match &g.command {
        Some(c) => format!("`{}`", truncate(c, 80)),
        None => format!("#{}", g.index + 1),
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let cut: String = s.chars().take(max).collect();
        format!("{cut}…")
    }
}

/// The evidence findings of one task, and for a completed task the rules on its latest records.
/// With `plan_dir`, every `log=` pointer of a latest passing record is checked on
/// disk; without it only the textual checks (absolute, `..`) run.
pub fn task_gate_findings(task: &Task, plan_dir: Option<&Path>) -> Vec<Finding> {
    task_findings_in(task, plan_dir.map(PlanDir::new).as_ref())
}

/// [`task_gate_findings`] against a plan folder resolved once for many tasks (its canonical
/// path and the directories already seen are shared).
pub fn task_gate_findings_in(task: &Task, plan: &PlanDir) -> Vec<Finding> {
    task_findings_in(task, Some(plan))
}

fn task_findings_in(task: &Task, plan: Option<&PlanDir>) -> Vec<Finding> {
    let mut out = Vec::new();
    let id = task.id.unwrap_or(task.index as u64 + 1);
    let latest = latest_per_command(&task.gates);
    for g in &latest {
        if g.passes != Some(true) || is_invalidated(g.evidence_text()) {
            continue;
        }
        let name = command_label(g);
        let evidence = g.evidence_text();
        if let Some(problem) = evidence_problem(evidence) {
            let (msg, hint) = match problem {
                EvidenceProblem::ZeroSelection => (
                    format!(
                        "task {id}: passing gate {name} has evidence of an empty selection (nothing ran)"
                    ),
                    "fix the selection so the check really runs, or record an amendment",
                ),
                EvidenceProblem::NonExecution => (
                    format!(
                        "task {id}: passing gate {name} has evidence that admits the check did not run"
                    ),
                    "record an amendment (unexecuted scenario) instead of a passing gate",
                ),
            };
            out.push(
                Finding::fail(problem.id(), msg)
                    .task(id)
                    .hint(hint)
                    .group(format!("{}:{id}", problem.id())),
            );
        }
        for rel in log_pointers(evidence) {
            let result = match plan {
                Some(plan) => check_pointer_in(plan, rel),
                None => check_relative(rel).map_err(LogPointerProblem::OutsidePlan),
            };
            if let Err(problem) = result {
                let msg = match &problem {
                    LogPointerProblem::OutsidePlan(e) => format!(
                        "task {id}: gate {name} cites log `{rel}` outside the plan folder ({e})"
                    ),
                    LogPointerProblem::Missing(_) => format!(
                        "task {id}: gate {name} cites log `{rel}`, which is missing — evidence must stay recoverable"
                    ),
                    LogPointerProblem::NotAFile => format!(
                        "task {id}: gate {name} cites log `{rel}`, which is not a file — a receipt can only seal a file"
                    ),
                    LogPointerProblem::WrittenByPublication => format!(
                        "task {id}: gate {name} cites log `{rel}`, a file the publication itself rewrites — its sealed hash would not hold"
                    ),
                };
                out.push(
                    Finding::fail(problem.id(), msg)
                        .task(id)
                        .hint("point `log=` at a file inside the plan folder, e.g. analysis_results/gates/<task>.log")
                        .group(format!("{}:{id}", problem.id())),
                );
            }
        }
    }
    if task.status == Some(TaskStatus::Completed) {
        if let Some(g) = latest.iter().find(|g| is_failing(g)) {
            out.push(
                Finding::fail(
                    "failing-gate-without-later-pass",
                    format!(
                        "completed task {id}: the latest run of gate {} failed and no later run passed",
                        command_label(g)
                    ),
                )
                .task(id)
                .hint("rerun the same gate command until it passes, or reopen the task"),
            );
        } else if latest.iter().any(|g| is_invalidated(g.evidence_text())) {
            out.push(
                Finding::fail(
                    "evidence-invalidated-by-refine",
                    format!("completed task {id} relies on evidence invalidated by refine"),
                )
                .task(id)
                .hint("rerun its gate and record the fresh run"),
            );
        }
        if latest.is_empty() {
            out.push(
                Finding::fail(
                    "completion-gates-unsuccessful",
                    format!("completed task {id} has no readable gate record"),
                )
                .task(id)
                .hint("record the task's validation run, or reopen the task"),
            );
        }
    }
    let malformed = task.gates.iter().filter(|g| g.is_malformed()).count() + task.non_object_gates;
    if malformed > 0 {
        out.push(
            Finding::fail(
                "gate-record-malformed",
                format!(
                    "task {id}: {malformed} gate record(s) do not carry a boolean `passes` — their result cannot be read"
                ),
            )
            .task(id)
            .group("gate-record-malformed"),
        );
    }
    out
}

/// [`task_gate_findings`] for every task of the state.
pub fn state_gate_findings(state: &State, plan_dir: Option<&Path>) -> Vec<Finding> {
    let plan = plan_dir.map(PlanDir::new);
    state
        .tasks
        .iter()
        .flat_map(|t| task_findings_in(t, plan.as_ref()))
        .collect()
}

/// A parsed `--gate "command|exit_code|evidence"` argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateSpec {
    /// The command as written, everything before the exit-code field (it may contain `|`).
    pub command: String,
    /// The exit code the run reported, read like Python's `int()` (sign, `_` between digits).
    pub exit_code: i64,
    /// The evidence text, everything after the exit-code field (it may contain `|`).
    pub evidence: String,
}

impl GateSpec {
    /// A run passes when it exited 0.
    pub fn passes(&self) -> bool {
        self.exit_code == 0
    }
}

/// Why a `--gate` argument is refused; [`GateSpecError::kind`] is the refusal kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GateSpecError {
    /// Fewer than two `|` in the argument.
    #[error("--gate needs three `|`-separated fields `command|exit_code|evidence`, got {fields}")]
    Malformed {
        /// How many fields the argument has (the number of `|` plus one): 1 or 2.
        fields: usize,
    },
    /// Neither the split on the first two pipes nor the one on the last two has an integer
    /// middle field.
    #[error("--gate exit code `{middle}` is not an integer (a `|` inside the command?)")]
    ExitCodeNotInteger {
        /// The middle field of the split on the first two pipes, as written.
        middle: String,
    },
    /// Both splits have an integer middle field and they read differently.
    #[error(
        "--gate is ambiguous: it reads as command `{}` exit {} and as command `{}` exit {}",
        .first.command, .first.exit_code, .last.command, .last.exit_code
    )]
    Ambiguous {
        /// The reading that splits on the first two pipes.
        first: GateSpec,
        /// The reading that splits on the last two pipes.
        last: GateSpec,
    },
}

impl GateSpecError {
    /// The refusal kind `update` reports for this error.
    pub fn kind(&self) -> RefusalKind {
        match self {
            GateSpecError::Malformed { .. } => RefusalKind::GateSpecMalformed,
            GateSpecError::ExitCodeNotInteger { .. } => RefusalKind::GateExitCodeNotInteger,
            GateSpecError::Ambiguous { .. } => RefusalKind::GateSpecAmbiguous,
        }
    }

    /// What the user can write instead: the expected `--gate` form, or `--gate-json` when the
    /// command or evidence itself contains `|`.
    pub fn hint(&self) -> &'static str {
        match self {
            GateSpecError::Malformed { .. } => "write --gate \"command|exit_code|evidence\"",
            GateSpecError::ExitCodeNotInteger { .. } | GateSpecError::Ambiguous { .. } => {
                "use --gate-json '{\"command\": …, \"exit_code\": …, \"passes\": …, \"evidence\": …}'"
            }
        }
    }
}

/// Parses `command|exit_code|evidence`. The helper splits on the first two pipes; planseal
/// takes the split whose middle field is an integer, trying the first two pipes and the last
/// two. Both integer and different ⇒ [`GateSpecError::Ambiguous`].
pub fn parse_gate_spec(spec: &str) -> Result<GateSpec, GateSpecError> {
    let pipes: Vec<usize> = spec.match_indices('|').map(|(i, _)| i).collect();
    if pipes.len() < 2 {
        return Err(GateSpecError::Malformed {
            fields: pipes.len() + 1,
        });
    }
    let split = |a: usize, b: usize| -> (String, &str, String) {
        (
            spec[..a].to_string(),
            &spec[a + 1..b],
            spec[b + 1..].to_string(),
        )
    };
    let (c1, m1, e1) = split(pipes[0], pipes[1]);
    let (c2, m2, e2) = split(pipes[pipes.len() - 2], pipes[pipes.len() - 1]);
    let first = parse_exit_code(m1).map(|exit_code| GateSpec {
        command: c1,
        exit_code,
        evidence: e1,
    });
    let last = parse_exit_code(m2).map(|exit_code| GateSpec {
        command: c2,
        exit_code,
        evidence: e2,
    });
    match (first, last) {
        (Some(first), Some(last)) if first != last => Err(GateSpecError::Ambiguous { first, last }),
        (Some(spec), _) | (None, Some(spec)) => Ok(spec),
        (None, None) => Err(GateSpecError::ExitCodeNotInteger {
            middle: m1.to_string(),
        }),
    }
}

/// An integer the way Python's `int()` reads one from text: surrounding whitespace, an optional
/// sign, ASCII digits with single `_` between them.
fn parse_exit_code(text: &str) -> Option<i64> {
    let t = text.trim();
    let (negative, digits) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || !digits.bytes().all(|b| b.is_ascii_digit() || b == b'_')
    {
        return None;
    }
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    let magnitude: i64 = clean.parse().ok()?;
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Pieces that make the patterns' edge cases likely in random evidence.
    fn evidence() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "ran",
            "RAN",
            "selected",
            "ſelected",
            "executed",
            "=",
            " = ",
            "0",
            "0/3",
            "00",
            "3",
            "/",
            "x",
            "_",
            " ",
            "\t",
            "\u{0B}",
            "\u{1C}",
            "\u{1F}",
            "\u{85}",
            "\u{A0}",
            "\u{2003}",
            "é",
            "ß",
            "K",
            "no test",
            "no tests ",
            "No Tests ran",
            "ran",
            "found",
            "collected",
            "not",
            "never",
            "did",
            "NOT ",
            "run",
            "executed",
            "entered",
            "performed",
            "cannot",
            " be ",
            "measured",
            "verified",
            "structurally",
            "impossible",
            "unexecuted",
            "un",
            "log=",
            "LOG=",
            "xlog=",
            "_log=",
            "élog=",
            "a/b.log",
            ";",
            ",",
            "..",
            "\u{0}",
        ]);
        prop::collection::vec(piece, 0..12).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn prechecks_never_hide_a_match(e in evidence()) {
            if ZERO_SELECTION.is_match(&e) {
                prop_assert!(may_be_zero_selection(&e), "{e:?}");
            }
            if NON_EXECUTION.is_match(&e) {
                prop_assert!(may_admit_non_execution(&e), "{e:?}");
            }
            prop_assert_eq!(is_zero_selection(&e), ZERO_SELECTION.is_match(&e));
            prop_assert_eq!(admits_non_execution(&e), NON_EXECUTION.is_match(&e));
        }

        #[test]
        fn log_scanner_agrees_with_the_pattern(e in evidence()) {
            let by_pattern: Vec<&str> = LOG_POINTER
                .captures_iter(&e)
                .filter_map(|c| c.get(1).map(|m| m.as_str()))
                .collect();
            prop_assert_eq!(log_pointers(&e), by_pattern.clone());
            if e.is_ascii() {
                prop_assert_eq!(ascii_log_pointers(&e), by_pattern);
            }
        }

        #[test]
        fn log_scanner_agrees_on_any_ascii(e in "[ -~\t\n\x0B\x0C\r\x1C-\x1F\x00]{0,40}") {
            let e = format!("{e} log={e}");
            let by_pattern: Vec<&str> = LOG_POINTER
                .captures_iter(&e)
                .filter_map(|c| c.get(1).map(|m| m.as_str()))
                .collect();
            prop_assert_eq!(ascii_log_pointers(&e), by_pattern);
        }
    }

    /// The prechecks search ASCII case-insensitively: no non-ASCII character may match one of
    /// their letters under `(?i)` (only `s` and `k` have such partners, and they are avoided).
    #[test]
    fn precheck_letters_have_no_unicode_case_partners() {
        let letters = "notevrucalyixd";
        let class = Regex::new(&format!("(?i)^[{letters}]$")).expect("valid");
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            if !c.is_ascii() {
                assert!(!class.is_match(&c.to_string()), "{c:?}");
            }
        }
        for w in ["no t", "not", "never", "tructurally", "unexecuted"] {
            assert!(w.chars().all(|c| c == ' ' || letters.contains(c)), "{w}");
        }
    }

    #[test]
    fn exit_code_forms() {
        assert_eq!(parse_exit_code("0"), Some(0));
        assert_eq!(parse_exit_code(" 1 "), Some(1));
        assert_eq!(parse_exit_code("-2"), Some(-2));
        assert_eq!(parse_exit_code("+3"), Some(3));
        assert_eq!(parse_exit_code("1_0"), Some(10));
        for bad in [
            "",
            " ",
            "x",
            "1.0",
            "_1",
            "1_",
            "1__0",
            "0x1",
            "- 1",
            "99999999999999999999",
        ] {
            assert_eq!(parse_exit_code(bad), None, "{bad:?}");
        }
    }
}

//! What an amendment does to a task's evidence (`docs/amend.md`).
//!
//! An amendment's `Evidence invalidated:` names the gate runs that no longer prove anything —
//! by their command in backticks (`` gate `cargo test` ``), or by the name of the log they
//! cite (`t1-unittest`, for `log=analysis_results/gates/t1-unittest.log`). Those records stay
//! in state.json as history, marked the one way both planseal and the DWP helper recognise: their
//! `evidence` gains the prefix `invalidated by refine (Amendment <n>): ` (gate records are closed
//! objects, so no key is added). A marked record is never passing evidence, so the task is
//! completed again only after a new passing run of the same command.
//!
//! The marks are applied once, when the amendment takes effect: by `planseal amend`, or by the
//! reopen (`update --reopen-reason`) that the amendment backs. Runs recorded afterwards are the
//! new evidence and are never marked. An amendment written by hand on a task that was never
//! completed has no reopen to take effect at; its invalidations are then held at completion:
//! each invalidated command needs a passing run dated no earlier than the amendment.

use crate::dwp::check::gates::{is_invalidated, latest_per_command};
use crate::dwp::model::markdown::{Amendment, Authority, TaskBody};
use crate::dwp::model::schema::GATE_EVIDENCE_MAX;
use crate::dwp::model::{GateRecord, Task};
use crate::report::{Refusal, RefusalKind};
use serde_json::Value;

/// An amendment in a task's log, as the update rules use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedAmendment {
    /// The `<n>` of `### Amendment <n>`.
    pub number: u32,
    /// Its date, `YYYY-MM-DD`.
    pub date: String,
    /// `Authority: user`.
    pub by_user: bool,
    /// `Reason:`.
    pub reason: String,
    /// The tasks `Affected tasks:` names.
    pub affected: Vec<u32>,
    /// The gate runs `Evidence invalidated:` names (commands or log names), `none` left out.
    pub invalidated: Vec<String>,
}

impl LoggedAmendment {
    fn of(a: &Amendment) -> Option<Self> {
        Some(LoggedAmendment {
            number: a.number,
            date: a.date?.to_string(),
            by_user: a.authority_kind() == Some(Authority::User),
            reason: a.reason().unwrap_or_default().trim().to_string(),
            affected: a.affected_task_numbers(),
            invalidated: invalidated_names(a.evidence_invalidated().unwrap_or_default()),
        })
    }

    /// The prefix its marks put in front of a record's evidence.
    pub fn mark(&self) -> String {
        mark_of(self.number)
    }
}

/// `invalidated by refine (Amendment <n>): `.
pub fn mark_of(number: u32) -> String {
    format!("invalidated by refine (Amendment {number}): ")
}

/// The amendment records in a task's *log* — its Completion & Log section and what follows it,
/// where amendments are appended — each a real record: all nine labels filled, a real date. A
/// heading elsewhere (say under `## Context`) or an empty shell does not count.
pub fn logged_amendments(body: &TaskBody<'_>) -> Vec<LoggedAmendment> {
    let Some(log) = body.completion_log() else {
        return Vec::new();
    };
    body.amendments()
        .iter()
        .filter(|a| a.line > log.line && a.missing_or_empty().is_empty())
        .filter_map(LoggedAmendment::of)
        .collect()
}

/// The gate runs an `Evidence invalidated:` value names: every span in backticks, or — with
/// none — each comma- or semicolon-separated item (its leading `gate`/`the` words dropped);
/// `none`, `n/a` and `-` name nothing.
pub fn invalidated_names(text: &str) -> Vec<String> {
    let quoted: Vec<String> = text
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if !quoted.is_empty() || text.contains('`') {
        return quoted;
    }
    text.split([',', ';'])
        .map(|item| {
            let mut words: Vec<&str> = item.split_whitespace().collect();
            while words
                .first()
                .is_some_and(|w| matches!(w.to_lowercase().as_str(), "gate" | "gates" | "the"))
            {
                words.remove(0);
            }
            words.join(" ")
        })
        .filter(|s| {
            !s.is_empty()
                && !matches!(
                    s.to_lowercase().trim_end_matches('.'),
                    "none" | "n/a" | "-" | "nothing"
                )
        })
        .collect()
}

/// Whether a gate record is one of the runs `name` designates: its command is `name`, or a
/// `log=` pointer of its evidence names a file whose name, or name without extension, is
/// `name`.
pub fn designates(name: &str, command: &str, evidence: &str) -> bool {
    if command.trim() == name {
        return true;
    }
    evidence
        .split(|c: char| c.is_whitespace() || c == ';')
        .filter_map(|part| part.strip_prefix("log="))
        .flat_map(|logs| logs.split(','))
        .any(|log| {
            let file = log.rsplit('/').next().unwrap_or(log);
            file == name || file.rsplit_once('.').is_some_and(|(stem, _)| stem == name)
        })
}

/// Marks, in a task's `gates` array, every record an amendment invalidates and that carries no
/// mark of it yet; returns how many were marked. A record already marked by another amendment
/// is left as it is (it is history already). Refused, with nothing changed, when a mark would
/// push an evidence over its 500-character budget (`evidence-budget`): the evidence is never
/// cut.
pub fn mark_invalidated(
    gates: &mut [Value],
    task: u64,
    amendment: &LoggedAmendment,
) -> Result<usize, Refusal> {
    let mark = amendment.mark();
    let mut marked = Vec::new();
    for (i, record) in gates.iter().enumerate() {
        let command = record.get("command").and_then(Value::as_str).unwrap_or("");
        let evidence = record.get("evidence").and_then(Value::as_str).unwrap_or("");
        if is_invalidated(evidence)
            || !amendment
                .invalidated
                .iter()
                .any(|name| designates(name, command, evidence))
        {
            continue;
        }
        let new = format!("{mark}{evidence}");
        let length = new.chars().count();
        if length > GATE_EVIDENCE_MAX {
            return Err(Refusal::new(
                RefusalKind::EvidenceBudget,
                format!(
                    "task {task}: marking gate record {i} (`{command}`) invalidated by Amendment {} would make its evidence {length} characters, over the budget of {GATE_EVIDENCE_MAX}; nothing was written",
                    amendment.number
                ),
            )
            .hint("shorten that record's evidence (it is a one-line summary or a log= pointer), then run the command again"));
        }
        marked.push((i, new));
    }
    let count = marked.len();
    for (i, evidence) in marked {
        if let Some(record) = gates[i].as_object_mut() {
            record.insert("evidence".into(), evidence.into());
        }
    }
    Ok(count)
}

/// Whether an amendment's marks are already in a task's records (it took effect before).
pub fn already_marked(gates: &[GateRecord], amendment: &LoggedAmendment) -> bool {
    let mark = amendment.mark();
    gates
        .iter()
        .any(|g| g.evidence_text().trim_start().starts_with(&mark))
}

/// The gate runs the task's amendments invalidate and that were not run again since: for each
/// name an amendment lists, when the task has records of it, the latest one of that command
/// must pass, carry no invalidation and be dated no earlier than the amendment. Each entry is
/// `(amendment number, name)`.
pub fn not_run_again(task: &Task, amendments: &[LoggedAmendment]) -> Vec<(u32, String)> {
    let latest = latest_per_command(&task.gates);
    let mut out = Vec::new();
    for a in amendments {
        for name in &a.invalidated {
            let designated: Vec<&GateRecord> = latest
                .iter()
                .copied()
                .filter(|g| designates(name, g.command.as_deref().unwrap_or(""), g.evidence_text()))
                .collect();
            let rerun = |g: &&GateRecord| {
                g.passes == Some(true)
                    && !is_invalidated(g.evidence_text())
                    && g.last_run
                        .as_deref()
                        .is_some_and(|run| run.get(..10).is_some_and(|day| day >= a.date.as_str()))
            };
            if !designated.is_empty() && !designated.iter().all(rerun) {
                out.push((a.number, name.clone()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn amendment(number: u32, invalidated: &[&str]) -> LoggedAmendment {
        LoggedAmendment {
            number,
            date: "2026-11-02".into(),
            by_user: true,
            reason: "r".into(),
            affected: vec![2],
            invalidated: invalidated.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn names_come_from_backticks_or_from_a_plain_list() {
        assert_eq!(invalidated_names("gate `true` of task 2"), ["true"]);
        assert_eq!(
            invalidated_names("`cargo test`, `make lint`"),
            ["cargo test", "make lint"]
        );
        assert_eq!(invalidated_names("t1-unittest"), ["t1-unittest"]);
        assert_eq!(
            invalidated_names("gate t1-unittest; t2"),
            ["t1-unittest", "t2"]
        );
        for nothing in ["none", "None.", "n/a", "", "  -  "] {
            assert!(invalidated_names(nothing).is_empty(), "{nothing:?}");
        }
    }

    #[test]
    fn a_record_is_designated_by_its_command_or_its_log() {
        let ev = "scope=unit; ran=4/4; log=analysis_results/gates/t1-unittest.log";
        assert!(designates("python3 -m unittest", "python3 -m unittest", ""));
        assert!(designates("t1-unittest", "other", ev));
        assert!(designates("t1-unittest.log", "other", ev));
        assert!(!designates("t1", "other", ev));
        assert!(!designates("unittest", "python3 -m unittest", ""));
    }

    #[test]
    fn marks_are_applied_once_and_never_cut_the_evidence() {
        let mut gates = vec![
            json!({"command": "true", "passes": true, "evidence": "ran=1/1"}),
            json!({"command": "make", "passes": true, "evidence": "ok"}),
            json!({"command": "true", "passes": true, "evidence": "invalidated by refine (Amendment 1): old"}),
        ];
        let a = amendment(2, &["true"]);
        assert_eq!(mark_invalidated(&mut gates, 2, &a).unwrap(), 1);
        assert_eq!(
            gates[0]["evidence"],
            "invalidated by refine (Amendment 2): ran=1/1"
        );
        assert_eq!(gates[1]["evidence"], "ok");
        assert_eq!(
            gates[2]["evidence"],
            "invalidated by refine (Amendment 1): old"
        );
        assert_eq!(mark_invalidated(&mut gates, 2, &a).unwrap(), 0, "once");

        let mut long =
            vec![json!({"command": "true", "passes": true, "evidence": "x".repeat(480)})];
        let before = long.clone();
        let refused = mark_invalidated(&mut long, 2, &a).unwrap_err();
        assert_eq!(refused.kind, RefusalKind::EvidenceBudget.as_str());
        assert_eq!(long, before);
    }

    #[test]
    fn a_completion_needs_a_later_passing_run_of_each_invalidated_command() {
        let task = |gates: Value| Task::from_value(0, &json!({"id": 2, "gates": gates}));
        let a = [amendment(1, &["true"])];
        let old = json!({"command": "true", "passes": true, "last_run": "2026-11-01T10:00:00+00:00", "exit_code": 0, "evidence": "ran=1/1"});
        let new = json!({"command": "true", "passes": true, "last_run": "2026-11-02T10:00:00+00:00", "exit_code": 0, "evidence": "ran=1/1"});
        assert_eq!(
            not_run_again(&task(json!([old.clone()])), &a),
            [(1, "true".to_string())]
        );
        assert!(not_run_again(&task(json!([old.clone(), new])), &a).is_empty());
        // A name no record carries cannot be held: nothing to rerun.
        assert!(not_run_again(&task(json!([old])), &[amendment(1, &["lint"])]).is_empty());
    }
}

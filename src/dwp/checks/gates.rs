//! Gate evidence rules of SPEC §1.5 over a task's `gates` array (as JSON values).
//!
//! Interim home: `dwp::gates` (branch dwp-model) owns these rules; the checks call this module so
//! that switching to it is a change of one file.

use regex::Regex;
use serde_json::Value;
use std::sync::LazyLock;

static ZERO_SELECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:ran|selected|executed)\s*=\s*0(?:\b|/)|no tests? (?:ran|found|collected)")
        .expect("constant pattern")
});
static NON_EXECUTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:never|not)\s+(?:ran|run|entered|executed|performed)|did\s+not\s+(?:run|enter|execute|perform)|structurally\s+impossible|cannot\s+be\s+(?:run|executed|measured|verified)|\bunexecuted\b")
        .expect("constant pattern")
});
static LOG_POINTER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\blog=([^\s;]+)").expect("constant pattern"));

/// What one piece of evidence admits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvidenceProblem {
    ZeroSelection,
    NonExecution,
    Invalidated,
}

/// The first problem of a passing record's evidence (zero selection before non-execution).
pub fn evidence_problem(evidence: &str) -> Option<EvidenceProblem> {
    if evidence
        .trim()
        .to_lowercase()
        .starts_with("invalidated by refine")
    {
        return Some(EvidenceProblem::Invalidated);
    }
    if ZERO_SELECTION.is_match(evidence) {
        return Some(EvidenceProblem::ZeroSelection);
    }
    if NON_EXECUTION.is_match(evidence) {
        return Some(EvidenceProblem::NonExecution);
    }
    None
}

/// Every `log=` pointer of an evidence string (case-sensitive; `log=a,b` captures `a,b`).
pub fn log_pointers(evidence: &str) -> Vec<&str> {
    LOG_POINTER
        .captures_iter(evidence)
        .filter_map(|c| c.get(1).map(|m| m.as_str()))
        .collect()
}

/// The latest record per distinct command, in first-seen order of the commands. Records that are
/// not objects are skipped (the shape check reports them).
pub fn latest_per_command(gates: &[Value]) -> Vec<(usize, &Value)> {
    let mut order: Vec<&str> = Vec::new();
    let mut latest: std::collections::HashMap<&str, usize> = Default::default();
    for (i, g) in gates.iter().enumerate() {
        let Some(cmd) = g.get("command").and_then(Value::as_str) else {
            continue;
        };
        if !latest.contains_key(cmd) {
            order.push(cmd);
        }
        latest.insert(cmd, i);
    }
    order
        .into_iter()
        .map(|c| (latest[c], &gates[latest[c]]))
        .collect()
}

/// True when a record counts as a success: `passes: true`, exit code 0 (or absent), non-empty
/// command and evidence.
pub fn record_succeeds(g: &Value) -> bool {
    g.get("passes") == Some(&Value::Bool(true))
        && g.get("exit_code").is_none_or(|e| e.as_i64() == Some(0))
        && g.get("command")
            .and_then(Value::as_str)
            .is_some_and(|c| !c.trim().is_empty())
        && g.get("evidence")
            .and_then(Value::as_str)
            .is_some_and(|e| !e.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn evidence_edge_cases() {
        let cases: &[(&str, Option<EvidenceProblem>)] = &[
            ("overran=0", Some(EvidenceProblem::ZeroSelection)),
            ("executed=0.5", Some(EvidenceProblem::ZeroSelection)),
            ("ran=0/12", Some(EvidenceProblem::ZeroSelection)),
            ("ran=05", None),
            ("Ran 0 tests", None),
            ("no tests ran", Some(EvidenceProblem::ZeroSelection)),
            ("cannot run", Some(EvidenceProblem::NonExecution)),
            ("the suite was not run", Some(EvidenceProblem::NonExecution)),
            (
                "cannot be measured here",
                Some(EvidenceProblem::NonExecution),
            ),
            (
                "  Invalidated by refine on 2026-01-01",
                Some(EvidenceProblem::Invalidated),
            ),
            ("ran=12/12; log=analysis_results/gates/t1.log", None),
            ("ran=0; never ran", Some(EvidenceProblem::ZeroSelection)),
        ];
        for (evidence, want) in cases {
            assert_eq!(evidence_problem(evidence), *want, "{evidence}");
        }
    }

    #[test]
    fn log_pointer_edge_cases() {
        assert_eq!(log_pointers("LOG=x; log=a,b; xlog=c"), vec!["a,b"]);
        assert_eq!(log_pointers("log=../../x"), vec!["../../x"]);
        assert_eq!(log_pointers("a; log=/etc/passwd"), vec!["/etc/passwd"]);
    }

    #[test]
    fn latest_record_per_command_decides() {
        let gates = vec![
            json!({"command": "t", "passes": false, "exit_code": 1, "evidence": "red"}),
            json!({"command": "u", "passes": true, "exit_code": 0, "evidence": "ok"}),
            json!({"command": "t", "passes": true, "exit_code": 0, "evidence": "green"}),
        ];
        let latest = latest_per_command(&gates);
        assert_eq!(
            latest.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            vec![2, 1]
        );
        assert!(latest.iter().all(|(_, g)| record_succeeds(g)));
        assert!(!record_succeeds(
            &json!({"command": "t", "passes": true, "exit_code": 1, "evidence": "x"})
        ));
    }
}

//! Strict JSON reading and the closed-schema shape of state.json and manifest.json, through
//! `dwp::model` (parsing: duplicate keys, depth, encoding, NUL bytes) and `dwp::schema`
//! (validation with JSON paths). This module adapts them to what the checks compare.

use crate::dwp::model;
pub use crate::dwp::model::Era;
use crate::dwp::model::schema;
use serde_json::Value;

/// Parses JSON bytes strictly (duplicate keys, nesting, invalid UTF-8, NUL bytes and numbers out
/// of range are errors); the error names the place.
pub fn parse_strict(bytes: &[u8]) -> Result<Value, String> {
    model::parse_json(bytes).map_err(|e| e.to_string())
}

/// The state.json schema URLs planseal reads, oldest era first.
pub const STATE_SCHEMAS: [&str; 3] = [
    model::STATE_SCHEMA_V1,
    model::STATE_SCHEMA_V2,
    model::STATE_SCHEMA_V5,
];
/// The manifest.json schema URLs planseal reads, oldest era first.
pub const MANIFEST_SCHEMAS: [&str; 3] = [
    model::MANIFEST_SCHEMA_V1,
    model::MANIFEST_SCHEMA_V2,
    model::MANIFEST_SCHEMA_V5,
];

/// One shape problem: a JSON path, what is wrong there, and whether it is an error (else an
/// advisory: a timestamp that is not ISO-8601).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    /// JSONPath of the value concerned (`$.tasks[2].gates[0].command`); for a missing or
    /// unknown field, the object that lacks or holds it.
    pub path: String,
    /// What is wrong there (`missing required field \`command\``, `unknown field \`foo\``, …).
    pub problem: String,
    /// A schema violation (`true`), or the advisory of a non-ISO-8601 timestamp (`false`).
    pub error: bool,
    group: String,
}

impl ShapeError {
    pub(crate) fn from_issue(i: &schema::ShapeIssue) -> Self {
        Self {
            path: i.path.clone(),
            problem: i.problem.clone(),
            error: i.is_error(),
            group: i.group_key(),
        }
    }
    /// Errors that differ only in their record indexes share this key.
    pub fn group_key(&self) -> String {
        self.group.clone()
    }
    /// The task number of a `$.tasks[i]…` path (1-based position).
    pub fn task(&self) -> Option<u64> {
        let rest = self.path.strip_prefix("$.tasks[")?;
        let end = rest.find(']')?;
        rest[..end].parse::<u64>().ok().map(|i| i + 1)
    }
    /// The problem lies inside a gate record (the path contains `.gates[`).
    pub fn inside_gates(&self) -> bool {
        self.path.contains(".gates[")
    }
}

/// Every closed-schema problem of a state.json read as `era`.
pub fn state_errors(v: &Value, era: Era) -> Vec<ShapeError> {
    schema::validate_state_as(v, era)
        .iter()
        .map(ShapeError::from_issue)
        .collect()
}

/// Every closed-schema problem of a manifest.json read as `era`.
pub fn manifest_errors(v: &Value, era: Era) -> Vec<ShapeError> {
    schema::validate_manifest_as(v, era)
        .iter()
        .map(ShapeError::from_issue)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_parsing() {
        assert!(parse_strict(br#"{"a": 1}"#).is_ok());
        assert!(
            parse_strict(br#"{"a": 1, "a": 2}"#)
                .unwrap_err()
                .contains("duplicate key")
        );
        assert!(parse_strict(br#"{"a": 1e400}"#).is_err());
        assert!(parse_strict(b"{\"a\": \xff}").is_err());
        assert!(parse_strict(br#"{"a": "#).is_err());
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse_strict(deep.as_bytes()).is_err());
    }

    #[test]
    fn gate_errors_group_and_know_their_task() {
        let v = json!({"schema": STATE_SCHEMAS[2], "plan": "p", "updated_at": "2026-01-01T00:00:00Z",
        "status": "pending", "completed_count": 0, "task_count": 2, "format": "full",
        "materialization": "ready", "approval": "maybe",
        "tasks": [
            {"id": 1, "locator": {"kind": "file", "value": "1.task_a.md"}, "title": "a", "status": "pending",
             "gates": [{"passes": true, "last_run": "2026-01-01T00:00:00Z"}]},
            {"id": 2, "locator": {"kind": "file", "value": "2.task_b.md"}, "title": "b", "status": "pending",
             "gates": [{"passes": true, "last_run": "2026-01-01T00:00:00Z"}]}
        ]});
        let errs = state_errors(&v, Era::V5);
        assert!(errs.iter().any(|e| e.path == "$.approval"));
        let gate_errs: Vec<_> = errs.iter().filter(|e| e.inside_gates()).collect();
        assert_eq!(gate_errs.len(), 2);
        assert_eq!(gate_errs[0].group_key(), gate_errs[1].group_key());
        assert_eq!(gate_errs[1].task(), Some(2));
        assert!(state_errors(&v, Era::V1).iter().any(|e| e.error));
    }
}

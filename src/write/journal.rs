//! The one shape of a journal line, for every format.
//!
//! A line is one compact JSON object. Its fields, in this order (`docs/journal.md` is the
//! user's copy of this list):
//!
//! | field | when |
//! |---|---|
//! | `time` | always: when the change was decided (the command's clock) |
//! | `tool` | always: `planseal <version>` |
//! | `operation` | always: `update`, `finalize`, `gsd sync`, `reversa-set`, `unlock`, … |
//! | `plan` / `file` | always one: the DWP plan's name, or the path of the file of another format |
//! | `task`, `from`, `to` | a DWP transition: the task and its statuses (the plan's, for a plan-level line) |
//! | `reason` | the user's reason (a reopen, a forced change, an accepted exception) |
//! | `agent`, `model` | who asked, when the command was told |
//! | `forced` | always: the rules a user overrode, each with why (`[]` when none) |
//! | `before_sha256`, `after_sha256` | always: the file's hash before and after (`null` when it did not exist) |
//! | anything else | what the operation wants to record (`changes`, `sources`, `receipt`, …) |
//!
//! Journals written by the first version spell the hashes `sha256_before` / `sha256_after` in
//! some lines; [`before_sha256`] and [`after_sha256`] read both spellings, and always will.

use serde_json::{Map, Value};

/// One journal line being built.
#[derive(Debug, Clone, PartialEq)]
pub struct JournalEntry {
    /// When the change was decided, from the command's clock (ISO-8601 UTC).
    pub time: String,
    /// What was done: `update`, `finalize`, `gsd sync`, `reversa-set`, `unlock`, …
    /// (`docs/journal.md` lists them).
    pub operation: String,
    /// The DWP plan's name (DWP journals) …
    pub plan: Option<String>,
    /// … or the path of the file written (every other format).
    pub file: Option<String>,
    /// For a DWP transition: the task and its statuses.
    pub transition: Option<Transition>,
    /// The user's reason, when one was given (a reopen, a forced change, an accepted exception).
    pub reason: Option<String>,
    /// Who asked for the change, when the command was told (`--agent`).
    pub agent: Option<String>,
    /// The model behind that agent, when the command was told (`--model`).
    pub model: Option<String>,
    /// The rules a user overrode (`unlock --force`, `--allow-dirty`, `reversa set --force`).
    pub forced: Vec<Value>,
    /// SHA-256 of the file before the change; `None` when it did not exist, or when the line
    /// records no change of the file (an unlock).
    pub before_sha256: Option<String>,
    /// SHA-256 of the file after the change; `None` when the line records no change of the file
    /// (an unlock).
    pub after_sha256: Option<String>,
    /// The operation's own fields, written after the common ones in insertion order.
    pub details: Map<String, Value>,
}

/// The task and statuses of a DWP transition (`task` is `null` for a plan-level line, and
/// `from` / `to` are then the plan's statuses).
#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    /// The task's id in state.json; `None` for a plan-level line.
    pub task: Option<u64>,
    /// The status before (the task's, or the plan's on a plan-level line); JSON `null` when no
    /// status applies (a rebuild's line).
    pub from: Value,
    /// The status after, in the same terms as `from`.
    pub to: Value,
}

impl JournalEntry {
    /// A line with only its time and operation. Every line names a plan or a file: set one
    /// before writing it, or start from [`for_plan`](Self::for_plan) or
    /// [`for_file`](Self::for_file).
    pub fn new(time: impl Into<String>, operation: impl Into<String>) -> Self {
        Self {
            time: time.into(),
            operation: operation.into(),
            plan: None,
            file: None,
            transition: None,
            reason: None,
            agent: None,
            model: None,
            forced: Vec::new(),
            before_sha256: None,
            after_sha256: None,
            details: Map::new(),
        }
    }

    /// A line of a DWP plan's journal.
    pub fn for_plan(time: impl Into<String>, operation: impl Into<String>, plan: &str) -> Self {
        let mut e = Self::new(time, operation);
        e.plan = Some(plan.to_string());
        e
    }

    /// A line of another format's journal, about `file`.
    pub fn for_file(time: impl Into<String>, operation: impl Into<String>, file: &str) -> Self {
        let mut e = Self::new(time, operation);
        e.file = Some(file.to_string());
        e
    }

    /// Records a DWP transition: the task (`None` for the plan itself) and its status before and
    /// after.
    pub fn transition(mut self, task: Option<u64>, from: Value, to: Value) -> Self {
        self.transition = Some(Transition { task, from, to });
        self
    }

    /// Records the user's reason (`None` leaves the field out).
    pub fn reason(mut self, reason: Option<String>) -> Self {
        self.reason = reason;
        self
    }

    /// Records the file's SHA-256 before and after (`None`: the file did not exist then).
    pub fn hashes(mut self, before: Option<String>, after: Option<String>) -> Self {
        self.before_sha256 = before;
        self.after_sha256 = after;
        self
    }

    /// Adds one of the operation's own fields (after the common ones).
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_string(), value.into());
        self
    }

    /// What the lock's owner record says the writer is doing: the operation, and for a task's
    /// transition `task N → STATUS`.
    pub fn lock_label(&self) -> String {
        match &self.transition {
            Some(Transition {
                task: Some(task),
                to,
                ..
            }) => format!(
                "{} task {task} → {}",
                self.operation,
                to.as_str().unwrap_or("?")
            ),
            _ => self.operation.clone(),
        }
    }

    /// The line as a JSON value (tests and readers; writers serialise the entry itself, which
    /// copies nothing).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self)
            .expect("a journal entry is plain JSON: strings, numbers and values")
    }
}

impl serde::Serialize for JournalEntry {
    /// The fields in the documented order, each serialised from where it lies: a publication's
    /// line carries the whole published state, which is never copied to be written.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = serializer.serialize_map(None)?;
        m.serialize_entry("time", &self.time)?;
        m.serialize_entry("tool", crate::TOOL_VERSION)?;
        m.serialize_entry("operation", &self.operation)?;
        if let Some(plan) = &self.plan {
            m.serialize_entry("plan", plan)?;
        }
        if let Some(file) = &self.file {
            m.serialize_entry("file", file)?;
        }
        if let Some(t) = &self.transition {
            m.serialize_entry("task", &t.task)?;
            m.serialize_entry("from", &t.from)?;
            m.serialize_entry("to", &t.to)?;
        }
        for (key, value) in [
            ("reason", &self.reason),
            ("agent", &self.agent),
            ("model", &self.model),
        ] {
            if let Some(v) = value {
                m.serialize_entry(key, v)?;
            }
        }
        m.serialize_entry("forced", &self.forced)?;
        m.serialize_entry("before_sha256", &self.before_sha256)?;
        m.serialize_entry("after_sha256", &self.after_sha256)?;
        // A detail never overrides a field written above (one that is absent, it may fill).
        let written = |key: &str| match key {
            "time" | "tool" | "operation" | "forced" | "before_sha256" | "after_sha256" => true,
            "plan" => self.plan.is_some(),
            "file" => self.file.is_some(),
            "task" | "from" | "to" => self.transition.is_some(),
            "reason" => self.reason.is_some(),
            "agent" => self.agent.is_some(),
            "model" => self.model.is_some(),
            _ => false,
        };
        for (k, v) in &self.details {
            if !written(k) {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

/// The hash of the file before the change a journal line records, in either spelling.
pub fn before_sha256(line: &Value) -> Option<&str> {
    line.get("before_sha256")
        .or_else(|| line.get("sha256_before"))
        .and_then(Value::as_str)
}

/// The hash of the file after the change a journal line records, in either spelling.
pub fn after_sha256(line: &Value) -> Option<&str> {
    line.get("after_sha256")
        .or_else(|| line.get("sha256_after"))
        .and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_come_in_the_documented_order() {
        let line = JournalEntry::for_plan("2026-10-05T09:00:00+00:00", "update", "PLAN_x")
            .transition(Some(2), json!("pending"), json!("in_progress"))
            .hashes(Some("aa".into()), Some("bb".into()))
            .with("gates_added", 0)
            .to_value();
        let keys: Vec<&str> = line
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "time",
                "tool",
                "operation",
                "plan",
                "task",
                "from",
                "to",
                "forced",
                "before_sha256",
                "after_sha256",
                "gates_added"
            ]
        );
    }

    /// `docs/journal.md` names every common field of a line.
    #[test]
    fn docs_name_every_common_field() {
        let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/journal.md"))
            .expect("docs/journal.md is part of the project");
        let mut full = JournalEntry::for_plan("t", "op", "PLAN_x")
            .transition(Some(1), json!("a"), json!("b"))
            .reason(Some("r".into()));
        full.agent = Some("a".into());
        full.model = Some("m".into());
        full.file = Some("f".into());
        for key in full.to_value().as_object().unwrap().keys() {
            assert!(
                docs.contains(&format!("`{key}`")),
                "docs/journal.md does not name `{key}`"
            );
        }
    }

    #[test]
    fn a_detail_never_overrides_a_common_field() {
        let line = JournalEntry::for_file("t", "gsd sync", "STATE.md")
            .with("operation", "other")
            .to_value();
        assert_eq!(line["operation"], "gsd sync");
        assert_eq!(line["before_sha256"], Value::Null);
    }

    #[test]
    fn both_hash_spellings_are_read() {
        let old = json!({"sha256_before": "a", "sha256_after": "b"});
        let new = json!({"before_sha256": "c", "after_sha256": "d"});
        assert_eq!(
            (before_sha256(&old), after_sha256(&old)),
            (Some("a"), Some("b"))
        );
        assert_eq!(
            (before_sha256(&new), after_sha256(&new)),
            (Some("c"), Some("d"))
        );
        assert_eq!(before_sha256(&json!({})), None);
    }
}

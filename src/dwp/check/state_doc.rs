//! state.json as the checks read it. A current-era (v2/v5) state is read task by task: the
//! document without its task list is parsed whole, then each task is parsed, checked for its
//! shape, turned into its typed form and the few values the checks compare ([`TaskJson`]), and
//! dropped — so a plan of thousands of tasks never holds the JSON tree of all of them. Any
//! other state (v1, an unknown schema), and any document the task-by-task read does not accept,
//! is parsed whole as before, which also names its problem exactly.

use super::shape::{self, Era, ShapeError};
use crate::dwp::model::{self, State, Task, schema};
use serde_json::Value;

/// What a task's JSON says that the checks compare (the rest is read from its typed form).
#[derive(Debug, Clone)]
pub(crate) struct TaskJson {
    /// `id` when it is a non-negative integer.
    pub(crate) id: Option<u64>,
    /// `status` when it is a string, else "".
    pub(crate) status: String,
    /// `locator.kind` when it is a string, else "".
    pub(crate) locator_kind: String,
    /// `locator.value` when it is a string.
    pub(crate) locator_value: Option<String>,
    /// No `outcome`, or `null`.
    pub(crate) outcome_missing: bool,
    /// A non-empty `commit` string.
    pub(crate) has_commit: bool,
}

impl TaskJson {
    pub(crate) fn of(t: &Value) -> Self {
        let loc = t.get("locator");
        TaskJson {
            id: t.get("id").and_then(Value::as_u64),
            status: t
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            locator_kind: loc
                .and_then(|l| l.get("kind"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            locator_value: loc
                .and_then(|l| l.get("value"))
                .and_then(Value::as_str)
                .map(str::to_string),
            outcome_missing: t.get("outcome").is_none_or(Value::is_null),
            has_commit: super::seed::has_commit(t),
        }
    }
}

/// A state read task by task.
#[derive(Debug, Clone)]
pub(crate) struct ReadByTask {
    /// The document without its tasks (`tasks` is an empty array).
    pub(crate) top: Value,
    /// Every shape problem, the document's first and then each task's in order.
    pub(crate) shape_errors: Vec<ShapeError>,
    /// The typed state with every task.
    pub(crate) typed: State,
    /// Each task's compared values, in order.
    pub(crate) tasks: Vec<TaskJson>,
}

/// state.json as read.
#[derive(Debug, Clone)]
pub(crate) enum StateDoc {
    /// The whole JSON tree.
    Whole(Value),
    /// Read task by task (a current-era state).
    ByTask(Box<ReadByTask>),
}

impl StateDoc {
    /// Reads state.json; the error is the strict parser's message.
    pub(crate) fn read(bytes: &[u8]) -> Result<StateDoc, String> {
        if let Some(doc) = model::parse_tasks_elided(bytes)
            && let Some(read) = read_by_task(bytes, doc)
        {
            return Ok(StateDoc::ByTask(Box::new(read)));
        }
        shape::parse_strict(bytes).map(StateDoc::Whole)
    }

    /// The document's top-level object (without its tasks when read task by task).
    pub(crate) fn top(&self) -> &Value {
        match self {
            StateDoc::Whole(v) => v,
            StateDoc::ByTask(r) => &r.top,
        }
    }
}

/// The task-by-task read of a current-era state; `None` when the state is of another era or a
/// task does not parse (the whole parse then decides).
fn read_by_task(bytes: &[u8], doc: model::TasksElided) -> Option<ReadByTask> {
    let url = doc.top.get("schema").and_then(Value::as_str).unwrap_or("");
    let era = model::Era::from_state_url(url).filter(|e| *e != Era::V1)?;
    let (issues, format) = schema::validate_state_top(&doc.top, era, Some(doc.spans.len()));
    let mut shape_errors: Vec<ShapeError> = issues.iter().map(ShapeError::from_issue).collect();
    let mut typed = State::from_value(&doc.top);
    typed.tasks.reserve_exact(doc.spans.len());
    let mut tasks = Vec::with_capacity(doc.spans.len());
    for (i, span) in doc.spans.into_iter().enumerate() {
        let task = model::parse_task_at(bytes, span)?;
        shape_errors.extend(
            schema::validate_task_as(&task, i, era, format)
                .iter()
                .map(ShapeError::from_issue),
        );
        typed.tasks.push(Task::from_value(i, &task));
        tasks.push(TaskJson::of(&task));
    }
    Some(ReadByTask {
        top: doc.top,
        shape_errors,
        typed,
        tasks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = r#""schema": "https://deepworkplan.com/schema/plan-state/v5.json", "plan": "PLAN_x", "format": "full""#;

    /// What the whole parse gives for `bytes`: the shape errors, the typed state and the task
    /// values, or the parser's message.
    fn whole(bytes: &[u8]) -> Result<(Vec<ShapeError>, State, Vec<String>), String> {
        let v = shape::parse_strict(bytes)?;
        let tasks = v
            .get("tasks")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|t| format!("{:?}", TaskJson::of(t))).collect())
            .unwrap_or_default();
        Ok((
            shape::state_errors(&v, Era::V5),
            State::from_value(&v),
            tasks,
        ))
    }

    /// The task-by-task read gives what the whole parse gives, or falls back to it.
    fn same_as_whole(doc: &str) -> bool {
        let bytes = doc.as_bytes();
        let by_task = StateDoc::read(bytes);
        match (by_task, whole(bytes)) {
            (Err(a), Err(b)) => assert_eq!(a, b, "{doc}"),
            (Ok(StateDoc::ByTask(r)), Ok((errors, typed, tasks))) => {
                assert_eq!(r.shape_errors, errors, "{doc}");
                assert_eq!(r.typed, typed, "{doc}");
                let got: Vec<String> = r.tasks.iter().map(|t| format!("{t:?}")).collect();
                assert_eq!(got, tasks, "{doc}");
                return true;
            }
            (Ok(StateDoc::Whole(_)), Ok(_)) => {}
            (a, b) => panic!("{doc}: {a:?} against {b:?}"),
        }
        false
    }

    #[test]
    fn reading_task_by_task_gives_what_the_whole_parse_gives() {
        let task = r#"{"id": 1, "locator": {"kind": "file", "value": "1.task_a.md"}, "title": "a \"[{\\", "status": "completed", "gates": [], "outcome": null}"#;
        let by_task = [
            format!("{{{HEAD}, \"tasks\": [{task}, {task}]}}"),
            format!("{{\"tasks\" : [ {task} ] , {HEAD}}}"),
            format!("{{{HEAD}, \"ta\\u0073ks\": [{task}], \"extra\": [1, {{\"a\": \"]\"}}]}}"),
            format!("{{{HEAD}, \"tasks\": []}}"),
            format!(
                "{{{HEAD},\n\t\"tasks\":[{{\"id\":2,\"status\":7,\"locator\":\"x\",\"bogus\":true}},3,\"s\",null]}}"
            ),
        ];
        for doc in &by_task {
            assert!(same_as_whole(doc), "not read task by task: {doc}");
        }
        let whole_only = [
            format!("{{{HEAD}, \"tasks\": {{}}}}"),
            format!("{{{HEAD}}}"),
            format!("[{task}]"),
            "{\"schema\": \"https://deepworkplan.com/schema/plan-state/v1.json\", \"tasks\": [1]}"
                .to_string(),
        ];
        for doc in &whole_only {
            assert!(!same_as_whole(doc), "read task by task: {doc}");
        }
        let refused = [
            format!("{{{HEAD}, \"tasks\": [{{\"id\": 1, \"id\": 2}}]}}"),
            format!("{{{HEAD}, \"tasks\": [{task}], \"tasks\": []}}"),
            format!("{{{HEAD}, \"tasks\": [{{\"n\": 1e400}}]}}"),
            format!(
                "{{{HEAD}, \"tasks\": [{}{}]}}",
                "[".repeat(99),
                "]".repeat(99)
            ),
            format!("{{{HEAD}, \"tasks\": [{task}"),
            format!("{{{HEAD}, \"tasks\": [{task}]}} x"),
        ];
        for doc in &refused {
            assert!(!same_as_whole(doc), "read task by task: {doc}");
            assert!(StateDoc::read(doc.as_bytes()).is_err(), "{doc}");
        }
    }
}

//! The state.json side of `planseal refine --add-task` (`docs/refine.md`): a pending task
//! inserted before the Final Review, which takes the next id and its renumbered locator;
//! `task_count` counts it. Edited in place, so every other key keeps its value and its place.

use serde_json::{Map, Value, json};

/// The task inserted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insertion {
    /// The new task's id: the Final Review's until now.
    pub at: u64,
    /// Its title.
    pub title: String,
    /// Its locator value (`#task-N` in a Lite plan, `N.task_slug.md` in a Full one) — or its
    /// `file` on a v1 state.
    pub locator: String,
    /// The Final Review's locator value after the renumbering.
    pub final_locator: String,
}

/// Why the insertion does not fit the state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InsertError {
    /// `tasks` is not a non-empty array of objects.
    #[error("state.json has no task list to insert into")]
    NoTasks,
    /// The last task does not carry the id the insertion was decided for.
    #[error("the last task of state.json is not task {0}")]
    NotLast(u64),
}

/// Inserts `ins` before the last task (the Final Review) of `state`, renumbers that task to
/// `ins.at + 1` with `ins.final_locator`, adds one to `task_count` and stamps `updated_at`.
/// The new entry has the Final Review's keys in the Final Review's order (`id`, `locator` or
/// `file`, `title`, `status: pending`, `gates: []` — whichever it has), none of its history.
pub fn insert_before_final(
    state: &mut Value,
    ins: &Insertion,
    now: &str,
) -> Result<(), InsertError> {
    let map = state.as_object_mut().ok_or(InsertError::NoTasks)?;
    let tasks = map
        .get_mut("tasks")
        .and_then(Value::as_array_mut)
        .filter(|t| !t.is_empty())
        .ok_or(InsertError::NoTasks)?;
    let last = tasks.len() - 1;
    let template = tasks[last].as_object().ok_or(InsertError::NoTasks)?.clone();
    if template.get("id").and_then(Value::as_u64) != Some(ins.at) {
        return Err(InsertError::NotLast(ins.at));
    }
    let mut entry = Map::new();
    for (key, value) in &template {
        let new = match key.as_str() {
            "id" => json!(ins.at),
            "locator" => {
                let mut locator = value.as_object().cloned().unwrap_or_default();
                locator.insert("value".into(), json!(ins.locator));
                Value::Object(locator)
            }
            "file" => json!(ins.locator),
            "title" => json!(ins.title),
            "status" => json!("pending"),
            "gates" => json!([]),
            _ => continue,
        };
        entry.insert(key.clone(), new);
    }
    let final_review = &mut tasks[last];
    final_review["id"] = json!(ins.at + 1);
    if let Some(locator) = final_review
        .get_mut("locator")
        .and_then(Value::as_object_mut)
    {
        locator.insert("value".into(), json!(ins.final_locator));
    } else if final_review.get("file").is_some() {
        final_review["file"] = json!(ins.final_locator);
    }
    tasks.insert(last, Value::Object(entry));
    let count = tasks.len();
    if let Some(total) = map.get_mut("task_count") {
        *total = json!(count);
    }
    if let Some(at) = map.get_mut("updated_at") {
        *at = json!(now);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_new_task_takes_the_final_reviews_place_and_shape() {
        let mut state = json!({
            "schema": "s", "updated_at": "old", "task_count": 2, "extra": [1],
            "tasks": [
                {"id": 1, "locator": {"kind": "file", "value": "1.task_a.md"}, "title": "A", "status": "completed", "gates": [{"command": "x"}], "outcome": {}},
                {"locator": {"kind": "file", "value": "2.task_final_review.md"}, "id": 2, "title": "Final Review", "status": "pending", "gates": [], "note": "kept"}
            ]
        });
        let ins = Insertion {
            at: 2,
            title: "Docs".into(),
            locator: "2.task_docs.md".into(),
            final_locator: "3.task_final_review.md".into(),
        };
        insert_before_final(&mut state, &ins, "now").unwrap();
        assert_eq!(
            serde_json::to_string(&state).unwrap(),
            r#"{"schema":"s","updated_at":"now","task_count":3,"extra":[1],"tasks":[{"id":1,"locator":{"kind":"file","value":"1.task_a.md"},"title":"A","status":"completed","gates":[{"command":"x"}],"outcome":{}},{"locator":{"kind":"file","value":"2.task_docs.md"},"id":2,"title":"Docs","status":"pending","gates":[]},{"locator":{"kind":"file","value":"3.task_final_review.md"},"id":3,"title":"Final Review","status":"pending","gates":[],"note":"kept"}]}"#
        );
        assert_eq!(
            insert_before_final(&mut state, &ins, "now"),
            Err(InsertError::NotLast(2))
        );
    }
}

//! Closed-schema validation of `state.json` (gate records included) and `manifest.json`.
//!
//! Every problem is reported, each with the JSONPath of the value concerned
//! (`$.tasks[3].gates[0].command`), not only the first. Objects are closed: an unknown field is an
//! error, and a field of another era says so (`approval` in a v1 state). A timestamp that is a
//! string but not ISO-8601 is only an advisory: a file is never refused on read for it.
//!
//! Cross-field rules that need more than one value (ids contiguous, counts, derived status,
//! locator value vs id, duplicate locators) live in [`crate::dwp::check::semantics`]; the one exception
//! is the locator kind vs the plan `format`, which is reported here on the locator.
//!
//! ```
//! use planseal::dwp::model::schema::validate_state;
//! let state = serde_json::json!({
//!     "schema": "https://deepworkplan.com/schema/plan-state/v1.json",
//!     "plan": "PLAN_x", "updated_at": "2026-01-01T00:00:00Z", "status": "pending",
//!     "completed_count": 0, "task_count": 1, "approval": "approved",
//!     "tasks": [{"id": 1, "file": "1.task_a.md", "title": "A", "status": "pending"}]});
//! let issues = validate_state(&state);
//! assert_eq!(issues.len(), 1);
//! assert_eq!(issues[0].path, "$"); // unknown and missing fields are reported on their object
//! assert!(issues[0].problem.contains("not allowed in a v1"));
//! ```

use crate::dwp::layout;
use crate::dwp::model::{
    Approval, Archetype, Era, LocatorKind, Materialization, PlanFile, PlanFormat, PlanStatus,
    PromotionPhase, Rigor, TaskStatus, manifest_era, push_key, state_era,
};
use crate::report::{Finding, Severity};
use serde_json::{Map, Value};

// The length limits of the free-text fields are counted in Unicode code points (Python's `len`).

/// Longest `command` of a gate record.
pub const GATE_COMMAND_MAX: usize = 500;
/// Longest `evidence` of a gate record.
pub const GATE_EVIDENCE_MAX: usize = 500;
/// Longest `outcome.worked`.
pub const OUTCOME_WORKED_MAX: usize = 500;
/// Longest `outcome.notes`.
pub const OUTCOME_NOTES_MAX: usize = 1000;
/// Longest `checkpoint.step`.
pub const CHECKPOINT_STEP_MAX: usize = 200;
/// Longest `checkpoint.note`.
pub const CHECKPOINT_NOTE_MAX: usize = 500;
/// Longest `blocked.reason`.
pub const BLOCKED_REASON_MAX: usize = 1000;
/// Longest `blocked.needs`.
pub const BLOCKED_NEEDS_MAX: usize = 500;
/// Longest `updated_by.agent` / `updated_by.model`.
pub const AGENT_NAME_MAX: usize = 100;

/// `commit` of a task: lower-case hex, 7 to 40 digits (the whole text). Checked by hand, as
/// is [`is_locator_value`]: every check of a state meets them, and a compiled pattern costs
/// more than the whole check of a 500-task state's commits.
pub fn is_commit_hash(text: &str) -> bool {
    (7..=40).contains(&text.len()) && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// `locator.value` of a v2/v5 task, the whole text: `#task-<N>` or `<N>.task_<slug>.md`, with
/// N a number without a leading zero and the slug made of `a`–`z`, `0`–`9` and `_`.
pub fn is_locator_value(text: &str) -> bool {
    let number = |n: &str| {
        n.bytes().next().is_some_and(|b| b != b'0') && n.bytes().all(|b| b.is_ascii_digit())
    };
    if let Some(n) = text.strip_prefix("#task-") {
        return number(n);
    }
    let Some((n, slug)) = text
        .strip_suffix(".md")
        .and_then(|rest| rest.split_once(".task_"))
    else {
        return false;
    };
    number(n)
        && !slug.is_empty()
        && slug
            .bytes()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'))
}

/// One schema problem at one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeIssue {
    /// JSONPath of the value concerned, e.g. `$.tasks[3].gates[0].command`; for a missing or
    /// unknown field, the path of the object that holds (or lacks) it.
    pub path: String,
    /// What is wrong: `missing required field \`command\``, `unknown field \`foo\``,
    /// `expected integer, got string`, `value \`x\` is not one of pending|…`.
    pub problem: String,
    /// [`Severity::Fail`] for a schema violation, [`Severity::Advisory`] for a non-ISO
    /// timestamp (reported, never refused on read).
    pub severity: Severity,
}

impl ShapeIssue {
    fn error(path: String, problem: String) -> Self {
        Self {
            path,
            problem,
            severity: Severity::Fail,
        }
    }

    /// A schema violation (a failure), not the advisory of a non-ISO timestamp.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Fail
    }
    /// Path and problem with every array index replaced by `*`: issues that differ only by
    /// which record they are in share this key, so the text printer can group them.
    pub fn group_key(&self) -> String {
        format!("{}: {}", normalise_indices(&self.path), self.problem)
    }
    /// The 0-based position in `tasks` of the task the issue lies in (`$.tasks[3]…` ⇒ 3).
    pub fn task_position(&self) -> Option<usize> {
        let rest = self.path.strip_prefix("$.tasks[")?;
        rest[..rest.find(']')?].parse().ok()
    }
    /// Whether the issue lies inside a gate record (`….gates[`): the conformance check goes on
    /// past the shape checks when every shape error is of that kind.
    pub fn is_inside_gate_record(&self) -> bool {
        self.path.contains(".gates[")
    }
}

impl std::fmt::Display for ShapeIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.problem)
    }
}

fn normalise_indices(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_index = false;
    for c in path.chars() {
        if in_index {
            if c == ']' {
                out.push_str("*]");
                in_index = false;
            } else if !c.is_ascii_digit() {
                // not a numeric index after all (a quoted key): keep it verbatim
                out.push(c);
                in_index = false;
            }
            continue;
        }
        out.push(c);
        if c == '[' {
            in_index = true;
        }
    }
    out
}

/// Finding id of a shape error of state.json.
pub const STATE_SHAPE_ERROR: &str = "state-shape-error";
/// Finding id of a shape error of manifest.json.
pub const MANIFEST_SHAPE_ERROR: &str = "manifest-shape-error";
/// Advisory id of a timestamp that is a string but not ISO-8601.
pub const TIMESTAMP_NOT_ISO: &str = "timestamp-not-iso8601";

/// Turns issues into findings: failures as `state-shape-error` / `manifest-shape-error`, the
/// advisories as `timestamp-not-iso8601`; message `"$.path: problem"`, file set, and a group
/// key so repeated issues print as one line with "(and N more record(s) alike)".
pub fn shape_findings(issues: &[ShapeIssue], file: PlanFile) -> Vec<Finding> {
    let error_id = match file {
        PlanFile::State => STATE_SHAPE_ERROR,
        PlanFile::Manifest => MANIFEST_SHAPE_ERROR,
    };
    issues
        .iter()
        .map(|issue| {
            let id = if issue.is_error() {
                error_id
            } else {
                TIMESTAMP_NOT_ISO
            };
            let mut f = Finding::new(id, issue.severity, issue.to_string())
                .file(file.file_name())
                .group(issue.group_key());
            if issue.is_error() {
                f = f.hint(format!(
                    "fix the field in {} as the message says",
                    file.file_name()
                ));
            } else {
                f = f.hint("write timestamps as ISO-8601, e.g. 2026-10-05T09:00:00+00:00");
            }
            f
        })
        .collect()
}

/// The two files must be of one era: a v5 state needs a v5 manifest, v2 a v2, v1 a v1. `None`
/// when they pair.
pub fn era_pairing(state: Era, manifest: Era) -> Option<Finding> {
    (state != manifest).then(|| {
        Finding::fail(
            "era-mismatch",
            format!(
                "state.json is a {state} state but manifest.json is a {manifest} manifest — \
                 a {state} state needs the manifest schema {}",
                state.manifest_url()
            ),
        )
        .file(layout::MANIFEST_FILE)
        .hint("the two files must come from the same schema generation; migrate both explicitly")
    })
}

/// Accepts any ISO-8601 date-time on read: `Z` or an offset, fractional seconds of any length,
/// or a civil date-time / date without an offset.
pub fn is_iso8601(text: &str) -> bool {
    text.parse::<jiff::Timestamp>().is_ok()
        || text.parse::<jiff::civil::DateTime>().is_ok()
        || text.parse::<jiff::civil::Date>().is_ok()
}

/// Validates a state against the shape of the era its `schema` URL declares. An unsupported
/// URL gives one issue at `$.schema` and nothing else (the shape is unknown).
pub fn validate_state(value: &Value) -> Vec<ShapeIssue> {
    if !value.is_object() {
        return vec![not_an_object("$", value)];
    }
    match state_era(value) {
        Ok(era) => validate_state_as(value, era),
        Err(e) => vec![ShapeIssue::error(
            "$.schema".into(),
            unsupported(e.found.as_deref(), PlanFile::State),
        )],
    }
}

/// Validates a manifest against the shape of the era its `schema` URL declares.
pub fn validate_manifest(value: &Value) -> Vec<ShapeIssue> {
    if !value.is_object() {
        return vec![not_an_object("$", value)];
    }
    match manifest_era(value) {
        Ok(era) => validate_manifest_as(value, era),
        Err(e) => vec![ShapeIssue::error(
            "$.schema".into(),
            unsupported(e.found.as_deref(), PlanFile::Manifest),
        )],
    }
}

fn unsupported(found: Option<&str>, file: PlanFile) -> String {
    let list = Era::ALL
        .iter()
        .map(|e| match file {
            PlanFile::State => e.state_url(),
            PlanFile::Manifest => e.manifest_url(),
        })
        .collect::<Vec<_>>()
        .join(", ");
    match found {
        Some(url) => format!("unsupported schema URL `{url}` (supported: {list})"),
        None => format!("missing schema URL (supported: {list})"),
    }
}

fn not_an_object(path: &str, value: &Value) -> ShapeIssue {
    ShapeIssue::error(
        path.into(),
        format!("expected object, got {}", type_name(value)),
    )
}

/// The JSON type of a value, in the words the messages use.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

const STATE_FIELDS_CURRENT: &[&str] = &[
    "schema",
    "plan",
    "updated_at",
    "updated_by",
    "status",
    "completed_count",
    "task_count",
    "format",
    "materialization",
    "approval",
    "promotion",
    "tasks",
    "checkpoint",
    "blocked",
];
const STATE_REQUIRED_CURRENT: &[&str] = &[
    "schema",
    "plan",
    "updated_at",
    "status",
    "completed_count",
    "task_count",
    "format",
    "materialization",
    "tasks",
];
const STATE_FIELDS_V1: &[&str] = &[
    "schema",
    "plan",
    "updated_at",
    "updated_by",
    "status",
    "completed_count",
    "task_count",
    "tasks",
    "checkpoint",
    "blocked",
];
const STATE_REQUIRED_V1: &[&str] = &[
    "schema",
    "plan",
    "updated_at",
    "status",
    "completed_count",
    "task_count",
    "tasks",
];
const TASK_FIELDS_CURRENT: &[&str] = &[
    "id",
    "locator",
    "title",
    "status",
    "started_at",
    "completed_at",
    "commit",
    "gates",
    "outcome",
];
const TASK_REQUIRED_CURRENT: &[&str] = &["id", "locator", "title", "status"];
const TASK_FIELDS_V1: &[&str] = &[
    "id",
    "file",
    "title",
    "status",
    "started_at",
    "completed_at",
    "commit",
    "gates",
    "outcome",
];
const TASK_REQUIRED_V1: &[&str] = &["id", "file", "title", "status"];
const GATE_FIELDS: &[&str] = &["command", "passes", "exit_code", "last_run", "evidence"];
const GATE_REQUIRED: &[&str] = &["command", "passes", "last_run"];
const MANIFEST_FIELDS_CURRENT: &[&str] = &[
    "schema",
    "spec_version",
    "name",
    "title",
    "archetype",
    "rigor",
    "created_at",
    "created_by",
    "tags",
    "task_count",
    "parent_plan",
    "plan_format",
];
const MANIFEST_REQUIRED_CURRENT: &[&str] = &[
    "schema",
    "spec_version",
    "name",
    "archetype",
    "rigor",
    "created_at",
    "task_count",
    "plan_format",
];
const MANIFEST_FIELDS_V1: &[&str] = &[
    "schema",
    "spec_version",
    "name",
    "title",
    "archetype",
    "rigor",
    "created_at",
    "created_by",
    "tags",
    "task_count",
    "parent_plan",
];
const MANIFEST_REQUIRED_V1: &[&str] = &[
    "schema",
    "spec_version",
    "name",
    "archetype",
    "rigor",
    "created_at",
    "task_count",
];

/// Validates a state against the shape of `era` (whatever its `schema` says; a `schema` other
/// than `era`'s URL is reported).
pub fn validate_state_as(value: &Value, era: Era) -> Vec<ShapeIssue> {
    validate_state_top(value, era, None).0
}

/// [`validate_state_as`] of a state whose task list was left out (`elided`: how many tasks it
/// holds; `None` when the list is in `value`): every issue outside the tasks, and the plan
/// format the tasks are validated against ([`validate_task_as`], in order, gives the rest).
pub(crate) fn validate_state_top(
    value: &Value,
    era: Era,
    elided: Option<usize>,
) -> (Vec<ShapeIssue>, Option<PlanFormat>) {
    let mut c = Checker::default();
    let (fields, required, other_era_fields) = if era.is_current() {
        (
            STATE_FIELDS_CURRENT,
            STATE_REQUIRED_CURRENT,
            STATE_FIELDS_V1,
        )
    } else {
        (STATE_FIELDS_V1, STATE_REQUIRED_V1, STATE_FIELDS_CURRENT)
    };
    let Some(obj) = c.object(value, "$", fields, required, other_era_fields, era, "state") else {
        return (c.issues, None);
    };
    c.constant(obj, "$", "schema", era.state_url());
    c.string(obj, "$", "plan", None);
    c.timestamp(obj, "$", "updated_at");
    if let Some(v) = obj.get("updated_by") {
        c.agent(v, &child("$", "updated_by"), Some(AGENT_NAME_MAX));
    }
    c.enumerated(
        obj,
        "$",
        "status",
        PlanStatus::ALL.iter().map(|s| s.as_str()),
    );
    c.integer(obj, "$", "completed_count", 0);
    c.integer(obj, "$", "task_count", 1);
    let format = obj
        .get("format")
        .and_then(Value::as_str)
        .and_then(PlanFormat::parse);
    if era.is_current() {
        c.enumerated(
            obj,
            "$",
            "format",
            PlanFormat::ALL.iter().map(|s| s.as_str()),
        );
        c.enumerated(
            obj,
            "$",
            "materialization",
            Materialization::ALL.iter().map(|s| s.as_str()),
        );
        c.enumerated(
            obj,
            "$",
            "approval",
            Approval::ALL.iter().map(|s| s.as_str()),
        );
        if let Some(p) = obj.get("promotion")
            && !p.is_null()
        {
            c.promotion(p, &child("$", "promotion"));
        }
    }
    if let Some(cp) = obj.get("checkpoint")
        && !cp.is_null()
    {
        c.checkpoint(cp, &child("$", "checkpoint"));
    }
    if let Some(b) = obj.get("blocked")
        && !b.is_null()
    {
        c.blocker(b, &child("$", "blocked"));
    }
    if let Some(tasks) = obj.get("tasks") {
        match tasks.as_array() {
            None => c.type_error("$.tasks", "array", tasks),
            Some(list) => {
                if elided.unwrap_or(list.len()) == 0 {
                    c.error("$.tasks".into(), "expected at least one task".into());
                }
                if elided.is_none() {
                    for (i, task) in list.iter().enumerate() {
                        c.task(task, &format!("$.tasks[{i}]"), era, format);
                    }
                }
            }
        }
    }
    (c.issues, format)
}

/// [`validate_state`] of a state whose tasks are validated only where `validate_task(index)`
/// says so: every issue outside the tasks and those of the tasks validated, in the order
/// [`validate_state`] gives them. For a state that differs from one already validated (same era
/// and format) only in some tasks: the others would give the issues they gave there.
pub fn validate_state_tasks_where(
    value: &Value,
    validate_task: impl Fn(usize) -> bool,
) -> Vec<ShapeIssue> {
    let era = match state_era(value) {
        Ok(era) if value.is_object() => era,
        _ => return validate_state(value),
    };
    let Some(tasks) = value.get("tasks").and_then(Value::as_array) else {
        return validate_state_as(value, era);
    };
    let (mut issues, format) = validate_state_top(value, era, Some(tasks.len()));
    for (i, task) in tasks.iter().enumerate() {
        if validate_task(i) {
            issues.extend(validate_task_as(task, i, era, format));
        }
    }
    issues
}

/// The shape issues of task `index` of a state read as `era` whose format is `format`.
pub(crate) fn validate_task_as(
    task: &Value,
    index: usize,
    era: Era,
    format: Option<PlanFormat>,
) -> Vec<ShapeIssue> {
    let mut c = Checker::default();
    c.task(task, &format!("$.tasks[{index}]"), era, format);
    c.issues
}

/// Validates a manifest against the shape of `era`.
pub fn validate_manifest_as(value: &Value, era: Era) -> Vec<ShapeIssue> {
    let mut c = Checker::default();
    let (fields, required, other) = if era.is_current() {
        (
            MANIFEST_FIELDS_CURRENT,
            MANIFEST_REQUIRED_CURRENT,
            MANIFEST_FIELDS_V1,
        )
    } else {
        (
            MANIFEST_FIELDS_V1,
            MANIFEST_REQUIRED_V1,
            MANIFEST_FIELDS_CURRENT,
        )
    };
    let Some(obj) = c.object(value, "$", fields, required, other, era, "manifest") else {
        return c.issues;
    };
    c.constant(obj, "$", "schema", era.manifest_url());
    c.string(obj, "$", "spec_version", None);
    c.string(obj, "$", "name", None);
    c.string(obj, "$", "title", None);
    c.enumerated(
        obj,
        "$",
        "archetype",
        Archetype::ALL.iter().map(|s| s.as_str()),
    );
    c.enumerated(obj, "$", "rigor", Rigor::ALL.iter().map(|s| s.as_str()));
    c.timestamp(obj, "$", "created_at");
    c.integer(obj, "$", "task_count", 1);
    if era.is_current() {
        c.enumerated(
            obj,
            "$",
            "plan_format",
            PlanFormat::ALL.iter().map(|s| s.as_str()),
        );
    }
    if let Some(v) = obj.get("created_by") {
        c.agent(v, &child("$", "created_by"), None);
    }
    if let Some(tags) = obj.get("tags") {
        match tags.as_array() {
            None => c.type_error("$.tags", "array", tags),
            Some(list) => {
                for (i, t) in list.iter().enumerate() {
                    if !t.is_string() {
                        c.type_error(&format!("$.tags[{i}]"), "string", t);
                    }
                }
            }
        }
    }
    if let Some(p) = obj.get("parent_plan")
        && !p.is_null()
        && !p.is_string()
    {
        c.type_error("$.parent_plan", "string or null", p);
    }
    c.issues
}

/// Validates one gate record (e.g. a `--gate-json` argument) placed at `path`.
pub fn validate_gate_record(value: &Value, path: &str) -> Vec<ShapeIssue> {
    let mut c = Checker::default();
    c.gate(value, path);
    c.issues
}

fn child(parent: &str, key: &str) -> String {
    let mut p = String::with_capacity(parent.len() + key.len() + 1);
    p.push_str(parent);
    push_key(&mut p, key);
    p
}

#[derive(Default)]
struct Checker {
    issues: Vec<ShapeIssue>,
}

impl Checker {
    fn error(&mut self, path: String, problem: String) {
        self.issues.push(ShapeIssue::error(path, problem));
    }

    fn type_error(&mut self, path: &str, expected: &str, got: &Value) {
        self.error(
            path.to_string(),
            format!("expected {expected}, got {}", type_name(got)),
        );
    }

    /// Checks that `value` is an object with the required fields and no unknown ones. A field
    /// that belongs to the other era is named as such.
    #[allow(clippy::too_many_arguments)]
    fn object<'v>(
        &mut self,
        value: &'v Value,
        path: &str,
        fields: &[&str],
        required: &[&str],
        other_era_fields: &[&str],
        era: Era,
        what: &str,
    ) -> Option<&'v Map<String, Value>> {
        let Some(obj) = value.as_object() else {
            self.type_error(path, "object", value);
            return None;
        };
        for key in required {
            if !obj.contains_key(*key) {
                self.error(path.to_string(), format!("missing required field `{key}`"));
            }
        }
        for key in obj.keys() {
            if fields.contains(&key.as_str()) {
                continue;
            }
            let problem = if other_era_fields.contains(&key.as_str()) {
                if era.is_current() {
                    format!("field `{key}` is v1 only, not allowed in a {era} {what}")
                } else {
                    format!("field `{key}` is not allowed in a v1 {what} (v2/v5 only)")
                }
            } else {
                format!("unknown field `{key}`")
            };
            self.error(path.to_string(), problem);
        }
        Some(obj)
    }

    fn closed(&mut self, value: &Value, path: &str, fields: &[&str], required: &[&str]) -> bool {
        let Some(obj) = value.as_object() else {
            self.type_error(path, "object", value);
            return false;
        };
        for key in required {
            if !obj.contains_key(*key) {
                self.error(path.to_string(), format!("missing required field `{key}`"));
            }
        }
        for key in obj.keys() {
            if !fields.contains(&key.as_str()) {
                self.error(path.to_string(), format!("unknown field `{key}`"));
            }
        }
        true
    }

    fn string<'v>(
        &mut self,
        obj: &'v Map<String, Value>,
        path: &str,
        key: &str,
        max: Option<usize>,
    ) -> Option<&'v str> {
        let v = obj.get(key)?;
        let Some(s) = v.as_str() else {
            self.type_error(&child(path, key), "string", v);
            return None;
        };
        if let Some(max) = max {
            let len = s.chars().count();
            if len > max {
                self.error(
                    child(path, key),
                    format!("longer than {max} characters ({len})"),
                );
            }
        }
        Some(s)
    }

    fn nullable_string(
        &mut self,
        obj: &Map<String, Value>,
        path: &str,
        key: &str,
        max: Option<usize>,
    ) {
        if obj.get(key).is_some_and(|v| !v.is_null()) {
            self.string(obj, path, key, max);
        }
    }

    fn constant(&mut self, obj: &Map<String, Value>, path: &str, key: &str, expected: &str) {
        if let Some(s) = self.string(obj, path, key, None)
            && s != expected
        {
            self.error(
                child(path, key),
                format!("expected `{expected}`, got `{s}`"),
            );
        }
    }

    fn timestamp(&mut self, obj: &Map<String, Value>, path: &str, key: &str) {
        if let Some(s) = self.string(obj, path, key, None)
            && !is_iso8601(s)
        {
            self.issues.push(ShapeIssue {
                path: child(path, key),
                problem: format!("`{s}` is not an ISO-8601 timestamp"),
                severity: Severity::Advisory,
            });
        }
    }

    fn integer(&mut self, obj: &Map<String, Value>, path: &str, key: &str, min: i64) {
        let Some(v) = obj.get(key) else { return };
        match v {
            Value::Number(n) if n.is_i64() => {
                let n = n.as_i64().expect("is_i64 was checked just above");
                if n < min {
                    self.error(
                        child(path, key),
                        format!("expected an integer ≥ {min}, got {n}"),
                    );
                }
            }
            // Above i64: a count this large is out of range for the plan files.
            Value::Number(n) if n.is_u64() => {
                self.error(child(path, key), "integer out of range".to_string())
            }
            _ => self.type_error(&child(path, key), "integer", v),
        }
    }

    fn boolean(&mut self, obj: &Map<String, Value>, path: &str, key: &str) {
        if let Some(v) = obj.get(key)
            && !v.is_boolean()
        {
            self.type_error(&child(path, key), "boolean", v);
        }
    }

    fn enumerated<'a>(
        &mut self,
        obj: &Map<String, Value>,
        path: &str,
        key: &str,
        choices: impl Iterator<Item = &'a str> + Clone,
    ) {
        if let Some(s) = self.string(obj, path, key, None)
            && !choices.clone().any(|c| c == s)
        {
            let list = choices.collect::<Vec<_>>().join("|");
            self.error(
                child(path, key),
                format!("value `{s}` is not one of {list}"),
            );
        }
    }

    fn agent(&mut self, value: &Value, path: &str, max: Option<usize>) {
        if self.closed(value, path, &["agent", "model"], &[])
            && let Some(obj) = value.as_object()
        {
            self.string(obj, path, "agent", max);
            self.string(obj, path, "model", max);
        }
    }

    fn promotion(&mut self, value: &Value, path: &str) {
        // `{from:"lite", to:"full", phase, …}`: three required fields; other keys are not
        // refused, room for more fields.
        let Some(obj) = value.as_object() else {
            self.type_error(path, "object or null", value);
            return;
        };
        for key in ["from", "to", "phase"] {
            if !obj.contains_key(key) {
                self.error(path.to_string(), format!("missing required field `{key}`"));
            }
        }
        self.constant(obj, path, "from", "lite");
        self.constant(obj, path, "to", "full");
        self.enumerated(
            obj,
            path,
            "phase",
            PromotionPhase::ALL.iter().map(|s| s.as_str()),
        );
    }

    fn checkpoint(&mut self, value: &Value, path: &str) {
        self.task_note(
            value,
            path,
            ("step", CHECKPOINT_STEP_MAX),
            "at",
            ("note", CHECKPOINT_NOTE_MAX),
        );
    }

    fn blocker(&mut self, value: &Value, path: &str) {
        self.task_note(
            value,
            path,
            ("reason", BLOCKED_REASON_MAX),
            "since",
            ("needs", BLOCKED_NEEDS_MAX),
        );
    }

    /// `checkpoint` and `blocked` share one shape: a closed object naming a task, a required
    /// bounded text, an optional timestamp and an optional (nullable) bounded text.
    fn task_note(
        &mut self,
        value: &Value,
        path: &str,
        (text, text_max): (&str, usize),
        time: &str,
        (extra, extra_max): (&str, usize),
    ) {
        if !value.is_object() {
            self.type_error(path, "object or null", value);
            return;
        }
        self.closed(value, path, &["task", text, time, extra], &["task", text]);
        let obj = value.as_object().expect("checked to be an object above");
        self.integer(obj, path, "task", 1);
        self.string(obj, path, text, Some(text_max));
        self.timestamp(obj, path, time);
        self.nullable_string(obj, path, extra, Some(extra_max));
    }

    fn task(&mut self, value: &Value, path: &str, era: Era, format: Option<PlanFormat>) {
        let (fields, required, other) = if era.is_current() {
            (TASK_FIELDS_CURRENT, TASK_REQUIRED_CURRENT, TASK_FIELDS_V1)
        } else {
            (TASK_FIELDS_V1, TASK_REQUIRED_V1, TASK_FIELDS_CURRENT)
        };
        let Some(obj) = self.object(value, path, fields, required, other, era, "task") else {
            return;
        };
        self.integer(obj, path, "id", 1);
        self.string(obj, path, "title", None);
        self.enumerated(
            obj,
            path,
            "status",
            TaskStatus::ALL.iter().map(|s| s.as_str()),
        );
        self.timestamp(obj, path, "started_at");
        self.timestamp(obj, path, "completed_at");
        if let Some(commit) = self.string(obj, path, "commit", None)
            && !is_commit_hash(commit)
        {
            self.error(
                child(path, "commit"),
                format!("`{commit}` is not 7–40 lower-case hex digits"),
            );
        }
        if era.is_current() {
            if let Some(loc) = obj.get("locator") {
                self.locator(loc, &child(path, "locator"), format);
            }
        } else {
            self.string(obj, path, "file", None);
        }
        if let Some(gates) = obj.get("gates") {
            match gates.as_array() {
                None => self.type_error(&child(path, "gates"), "array", gates),
                Some(list) => {
                    for (i, g) in list.iter().enumerate() {
                        self.gate(g, &format!("{path}.gates[{i}]"));
                    }
                }
            }
        }
        if let Some(o) = obj.get("outcome") {
            self.outcome(o, &child(path, "outcome"));
        }
    }

    fn locator(&mut self, value: &Value, path: &str, format: Option<PlanFormat>) {
        if !self.closed(value, path, &["kind", "value"], &["kind", "value"]) {
            return;
        }
        let obj = value
            .as_object()
            .expect("closed() returned true for an object");
        self.enumerated(
            obj,
            path,
            "kind",
            LocatorKind::ALL.iter().map(|s| s.as_str()),
        );
        if let Some(v) = self.string(obj, path, "value", None)
            && !is_locator_value(v)
        {
            self.error(
                child(path, "value"),
                format!("`{v}` is neither `#task-<N>` nor `<N>.task_<slug>.md`"),
            );
        }
        let kind = obj
            .get("kind")
            .and_then(Value::as_str)
            .and_then(LocatorKind::parse);
        if let (Some(kind), Some(format)) = (kind, format) {
            let expected = match format {
                PlanFormat::Lite => LocatorKind::Inline,
                PlanFormat::Full => LocatorKind::File,
            };
            if kind != expected {
                self.error(
                    child(path, "kind"),
                    format!("`{kind}` locator in a {format} plan (expected `{expected}`)"),
                );
            }
        }
    }

    fn gate(&mut self, value: &Value, path: &str) {
        if !self.closed(value, path, GATE_FIELDS, GATE_REQUIRED) {
            return;
        }
        let obj = value
            .as_object()
            .expect("closed() returned true for an object");
        self.string(obj, path, "command", Some(GATE_COMMAND_MAX));
        self.boolean(obj, path, "passes");
        self.integer(obj, path, "exit_code", i64::MIN);
        self.timestamp(obj, path, "last_run");
        self.string(obj, path, "evidence", Some(GATE_EVIDENCE_MAX));
    }

    fn outcome(&mut self, value: &Value, path: &str) {
        if !self.closed(value, path, &["tried", "failed", "worked", "notes"], &[]) {
            return;
        }
        let obj = value
            .as_object()
            .expect("closed() returned true for an object");
        for key in ["tried", "failed"] {
            if let Some(v) = obj.get(key) {
                match v.as_array() {
                    None => self.type_error(&child(path, key), "array", v),
                    Some(list) => {
                        for (i, item) in list.iter().enumerate() {
                            if !item.is_string() {
                                self.type_error(
                                    &format!("{}[{i}]", child(path, key)),
                                    "string",
                                    item,
                                );
                            }
                        }
                    }
                }
            }
        }
        self.string(obj, path, "worked", Some(OUTCOME_WORKED_MAX));
        self.string(obj, path, "notes", Some(OUTCOME_NOTES_MAX));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn commit_and_locator_checks_answer_as_their_patterns(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "#task-", "#task", "0", "1", "9", "07", "12", ".task_", ".task", "_", "a", "f", "g",
                "A", "z", "slug_2", ".md", ".MD", ".", "-", "\n", "é", "deadbeef", "",
            ]), 0..7)
        ) {
            let text: String = parts.concat();
            let commit = regex::Regex::new(r"^[0-9a-f]{7,40}$").unwrap();
            let locator =
                regex::Regex::new(r"^(#task-[1-9][0-9]*|[1-9][0-9]*\.task_[a-z0-9_]+\.md)$").unwrap();
            proptest::prop_assert_eq!(is_commit_hash(&text), commit.is_match(&text), "{:?}", text);
            proptest::prop_assert_eq!(is_locator_value(&text), locator.is_match(&text), "{:?}", text);
        }
    }
    use serde_json::json;

    fn v2_state() -> Value {
        json!({
            "schema": "https://deepworkplan.com/schema/plan-state/v2.json",
            "plan": "PLAN_x", "updated_at": "2026-10-05T08:40:00Z", "status": "pending",
            "completed_count": 0, "task_count": 2, "format": "lite", "materialization": "ready",
            "approval": "approved", "promotion": null,
            "tasks": [
                {"id": 1, "locator": {"kind": "inline", "value": "#task-1"}, "title": "A", "status": "pending", "gates": []},
                {"id": 2, "locator": {"kind": "inline", "value": "#task-2"}, "title": "B", "status": "pending", "gates": []}
            ]
        })
    }

    #[test]
    fn clean_state_has_no_issue() {
        assert_eq!(validate_state(&v2_state()), vec![]);
    }

    #[test]
    fn reports_every_problem_with_its_path() {
        let mut s = v2_state();
        s["owner"] = json!("ana");
        s["completed_count"] = json!("0");
        s["tasks"][1]["status"] = json!("done");
        s["tasks"][1]["gates"] =
            json!([{"command": "x", "passes": "yes", "last_run": "soon", "retries": 2}]);
        s["tasks"][0]["commit"] = json!("ABCDEF1");
        s["tasks"][0]["locator"]["kind"] = json!("file");
        let issues = validate_state(&s);
        let text: Vec<String> = issues.iter().map(ToString::to_string).collect();
        let expected = [
            "$: unknown field `owner`",
            "$.completed_count: expected integer, got string",
            "$.tasks[0].commit: `ABCDEF1` is not 7–40 lower-case hex digits",
            "$.tasks[0].locator.kind: `file` locator in a lite plan (expected `inline`)",
            "$.tasks[1].status: value `done` is not one of pending|in_progress|completed|blocked|skipped",
            "$.tasks[1].gates[0]: unknown field `retries`",
            "$.tasks[1].gates[0].passes: expected boolean, got string",
            "$.tasks[1].gates[0].last_run: `soon` is not an ISO-8601 timestamp",
        ];
        for e in expected {
            assert!(text.iter().any(|t| t == e), "missing {e:?} in {text:#?}");
        }
        assert_eq!(text.len(), expected.len(), "{text:#?}");
        let advisory: Vec<_> = issues.iter().filter(|i| !i.is_error()).collect();
        assert_eq!(advisory.len(), 1);
        assert!(advisory[0].path.ends_with("last_run"));
    }

    #[test]
    fn validating_some_tasks_gives_the_whole_validation_restricted_to_them() {
        let mut s = v2_state();
        s["owner"] = json!("ana");
        s["tasks"][0]["commit"] = json!("ABCDEF1");
        s["tasks"][1]["status"] = json!("done");
        assert_eq!(validate_state_tasks_where(&s, |_| true), validate_state(&s));
        let only_second: Vec<_> = validate_state(&s)
            .into_iter()
            .filter(|i| i.task_position() != Some(0))
            .collect();
        assert_eq!(validate_state_tasks_where(&s, |i| i == 1), only_second);
        // Not a state of a known era: the whole validation, whatever the filter says.
        s["schema"] = json!("https://example.com/other.json");
        assert_eq!(
            validate_state_tasks_where(&s, |_| false),
            validate_state(&s)
        );
    }

    #[test]
    fn era_specific_fields() {
        let mut s = v2_state();
        s["tasks"][0]["file"] = json!("1.task_a.md");
        let issues = validate_state(&s);
        assert_eq!(issues.len(), 1);
        assert_eq!(
            issues[0].problem,
            "field `file` is v1 only, not allowed in a v2 task"
        );
    }

    #[test]
    fn budgets_count_characters() {
        let mut s = v2_state();
        s["tasks"][0]["outcome"] = json!({"worked": "é".repeat(500), "notes": "x".repeat(1001)});
        let issues = validate_state(&s);
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert_eq!(issues[0].path, "$.tasks[0].outcome.notes");
    }

    #[test]
    fn group_keys_ignore_indices() {
        let a = ShapeIssue::error("$.tasks[3].gates[10]".into(), "unknown field `x`".into());
        let b = ShapeIssue::error("$.tasks[4].gates[0]".into(), "unknown field `x`".into());
        assert_eq!(a.group_key(), b.group_key());
        assert_eq!(a.group_key(), "$.tasks[*].gates[*]: unknown field `x`");
        assert!(a.is_inside_gate_record());
        assert_eq!(a.task_position(), Some(3));
        assert_eq!(
            ShapeIssue::error("$.tasks".into(), "x".into()).task_position(),
            None
        );
        let f = shape_findings(&[a], PlanFile::State);
        assert_eq!(f[0].id, STATE_SHAPE_ERROR);
        assert_eq!(f[0].message, "$.tasks[3].gates[10]: unknown field `x`");
    }

    #[test]
    fn iso_forms() {
        for ok in [
            "2026-10-05T09:00:00+00:00",
            "2026-10-05T09:00:01.250000+00:00",
            "2026-10-05T08:40:00Z",
            "2026-10-05T08:40:00",
            "2026-10-05",
            "2026-10-05 09:00:00+00:00",
            "2026-10-05T09:00:00.123+02:00",
            "2026-10-05t09:00:00z",
        ] {
            assert!(is_iso8601(ok), "{ok}");
        }
        for bad in ["yesterday", "05/10/2026", ""] {
            assert!(!is_iso8601(bad), "{bad}");
        }
    }

    #[test]
    fn era_pairing_finding() {
        assert!(era_pairing(Era::V5, Era::V5).is_none());
        let f = era_pairing(Era::V5, Era::V2).unwrap();
        assert_eq!(f.id, "era-mismatch");
    }
}

//! The DWP plan model: strict JSON parsing, schema eras, and typed *read-only* views of
//! `manifest.json`, `state.json` and their gate records.
//!
//! The views are built leniently from a [`serde_json::Value`]: a field of the wrong type or with
//! an unknown value reads as `None` (the raw text is kept where a message needs it), so a state
//! with shape errors can still be judged as far as possible. [`crate::dwp::model::schema`] reports the
//! shape errors themselves. Writers never serialise these structs: they edit the `Value` in
//! place so that key order and unknown fields survive.
//!
//! ```
//! use planseal::dwp::model::{parse_json, Era, State, TaskStatus};
//! let bytes = br#"{"schema": "https://deepworkplan.com/schema/plan-state/v1.json",
//!   "plan": "PLAN_x", "updated_at": "2026-01-01T00:00:00Z", "status": "pending",
//!   "completed_count": 0, "task_count": 1,
//!   "tasks": [{"id": 1, "file": "1.task_a.md", "title": "A", "status": "pending"}]}"#;
//! let value = parse_json(bytes).unwrap();
//! let state = State::from_value(&value);
//! assert_eq!(state.era, Some(Era::V1));
//! assert_eq!(state.tasks[0].status, Some(TaskStatus::Pending));
//! assert_eq!(state.tasks[0].artifact_file(), Some("1.task_a.md"));
//! ```

pub mod fingerprint;
mod json;
pub mod markdown;
pub mod receipt;
pub mod schema;

pub(crate) use json::push_key;
pub use json::{JsonError, MAX_DEPTH, parse_json};
pub(crate) use json::{TasksElided, parse_task_at, parse_tasks_elided};

use crate::dwp::layout;
use serde_json::Value;

/// The `schema` URL of a `state.json` of [`Era::V1`].
pub const STATE_SCHEMA_V1: &str = "https://deepworkplan.com/schema/plan-state/v1.json";
/// The `schema` URL of a `state.json` of [`Era::V2`].
pub const STATE_SCHEMA_V2: &str = "https://deepworkplan.com/schema/plan-state/v2.json";
/// The `schema` URL of a `state.json` of [`Era::V5`].
pub const STATE_SCHEMA_V5: &str = "https://deepworkplan.com/schema/plan-state/v5.json";
/// The `schema` URL of a `manifest.json` of [`Era::V1`].
pub const MANIFEST_SCHEMA_V1: &str = "https://deepworkplan.com/schema/plan-manifest/v1.json";
/// The `schema` URL of a `manifest.json` of [`Era::V2`].
pub const MANIFEST_SCHEMA_V2: &str = "https://deepworkplan.com/schema/plan-manifest/v2.json";
/// The `schema` URL of a `manifest.json` of [`Era::V5`].
pub const MANIFEST_SCHEMA_V5: &str = "https://deepworkplan.com/schema/plan-manifest/v5.json";

/// A generation of the state layer. v5 has the v2 shape under a new URL; v1 is the legacy shape
/// (tasks carry `file`; no approval, materialization or promotion).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Era {
    /// The legacy shape: tasks name their `file`; no approval, materialization or promotion.
    V1,
    /// The current shape: tasks carry a `locator`, and the plan has `format`, `approval`,
    /// `materialization` and `promotion` fields.
    V2,
    /// The v2 shape under the v5 URLs.
    V5,
}

impl Era {
    /// Every era, oldest first.
    pub const ALL: [Era; 3] = [Era::V1, Era::V2, Era::V5];

    /// The `schema` URL a state.json of this era declares.
    pub fn state_url(self) -> &'static str {
        match self {
            Era::V1 => STATE_SCHEMA_V1,
            Era::V2 => STATE_SCHEMA_V2,
            Era::V5 => STATE_SCHEMA_V5,
        }
    }
    /// The `schema` URL a manifest.json of this era declares.
    pub fn manifest_url(self) -> &'static str {
        match self {
            Era::V1 => MANIFEST_SCHEMA_V1,
            Era::V2 => MANIFEST_SCHEMA_V2,
            Era::V5 => MANIFEST_SCHEMA_V5,
        }
    }
    /// The era of a state schema URL (exact match, as the helper does).
    pub fn from_state_url(url: &str) -> Option<Era> {
        Era::ALL.into_iter().find(|e| e.state_url() == url)
    }
    /// The era of a manifest schema URL (exact match).
    pub fn from_manifest_url(url: &str) -> Option<Era> {
        Era::ALL.into_iter().find(|e| e.manifest_url() == url)
    }
    /// v2 and v5 share one shape ("current era"); v1 is legacy.
    pub fn is_current(self) -> bool {
        self != Era::V1
    }
    /// `v1`, `v2` or `v5`.
    pub fn label(self) -> &'static str {
        match self {
            Era::V1 => "v1",
            Era::V2 => "v2",
            Era::V5 => "v5",
        }
    }
}

impl std::fmt::Display for Era {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// Which JSON file of a plan is meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlanFile {
    /// state.json, the plan's live execution state.
    State,
    /// manifest.json, the plan's static identity.
    Manifest,
}

impl PlanFile {
    /// The file's name inside the plan folder.
    pub fn file_name(self) -> &'static str {
        match self {
            PlanFile::State => layout::STATE_FILE,
            PlanFile::Manifest => layout::MANIFEST_FILE,
        }
    }
    fn url(self, era: Era) -> &'static str {
        match self {
            PlanFile::State => era.state_url(),
            PlanFile::Manifest => era.manifest_url(),
        }
    }
}

/// The `schema` field is missing, not a string, or not one of the supported URLs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {} — supported: {}", .file.file_name(), describe_found(.found.as_deref()), supported_list(*.file))]
pub struct UnsupportedSchema {
    /// The file whose `schema` is refused.
    pub file: PlanFile,
    /// The value found, when it was a string.
    pub found: Option<String>,
}

fn describe_found(found: Option<&str>) -> String {
    match found {
        Some(url) => format!("unsupported schema URL `{url}`"),
        None => "no `schema` URL (missing or not a string)".to_string(),
    }
}

fn supported_list(file: PlanFile) -> String {
    Era::ALL
        .iter()
        .map(|e| file.url(*e))
        .collect::<Vec<_>>()
        .join(", ")
}

impl UnsupportedSchema {
    /// The finding verify reports (`unsupported-schema`, a failure that stops checking the plan).
    pub fn finding(&self) -> crate::report::Finding {
        crate::report::Finding::fail("unsupported-schema", self.to_string())
            .file(self.file.file_name())
            .hint("use one of the supported schema URLs, or a planseal that knows this one")
    }
}

/// The era a state document declares.
pub fn state_era(value: &Value) -> Result<Era, UnsupportedSchema> {
    era_of(value, PlanFile::State)
}

/// The era a manifest document declares.
pub fn manifest_era(value: &Value) -> Result<Era, UnsupportedSchema> {
    era_of(value, PlanFile::Manifest)
}

fn era_of(value: &Value, file: PlanFile) -> Result<Era, UnsupportedSchema> {
    let found = value.get("schema").and_then(Value::as_str);
    let era = found.and_then(|url| match file {
        PlanFile::State => Era::from_state_url(url),
        PlanFile::Manifest => Era::from_manifest_url(url),
    });
    era.ok_or_else(|| UnsupportedSchema {
        file,
        found: found.map(str::to_owned),
    })
}

macro_rules! string_enum {
    ($(#[$doc:meta])* $name:ident {
        $($(#[$variant_doc:meta])* $variant:ident = $text:literal),+ $(,)?
    }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$variant_doc])* $variant),+ }

        impl $name {
            /// Every value, in the order the spec lists them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The JSON spelling.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
            /// Parses the JSON spelling (exact, case-sensitive).
            pub fn parse(text: &str) -> Option<$name> {
                match text { $($text => Some($name::$variant),)+ _ => None }
            }
            /// `a|b|c`, for messages.
            pub fn choices() -> String {
                [$($text),+].join("|")
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum!(
    /// A task's status.
    TaskStatus {
        /// Not started.
        Pending = "pending",
        /// Started (`started_at` set) and not finished.
        InProgress = "in_progress",
        /// Finished: the latest gate record of each of its commands passed, with evidence.
        Completed = "completed",
        /// Stopped; the plan's `blocked` record says why and what it needs.
        Blocked = "blocked",
        /// Left out on purpose; it does not count as completed.
        Skipped = "skipped",
    }
);

string_enum!(
    /// The plan's derived status: `blocked` when a blocker record exists or a task is blocked,
    /// else `completed` when every task is, else `in_progress` when any task is not pending,
    /// else `pending`.
    PlanStatus {
        /// Every task is pending.
        Pending = "pending",
        /// Some task has begun, not every task is completed, and nothing is blocked.
        InProgress = "in_progress",
        /// Every task is completed.
        Completed = "completed",
        /// A blocker record exists or a task is blocked.
        Blocked = "blocked",
    }
);

string_enum!(
    /// `approval` of a v2/v5 state.
    Approval {
        /// Not approved yet: `update` refuses to move any task.
        Pending = "pending",
        /// Approved by a person.
        Approved = "approved",
        /// Approved in advance, for unattended execution.
        PreApproved = "pre_approved",
    }
);

impl Approval {
    /// Approved or pre-approved: the plan may be executed.
    pub fn permits_execution(self) -> bool {
        matches!(self, Approval::Approved | Approval::PreApproved)
    }
}

string_enum!(
    /// `materialization` of a v2/v5 state.
    Materialization {
        /// The plan's files are still being written: `update` refuses to move any task.
        Materializing = "materializing",
        /// The plan is written out; its tasks may move once it is approved.
        Ready = "ready",
        /// A Lite → Full promotion is in flight (a `promotion` record exists exactly then).
        Promoting = "promoting",
    }
);

string_enum!(
    /// `format` of a state / `plan_format` of a manifest.
    PlanFormat {
        /// The tasks are inline records of README.md.
        Lite = "lite",
        /// Each task has its own `N.task_<slug>.md` file.
        Full = "full",
    }
);

string_enum!(
    /// `locator.kind`.
    LocatorKind {
        /// The value names the task's file, `N.task_<slug>.md`.
        File = "file",
        /// The value is the anchor `#task-N` of an inline record in README.md.
        Inline = "inline",
    }
);

string_enum!(
    /// `archetype` of a manifest.
    Archetype {
        /// A self-contained repository whose own code the plans change.
        Individual = "individual",
        /// A repository that coordinates child repositories (`repositories/<repo>/`), whose
        /// plans may delegate to plans of the children.
        OrchestratorHub = "orchestrator-hub",
        /// An agent platform's workspace, where git is optional.
        AgentWorkspace = "agent-workspace",
    }
);

string_enum!(
    /// `rigor` of a manifest.
    Rigor {
        /// The lightest tier, for a small change.
        Micro = "micro",
        /// The usual tier.
        Standard = "standard",
        /// The most thorough tier, for long or risky work.
        Deep = "deep",
    }
);

string_enum!(
    /// `promotion.phase`.
    PromotionPhase {
        /// The promotion is declared; nothing is written yet.
        Intent = "intent",
        /// The Full plan's task files are written.
        TasksWritten = "tasks_written",
        /// The plan has switched to those task files.
        Switched = "switched",
    }
);

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// A JSON integer ≥ 0 (not a float, not a bool).
fn count(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

fn int(v: &Value, key: &str) -> Option<i64> {
    v.get(key).and_then(Value::as_i64)
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// `{agent, model}` of `updated_by` / `created_by`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Agent {
    /// The name of the coding agent that wrote the file (`update --agent` for `updated_by`).
    pub agent: Option<String>,
    /// The name of the model it ran on (`update --model`).
    pub model: Option<String>,
}

impl Agent {
    fn from_value(v: &Value) -> Option<Agent> {
        v.is_object().then(|| Agent {
            agent: text(v, "agent"),
            model: text(v, "model"),
        })
    }
}

/// `manifest.json` as read: the plan's static identity, written once at creation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    /// `None` when the schema URL is not supported.
    pub era: Option<Era>,
    /// The `schema` URL as written (also an unsupported one).
    pub schema: Option<String>,
    /// The version of the DWP standard the plan was made for (`4.0.1`).
    pub spec_version: Option<String>,
    /// The plan's name, which must equal its folder name (`PLAN_x`).
    pub name: Option<String>,
    /// The plan's human title.
    pub title: Option<String>,
    /// The kind of repository the plan lives in.
    pub archetype: Option<Archetype>,
    /// The plan's rigor tier.
    pub rigor: Option<Rigor>,
    /// When the plan was created, as written (ISO-8601 expected).
    pub created_at: Option<String>,
    /// The number of tasks the manifest declares.
    pub task_count: Option<u64>,
    /// Lite or Full.
    pub plan_format: Option<PlanFormat>,
    /// The `tags` that are strings, in order.
    pub tags: Vec<String>,
    /// Who created the plan; `Some` when `created_by` is an object.
    pub created_by: Option<Agent>,
    /// `parent_plan` when it is a string (`null` and absent both read as `None`).
    pub parent_plan: Option<String>,
}

impl Manifest {
    /// Reads what can be read; never fails (a non-object gives an empty manifest).
    pub fn from_value(v: &Value) -> Manifest {
        Manifest {
            era: manifest_era(v).ok(),
            schema: text(v, "schema"),
            spec_version: text(v, "spec_version"),
            name: text(v, "name"),
            title: text(v, "title"),
            archetype: v
                .get("archetype")
                .and_then(Value::as_str)
                .and_then(Archetype::parse),
            rigor: v
                .get("rigor")
                .and_then(Value::as_str)
                .and_then(Rigor::parse),
            created_at: text(v, "created_at"),
            task_count: count(v, "task_count"),
            plan_format: v
                .get("plan_format")
                .and_then(Value::as_str)
                .and_then(PlanFormat::parse),
            tags: strings(v, "tags"),
            created_by: v.get("created_by").and_then(Agent::from_value),
            parent_plan: text(v, "parent_plan"),
        }
    }
}

/// `locator` of a v2/v5 task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locator {
    /// Where the task lives: its own file or an inline record.
    pub kind: Option<LocatorKind>,
    /// `N.task_<slug>.md` for a file, `#task-N` for an inline record, as written.
    pub value: Option<String>,
}

/// One gate record (one recorded run of a validation command), as read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GateRecord {
    /// Position in the task's `gates` array.
    pub index: usize,
    /// The validation command that was run, as written.
    pub command: Option<String>,
    /// `None` when `passes` is missing or not a boolean: the record is malformed.
    pub passes: Option<bool>,
    /// The run's exit code, when it is an integer.
    pub exit_code: Option<i64>,
    /// When the command ran, as written (ISO-8601 expected).
    pub last_run: Option<String>,
    /// What the run showed (`ran=12/12; log=analysis_results/gates/t1.log`); the evidence
    /// rules of [`crate::dwp::check::gates`] read it.
    pub evidence: Option<String>,
}

impl GateRecord {
    /// Reads one record; `None` when the array element is not an object.
    pub fn from_value(index: usize, v: &Value) -> Option<GateRecord> {
        v.is_object().then(|| GateRecord {
            index,
            command: text(v, "command"),
            passes: v.get("passes").and_then(Value::as_bool),
            exit_code: int(v, "exit_code"),
            last_run: text(v, "last_run"),
            evidence: text(v, "evidence"),
        })
    }
    /// A record without a boolean `passes` cannot be read as passing or failing.
    pub fn is_malformed(&self) -> bool {
        self.passes.is_none()
    }
    /// Evidence or "" when absent.
    pub fn evidence_text(&self) -> &str {
        self.evidence.as_deref().unwrap_or("")
    }
}

/// `outcome` of a task: episodic memory of how it was solved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The approaches tried (the entries that are strings).
    pub tried: Vec<String>,
    /// The approaches that failed (the entries that are strings).
    pub failed: Vec<String>,
    /// What worked (`update --worked`).
    pub worked: Option<String>,
    /// Free notes (`update --notes`).
    pub notes: Option<String>,
}

/// One entry of `tasks`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Task {
    /// Position in the `tasks` array (0-based).
    pub index: usize,
    /// `id` when it is an integer ≥ 0.
    pub id: Option<u64>,
    /// v2/v5 locator.
    pub locator: Option<Locator>,
    /// v1 `file`.
    pub file: Option<String>,
    /// The task's title.
    pub title: Option<String>,
    /// The status; `None` when it is missing or not a known value (see `status_raw`).
    pub status: Option<TaskStatus>,
    /// The `status` text when it is a string (also when it is not a known value).
    pub status_raw: Option<String>,
    /// When the task first moved to in_progress, as written (ISO-8601 expected).
    pub started_at: Option<String>,
    /// When the task was completed, as written.
    pub completed_at: Option<String>,
    /// The commit recorded as completing the task (lower-case hex, 7 to 40 digits expected).
    pub commit: Option<String>,
    /// The records that are objects, in array order (`index` keeps their position).
    pub gates: Vec<GateRecord>,
    /// Whether the task has a `gates` key at all (v1 tasks may not).
    pub has_gates: bool,
    /// Number of `gates` elements that are not objects.
    pub non_object_gates: usize,
    /// `Some` when `outcome` is an object.
    pub outcome: Option<Outcome>,
}

impl Task {
    /// Reads the entry at position `index` of `tasks`; never fails (a non-object gives an empty
    /// task).
    pub fn from_value(index: usize, v: &Value) -> Task {
        let gates_array = v.get("gates").and_then(Value::as_array);
        let mut gates: Vec<GateRecord> = gates_array
            .map(|a| {
                a.iter()
                    .enumerate()
                    .filter_map(|(i, g)| GateRecord::from_value(i, g))
                    .collect()
            })
            .unwrap_or_default();
        // A filtered collect starts at four records; most tasks hold one.
        gates.shrink_to_fit();
        let non_object_gates = gates_array.map_or(0, |a| a.len() - gates.len());
        let status_raw = text(v, "status");
        Task {
            index,
            id: count(v, "id"),
            locator: v.get("locator").filter(|l| l.is_object()).map(|l| Locator {
                kind: l
                    .get("kind")
                    .and_then(Value::as_str)
                    .and_then(LocatorKind::parse),
                value: text(l, "value"),
            }),
            file: text(v, "file"),
            title: text(v, "title"),
            status: status_raw.as_deref().and_then(TaskStatus::parse),
            status_raw,
            started_at: text(v, "started_at"),
            completed_at: text(v, "completed_at"),
            commit: text(v, "commit"),
            gates,
            has_gates: v.get("gates").is_some(),
            non_object_gates,
            outcome: v.get("outcome").filter(|o| o.is_object()).map(|o| Outcome {
                tried: strings(o, "tried"),
                failed: strings(o, "failed"),
                worked: text(o, "worked"),
                notes: text(o, "notes"),
            }),
        }
    }

    /// The status is [`TaskStatus::Completed`].
    pub fn is_completed(&self) -> bool {
        self.status == Some(TaskStatus::Completed)
    }

    /// The task's markdown file relative to the plan folder: a `file` locator's value, or a v1
    /// task's `file` when it has no locator. Inline (Lite) tasks have none.
    pub fn artifact_file(&self) -> Option<&str> {
        match &self.locator {
            Some(loc) => match loc.kind {
                Some(LocatorKind::File) => loc.value.as_deref(),
                _ => None,
            },
            None => self.file.as_deref(),
        }
    }
}

/// `checkpoint`: the finest resume point.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checkpoint {
    /// The task to resume at (the last one once the plan is completed).
    pub task: Option<u64>,
    /// Where in that task: `start` by default, `done` when the plan is completed.
    pub step: Option<String>,
    /// When the checkpoint was written, as written.
    pub at: Option<String>,
    /// A note for whoever resumes (`Task 2 closed. Next: Task 3.`).
    pub note: Option<String>,
}

/// `blocked`: the active blocker record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Blocker {
    /// The blocked task; only that task may resolve the blocker.
    pub task: Option<u64>,
    /// Why it is blocked.
    pub reason: Option<String>,
    /// When it was blocked, as written.
    pub since: Option<String>,
    /// What would unblock it.
    pub needs: Option<String>,
}

/// `promotion`: a Lite → Full promotion in flight.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Promotion {
    /// The format promoted from; the schema allows only `lite`.
    pub from: Option<String>,
    /// The format promoted to; the schema allows only `full`.
    pub to: Option<String>,
    /// How far the promotion has got; `None` when missing or unknown.
    pub phase: Option<PromotionPhase>,
}

/// `state.json` as read: the plan's live execution state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct State {
    /// `None` when the schema URL is not supported.
    pub era: Option<Era>,
    /// The `schema` URL as written (also an unsupported one).
    pub schema: Option<String>,
    /// The plan's name, which must equal its folder name (`PLAN_x`).
    pub plan: Option<String>,
    /// When the state was last written, as written (ISO-8601 expected).
    pub updated_at: Option<String>,
    /// Who last wrote it; `Some` when `updated_by` is an object.
    pub updated_by: Option<Agent>,
    /// The plan status recorded; the checks compare it with [`State::derived_status`].
    pub status: Option<PlanStatus>,
    /// The recorded number of completed tasks (compared with [`State::completed_tasks`]).
    pub completed_count: Option<u64>,
    /// The recorded number of tasks (compared with the length of `tasks`).
    pub task_count: Option<u64>,
    /// Lite or Full (v2/v5).
    pub format: Option<PlanFormat>,
    /// Whether the plan is written out and may be executed (v2/v5).
    pub materialization: Option<Materialization>,
    /// The recorded approval (v2/v5); `None` when absent or not a known value (see
    /// `approval_raw`).
    pub approval: Option<Approval>,
    /// The `approval` text when it is a string (kept to name an unknown value).
    pub approval_raw: Option<String>,
    /// `Some` when `promotion` is an object (`null` and absent read as `None`).
    pub promotion: Option<Promotion>,
    /// `Some` when `checkpoint` is an object.
    pub checkpoint: Option<Checkpoint>,
    /// `Some` when `blocked` is an object (a blocker record exists).
    pub blocked: Option<Blocker>,
    /// The entries of `tasks` (empty when it is not an array; see `tasks_is_array`).
    pub tasks: Vec<Task>,
    /// `tasks` is a JSON array (`false` when it is missing or of another type).
    pub tasks_is_array: bool,
}

impl State {
    /// Reads what can be read; never fails.
    pub fn from_value(v: &Value) -> State {
        let mut state = State::from_value_without_tasks(v);
        if let Some(tasks) = v.get("tasks").and_then(Value::as_array) {
            state.tasks = tasks
                .iter()
                .enumerate()
                .map(|(i, t)| Task::from_value(i, t))
                .collect();
        }
        state
    }

    /// [`State::from_value`] with `tasks` left empty (`tasks_is_array` still says whether the
    /// document has a task list): for a reader that types the tasks itself.
    pub fn from_value_without_tasks(v: &Value) -> State {
        let tasks_array = v.get("tasks").and_then(Value::as_array);
        let approval_raw = text(v, "approval");
        State {
            era: state_era(v).ok(),
            schema: text(v, "schema"),
            plan: text(v, "plan"),
            updated_at: text(v, "updated_at"),
            updated_by: v.get("updated_by").and_then(Agent::from_value),
            status: v
                .get("status")
                .and_then(Value::as_str)
                .and_then(PlanStatus::parse),
            completed_count: count(v, "completed_count"),
            task_count: count(v, "task_count"),
            format: v
                .get("format")
                .and_then(Value::as_str)
                .and_then(PlanFormat::parse),
            materialization: v
                .get("materialization")
                .and_then(Value::as_str)
                .and_then(Materialization::parse),
            approval: approval_raw.as_deref().and_then(Approval::parse),
            approval_raw,
            promotion: v
                .get("promotion")
                .filter(|p| p.is_object())
                .map(|p| Promotion {
                    from: text(p, "from"),
                    to: text(p, "to"),
                    phase: p
                        .get("phase")
                        .and_then(Value::as_str)
                        .and_then(PromotionPhase::parse),
                }),
            checkpoint: v
                .get("checkpoint")
                .filter(|c| c.is_object())
                .map(|c| Checkpoint {
                    task: count(c, "task"),
                    step: text(c, "step"),
                    at: text(c, "at"),
                    note: text(c, "note"),
                }),
            blocked: v.get("blocked").filter(|b| b.is_object()).map(|b| Blocker {
                task: count(b, "task"),
                reason: text(b, "reason"),
                since: text(b, "since"),
                needs: text(b, "needs"),
            }),
            tasks: Vec::new(),
            tasks_is_array: tasks_array.is_some(),
        }
    }

    /// The task with this id (first match; ids are meant to be unique and equal to position+1,
    /// so the lookup tries that position first).
    pub fn task(&self, id: u64) -> Option<&Task> {
        let guess = usize::try_from(id).ok().and_then(|i| i.checked_sub(1));
        if let Some(t) = guess.and_then(|i| self.tasks.get(i))
            && t.id == Some(id)
        {
            return Some(t);
        }
        self.tasks.iter().find(|t| t.id == Some(id))
    }

    /// Number of tasks whose status is `completed`.
    pub fn completed_tasks(&self) -> u64 {
        self.tasks.iter().filter(|t| t.is_completed()).count() as u64
    }

    /// The status the tasks and the blocker record give ([`derive_status`]).
    pub fn derived_status(&self) -> PlanStatus {
        derive_status_of(self.tasks.iter().map(|t| t.status), self.blocked.is_some())
    }

    /// Whether the plan is v1 (legacy): approved and ready by definition.
    pub fn is_legacy(&self) -> bool {
        self.era == Some(Era::V1)
    }
}

/// The plan status the tasks give: `blocked` if a blocker record exists or any task is blocked; else `completed` iff
/// every task is completed; else `in_progress` if any task is not pending (skipped counts as
/// started); else `pending`.
pub fn derive_status(tasks: &[TaskStatus], has_blocker: bool) -> PlanStatus {
    derive_status_of(tasks.iter().copied().map(Some), has_blocker)
}

/// Like [`derive_status`] for a lenient read: an unknown status (`None`) counts as started and
/// not completed.
pub fn derive_status_of(
    tasks: impl Iterator<Item = Option<TaskStatus>>,
    has_blocker: bool,
) -> PlanStatus {
    let (mut any_blocked, mut all_completed, mut any_started) = (has_blocker, true, false);
    for status in tasks {
        match status {
            Some(TaskStatus::Blocked) => any_blocked = true,
            Some(TaskStatus::Completed) => {}
            _ => all_completed = false,
        }
        if status != Some(TaskStatus::Pending) {
            any_started = true;
        }
    }
    if any_blocked {
        PlanStatus::Blocked
    } else if all_completed {
        PlanStatus::Completed
    } else if any_started {
        PlanStatus::InProgress
    } else {
        PlanStatus::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eras_round_trip() {
        for era in Era::ALL {
            assert_eq!(Era::from_state_url(era.state_url()), Some(era));
            assert_eq!(Era::from_manifest_url(era.manifest_url()), Some(era));
            assert_eq!(Era::from_state_url(era.manifest_url()), None);
        }
        assert!(!Era::V1.is_current() && Era::V2.is_current() && Era::V5.is_current());
    }

    #[test]
    fn unsupported_schema_names_the_supported_urls() {
        let v: Value =
            serde_json::json!({"schema": "https://deepworkplan.com/schema/plan-state/v3.json"});
        let err = state_era(&v).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("plan-state/v3.json"), "{msg}");
        for era in Era::ALL {
            assert!(msg.contains(era.state_url()), "{msg}");
        }
        assert_eq!(err.finding().id, "unsupported-schema");
        let none = manifest_era(&serde_json::json!({"schema": 5})).unwrap_err();
        assert!(none.to_string().contains("missing or not a string"));
    }

    #[test]
    fn lenient_views_keep_what_they_can() {
        let v = serde_json::json!({
            "schema": STATE_SCHEMA_V5, "status": "weird", "completed_count": "2",
            "approval": "maybe", "blocked": null, "checkpoint": {"task": 2, "step": "done"},
            "tasks": [{"id": 1, "status": "completed", "locator": {"kind": "file", "value": "1.task_a.md"},
                       "gates": [{"command": "t", "passes": "yes"}, 7, {"command": "t", "passes": true, "exit_code": 0}]},
                      {"id": -1, "status": "in_progress", "locator": {"kind": "inline", "value": "#task-2"}}]
        });
        let s = State::from_value(&v);
        assert_eq!(s.era, Some(Era::V5));
        assert_eq!(s.status, None);
        assert_eq!(s.completed_count, None);
        assert_eq!(s.approval, None);
        assert_eq!(s.approval_raw.as_deref(), Some("maybe"));
        assert!(s.blocked.is_none());
        assert_eq!(s.checkpoint.as_ref().unwrap().task, Some(2));
        let t = &s.tasks[0];
        assert_eq!(t.gates.len(), 2);
        assert_eq!(t.non_object_gates, 1);
        assert!(t.gates[0].is_malformed());
        assert_eq!(t.gates[1].index, 2);
        assert_eq!(t.artifact_file(), Some("1.task_a.md"));
        assert_eq!(s.tasks[1].id, None);
        assert_eq!(s.tasks[1].artifact_file(), None);
        assert_eq!(s.task(1).map(|t| t.index), Some(0));
        assert_eq!(s.derived_status(), PlanStatus::InProgress);
    }

    #[test]
    fn string_enums() {
        assert_eq!(
            TaskStatus::parse("in_progress"),
            Some(TaskStatus::InProgress)
        );
        assert_eq!(TaskStatus::parse("Completed"), None);
        assert_eq!(
            TaskStatus::choices(),
            "pending|in_progress|completed|blocked|skipped"
        );
        assert_eq!(Approval::PreApproved.as_str(), "pre_approved");
        assert!(Approval::PreApproved.permits_execution());
        assert!(!Approval::Pending.permits_execution());
    }
}

//! The tools `planseal mcp` offers: each one's name, description, parameters (as JSON Schema)
//! and annotations.

use super::*;

/// One tool: its name, what it does, its parameters (beyond `path`), and whether it writes.
pub(super) struct ToolSpec {
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    /// `(name, JSON Schema)` of each parameter besides `path`.
    pub(super) params: fn() -> Vec<(&'static str, Value)>,
    pub(super) required: &'static [&'static str],
    pub(super) read_only: bool,
}

fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

fn boolean(description: &str) -> Value {
    json!({"type": "boolean", "description": description})
}

fn strings(description: &str) -> Value {
    json!({"type": "array", "items": {"type": "string"}, "description": description})
}

const GUARD: &str = "SHA-256 of state.json as you last read it (the CLI's --expected-sha256); \
refused with stale-snapshot if it changed since";

/// The one parameter of the tools that look at every plan under `path`.
fn plan_filter() -> Vec<(&'static str, Value)> {
    vec![(
        "plan",
        string("only the plan with this folder name (PLAN_ prefix optional)"),
    )]
}

/// The tools, in the order they are listed.
pub(super) const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "verify",
        description: "Read-only conformance check of every plan (and GSD, Reversa, checkpoint \
files) under `path`: the document of `planseal verify --json` (verdict CONFORMANT, NOT CONFORMANT \
or UNVERIFIED, with every finding).",
        params: plan_filter,
        required: &[],
        read_only: true,
    },
    ToolSpec {
        name: "status",
        description: "The resume view of every plan under `path`: current task, checkpoint, \
blocker, lock, marker, receipt and the next command (`planseal status --json`).",
        params: plan_filter,
        required: &[],
        read_only: true,
    },
    ToolSpec {
        name: "diff",
        description: "What differs in the plan folder `path`: state.json against the markdown \
and git (default), every file against the receipt (since_publication), the plan at a revision \
(against) or a candidate state (candidate) — `planseal diff --json`.",
        params: || {
            vec![
                (
                    "against",
                    string("compare the plan's files at this git revision with now"),
                ),
                (
                    "candidate",
                    string("compare this candidate state.json with the current one"),
                ),
                (
                    "since_publication",
                    boolean("compare every file the receipt covers with its published hash"),
                ),
            ]
        },
        required: &[],
        read_only: true,
    },
    ToolSpec {
        name: "log",
        description: "The plan's timeline from git (which commit completed which task, and what \
disagrees) for the plan folder `path`, or with `file` the commits that changed that file — \
`planseal log --json`.",
        params: || {
            vec![
                (
                    "file",
                    string(
                        "list the commits that changed this file instead (relative to the server's folder)",
                    ),
                ),
                (
                    "max_count",
                    json!({"type": "integer", "minimum": 0, "description": "with file: stop after N versions"}),
                ),
            ]
        },
        required: &[],
        read_only: true,
    },
    ToolSpec {
        name: "update",
        description: "Apply one guarded task transition to the plan's state.json (`path`: the \
plan folder or its state.json) — `planseal update --json`. Completing the last task publishes the \
plan. Pass expected_sha256 to refuse when state.json changed since you read it.",
        params: || {
            vec![
                ("task", json!({"type": "integer", "description": "task id"})),
                (
                    "status",
                    json!({"type": "string", "enum": ["pending", "in_progress", "completed", "blocked", "skipped"], "description": "the task's new status"}),
                ),
                ("expected_sha256", string(GUARD)),
                (
                    "gate",
                    strings("gate records \"command|exit_code|evidence\""),
                ),
                (
                    "gate_json",
                    json!({"type": "array", "items": {"type": ["object", "string"]}, "description": "whole gate records, as JSON objects"}),
                ),
                (
                    "block_reason",
                    string("why the task is blocked (status blocked)"),
                ),
                ("block_needs", string("what would unblock it")),
                (
                    "resolve_blocker",
                    boolean("resolve this task's own blocker (status in_progress or completed)"),
                ),
                ("reopen_reason", string("why a completed task is reopened")),
                (
                    "worked",
                    string("what worked (outcome.worked, at most 500 characters)"),
                ),
                (
                    "notes",
                    string("notes (outcome.notes, at most 1000 characters)"),
                ),
                ("tried", strings("approaches tried")),
                ("failed", strings("approaches that failed")),
                (
                    "commit",
                    string("the commit that completes the task (7-40 hex)"),
                ),
                ("checkpoint_step", string("checkpoint step (default start)")),
                ("checkpoint_note", string("checkpoint note")),
                ("agent", string("agent name for updated_by")),
                ("model", string("model name for updated_by")),
            ]
        },
        required: &["task", "status"],
        read_only: false,
    },
    ToolSpec {
        name: "finalize",
        description: "Publish the completed plan in folder `path` through the verified \
finalization transaction (receipt included), or re-seal it without candidate; dry_run runs every \
check and writes nothing — `planseal finalize --json`.",
        params: || {
            vec![
                (
                    "candidate",
                    string(
                        "the completed state to publish (default: re-seal the current state.json)",
                    ),
                ),
                ("expected_sha256", string(GUARD)),
                ("dry_run", boolean("run every check; write nothing")),
            ]
        },
        required: &[],
        read_only: false,
    },
    ToolSpec {
        name: "recover",
        description: "Finish (or with rollback undo) the interrupted publication of the plan in \
folder `path` (a leftover .finalizing.json); dry_run says what it would do — `planseal recover \
--json`.",
        params: || {
            vec![
                (
                    "candidate",
                    string("the candidate being published (for markers the DWP helper wrote)"),
                ),
                (
                    "rollback",
                    boolean("remove the marker and keep the state before the publication"),
                ),
                ("expected_sha256", string(GUARD)),
                (
                    "dry_run",
                    boolean("say what the interruption left and what would be done"),
                ),
            ]
        },
        required: &[],
        read_only: false,
    },
    ToolSpec {
        name: "rebuild",
        description: "Regenerate the state.json of the plan in folder `path` from the markdown, \
the journal and git: without write, each field that would change; with write, write it — \
`planseal rebuild --json`.",
        params: || {
            vec![
                (
                    "write",
                    boolean("write the rebuilt state.json and note it in PROGRESS.md"),
                ),
                ("expected_sha256", string(GUARD)),
                (
                    "from",
                    string("start from the state.json this git revision holds"),
                ),
                (
                    "manifest",
                    boolean("restore a lost manifest.json byte for byte from git instead"),
                ),
            ]
        },
        required: &[],
        read_only: false,
    },
];

impl ToolSpec {
    pub(super) fn tool(&self) -> Tool {
        let mut properties = serde_json::Map::new();
        properties.insert(
            "path".into(),
            string(if self.read_only && matches!(self.name, "verify" | "status") {
                "a plan folder, a .dwp folder or a workspace (default: the folder the server runs in)"
            } else {
                "the plan folder (default: the folder the server runs in)"
            }),
        );
        for (name, schema) in (self.params)() {
            properties.insert(name.into(), schema);
        }
        let mut schema = JsonObject::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), properties.into());
        schema.insert("required".into(), json!(self.required));
        schema.insert("additionalProperties".into(), false.into());
        let annotations = ToolAnnotations::new()
            .read_only(self.read_only)
            .destructive(self.name == "recover")
            .idempotent(self.read_only)
            .open_world(false);
        Tool::new(self.name, self.description, Arc::new(schema)).annotate(annotations)
    }
}

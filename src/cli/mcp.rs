//! `planseal mcp`: the Model Context Protocol over stdio (docs/mcp.md). An agent calls planseal's
//! read-only commands (verify, status, diff, log) and its guarded writers (update, finalize,
//! recover, rebuild) as tools, and reads each plan's state.json as a resource.
//!
//! Every tool runs the command's own code ([`super::verify::report`], [`super::update::outcome`],
//! …) and returns the very document `planseal <cmd> --json` prints — computed by the same
//! functions, `.env` values hidden the same way — as structured content and as text. `approve`
//! and `unlock --force` are not offered: an agent must not approve its own plan, nor break a lock
//! whose owner may be alive.
//!
//! The async runtime (tokio, one thread) is built here and nowhere else: no other command pays
//! for it at start-up.

use super::Context;
use planseal::dwp::locate::{DiscoverOptions, discover};
use planseal::report::ExitCode;
use planseal::report::redact::EnvRedactor;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, JsonObject, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, ServerCapabilities, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde::Deserialize;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Tools: verify, status, diff, log (read-only); update, finalize, recover, rebuild \
(writers, each with the expected_sha256 guard). Every tool takes `path` (a plan folder or a \
workspace; default: the folder the server runs in) and returns the document `planseal <cmd> --json` \
prints. Resources: planseal://plan/<PLAN_x>/state, each plan's state.json.\n\
Not offered: approve (an agent must not approve its own plan) and unlock --force (nor break a \
lock whose owner may be alive).\n\n\
Examples:\n  planseal mcp                                      serve this folder's plans to an MCP client\n  \
claude mcp add --scope project planseal -- planseal mcp   register it with Claude Code\n  \
planseal -C ~/work/app mcp                        serve the plans of another folder\n  \
{\"mcpServers\": {\"planseal\": {\"command\": \"planseal\", \"args\": [\"mcp\"]}}}   Claude Desktop's config\n\n\
It reads JSON-RPC on stdin and writes it on stdout until stdin closes; diagnostics go to stderr. \
See docs/mcp.md.\n\n\
Exit codes: 0 when the client closed the connection, 2 when the server could not start."
)]
pub(super) struct Args {}

/// Serves until the client closes stdin.
pub(super) fn run(_args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let server = Server {
        cwd: ctx.cwd.clone(),
    };
    runtime.block_on(async move {
        let running = match server.serve(rmcp::transport::stdio()).await {
            Ok(running) => running,
            // The client went away before it said anything: a normal end.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => anyhow::bail!("the MCP session did not start: {e}"),
        };
        running
            .waiting()
            .await
            .map_err(|e| anyhow::anyhow!("the MCP session ended abnormally: {e}"))?;
        anyhow::Ok(())
    })?;
    Ok(ExitCode::Ok)
}

/// The server: the folder it runs in, from which every `path` is taken.
struct Server {
    cwd: PathBuf,
}

/// One tool: its name, what it does, its parameters (beyond `path`), and whether it writes.
struct ToolSpec {
    name: &'static str,
    description: &'static str,
    /// `(name, JSON Schema)` of each parameter besides `path`.
    params: fn() -> Vec<(&'static str, Value)>,
    required: &'static [&'static str],
    read_only: bool,
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

/// The tools, in the order they are listed.
const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "verify",
        description: "Read-only conformance check of every plan (and GSD, Reversa, checkpoint \
files) under `path`: the document of `planseal verify --json` (verdict CONFORMANT, NOT CONFORMANT \
or UNVERIFIED, with every finding).",
        params: || {
            vec![(
                "plan",
                string("only the plan with this folder name (PLAN_ prefix optional)"),
            )]
        },
        required: &[],
        read_only: true,
    },
    ToolSpec {
        name: "status",
        description: "The resume view of every plan under `path`: current task, checkpoint, \
blocker, lock, marker, receipt and the next command (`planseal status --json`).",
        params: || {
            vec![(
                "plan",
                string("only the plan with this folder name (PLAN_ prefix optional)"),
            )]
        },
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
    fn tool(&self) -> Tool {
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

/// The parameters every tool may get; each tool uses its own.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Params {
    path: Option<PathBuf>,
    plan: Option<String>,
    against: Option<String>,
    candidate: Option<PathBuf>,
    #[serde(default)]
    since_publication: bool,
    file: Option<PathBuf>,
    max_count: Option<usize>,
    task: Option<i64>,
    status: Option<String>,
    expected_sha256: Option<String>,
    #[serde(default)]
    gate: Vec<String>,
    #[serde(default)]
    gate_json: Vec<Value>,
    block_reason: Option<String>,
    block_needs: Option<String>,
    #[serde(default)]
    resolve_blocker: bool,
    reopen_reason: Option<String>,
    worked: Option<String>,
    notes: Option<String>,
    #[serde(default)]
    tried: Vec<String>,
    #[serde(default)]
    failed: Vec<String>,
    commit: Option<String>,
    checkpoint_step: Option<String>,
    checkpoint_note: Option<String>,
    agent: Option<String>,
    model: Option<String>,
    #[serde(default)]
    dry_run: bool,
    #[serde(default)]
    rollback: bool,
    #[serde(default)]
    write: bool,
    from: Option<String>,
    #[serde(default)]
    manifest: bool,
}

/// A parameter the tool does not take, as the usage error the CLI gives for a wrong argument.
fn usage(message: String) -> anyhow::Error {
    planseal::report::HintedError::usage(message)
        .hint("list the tools (tools/list) for each one's parameters")
        .into()
}

impl Server {
    /// The document `planseal <name> --json` prints for `arguments`, its `.env` values hidden
    /// as the CLI hides them; a protocol error only for a tool that does not exist.
    fn call(&self, name: &str, arguments: JsonObject) -> Result<Value, ErrorData> {
        let Some(spec) = TOOLS.iter().find(|t| t.name == name) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "no tool named {name}; planseal offers verify, status, diff, log, update, finalize, recover, rebuild"
                ),
                None,
            ));
        };
        let ctx = Context {
            json: true,
            color: false,
            cwd: self.cwd.clone(),
        };
        let allowed: Vec<&str> = std::iter::once("path")
            .chain((spec.params)().into_iter().map(|(n, _)| n))
            .collect();
        let path = arguments
            .get("path")
            .and_then(Value::as_str)
            .map(PathBuf::from);
        let target = ctx.cwd.join(path.as_deref().unwrap_or(Path::new(".")));
        let result = match arguments.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(other) => Err(usage(format!("{name} takes no parameter {other:?}"))),
            None => serde_json::from_value::<Params>(Value::Object(arguments))
                .map_err(|e| usage(format!("{name}: {e}")))
                .and_then(|p| self.document(name, p, &ctx)),
        };
        let doc = match result {
            Ok(doc) => doc,
            Err(err) => super::errors::error_document(&err),
        };
        // As `print_json` does: the envelope, then every `.env` value from the target up to
        // the repository root hidden in the document's strings.
        let doc = planseal::report::envelope::seal(doc, "ok");
        Ok(EnvRedactor::for_target(&target).clean_json(doc))
    }

    /// Runs the command through the CLI's own functions.
    fn document(&self, name: &str, p: Params, ctx: &Context) -> anyhow::Result<Value> {
        let dwp_dir = std::env::var_os("DWP_DIR").map(PathBuf::from);
        let plan_dir = p.path.clone().unwrap_or_else(|| PathBuf::from("."));
        let no_wait = super::wait::WaitArg::default();
        match name {
            "verify" => {
                let args = super::verify::Args {
                    path: p.path,
                    plan: p.plan,
                    dwp_dir,
                    gsd: Vec::new(),
                    format: None,
                };
                Ok(super::verify::document(&super::verify::report(args, ctx)?))
            }
            "status" => {
                let args = super::status::Args {
                    path: p.path,
                    plan: p.plan,
                    dwp_dir,
                    exit_code: false,
                };
                super::outcome::read_document(&super::status::view(args, ctx)?)
            }
            "diff" => {
                let args = super::diff::Args {
                    plan_dir,
                    against: p.against,
                    candidate: p.candidate,
                    since_publication: p.since_publication,
                    format: super::diff::Format::Text,
                    exit_code: false,
                };
                super::outcome::read_document(&super::diff::outcome(args, ctx)?)
            }
            "log" => {
                let args = super::log::Args {
                    plan_dir,
                    exit_code: false,
                    file: p.file,
                    max_count: p.max_count,
                };
                super::log::outcome(args, ctx)?.document()
            }
            "update" => {
                let state = if ctx.cwd.join(&plan_dir).is_dir() {
                    plan_dir.join("state.json")
                } else {
                    plan_dir
                };
                let status = match p.status.as_deref() {
                    Some(s) => <super::update::StatusArg as clap::ValueEnum>::from_str(s, false)
                        .map_err(|_| {
                            usage(format!(
                                "update: status {s:?} is not one of pending, in_progress, completed, blocked, skipped"
                            ))
                        })?,
                    None => return Err(usage("update: status is required".into())),
                };
                let Some(task) = p.task else {
                    return Err(usage("update: task is required".into()));
                };
                let args = super::update::Args {
                    state,
                    task,
                    status,
                    gate: p.gate,
                    gate_json: p
                        .gate_json
                        .into_iter()
                        .map(|g| match g {
                            Value::String(s) => s,
                            other => other.to_string(),
                        })
                        .collect(),
                    block_reason: p.block_reason,
                    block_needs: p.block_needs,
                    resolve_blocker: p.resolve_blocker,
                    reopen_reason: p.reopen_reason,
                    expected_sha256: p.expected_sha256,
                    worked: p.worked,
                    notes: p.notes,
                    tried: p.tried,
                    failed: p.failed,
                    commit: p.commit,
                    checkpoint_step: p.checkpoint_step,
                    checkpoint_note: p.checkpoint_note,
                    agent: p.agent,
                    model: p.model,
                    wait: no_wait,
                };
                let (_advisories, outcome) = super::update::outcome(&args, ctx);
                super::update::document(&outcome?)
            }
            "finalize" => {
                let args = super::finalize::Args {
                    plan_dir,
                    candidate: p.candidate,
                    expected_sha256: p.expected_sha256,
                    dry_run: p.dry_run,
                    allow_dirty: false,
                    allow_unverified_git: false,
                    reason: None,
                    wait: no_wait,
                };
                super::finalize::document(&super::finalize::outcome(args, ctx)?)
            }
            "recover" => {
                let args = super::recover::Args {
                    plan_dir,
                    candidate: p.candidate,
                    rollback: p.rollback,
                    dry_run: p.dry_run,
                    expected_sha256: p.expected_sha256,
                    wait: no_wait,
                };
                super::recover::outcome(args, ctx)?.document()
            }
            _ => {
                let args = super::rebuild::Args {
                    plan_dir,
                    write: p.write,
                    exit_code: false,
                    from: p.from,
                    manifest: p.manifest,
                    expected_sha256: p.expected_sha256,
                    wait: no_wait,
                };
                super::rebuild::document(&super::rebuild::outcome(args, ctx)?)
            }
        }
    }

    /// Every plan under the server's folder, as `(key, plan folder)`: the key is the folder's
    /// name (`PLAN_x`), `repo:PLAN_x` for a hub child.
    fn plans(&self) -> Vec<(String, PathBuf)> {
        let opts = DiscoverOptions {
            cwd: self.cwd.clone(),
            path: None,
            plan: None,
            dwp_dir: std::env::var_os("DWP_DIR").map(PathBuf::from),
        };
        discover(&opts)
            .unwrap_or_default()
            .into_iter()
            .map(|p| {
                let key = match &p.hub_repository {
                    Some(repo) => format!("{repo}:{}", p.name),
                    None => p.name.clone(),
                };
                (key, p.dir)
            })
            .collect()
    }
}

const URI_PREFIX: &str = "planseal://plan/";

fn state_uri(key: &str) -> String {
    format!("{URI_PREFIX}{key}/state")
}

impl ServerHandler for Server {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("planseal", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "planseal verifies, guards and publishes AI agents' plan state files. Each tool \
returns the document `planseal <command> --json` prints (result: ok, applied, \
applied-unconfirmed, unchanged, refused or error). Pass expected_sha256 (the SHA-256 of the \
state.json you read) to the writers. Approving a plan and breaking a lock are the user's: they \
are not offered.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            TOOLS.iter().map(ToolSpec::tool).collect(),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        TOOLS.iter().find(|t| t.name == name).map(ToolSpec::tool)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let doc = self.call(&request.name, request.arguments.unwrap_or_default())?;
        let failed = matches!(doc["result"].as_str(), Some("refused" | "error"));
        let text = format!("{doc:#}");
        let mut result = if failed {
            CallToolResult::structured_error(doc)
        } else {
            CallToolResult::structured(doc)
        };
        result.content = vec![ContentBlock::text(text)];
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = self
            .plans()
            .into_iter()
            .map(|(key, dir)| {
                Resource::new(state_uri(&key), format!("{key} state.json"))
                    .with_description(format!(
                        "The DWP state of {key} ({})",
                        super::shown(
                            &dir.join("state.json"),
                            &Context {
                                json: true,
                                color: false,
                                cwd: self.cwd.clone(),
                            }
                        )
                    ))
                    .with_mime_type("application/json")
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new(format!("{URI_PREFIX}{{plan}}/state"), "plan state.json")
                .with_description("The state.json of the plan with that folder name (PLAN_x)")
                .with_mime_type("application/json"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let not_found = |why: String| ErrorData::resource_not_found(why, Some(json!({"uri": uri})));
        let Some(key) = uri
            .strip_prefix(URI_PREFIX)
            .and_then(|rest| rest.strip_suffix("/state"))
        else {
            return Err(not_found(format!(
                "{uri}: not a planseal resource (planseal://plan/<PLAN_x>/state)"
            )));
        };
        let Some((_, dir)) = self.plans().into_iter().find(|(k, _)| k == key) else {
            return Err(not_found(format!("{uri}: no plan {key} here")));
        };
        let path = dir.join("state.json");
        let bytes = planseal::recovery::read::read(&path, planseal::recovery::read::Kind::Document)
            .map_err(|e| not_found(format!("{}: {e}", path.display())))?
            .ok_or_else(|| not_found(format!("{}: no state.json", path.display())))?;
        // The state as the file holds it, with every `.env` value hidden.
        let text = EnvRedactor::for_target(&dir).clean(&String::from_utf8_lossy(&bytes));
        let contents = ResourceContents::TextResourceContents {
            uri: uri.clone(),
            mime_type: Some("application/json".into()),
            text,
            meta: None,
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

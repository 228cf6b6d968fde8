//! `planseal mcp`: the Model Context Protocol over stdio (docs/mcp.md). An agent calls planseal's
//! read-only commands (verify, status, diff, log) and its guarded writers (update, finalize,
//! recover, rebuild) as tools, and reads each plan's state.json as a resource.
//!
//! Every tool runs the command's own code (`verify::report`, `update::outcome`,
//! …) and returns the very document `planseal <cmd> --json` prints — computed by the same
//! functions, `.env` values hidden the same way — as structured content and as text. `approve`
//! and `unlock --force` are not offered: an agent must not approve its own plan, nor break a lock
//! whose owner may be alive.
//!
//! The async runtime (tokio, one thread) is built here and nowhere else: no other command pays
//! for it at start-up. This file holds the server and its protocol handler; [`tools`] the tools'
//! descriptions and parameters, [`calls`] what each call runs.

mod calls;
mod tools;

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
use tools::{TOOLS, ToolSpec};

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

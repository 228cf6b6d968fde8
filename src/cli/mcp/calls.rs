//! What a tool call of `planseal mcp` runs: its parameters read, the command's own code run, and
//! the document `planseal <cmd> --json` prints returned.

use super::*;

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
    pub(super) fn call(&self, name: &str, arguments: JsonObject) -> Result<Value, ErrorData> {
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
            Err(err) => super::super::errors::error_document(&err),
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
        let no_wait = super::super::wait::WaitArg::default();
        match name {
            "verify" => {
                let args = super::super::verify::Args {
                    path: p.path,
                    plan: p.plan,
                    dwp_dir,
                    gsd: Vec::new(),
                    format: None,
                };
                Ok(super::super::verify::document(
                    &super::super::verify::report(args, ctx)?,
                ))
            }
            "status" => {
                let args = super::super::status::Args {
                    path: p.path,
                    plan: p.plan,
                    dwp_dir,
                    exit_code: false,
                };
                super::super::outcome::read_document(&super::super::status::view(args, ctx)?)
            }
            "diff" => {
                let args = super::super::diff::Args {
                    plan_dir,
                    against: p.against,
                    candidate: p.candidate,
                    since_publication: p.since_publication,
                    format: super::super::diff::Format::Text,
                    exit_code: false,
                };
                super::super::outcome::read_document(&super::super::diff::outcome(args, ctx)?)
            }
            "log" => {
                let args = super::super::log::Args {
                    plan_dir,
                    exit_code: false,
                    file: p.file,
                    max_count: p.max_count,
                };
                super::super::log::outcome(args, ctx)?.document()
            }
            "update" => {
                let state = if ctx.cwd.join(&plan_dir).is_dir() {
                    plan_dir.join("state.json")
                } else {
                    plan_dir
                };
                let status = match p.status.as_deref() {
                    Some(s) => <super::super::update::StatusArg as clap::ValueEnum>::from_str(s, false)
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
                let args = super::super::update::Args {
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
                let (_advisories, outcome) = super::super::update::outcome(&args, ctx);
                super::super::update::document(&outcome?)
            }
            "finalize" => {
                let args = super::super::finalize::Args {
                    plan_dir,
                    candidate: p.candidate,
                    expected_sha256: p.expected_sha256,
                    dry_run: p.dry_run,
                    allow_dirty: false,
                    allow_unverified_git: false,
                    reason: None,
                    wait: no_wait,
                };
                super::super::finalize::document(&super::super::finalize::outcome(args, ctx)?)
            }
            "recover" => {
                let args = super::super::recover::Args {
                    plan_dir,
                    candidate: p.candidate,
                    rollback: p.rollback,
                    dry_run: p.dry_run,
                    expected_sha256: p.expected_sha256,
                    wait: no_wait,
                };
                super::super::recover::outcome(args, ctx)?.document()
            }
            _ => {
                let args = super::super::rebuild::Args {
                    plan_dir,
                    write: p.write,
                    exit_code: false,
                    from: p.from,
                    manifest: p.manifest,
                    expected_sha256: p.expected_sha256,
                    wait: no_wait,
                };
                super::super::rebuild::document(&super::super::rebuild::outcome(args, ctx)?)
            }
        }
    }

    /// Every plan under the server's folder, as `(key, plan folder)`: the key is the folder's
    /// name (`PLAN_x`), `repo:PLAN_x` for a hub child.
    pub(super) fn plans(&self) -> Vec<(String, PathBuf)> {
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

//! `planseal gsd …`: statusline, status, sync, recover for GSD's `.planning/STATE.md`.

use super::checkpoint::Redactor;
use super::{Context, shown};
use crate::print_out;
use planseal::gsd::derive::{self, Derivation, Source};
use planseal::gsd::document::{Document, FieldStyle, Value};
use planseal::gsd::rules::{compute_progress_percent, normalize_status};
use planseal::gsd::statusline::{self, Format, Located};
use planseal::gsd::sync::{self, Baseline};
use planseal::report::redact::EnvRedactor;
use planseal::report::text::printable;
use planseal::report::{
    ExitCode, Refusal, RefusalKind, Report, json as report_json, text as report_text,
};
use planseal::write::{JournalEntry, Writer};
use serde_json::json;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Print the GSD state segment exactly as GSD's statusline hook does (no trailing newline)
    #[command(
        after_help = "Examples:\n  planseal gsd statusline\n  planseal gsd statusline --compact\n  \
echo '{\"workspace\":{\"current_dir\":\"/src/app\"}}' | planseal gsd statusline --stdin\n\n\
Prints nothing (exit 0) when there is no readable STATE.md, as the hook does; --strict makes that exit 2."
    )]
    Statusline(StatuslineArgs),
    /// Every field, the normalised status, the derived percent, and where they disagree
    #[command(
        after_help = "Examples:\n  planseal gsd status\n  planseal gsd status .planning/STATE.md --json\n  \
planseal gsd status --exit-code    exit 1 on a disagreement or a failing check"
    )]
    Status(StatusArgs),
    /// The GSD checks of `planseal verify` for one STATE.md (exit 1 when NOT CONFORMANT)
    #[command(
        after_help = "Examples:\n  planseal gsd check\n  planseal gsd check other/.planning/STATE.md --json\n\n\
Exit codes: 0 CONFORMANT, 1 NOT CONFORMANT, 2 UNVERIFIED (the file cannot be read)."
    )]
    Check(FileArgs),
    /// Derive the frontmatter from the body and the phase folders; show the diff, --write applies
    #[command(
        after_help = "Examples:\n  planseal gsd sync                  show the diff, write nothing\n  \
planseal gsd sync --write          apply it under .planning/STATE.md.lock\n  \
planseal gsd sync --write --lock-wait 5\n\n\
Only frontmatter keys change; a value set by hand since the last sync is kept and reported\nas drift."
    )]
    Sync(SyncArgs),
    /// List what earlier committed versions had and the file lost; --write --pick ID… restores it
    #[command(
        after_help = "Examples:\n  planseal gsd recover                              list what earlier commits had\n  \
planseal gsd recover --from HEAD~3                compare with one revision only\n  \
planseal gsd recover --write --pick decision:2-1f0c3a key:milestone\n  \
planseal gsd recover --write --all\n  \
planseal gsd recover --exit-code                  exit 1 when anything was lost"
    )]
    Recover(RecoverArgs),
}

#[derive(clap::Args, Debug)]
pub struct RecoverArgs {
    /// The STATE.md (default: find .planning/STATE.md walking up from here)
    pub file: Option<PathBuf>,
    /// Compare with this revision only (default: every committed version, newest first)
    #[arg(long, value_name = "REV")]
    pub from: Option<String>,
    /// Restore the picked pieces into the file (under GSD's lock, atomically)
    #[arg(long, requires = "selection")]
    pub write: bool,
    /// A piece to restore, by the id the listing shows (section:…, key:…, decision:N-HASH, blocker:N-HASH)
    #[arg(long, value_name = "ID", num_args = 1.., group = "selection")]
    pub pick: Vec<String>,
    /// Restore every lost piece
    #[arg(long, group = "selection", conflicts_with = "pick")]
    pub all: bool,
    /// How long to wait for a live writer's lock before refusing
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub lock_wait: u64,
    /// Exit 1 when an earlier version had a piece the file lost
    #[arg(long)]
    pub exit_code: bool,
}

#[derive(clap::Args, Debug)]
pub struct StatusArgs {
    /// The STATE.md (default: find .planning/STATE.md walking up from here)
    pub file: Option<PathBuf>,
    /// Exit 1 when frontmatter, body and phase folders disagree or a GSD check fails
    #[arg(long)]
    pub exit_code: bool,
}

#[derive(clap::Args, Debug)]
pub struct FileArgs {
    /// The STATE.md (default: find .planning/STATE.md walking up from here)
    pub file: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct SyncArgs {
    /// The STATE.md (default: find .planning/STATE.md walking up from here)
    pub file: Option<PathBuf>,
    /// Write the change (under GSD's lock .planning/STATE.md.lock, atomically)
    #[arg(long)]
    pub write: bool,
    /// How long to wait for a live writer's lock before refusing
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub lock_wait: u64,
}

#[derive(clap::Args, Debug)]
pub struct StatuslineArgs {
    /// The STATE.md to render (default: find .planning/STATE.md walking up from here)
    pub file: Option<PathBuf>,
    /// GSD's compact form (default: `statusline.state_format` in .planning/config.json)
    #[arg(long)]
    pub compact: bool,
    /// Read Claude Code's statusline JSON on stdin and start from its workspace directory
    #[arg(long, conflicts_with = "file")]
    pub stdin: bool,
    /// Fail (exit 2) when there is no readable STATE.md instead of printing nothing
    #[arg(long)]
    pub strict: bool,
}

pub fn run(command: Command, ctx: &Context) -> anyhow::Result<ExitCode> {
    let file = match &command {
        Command::Statusline(args) => return run_statusline(args, ctx),
        Command::Status(a) => a.file.as_deref(),
        Command::Check(a) => a.file.as_deref(),
        Command::Sync(a) => a.file.as_deref(),
        Command::Recover(a) => a.file.as_deref(),
    };
    // Whatever STATE.md or its history holds, a value of the project's .env is never printed.
    let redactor = match resolve_file(file, ctx) {
        Ok(path) => Redactor::new(env_redactor(&path, true)),
        Err(_) => Redactor::from_env(None),
    };
    let result = match command {
        Command::Statusline(_) => Ok(ExitCode::Ok),
        Command::Status(args) => run_status(args, ctx, &redactor),
        Command::Check(args) => run_check(args, ctx, &redactor),
        Command::Sync(args) => run_sync(args, ctx, &redactor),
        Command::Recover(args) => run_recover(args, ctx, &redactor),
    };
    result.map_err(|e| redactor.clean_error(e))
}

/// The folder a STATE.md belongs to: the parent of its `.planning/` folder (workstreams
/// included), else the file's own folder.
fn project_root(state: &Path) -> PathBuf {
    let folder = state.parent().unwrap_or(Path::new("."));
    folder
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == ".planning"))
        .and_then(Path::parent)
        .unwrap_or(folder)
        .to_path_buf()
}

/// The values of the `.env` beside the project root (one open when there is none) and, with
/// `up_to_repo`, of the `.env` at the root of the git work tree around it too.
fn env_redactor(state: &Path, up_to_repo: bool) -> EnvRedactor {
    let root = project_root(state);
    let mut redactor = EnvRedactor::for_folder(&root);
    if up_to_repo
        && let Some(repo_root) = root.ancestors().skip(1).find(|a| a.join(".git").exists())
        && !root.join(".git").exists()
    {
        redactor = redactor.merge(EnvRedactor::for_folder(repo_root));
    }
    redactor
}

fn print_text(redactor: &Redactor, text: &str) {
    print_out(&redactor.clean(text));
}

fn print_json(redactor: &Redactor, value: serde_json::Value) {
    print_out(&format!("{:#}\n", redactor.clean_json(value)));
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

fn run_statusline(args: &StatuslineArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let home = home_dir();
    let (text, config_start, state_path) = match &args.file {
        Some(file) => {
            let path = ctx.cwd.join(file);
            let text = statusline::read_text(&path);
            if text.is_none() && args.strict {
                anyhow::bail!(
                    "{}: cannot read the file (missing or unreadable)\n  hint: pass an existing \
                     .planning/STATE.md",
                    path.display()
                );
            }
            let start = path.parent().map(Path::to_path_buf).unwrap_or_default();
            (text, start, path)
        }
        None => {
            let start = if args.stdin {
                let mut input = Vec::new();
                std::io::stdin()
                    .read_to_end(&mut input)
                    .map_err(|e| anyhow::anyhow!("--stdin: cannot read standard input: {e}"))?;
                statusline::workspace_dir_from_json(&input)
                    .map(|d| ctx.cwd.join(d))
                    .unwrap_or_else(|| ctx.cwd.clone())
            } else {
                ctx.cwd.clone()
            };
            let workstream = std::env::var("GSD_WORKSTREAM").ok();
            match statusline::locate(&start, home.as_deref(), workstream.as_deref()) {
                Located::File { text, path } => (Some(text), start, path),
                Located::NoActiveWorkstream { .. } => {
                    print_out(statusline::NO_ACTIVE_WORKSTREAM);
                    return Ok(ExitCode::Ok);
                }
                Located::MissingWorkstreamState(path) => {
                    if args.strict {
                        anyhow::bail!(
                            "{}: the active workstream has no STATE.md yet\n  hint: run GSD's \
                             workstream setup, or choose another workstream with GSD_WORKSTREAM",
                            path.display()
                        );
                    }
                    (None, start, PathBuf::new())
                }
                Located::NotFound => {
                    if args.strict {
                        anyhow::bail!(
                            "no .planning/STATE.md found from {} upwards (10 levels, stopping at \
                             the home directory)\n  hint: run inside a GSD project or pass FILE",
                            start.display()
                        );
                    }
                    (None, start, PathBuf::new())
                }
            }
        }
    };
    let Some(text) = text else {
        return Ok(ExitCode::Ok);
    };
    let format = if args.compact {
        Format::Compact
    } else {
        statusline::configured_format(&config_start, home.as_deref())
    };
    let line = statusline::render_text(&text, format);
    if !line.is_empty() {
        // One open of `<project>/.env` on top of the render; nothing else is read.
        print_out(&env_redactor(&state_path, false).clean(&line));
    }
    Ok(ExitCode::Ok)
}

/// The STATE.md a command works on: FILE, else the one the statusline would render.
fn resolve_file(file: Option<&Path>, ctx: &Context) -> anyhow::Result<PathBuf> {
    if let Some(file) = file {
        return Ok(ctx.cwd.join(file));
    }
    let workstream = std::env::var("GSD_WORKSTREAM").ok();
    match statusline::locate(&ctx.cwd, home_dir().as_deref(), workstream.as_deref()) {
        Located::File { path, .. } => Ok(path),
        Located::NoActiveWorkstream { root } => Err(Refusal::new(
            RefusalKind::NoActiveWorkstream,
            format!(
                "{} is in workstream mode but no workstream is active",
                root.join(".planning").display()
            ),
        )
        .hint("set GSD_WORKSTREAM=<name>, or pass the workstream's STATE.md")
        .into()),
        Located::MissingWorkstreamState(path) => {
            anyhow::bail!(
                "{}: the active workstream has no STATE.md yet",
                path.display()
            )
        }
        Located::NotFound => anyhow::bail!(
            "no .planning/STATE.md found from {} upwards\n  hint: run inside a GSD project or pass FILE",
            ctx.cwd.display()
        ),
    }
}

/// The file's bytes and text (read once).
fn read_state(path: &Path) -> anyhow::Result<(Vec<u8>, String)> {
    let bytes = std::fs::read(path).map_err(|e| {
        anyhow::anyhow!(
            "{}: cannot read STATE.md: {e}\n  hint: check the path and its permissions",
            path.display()
        )
    })?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Ok((bytes, text))
}

/// The folder whose `phases/` and `ROADMAP.md` belong to this STATE.md.
fn planning_dir(state: &Path) -> PathBuf {
    state.parent().unwrap_or(Path::new(".")).to_path_buf()
}

fn derive_with_phases(doc: &Document, state: &Path) -> Derivation {
    let phases = derive::count_phases(&planning_dir(state), doc.scalar("milestone"));
    derive::derive(doc, phases)
}

fn value_json(value: &Value) -> serde_json::Value {
    match value {
        Value::Scalar(s) => s.as_str().map_or(serde_json::Value::Null, |v| json!(v)),
        Value::Map(children) => serde_json::Value::Object(
            children
                .iter()
                .map(|c| {
                    (
                        c.key.clone(),
                        c.scalar
                            .as_str()
                            .map_or(serde_json::Value::Null, |v| json!(v)),
                    )
                })
                .collect(),
        ),
        Value::FlowList(items) | Value::BlockList(items) => {
            json!(items.iter().filter_map(|s| s.as_str()).collect::<Vec<_>>())
        }
        Value::Empty => serde_json::Value::Null,
    }
}

/// Where the frontmatter and what the body (and phase folders) imply disagree.
fn disagreements(doc: &Document, derivation: &Derivation) -> Vec<serde_json::Value> {
    derivation
        .values
        .iter()
        .filter_map(|d| {
            let current = match d.key.split_once('.') {
                Some((p, c)) => doc.child(p, c).and_then(|c| c.scalar.as_str()),
                None => doc.scalar(&d.key),
            };
            if current.map(str::trim) == Some(d.value.as_str()) {
                return None;
            }
            let source = match &d.source {
                Source::Body { line, line_no } => format!("line {line_no}: {}", line.trim()),
                Source::Phases => "phase folders".into(),
            };
            Some(json!({ "key": d.key, "frontmatter": current, "derived": d.value, "source": source }))
        })
        .collect()
}

fn run_status(args: StatusArgs, ctx: &Context, redactor: &Redactor) -> anyhow::Result<ExitCode> {
    let path = resolve_file(args.file.as_deref(), ctx)?;
    let (_, text) = read_state(&path)?;
    let doc = Document::parse(text);
    let derivation = derive_with_phases(&doc, &path);
    let frontmatter: serde_json::Map<String, serde_json::Value> = doc
        .frontmatter
        .iter()
        .flat_map(|f| f.entries.iter())
        .map(|e| (e.key.clone(), value_json(&e.value)))
        .collect();
    let fields: Vec<serde_json::Value> = doc
        .fields
        .iter()
        .map(|f| {
            json!({
                "name": f.name,
                "value": f.value,
                "style": match f.style { FieldStyle::Plain => "plain", FieldStyle::Bold => "bold", FieldStyle::Table => "table" },
                "line": doc.line_number(f.line.start),
            })
        })
        .collect();
    let body_status = doc.field("Status", None).map(|f| f.value.clone());
    let normalized = normalize_status(
        body_status
            .as_deref()
            .or(doc.scalar("status"))
            .unwrap_or(""),
        doc.scalar("paused_at"),
    );
    let n = |k: &str| doc.child("progress", k).and_then(|c| c.scalar.as_u64());
    let from_counters = compute_progress_percent(
        n("completed_plans"),
        n("total_plans"),
        n("completed_phases"),
        n("total_phases"),
    );
    let from_phases = derivation
        .get("progress.percent")
        .and_then(|v| v.value.parse::<u64>().ok());
    let stated = doc
        .child("progress", "percent")
        .and_then(|c| c.scalar.as_str().map(str::to_string));
    let drift = disagreements(&doc, &derivation);
    let full = statusline::render_text(&doc.text, Format::Full);
    let compact = statusline::render_text(&doc.text, Format::Compact);
    let file = shown(&path, ctx);
    // --exit-code: a disagreement, or a check of `gsd check` that fails (SPEC §1.11).
    let code = ExitCode::failed_if(
        args.exit_code && (!drift.is_empty() || planseal::gsd::check(&path).failed()),
    );
    if ctx.json {
        let out = json!({
            "file": file,
            "frontmatter": frontmatter,
            "body_fields": fields,
            "status": {
                "frontmatter": doc.scalar("status"),
                "body": body_status,
                "normalized": normalized,
            },
            "percent": {
                "frontmatter": stated,
                "from_counters": from_counters,
                "from_phase_folders": from_phases,
            },
            "phases": derivation.phases,
            "disagreements": drift,
            "statusline": { "full": full, "compact": compact },
        });
        print_json(redactor, out);
        return Ok(code);
    }
    let mut out = format!("GSD: {file}\n");
    out.push_str("frontmatter:\n");
    if frontmatter.is_empty() {
        out.push_str("  (none)\n");
    }
    for (k, v) in &frontmatter {
        out.push_str(&format!("  {k}: {v}\n"));
    }
    out.push_str("body fields:\n");
    for f in &doc.fields {
        out.push_str(&format!(
            "  {}: {} (line {})\n",
            f.name,
            f.value,
            doc.line_number(f.line.start)
        ));
    }
    out.push_str(&format!(
        "status: {normalized} (frontmatter {}, body {})\n",
        doc.scalar("status").unwrap_or("-"),
        body_status.as_deref().unwrap_or("-")
    ));
    let opt = |v: Option<u64>| v.map_or("-".to_string(), |v| format!("{v}%"));
    out.push_str(&format!(
        "percent: frontmatter {}, from counters {}, from phase folders {}\n",
        stated.map_or("-".to_string(), |s| format!("{s}%")),
        opt(from_counters),
        opt(from_phases)
    ));
    if let Some(p) = &derivation.phases {
        out.push_str(&format!(
            "phase folders: {} phases ({} folders, {} in ROADMAP.md), {} complete; {}/{} plans done\n",
            p.total_phases, p.phase_folders, p.roadmap_phases, p.completed_phases, p.completed_plans, p.total_plans
        ));
    }
    if drift.is_empty() {
        out.push_str("disagreements: none\n");
    } else {
        out.push_str("disagreements:\n");
        for d in &drift {
            out.push_str(&format!(
                "  {}: frontmatter {} but {} gives {}\n",
                d["key"].as_str().unwrap_or(""),
                d["frontmatter"]
                    .as_str()
                    .map_or("(absent)".to_string(), |v| format!("`{v}`")),
                d["source"].as_str().unwrap_or(""),
                d["derived"]
                    .as_str()
                    .map_or(String::new(), |v| format!("`{v}`")),
            ));
        }
    }
    out.push_str(&format!("statusline: {full}\n"));
    print_out(&printable(&redactor.clean(&out)));
    Ok(code)
}

fn run_check(args: FileArgs, ctx: &Context, redactor: &Redactor) -> anyhow::Result<ExitCode> {
    let path = resolve_file(args.file.as_deref(), ctx)?;
    let mut section = planseal::gsd::check(&path);
    section.name = shown(&path, ctx);
    let report = Report {
        sections: vec![section],
    };
    if ctx.json {
        print_json(redactor, report_json::to_value(&report));
    } else {
        print_text(
            redactor,
            &report_text::render(&report, report_text::Style { color: ctx.color }),
        );
    }
    Ok(report.verdict().exit_code())
}

/// The baseline of the preservation rule: the body at the last journaled planseal write (its
/// recorded source lines), when that write is what the file still holds or an ancestor of it.
fn journal_baseline(path: &Path) -> Option<Baseline> {
    // The lock wait does not matter for reading the journal.
    let read = planseal::gsd::state_target(path, Duration::ZERO)
        .journal()
        .read()
        .ok()?;
    let entry = read
        .entries
        .iter()
        .rev()
        .find(|e| e.get("sources").is_some_and(|s| s.is_object()))?;
    let sources = entry["sources"]
        .as_object()?
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect();
    Some(Baseline {
        origin: format!(
            "planseal's last write ({})",
            entry
                .get("time")
                .and_then(|t| t.as_str())
                .unwrap_or("journal")
        ),
        sources,
    })
}

/// The file at git HEAD as the baseline, when the file is tracked there.
fn git_head_baseline(path: &Path) -> anyhow::Result<Option<Baseline>> {
    let Some(repo) = planseal::recovery::git::Repo::discover(&planning_dir(path))? else {
        return Ok(None);
    };
    let rel = repo.relative_to_work_tree(path)?;
    if repo.head()?.id.is_none() {
        return Ok(None);
    }
    Ok(repo
        .file_at("HEAD", &rel)?
        .map(|bytes| Baseline::from_text("git HEAD", &String::from_utf8_lossy(&bytes))))
}

/// Replaces STATE.md under GSD's pid-file lock (waiting up to `lock_wait` seconds for a live
/// writer) if it still holds `before`, and journals `entry` beside it.
fn write_locked(
    path: &Path,
    before: &[u8],
    new_text: &str,
    entry: JournalEntry,
    lock_wait: u64,
) -> anyhow::Result<()> {
    let target = planseal::gsd::state_target(path, Duration::from_secs(lock_wait));
    let committed = Writer::from_env().commit(&target, Some(before), new_text.as_bytes(), entry)?;
    super::warn_if_unjournaled(&path.display().to_string(), &committed);
    Ok(())
}

fn run_sync(args: SyncArgs, ctx: &Context, redactor: &Redactor) -> anyhow::Result<ExitCode> {
    let path = resolve_file(args.file.as_deref(), ctx)?;
    let (bytes, text) = read_state(&path)?;
    if std::str::from_utf8(&bytes).is_err() {
        return Err(Refusal::new(
            RefusalKind::NotUtf8,
            format!(
                "{}: STATE.md is not valid UTF-8; nothing was written",
                path.display()
            ),
        )
        .hint("re-save the file as UTF-8 first")
        .into());
    }
    let doc = Document::parse(text);
    let derivation = derive_with_phases(&doc, &path);
    let baseline = match journal_baseline(&path) {
        Some(b) => Some(b),
        None => git_head_baseline(&path)?,
    };
    let mut clock = planseal::clock::Clock::from_env()?;
    // GSD's own spelling: JavaScript's `toISOString()`.
    let now = planseal::clock::format_utc(clock.now(), planseal::clock::TimestampShape::JsMillisZ);
    let plan = sync::plan(&doc, &derivation, baseline.as_ref(), &now).map_err(|e| {
        anyhow::Error::from(
            Refusal::new(RefusalKind::ShapeError, format!("{}: {e}", path.display()))
                .hint("add the closing `---` line after the frontmatter, then run sync again"),
        )
    })?;
    let file = shown(&path, ctx);
    let diff = plan
        .new_text
        .as_ref()
        .map(|new| super::unified_diff(&doc.text, new, &file));
    let mut written = false;
    if args.write
        && let Some(new_text) = &plan.new_text
    {
        let entry = JournalEntry::for_file(
            planseal::clock::format_timestamp(clock.now()),
            "gsd sync",
            &path.display().to_string(),
        )
        .with("changes", serde_json::to_value(&plan.updates)?)
        .with(
            "sources",
            serde_json::to_value(sync::source_lines(&derivation))?,
        );
        write_locked(&path, &bytes, new_text, entry, args.lock_wait)?;
        written = true;
    }
    if ctx.json {
        let out = json!({
            "file": file,
            "changed": plan.new_text.is_some(),
            "written": written,
            "updates": plan.updates,
            "drift": plan.drift,
            "baseline": baseline.as_ref().map(|b| b.origin.clone()),
            "diff": diff,
        });
        print_json(redactor, out);
        return Ok(ExitCode::Ok);
    }
    let mut out = String::new();
    match &diff {
        None => out.push_str(&format!(
            "{file}: frontmatter already matches the body; nothing to write\n"
        )),
        Some(d) => out.push_str(d),
    }
    for d in &plan.drift {
        out.push_str(&format!(
            "drift: {} is `{}` in the frontmatter but {} gives `{}`; kept: {}\n",
            d.key, d.frontmatter, d.source, d.derived, d.kept_because
        ));
    }
    if plan.new_text.is_some() {
        out.push_str(&if written {
            format!("written: {file} ({} key(s) updated)\n", plan.updates.len())
        } else {
            "not written (pass --write to apply)\n".to_string()
        });
    }
    print_out(&printable(&redactor.clean(&out)));
    Ok(ExitCode::Ok)
}

fn run_recover(args: RecoverArgs, ctx: &Context, redactor: &Redactor) -> anyhow::Result<ExitCode> {
    use planseal::gsd::recover::{self, Version};
    use planseal::recovery::git::{HistoryOptions, Repo};
    let path = resolve_file(args.file.as_deref(), ctx)?;
    let (bytes, text) = read_state(&path)?;
    let Some(repo) = Repo::discover(&planning_dir(&path))? else {
        return Err(Refusal::new(
            RefusalKind::NoGit,
            format!(
                "{} is not inside a git repository: there is no history to recover from",
                path.display()
            ),
        )
        .hint("recover needs the file's committed versions")
        .into());
    };
    let rel = repo.relative_to_work_tree(&path)?;
    let to_version = |commit: &planseal::recovery::git::CommitInfo, content: &[u8]| Version {
        commit: commit.short.clone(),
        subject: commit.subject.clone(),
        date: commit.committer_time.to_utc_iso(),
        text: String::from_utf8_lossy(content).into_owned(),
    };
    let versions: Vec<Version> = match &args.from {
        Some(rev) => {
            let Some(id) = repo.resolve(rev)? else {
                anyhow::bail!(
                    "`{rev}` is not a revision of this repository\n  hint: pass a commit id, branch or tag"
                );
            };
            let Some(commit) = repo.find_commit(&id)? else {
                anyhow::bail!("`{rev}` does not name a commit");
            };
            let Some(content) = repo.file_at(&id, &rel)? else {
                anyhow::bail!(
                    "{rel} does not exist at {rev}\n  hint: pick a revision where the file exists"
                );
            };
            vec![to_version(&commit, &content)]
        }
        None => repo
            .file_versions(
                &rel,
                &HistoryOptions {
                    with_content: true,
                    ..HistoryOptions::default()
                },
            )?
            .versions
            .iter()
            .filter_map(|v| v.content.as_ref().map(|c| to_version(&v.commit, c)))
            .collect(),
    };
    let current = Document::parse(text);
    let lost = recover::find_lost(&current, &versions);
    let picks: Vec<String> = if args.all {
        lost.iter().map(|l| l.id.clone()).collect()
    } else {
        args.pick.clone()
    };
    let mut written = false;
    let mut restored_ids: Vec<String> = Vec::new();
    if args.write {
        let new_text = recover::restore(&current.text, &lost, &picks).map_err(|e| {
            anyhow::Error::from(
                Refusal::new(
                    RefusalKind::UnknownPiece,
                    format!("{}: {e}; nothing was written", path.display()),
                )
                .hint("run `planseal gsd recover` without --write to list the ids"),
            )
        })?;
        restored_ids = picks.clone();
        if new_text != current.text {
            let derivation = derive::derive(&Document::parse(new_text.clone()), None);
            let mut clock = planseal::clock::Clock::from_env()?;
            let entry = JournalEntry::for_file(
                planseal::clock::format_timestamp(clock.now()),
                "gsd recover",
                &path.display().to_string(),
            )
            .with("restored", serde_json::to_value(&picks)?)
            .with(
                "sources",
                serde_json::to_value(sync::source_lines(&derivation))?,
            );
            write_locked(&path, &bytes, &new_text, entry, args.lock_wait)?;
            written = true;
        }
    }
    let file = shown(&path, ctx);
    // --exit-code: something an earlier version had is (still) missing.
    let still_lost = lost
        .iter()
        .any(|l| !written || !restored_ids.contains(&l.id));
    let code = ExitCode::failed_if(args.exit_code && still_lost);
    if ctx.json {
        let out = json!({
            "file": file,
            "versions_read": versions.len(),
            "lost": lost,
            "restored": restored_ids,
            "written": written,
        });
        print_json(redactor, out);
        return Ok(code);
    }
    let mut out = String::new();
    if lost.is_empty() {
        out.push_str(&format!(
            "{file}: nothing lost ({} committed version(s) compared)\n",
            versions.len()
        ));
    } else {
        out.push_str(&format!(
            "{file}: {} piece(s) found in earlier versions but missing now:\n",
            lost.len()
        ));
        for l in &lost {
            let label = if l.label.chars().count() > 60 {
                format!("{}…", l.label.chars().take(60).collect::<String>())
            } else {
                l.label.clone()
            };
            out.push_str(&format!(
                "  {}  {}  (last seen in {} {}, \"{}\")\n",
                l.id, label, l.commit, l.date, l.subject
            ));
        }
    }
    if args.write {
        out.push_str(&if written {
            format!("restored into {file}: {}\n", restored_ids.join(", "))
        } else {
            "nothing to restore: the picked pieces are already present\n".to_string()
        });
    } else if !lost.is_empty() {
        out.push_str("restore with: planseal gsd recover --write --pick ID… (or --all)\n");
    }
    print_out(&printable(&redactor.clean(&out)));
    Ok(code)
}

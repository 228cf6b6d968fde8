//! `planseal reversa status|advance|set|history` — Reversa `.reversa/state.json` (SPEC §3).

use super::checkpoint::Redactor;
use super::{Context, shown};
use crate::print_out;
use anyhow::Context as _;
use planseal::recovery::hash::sha256_hex;
use planseal::report::ExitCode;
use planseal::report::{
    Finding, Refusal, RefusalKind, Report, Section, Severity, System, json, text,
};
use planseal::reversa::{self, edit, history, model::StateFile};
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Show where the analysis stands and check the file (read-only)
    #[command(
        after_help = "Examples:\n  planseal reversa status\n  planseal reversa status --json\n  planseal reversa status --file other/.reversa/state.json --exit-code\n\nExit codes: 0 when it ran (1 with --exit-code when a check failed), 2 when the file cannot be read."
    )]
    Status(StatusArgs),
    /// Mark the current phase done: it leaves `pending`, joins `completed`, `phase` moves on
    #[command(
        after_help = "Examples:\n  planseal reversa advance --phase-done reconhecimento\n  planseal reversa advance --phase-done escavacao --dry-run\n  planseal reversa advance --phase-done escavacao --expected-sha256 $(sha256sum .reversa/state.json | cut -d' ' -f1)\n\nPhases finish in order: reconhecimento → escavacao → interpretacao → geracao → revisao\n(or the English fork's reconnaissance → excavation → interpretation → generation → review).\nEvery other byte of the file is kept. Exit 1 when refused (nothing written)."
    )]
    Advance(AdvanceArgs),
    /// Set one top-level field to a JSON value, keeping every other byte
    #[command(
        after_help = "Examples:\n  planseal reversa set doc_level '\"completo\"'\n  planseal reversa set engines '[\"claude-code\", \"codex\"]'\n  planseal reversa set phase '\"escavacao\"' --force --reason \"redo the excavation after the schema change\"\n\nVALUE is JSON: quote strings. A change that removes a field, moves a phase backwards or\ndrops a created_files entry is refused unless --force --reason (recorded in the journal)."
    )]
    Set(SetArgs),
    /// Walk the git history of state.json and report every break of the never-remove rule
    #[command(
        after_help = "Examples:\n  planseal reversa history\n  planseal reversa history --json\n  planseal reversa history --exit-code   # exit 1 when a commit broke the rule\n\nReported: a commit that removed a field, moved a phase backwards, or dropped a created_files\nentry (an advisory when the same commit changed `version`: the installer's own update)."
    )]
    History(HistoryArgs),
}

#[derive(clap::Args, Debug)]
pub struct FileArg {
    /// The state file (default: .reversa/state.json here or in the nearest parent folder)
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct StatusArgs {
    #[command(flatten)]
    pub file: FileArg,
    /// Exit 1 when a check failed
    #[arg(long)]
    pub exit_code: bool,
}

#[derive(clap::Args, Debug)]
pub struct WriteArgs {
    /// Refuse unless the file's current SHA-256 is this (the bytes you last read)
    #[arg(long, value_name = "HEX")]
    pub expected_sha256: Option<String>,
    /// Show the change without writing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(clap::Args, Debug)]
pub struct AdvanceArgs {
    #[command(flatten)]
    pub file: FileArg,
    /// The phase that just finished
    #[arg(long, value_name = "PHASE")]
    pub phase_done: String,
    #[command(flatten)]
    pub write: WriteArgs,
}

#[derive(clap::Args, Debug)]
pub struct SetArgs {
    #[command(flatten)]
    pub file: FileArg,
    /// A top-level field name
    pub field: String,
    /// The new value, as JSON (strings in quotes)
    pub value: String,
    /// Apply a change the history check would flag (needs --reason)
    #[arg(long, requires = "reason")]
    pub force: bool,
    /// Why the forced change is right (recorded in the journal)
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    #[command(flatten)]
    pub write: WriteArgs,
}

#[derive(clap::Args, Debug)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub file: FileArg,
    /// Exit 1 when a commit broke the rule
    #[arg(long)]
    pub exit_code: bool,
}

pub fn run(command: Command, ctx: &Context) -> anyhow::Result<ExitCode> {
    let file = match &command {
        Command::Status(a) => &a.file,
        Command::Advance(a) => &a.file,
        Command::Set(a) => &a.file,
        Command::History(a) => &a.file,
    };
    // Whatever the state file holds, a value of the project's .env is never printed.
    let redactor = match locate(file, ctx) {
        Ok(p) => Redactor::for_folder(&reversa::project_root(&p)),
        Err(_) => Redactor::from_env(None),
    };
    let printer = RedactingPrinter {
        redactor: &redactor,
    };
    let result = match command {
        Command::Status(a) => status(a, ctx, &printer),
        Command::Advance(a) => advance(a, ctx, &printer),
        Command::Set(a) => set(a, ctx, &printer),
        Command::History(a) => history_cmd(a, ctx, &printer),
    };
    result.map_err(|e| redactor.clean_error(e))
}

/// Prints data through the redactor.
struct RedactingPrinter<'a> {
    redactor: &'a Redactor,
}

impl RedactingPrinter<'_> {
    fn print(&self, text: &str) {
        print_out(&self.redactor.clean(text));
    }
}

/// The state file to work on: `--file`, else `.reversa/state.json` in the working directory or
/// the nearest parent that has one.
fn locate(arg: &FileArg, ctx: &Context) -> anyhow::Result<PathBuf> {
    if let Some(f) = &arg.file {
        return Ok(ctx.cwd.join(f));
    }
    for dir in ctx.cwd.ancestors() {
        let p = dir.join(reversa::STATE_PATH);
        if p.is_file() {
            return Ok(p);
        }
    }
    anyhow::bail!(
        "no {} in {} or any parent folder\n  hint: run inside a project that Reversa analyses, or pass --file PATH",
        reversa::STATE_PATH,
        ctx.cwd.display()
    )
}

fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

fn status(args: StatusArgs, ctx: &Context, printer: &RedactingPrinter) -> anyhow::Result<ExitCode> {
    let path = locate(&args.file, ctx)?;
    let bytes = read(&path)?;
    let name = shown(&path, ctx);
    let root = reversa::project_root(&path);
    let mut section = Section::new(System::Reversa, name.clone(), name.clone());
    section.findings = reversa::findings_for_bytes(&bytes, &root);
    let summary = StateFile::parse(&bytes)
        .ok()
        .map(|s| reversa::Summary::of(&s));
    let report = Report {
        sections: vec![section],
    };
    if ctx.json {
        let mut doc = json::to_value(&report);
        doc["file"] = serde_json::Value::String(name);
        doc["sha256"] = serde_json::Value::String(sha256_hex(&bytes));
        doc["summary"] = serde_json::to_value(&summary)?;
        printer.print(&format!("{doc:#}\n"));
    } else {
        let mut out = String::new();
        if let Some(s) = &summary {
            out.push_str(&text::printable(&summary_text(s)));
            out.push('\n');
        }
        out.push_str(&text::render(&report, text::Style { color: ctx.color }));
        printer.print(&out);
    }
    Ok(ExitCode::failed_if(
        args.exit_code && report.sections[0].failed(),
    ))
}

fn summary_text(s: &reversa::Summary) -> String {
    let mut out = String::new();
    let project = s.project.as_deref().unwrap_or("(unnamed)");
    let version = s
        .version
        .as_deref()
        .map(|v| format!(" (Reversa {v})"))
        .unwrap_or_default();
    out.push_str(&format!("project: {project}{version}\n"));
    let phase = match (&s.phases.phase, s.progress) {
        (Some(p), _) => format!("{} — current phase {p}", s.progress.label()),
        (None, p) => p.label().to_string(),
    };
    let names = s
        .vocabulary
        .map(|v| format!(", {} phase names", v.label()))
        .unwrap_or_default();
    out.push_str(&format!(
        "progress: {phase} ({} of 5 completed{names})\n",
        s.phases.completed.len()
    ));
    if !s.phases.completed.is_empty() {
        out.push_str(&format!("completed: {}\n", s.phases.completed.join(", ")));
    }
    if !s.phases.pending.is_empty() {
        out.push_str(&format!("pending: {}\n", s.phases.pending.join(", ")));
    }
    if let Some(n) = &s.next_to_finish {
        out.push_str(&format!(
            "next: planseal reversa advance --phase-done {n}\n"
        ));
    }
    out
}

fn refusal_from(e: edit::EditError, path: &str) -> Refusal {
    let hint = match &e {
        edit::EditError::WouldViolate(_) => Some(
            "state.json only ever gains fields and moves forward; if this change is truly right, add --force --reason TEXT".to_string(),
        ),
        edit::EditError::InvalidValue(_) => Some("check the value against SPEC §3, or --force --reason TEXT".into()),
        edit::EditError::OutOfOrder { .. } | edit::EditError::AlreadyFinished => {
            Some("see `planseal reversa status` for the phase to finish next".into())
        }
        edit::EditError::UnknownPhase { .. } => Some("use the phase names this file already uses".into()),
        edit::EditError::StateInvalid(_) => Some("repair the file first (planseal reversa status)".into()),
        edit::EditError::Read(_) | edit::EditError::Splice(_) => Some("fix the JSON first".into()),
        edit::EditError::BadFieldName(_) => Some("FIELD is one top-level key, e.g. doc_level".into()),
    };
    let details: Vec<Finding> = match &e {
        edit::EditError::WouldViolate(v) => v
            .iter()
            .map(|x| Finding::fail(x.kind.id(), x.describe()).file(path))
            .collect(),
        edit::EditError::InvalidValue(f) => f.clone(),
        _ => Vec::new(),
    };
    let mut r = Refusal::new(e.kind(), format!("{path}: {e}")).details(details);
    r.hint = hint;
    r
}

fn check_expected(bytes: &[u8], expected: Option<&str>, path: &str) -> Result<(), Refusal> {
    if let Some(exp) = expected {
        let actual = sha256_hex(bytes);
        if !actual.eq_ignore_ascii_case(exp.trim()) {
            return Err(Refusal::new(
                RefusalKind::StaleSnapshot,
                format!("{path}: its SHA-256 is {actual}, not the expected {exp}"),
            )
            .hint(
                "the file changed since you read it: read it again, then retry with the new hash",
            ));
        }
    }
    Ok(())
}

/// Prints the outcome of a write (or of a dry run).
fn report_write(
    ctx: &Context,
    printer: &RedactingPrinter,
    path: &str,
    operation: &str,
    changes: &[String],
    before: &str,
    after: Option<&str>,
) {
    let dry_run = after.is_none();
    if ctx.json {
        let doc = serde_json::json!({
            "result": if dry_run { "dry-run" } else { "written" },
            "file": path,
            "operation": operation,
            "changes": changes,
            "sha256_before": before,
            "sha256_after": after,
        });
        printer.print(&format!("{doc:#}\n"));
    } else {
        let mut out = String::new();
        for c in changes {
            out.push_str(&format!("  {}\n", text::printable(c)));
        }
        match after {
            None => out.push_str(&format!("{path}: not written (--dry-run)\n")),
            Some(a) => out.push_str(&format!("{path}: written (sha256 {a})\n")),
        }
        printer.print(&out);
    }
}

fn advance(
    args: AdvanceArgs,
    ctx: &Context,
    printer: &RedactingPrinter,
) -> anyhow::Result<ExitCode> {
    let path = locate(&args.file, ctx)?;
    let name = shown(&path, ctx);
    let bytes = read(&path)?;
    check_expected(&bytes, args.write.expected_sha256.as_deref(), &name)?;
    let state = StateFile::parse(&bytes).map_err(|e| refusal_from(e.into(), &name))?;
    let e = edit::advance(&state, &args.phase_done).map_err(|e| refusal_from(e, &name))?;
    let before = sha256_hex(&bytes);
    if args.write.dry_run {
        report_write(ctx, printer, &name, "advance", &e.changes, &before, None);
        return Ok(ExitCode::Ok);
    }
    let details = serde_json::json!({
        "phase_done": args.phase_done,
        "changes": e.changes,
    });
    let after = persist(
        &reversa::state_target(&path),
        Some(&bytes),
        &e.new_bytes,
        "reversa-advance",
        details,
    )?;
    report_write(
        ctx,
        printer,
        &name,
        "advance",
        &e.changes,
        &before,
        Some(&after),
    );
    Ok(ExitCode::Ok)
}

fn set(args: SetArgs, ctx: &Context, printer: &RedactingPrinter) -> anyhow::Result<ExitCode> {
    let path = locate(&args.file, ctx)?;
    let name = shown(&path, ctx);
    let value: serde_json::Value = serde_json::from_str(&args.value).map_err(|e| {
        Refusal::new(
            RefusalKind::InvalidValue,
            format!("{name}: VALUE for `{}` is not JSON ({e})", args.field),
        )
        .hint(format!(
            "quote a string: planseal reversa set {} '\"{}\"'",
            args.field, args.value
        ))
    })?;
    let bytes = read(&path)?;
    check_expected(&bytes, args.write.expected_sha256.as_deref(), &name)?;
    let state = StateFile::parse(&bytes).map_err(|e| refusal_from(e.into(), &name))?;
    let e =
        edit::set(&state, &args.field, value, args.force).map_err(|e| refusal_from(e, &name))?;
    let before = sha256_hex(&bytes);
    if args.write.dry_run {
        report_write(ctx, printer, &name, "set", &e.changes, &before, None);
        return Ok(ExitCode::Ok);
    }
    let forced: Vec<serde_json::Value> = e
        .forced
        .iter()
        .map(|v| serde_json::json!({"id": v.kind.id(), "field": v.field, "old_value": v.old_value}))
        .collect();
    let details = serde_json::json!({
        "field": args.field,
        "changes": e.changes,
        "forced": forced,
        "reason": args.reason,
    });
    let after = persist(
        &reversa::state_target(&path),
        Some(&bytes),
        &e.new_bytes,
        "reversa-set",
        details,
    )?;
    report_write(
        ctx,
        printer,
        &name,
        "set",
        &e.changes,
        &before,
        Some(&after),
    );
    Ok(ExitCode::Ok)
}

fn history_cmd(
    args: HistoryArgs,
    ctx: &Context,
    printer: &RedactingPrinter,
) -> anyhow::Result<ExitCode> {
    let path = locate(&args.file, ctx)?;
    let name = shown(&path, ctx);
    let versions = git_versions(&path)?;
    let walk = history::walk(&versions);
    let mut section = Section::new(System::Reversa, name.clone(), name.clone());
    for f in &walk.flagged {
        let v = &f.violation;
        let msg = format!("commit {} \"{}\": {}", f.commit, f.subject, v.describe());
        let finding = Finding::new(v.kind.id(), v.severity, msg).file(name.clone());
        let finding = match v.kind {
            history::ViolationKind::CreatedFileDropped if v.severity == Severity::Advisory => {
                finding.hint("the same commit changed `version`: likely the installer's own update")
            }
            _ => finding.hint(format!(
                "restore it from the commit before {} (git show {}^:{name})",
                f.commit, f.commit
            )),
        };
        section.push(finding);
    }
    for c in &walk.unreadable {
        section.push(Finding::advisory(
            "reversa-history-unreadable",
            format!("commit {c}: the file is not a JSON object there; compared around it"),
        ));
    }
    if walk.versions == 0 {
        section.push(
            Finding::advisory(
                "reversa-history-empty",
                format!("{name} has no committed version: there is no history to check"),
            )
            .hint("commit the file; every later commit is then checked"),
        );
    } else if walk
        .flagged
        .iter()
        .all(|f| f.violation.severity != Severity::Fail)
    {
        section.push(Finding::pass(
            "reversa-history",
            format!(
                "no commit of {} version(s) removed a field or moved a phase backwards",
                walk.versions
            ),
        ));
    }
    let report = Report {
        sections: vec![section],
    };
    if ctx.json {
        let mut doc = json::to_value(&report);
        doc["file"] = serde_json::Value::String(name);
        doc["versions"] = walk.versions.into();
        doc["flagged"] = serde_json::to_value(&walk.flagged)?;
        printer.print(&format!("{doc:#}\n"));
    } else {
        printer.print(&text::render(&report, text::Style { color: ctx.color }));
    }
    Ok(ExitCode::failed_if(
        args.exit_code && report.sections[0].failed(),
    ))
}

/// The versions of `path` along the history of HEAD, oldest first (read through gix).
fn git_versions(path: &Path) -> anyhow::Result<Vec<history::Version>> {
    use planseal::recovery::git::{HistoryOptions, Repo};
    let dir = path.parent().unwrap_or(Path::new("."));
    let repo = Repo::discover(dir)?.ok_or_else(|| {
        anyhow::anyhow!(
            "{} is not inside a git repository\n  hint: `reversa history` reads the file's git history; commit it first",
            path.display()
        )
    })?;
    let rel = repo.relative_to_work_tree(path)?;
    let found = repo.file_versions(
        &rel,
        &HistoryOptions {
            with_content: true,
            ..Default::default()
        },
    )?;
    Ok(found
        .versions
        .into_iter()
        .rev()
        .map(|v| history::Version {
            commit: v.commit.short,
            subject: v.commit.subject,
            bytes: v.blob_id.map(|_| v.content.unwrap_or_default()),
        })
        .collect())
}

/// Writes `new_bytes` over `path` through the write path: lock folder `<file>.lock/` with an
/// owner record, re-read under the lock and compare with `old_bytes` (`None`: the file must not
/// exist yet), atomic replace keeping the permission bits, one line appended to
/// `<file>.journal.ndjson` with `details` (an object: the operation's own fields; `reason` and
/// `forced` go to the common fields). Returns the new SHA-256. A refusal leaves the file as it was.
pub(super) fn persist(
    target: &planseal::write::Target,
    old_bytes: Option<&[u8]>,
    new_bytes: &[u8],
    operation: &str,
    details: serde_json::Value,
) -> anyhow::Result<String> {
    let mut clock = planseal::clock::Clock::from_env()?;
    let path = target.path();
    let mut entry = planseal::write::JournalEntry::for_file(
        clock.now_iso(),
        operation,
        &path.display().to_string(),
    );
    if let serde_json::Value::Object(mut map) = details {
        entry.reason = map
            .remove("reason")
            .and_then(|r| r.as_str().map(str::to_string));
        if let Some(serde_json::Value::Array(forced)) = map.remove("forced") {
            entry.forced = forced;
        }
        entry.details = map;
    }
    let done = planseal::write::Writer::from_env().commit(target, old_bytes, new_bytes, entry)?;
    super::warn_if_unjournaled(&path.display().to_string(), &done);
    Ok(done.after_sha256)
}

//! `planseal checkpoint status|init|refresh|diff` — the checkpoint protocol's
//! PROJECT-CHECKPOINT.md (SPEC §4).
//!
//! Nothing printed here ever holds a `.env` value: generated text carries keys only, and every
//! piece of text taken from the checkpoint passes through [`Redactor`] before it is shown.

use super::reversa::persist;
use super::{Context, shown};
use crate::print_out;
use planseal::checkpoint::{self, diff, generate, resolve};
use planseal::recovery::hash::sha256_hex;
use planseal::report::ExitCode;
use planseal::report::redact::EnvRedactor;
use planseal::report::{Refusal, RefusalKind, Report, Section, System, json, text};
use std::path::Path;

const TARGET_HELP: &str = "The checkpoint: projects/<id>/PROJECT-CHECKPOINT.md when projects/ holds a project \
(--project ID, else the project folder you are in, else the only project), otherwise the legacy docs/PROJECT-CHECKPOINT.md.";

#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Check the checkpoint: required sections, sessions, story table, prefixes (read-only)
    #[command(
        after_help = "Examples:\n  planseal checkpoint status\n  planseal checkpoint status --project cw --json\n  planseal checkpoint status --prefix CW --exit-code\n\nExit codes: 0 when it ran (1 with --exit-code when a check failed), 1 when the project is\nambiguous, 2 when the checkpoint does not exist or cannot be read."
    )]
    Status(StatusArgs),
    /// Create the standard checkpoint skeleton when the project has none
    #[command(
        after_help = "Examples:\n  planseal checkpoint init\n  planseal checkpoint init --project cw --dry-run\n\nWrites `# Project Checkpoint`, `> Ultima atualizacao: <date>`, the six agent sections with\nplaceholders, the story table from stories/, `## Git Recente` and (with a .env) `## Ambiente Detectado`.\nRefused when the checkpoint exists (use refresh)."
    )]
    Init(InitArgs),
    /// Regenerate `## Git Recente`, `## Ambiente Detectado` and the story table; show the diff
    #[command(
        after_help = "Examples:\n  planseal checkpoint refresh                     show what would change\n  planseal checkpoint refresh --write             write it (lock, CAS, atomic)\n  planseal checkpoint refresh --prune-sessions --write --expected-sha256 HEX\n\nOnly the generated sections, missing story rows, status cells and (when anything changed) the\n`> Ultima atualizacao:` line change; every other byte stays. `.env` gives keys only, never values.\n--prune-sessions keeps the 3 most recent sessions and records the removed text in the journal."
    )]
    Refresh(RefreshArgs),
    /// What the checkpoint lost or gained since a git revision (sections, story rows, sessions)
    #[command(
        after_help = "Examples:\n  planseal checkpoint diff --against HEAD~5\n  planseal checkpoint diff --against v1.2 --json\n  planseal checkpoint diff --against main --exit-code   # exit 1 when anything differs"
    )]
    Diff(DiffArgs),
}

#[derive(clap::Args, Debug)]
pub struct TargetArgs {
    /// The project id under projects/ (multi-project mode)
    #[arg(long, value_name = "ID", long_help = TARGET_HELP)]
    pub project: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct StatusArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// The story-id prefix (default: .project.yaml `prefix`/`story_prefix`/`code`, else the
    /// prefix most ids share)
    #[arg(long, value_name = "PREFIX")]
    pub prefix: Option<String>,
    /// Exit 1 when a check failed
    #[arg(long)]
    pub exit_code: bool,
}

#[derive(clap::Args, Debug)]
pub struct InitArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Print the skeleton without writing it
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(clap::Args, Debug)]
pub struct RefreshArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Write the refreshed file (without it, only the diff is shown)
    #[arg(long)]
    pub write: bool,
    /// Also remove sessions beyond the 3 most recent (their text goes to the journal)
    #[arg(long)]
    pub prune_sessions: bool,
    /// Refuse unless the checkpoint's current SHA-256 is this
    #[arg(long, value_name = "HEX")]
    pub expected_sha256: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// The revision to compare with (a commit, branch, tag, HEAD~N)
    #[arg(long, value_name = "REV")]
    pub against: String,
    /// Exit 1 when anything was lost or gained
    #[arg(long)]
    pub exit_code: bool,
}

pub fn run(command: Command, ctx: &Context) -> anyhow::Result<ExitCode> {
    let redactor = Redactor::for_folder(&resolve::find_root(&ctx.cwd));
    let result = match command {
        Command::Status(a) => status(a, ctx),
        Command::Init(a) => init(a, ctx),
        Command::Refresh(a) => refresh(a, ctx),
        Command::Diff(a) => diff_cmd(a, ctx),
    };
    result.map_err(|e| redactor.clean_error(e))
}

/// Hides every `.env` value in text about to be printed, errors included.
pub(super) struct Redactor(EnvRedactor);

impl Redactor {
    pub(super) fn from_env(env: Option<&[u8]>) -> Self {
        Self(EnvRedactor::from_env_bytes(env))
    }
    pub(super) fn for_folder(dir: &Path) -> Self {
        Self(EnvRedactor::for_folder(dir))
    }
    pub(super) fn clean(&self, s: &str) -> String {
        self.0.clean(s)
    }
    /// An error with every message cleaned; a [`Refusal`] stays a refusal.
    pub(super) fn clean_error(&self, err: anyhow::Error) -> anyhow::Error {
        if self.0.is_empty() {
            return err;
        }
        match super::into_refusal(err) {
            Ok(r) => anyhow::Error::new(Refusal {
                message: self.clean(&r.message),
                hint: r.hint.map(|h| self.clean(&h)),
                details: r
                    .details
                    .into_iter()
                    .map(|f| self.0.clean_finding(f))
                    .collect(),
                ..r
            }),
            Err(other) => anyhow::anyhow!(self.clean(&format!("{other:#}"))),
        }
    }
}

fn locate(args: &TargetArgs, ctx: &Context) -> anyhow::Result<resolve::Target> {
    let root = resolve::find_root(&ctx.cwd);
    resolve::resolve(&root, &ctx.cwd, args.project.as_deref()).map_err(|e| {
        let kind = match &e {
            resolve::ResolveError::UnknownProject { .. } => RefusalKind::UnknownProject,
            resolve::ResolveError::Ambiguous { .. } => RefusalKind::ProjectAmbiguous,
            resolve::ResolveError::NotMultiProject(_) => RefusalKind::UnknownProject,
        };
        let hint = match &e {
            resolve::ResolveError::NotMultiProject(_) => {
                "drop --project: this repository uses docs/PROJECT-CHECKPOINT.md".to_string()
            }
            _ => "pass --project ID, or run inside projects/<id>/".to_string(),
        };
        anyhow::Error::new(Refusal::new(kind, format!("{}: {e}", root.display())).hint(hint))
    })
}

fn gather(target: &resolve::Target, prefix: Option<&str>) -> anyhow::Result<checkpoint::Gathered> {
    checkpoint::gather(target, prefix).map_err(anyhow::Error::new)
}

fn require_existing(target: &resolve::Target, name: &str) -> anyhow::Result<()> {
    if !target.checkpoint.is_file() {
        anyhow::bail!(
            "{name} does not exist\n  hint: planseal checkpoint init{} creates the standard skeleton",
            target
                .project
                .as_deref()
                .map(|p| format!(" --project {p}"))
                .unwrap_or_default()
        );
    }
    Ok(())
}

fn status(args: StatusArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let target = locate(&args.target, ctx)?;
    let name = shown(&target.checkpoint, ctx);
    require_existing(&target, &name)?;
    let g = gather(&target, args.prefix.as_deref())?;
    let redactor = Redactor::from_env(g.env.as_deref());
    let mut section = Section::new(System::Checkpoint, name.clone(), name.clone());
    section.findings = checkpoint::findings(&target, &g);
    let report = Report {
        sections: vec![section],
    };
    let text_str = String::from_utf8_lossy(&g.bytes);
    let secs = checkpoint::doc::sections(&text_str);
    let mode = match &target.project {
        Some(p) => format!("project {p} (projects/{p}/)"),
        None => "legacy (docs/)".into(),
    };
    if ctx.json {
        let mut doc = json::to_value(&report);
        doc["file"] = name.clone().into();
        doc["project"] = target.project.clone().into();
        doc["sha256"] = sha256_hex(&g.bytes).into();
        doc["headings"] = serde_json::Value::Array(
            secs.iter()
                .map(|s| redactor.clean(&s.heading).into())
                .collect(),
        );
        doc["story_files"] = g.stories.len().into();
        print_out(&format!("{doc:#}\n"));
    } else {
        let mut out = format!(
            "checkpoint: {name}\nmode: {mode}\nsections: {}\nstory files: {}\n\n",
            secs.len(),
            g.stories.len()
        );
        out.push_str(&text::render(&report, text::Style { color: ctx.color }));
        print_out(&out);
    }
    Ok(ExitCode::failed_if(
        args.exit_code && report.sections[0].failed(),
    ))
}

fn now_iso() -> anyhow::Result<String> {
    let mut clock = planseal::clock::Clock::from_env()?;
    Ok(planseal::clock::format_timestamp_seconds_z(clock.now()))
}

fn init(args: InitArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let target = locate(&args.target, ctx)?;
    let name = shown(&target.checkpoint, ctx);
    if target.checkpoint.exists() {
        return Err(Refusal::new(
            RefusalKind::CheckpointExists,
            format!("{name} already exists; init never overwrites it"),
        )
        .hint("planseal checkpoint refresh --write regenerates its generated sections")
        .into());
    }
    let g = gather(&target, None)?;
    let git = git_summary(&target.root);
    let keys = g.env.as_deref().map(generate::env_keys);
    let now = now_iso()?;
    let text = generate::skeleton(&generate::Inputs {
        git: git.as_ref(),
        env_keys: keys.as_deref(),
        stories: &g.stories,
        prune_sessions: false,
        now: &now[..10],
    });
    let redactor = Redactor::from_env(g.env.as_deref());
    if args.dry_run {
        if ctx.json {
            let doc = serde_json::json!({"result": "dry-run", "file": name, "text": redactor.clean(&text)});
            print_out(&format!("{doc:#}\n"));
        } else {
            print_out(&text::printable(&redactor.clean(&text)));
        }
        return Ok(ExitCode::Ok);
    }
    // Folders this init creates; a refused write removes them again, so a refusal leaves the
    // tree as it was.
    let created: Vec<std::path::PathBuf> = target
        .checkpoint
        .ancestors()
        .skip(1)
        .take_while(|dir| !dir.as_os_str().is_empty() && !dir.exists())
        .map(std::path::Path::to_path_buf)
        .collect();
    if let Some(dir) = target.checkpoint.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    }
    let written = persist(
        &checkpoint::checkpoint_target(&target.checkpoint),
        None,
        text.as_bytes(),
        "checkpoint-init",
        serde_json::json!({}),
    );
    let after = match written {
        Ok(after) => after,
        Err(e) => {
            for dir in &created {
                let _ = std::fs::remove_dir(dir);
            }
            return Err(e);
        }
    };
    if ctx.json {
        let doc = serde_json::json!({"result": "written", "file": name, "sha256_after": after});
        print_out(&format!("{doc:#}\n"));
    } else {
        print_out(&format!("{name}: created (sha256 {after})\n"));
    }
    Ok(ExitCode::Ok)
}

fn refresh(args: RefreshArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let target = locate(&args.target, ctx)?;
    let name = shown(&target.checkpoint, ctx);
    require_existing(&target, &name)?;
    let g = gather(&target, None)?;
    let redactor = Redactor::from_env(g.env.as_deref());
    if let Some(exp) = &args.expected_sha256 {
        let actual = sha256_hex(&g.bytes);
        if !actual.eq_ignore_ascii_case(exp.trim()) {
            return Err(Refusal::new(
                RefusalKind::StaleSnapshot,
                format!("{name}: its SHA-256 is {actual}, not the expected {exp}"),
            )
            .hint("the checkpoint changed since you read it (another terminal?): read it again, then retry")
            .into());
        }
    }
    let old = std::str::from_utf8(&g.bytes).map_err(|e| {
        Refusal::new(
            RefusalKind::CheckpointUnreadable,
            format!("{name}: not UTF-8 text (byte {})", e.valid_up_to()),
        )
        .hint("save the file as UTF-8")
    })?;
    let git = git_summary(&target.root);
    let keys = g.env.as_deref().map(generate::env_keys);
    let now = now_iso()?;
    let (new, changes) = generate::refresh(
        old,
        &generate::Inputs {
            git: git.as_ref(),
            env_keys: keys.as_deref(),
            stories: &g.stories,
            prune_sessions: args.prune_sessions,
            now: &now,
        },
    )
    .map_err(|e| {
        Refusal::new(RefusalKind::SessionOrderUnknown, format!("{name}: {e}"))
            .hint("give every `### Sessão` heading a date, then prune again")
    })?;
    let changed = new != old;
    let patch = redactor.clean(&super::unified_diff(old, &new, &name));
    let mut after = None;
    if changed && args.write {
        let details = serde_json::json!({
            "rows_added": changes.rows_added,
            "statuses_updated": changes.statuses_updated,
            "sections_rewritten": changes.sections_rewritten,
            "sections_added": changes.sections_added,
            "sessions_removed": changes.sessions_removed.iter().map(|s| redactor.clean(s)).collect::<Vec<_>>(),
        });
        after = Some(persist(
            &checkpoint::checkpoint_target(&target.checkpoint),
            Some(&g.bytes),
            new.as_bytes(),
            "checkpoint-refresh",
            details,
        )?);
    }
    if ctx.json {
        let doc = serde_json::json!({
            "result": if !changed { "unchanged" } else if after.is_some() { "written" } else { "dry-run" },
            "file": name,
            "changes": {
                "rows_added": changes.rows_added,
                "statuses_updated": changes.statuses_updated,
                "sections_rewritten": changes.sections_rewritten,
                "sections_added": changes.sections_added,
                "sessions_removed": changes.sessions_removed.len(),
            },
            "diff": patch,
            "sha256_before": sha256_hex(&g.bytes),
            "sha256_after": after,
        });
        print_out(&format!("{doc:#}\n"));
    } else if !changed {
        print_out(&format!("{name}: already up to date\n"));
    } else {
        let mut out = patch;
        match &after {
            Some(a) => out.push_str(&format!("{name}: written (sha256 {a})\n")),
            None => out.push_str(&format!("{name}: not written (add --write)\n")),
        }
        if !changes.sessions_removed.is_empty() && after.is_some() {
            out.push_str(&format!(
                "{} session(s) removed; their text is in {name}.journal.ndjson\n",
                changes.sessions_removed.len()
            ));
        }
        print_out(&text::printable(&out));
    }
    Ok(ExitCode::Ok)
}

fn diff_cmd(args: DiffArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let target = locate(&args.target, ctx)?;
    let name = shown(&target.checkpoint, ctx);
    let g = gather(&target, None)?;
    let redactor = Redactor::from_env(g.env.as_deref());
    let now = String::from_utf8_lossy(&g.bytes).into_owned();
    let old_bytes = file_at(&target.root, &args.against, &target.checkpoint)?;
    let absent_then = old_bytes.is_none();
    let absent_now = !target.checkpoint.is_file();
    let old = String::from_utf8_lossy(&old_bytes.unwrap_or_default()).into_owned();
    let d = diff::compare(&old, &now);
    let clean_list =
        |v: &[String]| -> Vec<String> { v.iter().map(|s| redactor.clean(s)).collect() };
    if ctx.json {
        let delta = |x: &diff::Delta| serde_json::json!({"lost": clean_list(&x.lost), "gained": clean_list(&x.gained)});
        let doc = serde_json::json!({
            "file": name,
            "against": args.against,
            "lost_anything": d.lost_anything(),
            "absent_at_revision": absent_then,
            "absent_now": absent_now,
            "sections": delta(&d.sections),
            "story_rows": delta(&d.story_rows),
            "story_columns": delta(&d.story_columns),
            "sessions": delta(&d.sessions),
        });
        print_out(&format!("{doc:#}\n"));
    } else {
        let mut out = format!("{name} since {}:\n", args.against);
        if absent_then {
            out.push_str(&format!("  (the file did not exist at {})\n", args.against));
        }
        if absent_now {
            out.push_str("  (the file does not exist now)\n");
        }
        if d.is_empty() {
            out.push_str("  no section, story row, column or session lost or gained\n");
        }
        for (label, x) in [
            ("section", &d.sections),
            ("story row", &d.story_rows),
            ("story column", &d.story_columns),
            ("session", &d.sessions),
        ] {
            for l in &x.lost {
                out.push_str(&format!("  - lost {label}: {}\n", redactor.clean(l)));
            }
            for l in &x.gained {
                out.push_str(&format!("  + gained {label}: {}\n", redactor.clean(l)));
            }
        }
        print_out(&text::printable(&out));
    }
    Ok(ExitCode::failed_if(args.exit_code && !d.is_empty()))
}

/// The `## Git Recente` facts of the repository at `root` (through gix, no `git` process).
/// Outside a repository there are no commits; `None` when the repository cannot be read, so
/// the section is left as it is.
fn git_summary(root: &Path) -> Option<generate::GitSummary> {
    use planseal::recovery::git::Repo;
    let repo = match Repo::discover(root) {
        Ok(Some(r)) => r,
        Ok(None) => return Some(generate::GitSummary::default()),
        Err(e) => {
            crate::print_err(&format!(
                "planseal: warning: `## Git Recente` left as it is: {e}\n"
            ));
            return None;
        }
    };
    let read = || -> Result<generate::GitSummary, planseal::recovery::git::GitError> {
        let head = repo.head()?;
        let commits = if head.id.is_some() {
            repo.last_commits(5)?
                .into_iter()
                .map(|c| (c.short, c.subject))
                .collect()
        } else {
            Vec::new()
        };
        Ok(generate::GitSummary {
            commits,
            branch: head.branch,
            modified: repo.unstaged_tracked_count()?,
        })
    };
    match read() {
        Ok(s) => Some(s),
        Err(e) => {
            crate::print_err(&format!(
                "planseal: warning: `## Git Recente` left as it is: {e}\n"
            ));
            None
        }
    }
}

/// The bytes of the checkpoint at revision `rev` (`None` when it did not exist there).
fn file_at(root: &Path, rev: &str, checkpoint: &Path) -> anyhow::Result<Option<Vec<u8>>> {
    use planseal::recovery::git::Repo;
    let repo = Repo::discover(root)?.ok_or_else(|| {
        anyhow::anyhow!(
            "{} is not inside a git repository\n  hint: `checkpoint diff` compares with a git revision",
            root.display()
        )
    })?;
    let rel = repo.relative_to_work_tree(checkpoint)?;
    Ok(repo.file_at(rev, &rel)?)
}

//! `planseal report`: a picture of every plan found (`docs/report.md`) — the arguments, the
//! printing and `--open`; the report itself is `planseal::picture`.

use super::Context;
use super::outcome::deliver;
use crate::print_err;
use planseal::picture::{self, Format, ReportOptions};
use planseal::report::{ExitCode, HintedError};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal report                              every plan here, as planseal-report.html\n  planseal report --open                       the same, then open it in the browser\n  planseal report .dwp/plans/PLAN_x --out x.html\n  planseal report --format svg --out timeline.svg      the timelines alone (a README, a PR)\n  planseal report --format markdown --out report.md    a summary for a CI comment, the SVG beside it\n  planseal --json report                       the files written and the plans covered\n  planseal report --dry-run                    what would change in the file, as a unified diff\n\nThe page is one file: inline CSS and SVG, no script, nothing fetched; it opens from file:// and\nprints one page per plan. The same plans give the same bytes (only PLANSEAL_FAKE_NOW sets a\n\"now\"). Exit codes: 0 written (whatever the verdict), 2 nothing found or usage error, 3 the file\ncould not be written, 4 written but not confirmed on disk."
)]
pub(super) struct Args {
    /// A plan folder, a .dwp folder or a repository root (default: search from the current directory)
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// The file to write (default: planseal-report.html, planseal-timeline.svg or planseal-report.md)
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// What to write: the page, the timelines alone, or a markdown summary with the SVG beside it
    #[arg(long, value_enum, default_value_t = FormatArg::Html, value_name = "FORMAT")]
    pub format: FormatArg,
    /// Open the file with the system's opener (xdg-open, or open on macOS) once written
    #[arg(long, conflicts_with = "dry_run")]
    pub open: bool,
    /// Only the plan with this folder name (PLAN_ prefix optional)
    #[arg(long, value_name = "NAME")]
    pub plan: Option<String>,
    /// The .dwp folder to use instead of searching
    #[arg(long, value_name = "DIR", env = "DWP_DIR")]
    pub dwp_dir: Option<PathBuf>,
    /// Write nothing: print what would change in each file as a unified diff
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum FormatArg {
    Html,
    Svg,
    Markdown,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(args.path.as_deref().unwrap_or(Path::new("."))));
    let now = picture::now_from_env()
        .map_err(|e| HintedError::usage(e.to_string()).hint("unset it, or give an instant"))?;
    let opts = ReportOptions {
        select: planseal::dwp::locate::DiscoverOptions {
            cwd: ctx.cwd.clone(),
            path: args.path,
            plan: args.plan,
            dwp_dir: args.dwp_dir.filter(|d| !d.as_os_str().is_empty()),
        },
        format: match args.format {
            FormatArg::Html => Format::Html,
            FormatArg::Svg => Format::Svg,
            FormatArg::Markdown => Format::Markdown,
        },
        out: args.out,
        now,
        dry_run: args.dry_run,
    };
    let outcome = picture::report(&opts).map_err(|e| match e {
        picture::ReportError::Write(w) => anyhow::Error::from(w),
        other => HintedError::usage(other.to_string())
            .hint(other.hint())
            .into(),
    })?;
    let code = deliver(
        ctx,
        &outcome,
        &outcome.to_text(),
        outcome.confirmation.as_ref(),
    )?;
    if args.open
        && let Some(first) = outcome.files.first()
    {
        open(&first.full_path);
    }
    Ok(code)
}

/// Hands the file to the platform's opener and does not wait for it: the browser it starts is
/// the user's, not part of this run. A missing opener is said on stderr; the report stands.
fn open(path: &Path) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let started = std::process::Command::new(opener)
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = started {
        print_err(&format!(
            "planseal: could not start {opener} to open {}: {e}\n  hint: open the file in a browser yourself\n",
            path.display()
        ));
    }
}

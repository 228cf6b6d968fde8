//! `planseal gsd …`: statusline, status, sync, recover for GSD's `.planning/STATE.md`.

use super::Context;
use crate::print_out;
use planseal::gsd::statusline::{self, Format, Located};
use std::io::Read;
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Print the GSD state segment exactly as GSD's statusline hook does (no trailing newline)
    Statusline(StatuslineArgs),
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

pub fn run(command: Command, ctx: &Context) -> anyhow::Result<i32> {
    match command {
        Command::Statusline(args) => run_statusline(args, ctx),
    }
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

fn run_statusline(args: StatuslineArgs, ctx: &Context) -> anyhow::Result<i32> {
    let home = home_dir();
    let (text, config_start) = match &args.file {
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
            (text, start)
        }
        None => {
            let start = if args.stdin {
                let mut input = Vec::new();
                std::io::stdin().read_to_end(&mut input)?;
                statusline::workspace_dir_from_json(&input)
                    .map(|d| ctx.cwd.join(d))
                    .unwrap_or_else(|| ctx.cwd.clone())
            } else {
                ctx.cwd.clone()
            };
            let workstream = std::env::var("GSD_WORKSTREAM").ok();
            match statusline::locate(&start, home.as_deref(), workstream.as_deref()) {
                Located::File { text, .. } => (Some(text), start),
                Located::NoActiveWorkstream { .. } => {
                    print_out(statusline::NO_ACTIVE_WORKSTREAM);
                    return Ok(0);
                }
                Located::MissingWorkstreamState(path) => {
                    if args.strict {
                        anyhow::bail!(
                            "{}: the active workstream has no STATE.md yet\n  hint: run GSD's \
                             workstream setup, or choose another workstream with GSD_WORKSTREAM",
                            path.display()
                        );
                    }
                    (None, start)
                }
                Located::NotFound => {
                    if args.strict {
                        anyhow::bail!(
                            "no .planning/STATE.md found from {} upwards (10 levels, stopping at \
                             the home directory)\n  hint: run inside a GSD project or pass FILE",
                            start.display()
                        );
                    }
                    (None, start)
                }
            }
        }
    };
    let Some(text) = text else {
        return Ok(0);
    };
    let format = if args.compact {
        Format::Compact
    } else {
        statusline::configured_format(&config_start, home.as_deref())
    };
    let line = statusline::render_text(&text, format);
    if !line.is_empty() {
        print_out(&line);
    }
    Ok(0)
}

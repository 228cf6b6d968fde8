//! `planseal man [--out DIR]`: the manual pages, generated from the same definitions that parse
//! the arguments — one page per command and subcommand (`planseal-gsd-sync.1`), or the top page
//! on stdout (`docs/completions.md`).

use super::Context;
use crate::{print_json, print_out};
use anyhow::Context as _;
use clap::CommandFactory;
use planseal::report::{ExitCode, HintedError};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal man | man -l -                         read the top page now\n  planseal man --out /usr/local/share/man/man1    install every page\n  planseal man --out target/man --json            the pages written, as JSON\n\nOne page per command: planseal.1, planseal-verify.1, planseal-gsd-sync.1, …\nWithout --out the top page (planseal.1) goes to stdout and nothing is written."
)]
pub(super) struct Args {
    /// Write one page per command into DIR (created when missing) instead of printing the top page
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// `man --json`: the top page itself, or (with `--out`) the pages written.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub(super) enum ManDocument<'a> {
    /// Without `--out`: the page of `planseal` itself.
    Page {
        result: &'static str,
        /// Its file name (`planseal.1`).
        page: &'a str,
        /// Its roff text.
        roff: &'a str,
    },
    /// With `--out DIR`: every page written, one per command.
    Written {
        result: &'static str,
        /// The files written, as shown.
        written: &'a [String],
    },
}

/// One rendered page: its file name (`planseal-gsd-sync.1`) and its roff text.
struct Page {
    file: String,
    roff: String,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    let Some(out) = args.out else {
        let top = render(tree())?;
        if ctx.json {
            print_json(serde_json::to_value(ManDocument::Page {
                result: "ok",
                page: &top.file,
                roff: &top.roff,
            })?);
        } else {
            print_out(&top.roff);
        }
        return Ok(ExitCode::Ok);
    };
    let dir = ctx.cwd.join(&out);
    std::fs::create_dir_all(&dir).map_err(|e| {
        HintedError::usage(format!(
            "--out {}: cannot create the folder: {e}",
            out.display()
        ))
        .hint("pass a folder you can write to")
    })?;
    let mut written = Vec::new();
    for page in pages()? {
        let path = dir.join(&page.file);
        std::fs::write(&path, &page.roff).map_err(|e| {
            HintedError::usage(format!("cannot write {}: {e}", path.display()))
                .hint("check the folder's permissions and free space")
        })?;
        written.push(super::shown(&path, ctx));
    }
    if ctx.json {
        print_json(serde_json::to_value(ManDocument::Written {
            result: "ok",
            written: &written,
        })?);
    } else {
        let mut text = format!(
            "{} manual pages written to {}\n",
            written.len(),
            super::shown(&dir, ctx)
        );
        for w in &written {
            text.push_str(&format!("  {w}\n"));
        }
        print_out(&text);
    }
    Ok(ExitCode::Ok)
}

/// Every page: the top command's, then each subcommand's, depth first, in the order `--help`
/// lists them (`help` itself has none: `planseal help X` is `planseal X --help`).
fn pages() -> anyhow::Result<Vec<Page>> {
    let mut out = Vec::new();
    collect(tree(), &mut out)?;
    Ok(out)
}

/// The command tree as the pages show it: built, so that every subcommand carries its page name
/// (`planseal-gsd-sync`), and without clap's `help` subcommand.
fn tree() -> clap::Command {
    let mut cmd = super::Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

fn collect(cmd: clap::Command, out: &mut Vec<Page>) -> anyhow::Result<()> {
    let subcommands: Vec<clap::Command> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .cloned()
        .collect();
    out.push(render(cmd)?);
    for sub in subcommands {
        collect(sub, out)?;
    }
    Ok(())
}

fn render(cmd: clap::Command) -> anyhow::Result<Page> {
    let man = clap_mangen::Man::new(cmd).manual("planseal manual");
    let mut roff = Vec::new();
    man.render(&mut roff).context("rendering a manual page")?;
    // groff's ASCII device (man in a C locale) has every other character of the help text
    // (—, →, ≤) but no ellipsis: it would warn and drop it.
    let roff = String::from_utf8_lossy(&roff).replace('…', "...");
    Ok(Page {
        file: man.get_filename(),
        roff,
    })
}

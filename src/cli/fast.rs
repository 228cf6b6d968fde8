//! Answers that need no argument parser: `planseal --version` and the plain forms of
//! `planseal gsd statusline`, which an agent's statusline runs on every prompt. Building clap's
//! whole command tree (every subcommand, its help and examples) costs more than the statusline's
//! own work, so these exact forms are recognised first; anything else — another flag, a repeated
//! one, `--stdin` with a FILE, `--` — goes to clap, which answers (or refuses) as it always did.

use super::gsd::StatuslineArgs;
use planseal::report::ExitCode;
use std::ffi::OsString;
use std::path::PathBuf;

/// The answer when `argv` (program name first) is one of the forms above, else `None`.
pub(super) fn try_answer(argv: &[OsString]) -> Option<ExitCode> {
    match words(argv)?.as_slice() {
        ["--version" | "-V"] => {
            crate::print_out(concat!("planseal ", env!("CARGO_PKG_VERSION"), "\n"));
            Some(ExitCode::Ok)
        }
        ["gsd", "statusline", rest @ ..] => {
            let args = statusline_args(rest)?;
            Some(run_statusline(&args))
        }
        _ => None,
    }
}

/// The arguments after the program name as text; `None` when one is not UTF-8 (clap, which
/// takes any bytes, then answers).
pub(super) fn words(argv: &[OsString]) -> Option<Vec<&str>> {
    argv.iter().skip(1).map(|a| a.to_str()).collect()
}

/// `[--stdin [--segment]] [--compact] [--strict] [FILE]` in any order, each at most once, no
/// FILE with `--stdin`; `None` for anything else.
fn statusline_args(rest: &[&str]) -> Option<StatuslineArgs> {
    let mut args = StatuslineArgs {
        file: None,
        compact: false,
        stdin: false,
        segment: false,
        strict: false,
    };
    for &arg in rest {
        let flag = match arg {
            "--stdin" => &mut args.stdin,
            "--compact" => &mut args.compact,
            "--strict" => &mut args.strict,
            "--segment" => &mut args.segment,
            file if !file.starts_with('-') && !file.is_empty() && args.file.is_none() => {
                args.file = Some(PathBuf::from(file));
                continue;
            }
            _ => return None,
        };
        if *flag {
            return None;
        }
        *flag = true;
    }
    if (args.stdin && args.file.is_some()) || (args.segment && !args.stdin) {
        return None;
    }
    Some(args)
}

/// `gsd statusline` as parsed here, with the default global flags.
fn run_statusline(args: &StatuslineArgs) -> ExitCode {
    let global = super::Global {
        json: false,
        color: super::ColorChoice::Auto,
        directory: None,
    };
    let ctx = match super::context(&global, false) {
        Ok(ctx) => ctx,
        Err(code) => return code,
    };
    match super::gsd::statusline(args, &ctx, planseal::gsd::locate::Lookup::from_env()) {
        Ok(code) => code,
        Err(err) => super::report_error(&err, ctx.json),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(rest: &[&str]) -> Option<(Option<String>, bool, bool, bool)> {
        statusline_args(rest).map(|a| {
            (
                a.file.map(|f| f.display().to_string()),
                a.stdin,
                a.compact,
                a.strict,
            )
        })
    }

    #[test]
    fn only_the_plain_statusline_forms_skip_the_parser() {
        assert_eq!(parsed(&[]), Some((None, false, false, false)));
        assert_eq!(
            parsed(&["--strict", "--stdin", "--compact"]),
            Some((None, true, true, true))
        );
        assert_eq!(
            parsed(&["x/STATE.md", "--compact"]),
            Some((Some("x/STATE.md".into()), false, true, false))
        );
        // clap's answers: a repeated flag, a conflict, anything unknown, a second FILE.
        for rest in [
            &["--stdin", "--stdin"][..],
            &["--stdin", "STATE.md"],
            &["--segment"],
            &["--json"],
            &["--help"],
            &["--"],
            &["a", "b"],
            &["--compact=true"],
            &[""],
        ] {
            assert_eq!(parsed(rest), None, "{rest:?}");
        }
    }
}

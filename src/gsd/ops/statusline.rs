//! `gsd statusline`: GSD's state segment exactly as its statusline hook prints it.
//!
//! It runs on every prompt, so it reads only what the hook reads — the STATE.md, the
//! `config.json` walk — plus `<project>/.env` once, and only when there is a segment to print.

use crate::gsd::error::GsdError;
use crate::gsd::locate::{self, Located, Lookup};
use crate::gsd::statusline::{self, Format, NO_ACTIVE_WORKSTREAM};
use crate::report::HintedError;
use crate::report::redact::EnvRedactor;
use std::io::Read;
use std::path::{Path, PathBuf};

/// `gsd statusline`: where to start, and how to render and fail.
pub struct StatuslineOptions<'a> {
    /// Where the command runs; FILE and the search start from here.
    pub cwd: PathBuf,
    /// FILE: this STATE.md (relative to `cwd`) instead of the hook's search.
    pub file: Option<PathBuf>,
    /// `--stdin`: Claude Code's statusline JSON, whose workspace folder starts the search.
    pub stdin: Option<&'a mut dyn Read>,
    /// GSD's compact form (default: what `config.json` says).
    pub compact: bool,
    /// No readable STATE.md is an error instead of printing nothing.
    pub strict: bool,
    /// `HOME` and `GSD_WORKSTREAM`, which bound and steer the search.
    pub lookup: Lookup,
}

/// What to print (no JSON form: the hook prints text only).
#[derive(Debug, Clone, Default)]
pub struct StatuslineOutcome {
    /// The segment, GSD's `no active workstream`, or "" (print nothing); no trailing newline.
    pub text: String,
    /// The project's `.env` values, to be hidden from it.
    pub redactor: EnvRedactor,
}

/// `gsd statusline`: the segment GSD's hook would print, and the `.env` values to hide from it. An
/// error only with `strict` (no readable STATE.md) or when `--stdin` cannot be read.
pub fn statusline(opts: StatuslineOptions<'_>) -> Result<StatuslineOutcome, GsdError> {
    let home = opts.lookup.home.as_deref();
    let (text, config_start, state_path) = match &opts.file {
        Some(file) => {
            let path = opts.cwd.join(file);
            let text = locate::read_text(&path);
            if text.is_none() && opts.strict {
                return Err(HintedError::usage(format!(
                    "{}: cannot read the file (missing or unreadable)",
                    path.display()
                ))
                .hint("pass an existing .planning/STATE.md")
                .into());
            }
            let start = path.parent().map(Path::to_path_buf).unwrap_or_default();
            (text, start, path)
        }
        None => {
            let start = match opts.stdin {
                Some(stdin) => {
                    let mut input = Vec::new();
                    stdin.read_to_end(&mut input).map_err(|e| {
                        HintedError::usage(format!("--stdin: cannot read standard input: {e}"))
                    })?;
                    locate::workspace_dir_from_json(&input)
                        .map(|d| opts.cwd.join(d))
                        .unwrap_or_else(|| opts.cwd.clone())
                }
                None => opts.cwd.clone(),
            };
            match locate::locate(&start, home, opts.lookup.workstream.as_deref()) {
                Located::File { text, path } => (Some(text), start, path),
                Located::NoActiveWorkstream { .. } => {
                    return Ok(StatuslineOutcome {
                        text: NO_ACTIVE_WORKSTREAM.to_string(),
                        redactor: EnvRedactor::default(),
                    });
                }
                Located::MissingWorkstreamState(path) => {
                    if opts.strict {
                        return Err(HintedError::usage(format!(
                            "{}: the active workstream has no STATE.md yet",
                            path.display()
                        ))
                        .hint(
                            "run GSD's workstream setup, or choose another workstream with \
                             GSD_WORKSTREAM",
                        )
                        .into());
                    }
                    (None, start, PathBuf::new())
                }
                Located::NotFound => {
                    if opts.strict {
                        return Err(HintedError::usage(format!(
                            "no .planning/STATE.md found from {} upwards (10 levels, stopping \
                             at the home directory)",
                            start.display()
                        ))
                        .hint("run inside a GSD project or pass FILE")
                        .into());
                    }
                    (None, start, PathBuf::new())
                }
            }
        }
    };
    let Some(text) = text else {
        return Ok(StatuslineOutcome::default());
    };
    let format = if opts.compact {
        Format::Compact
    } else {
        locate::configured_format(&config_start, home)
    };
    let line = statusline::render_text(&text, format);
    let redactor = if line.is_empty() {
        EnvRedactor::default()
    } else {
        locate::statusline_env_redactor(&state_path)
    };
    Ok(StatuslineOutcome {
        text: line,
        redactor,
    })
}

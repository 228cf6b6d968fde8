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

/// The most standard input the whole line reads: Claude Code's JSON is a few KiB.
pub const STDIN_LIMIT: u64 = 1024 * 1024;
/// How long the whole line waits for standard input to close (the hook's own guard).
pub const STDIN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

/// Reads this process's standard input, at most `limit` bytes, waiting at most `timeout` for
/// it to close: more input than that, or input that never ends, is an error, never a hang. On
/// Unix the wait is a `poll` on the descriptor (no helper thread: the statusline starts on
/// every prompt).
pub fn read_stdin_bounded(limit: u64, timeout: std::time::Duration) -> Result<Vec<u8>, GsdError> {
    let deadline = std::time::Instant::now() + timeout;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    // Larger than the standard input's own buffer, so every read goes to the descriptor and
    // `poll` sees all that is pending.
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        if !wait_readable(&stdin, deadline)? {
            return Err(HintedError::usage(format!(
                "--stdin: standard input did not close within {} s",
                timeout.as_secs()
            ))
            .hint(
                "pipe Claude Code's statusline JSON in, e.g. echo '{}' | planseal gsd statusline --stdin",
            )
            .into());
        }
        let got = match input.read(&mut chunk) {
            Ok(got) => got,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(stdin_error(e)),
        };
        if got == 0 {
            return Ok(buf);
        }
        buf.extend_from_slice(&chunk[..got]);
        if buf.len() as u64 > limit {
            return Err(HintedError::usage(format!(
                "--stdin: standard input is larger than {} KiB",
                limit / 1024
            ))
            .hint("pass only Claude Code's statusline JSON")
            .into());
        }
    }
}

fn stdin_error(e: std::io::Error) -> GsdError {
    HintedError::usage(format!("--stdin: cannot read standard input: {e}")).into()
}

/// Waits until standard input can be read (data or its end) or `deadline` passes (`false`).
#[cfg(unix)]
fn wait_readable(stdin: &std::io::Stdin, deadline: std::time::Instant) -> Result<bool, GsdError> {
    use std::os::fd::AsRawFd;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let ms = i32::try_from(left.as_millis()).unwrap_or(i32::MAX);
        let mut pfd = libc::pollfd {
            fd: stdin.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: `pfd` is one valid, exclusively borrowed pollfd for the whole call.
        let n = unsafe { libc::poll(&mut pfd, 1, ms) };
        match n {
            0 => return Ok(false),
            n if n > 0 => return Ok(true),
            _ => {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(stdin_error(e));
                }
            }
        }
    }
}

/// Elsewhere the read itself is the wait.
#[cfg(not(unix))]
fn wait_readable(_: &std::io::Stdin, _: std::time::Instant) -> Result<bool, GsdError> {
    Ok(true)
}

/// `gsd statusline --stdin`: the GSD hook's whole line.
pub struct LineOptions {
    /// What was read from standard input.
    pub input: Vec<u8>,
    /// The process's environment as the hook sees it.
    pub env: crate::gsd::hookline::Environment,
    /// GSD's compact state form (default: what `config.json` says).
    pub compact: bool,
}

/// The whole line and the `.env` values to hide from it. The bridge file for GSD's context
/// monitor is written here (best effort, as the hook does: a failure changes nothing printed).
/// Malformed JSON is an error (exit 2) where the hook prints nothing.
pub fn statusline_line(opts: LineOptions) -> Result<StatuslineOutcome, GsdError> {
    let text = match String::from_utf8(opts.input) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    let input: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        HintedError::usage(format!(
            "--stdin: standard input is not JSON (line {}, column {}): {}",
            e.line(),
            e.column(),
            e
        ))
        .hint("pipe Claude Code's statusline JSON in, e.g. {\"workspace\":{\"current_dir\":\"/src/app\"}}")
    })?;
    let probe = |dir: &Path| {
        planseal_recovery::git::Repo::discover(dir)
            .ok()
            .flatten()
            .and_then(|repo| repo.branch_status().ok())
    };
    let line = crate::gsd::hookline::render(&input, &opts.env, opts.compact, &probe);
    if let Some(bridge) = &line.bridge {
        let _ = crate::write::write_scratch(&bridge.path, &bridge.bytes);
    }
    let redactor = match &line.state_file {
        Some(path) => locate::statusline_env_redactor(path),
        None => EnvRedactor::default(),
    };
    Ok(StatuslineOutcome {
        text: line.text,
        redactor,
    })
}

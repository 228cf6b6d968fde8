//! The `planseal` binary: argument parsing, output and exit codes. The only place that touches the
//! terminal; every command module in `cli/` calls the library and hands text back here.

mod cli;

use planseal::checkpoint::redact::EnvRedactor;
use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::OnceLock;

/// The `.env` values hidden from everything this process prints (set once by the command that
/// knows which project it works on).
static OUTPUT_REDACTOR: OnceLock<EnvRedactor> = OnceLock::new();

/// From now on, every `.env` value of the folders from `target` up to its repository root is
/// replaced in stdout and stderr — text and JSON, results, refusals and errors alike.
pub fn redact_output_for(target: &Path) {
    let redactor = EnvRedactor::for_target(target);
    if !redactor.is_empty() {
        let _ = OUTPUT_REDACTOR.set(redactor);
    }
}

fn redacted(text: &str) -> Cow<'_, str> {
    match OUTPUT_REDACTOR.get() {
        Some(r) => Cow::Owned(r.clean(text)),
        None => Cow::Borrowed(text),
    }
}

fn main() -> ExitCode {
    cli::main().into()
}

/// Writes to stdout; a closed pipe (`planseal verify | head`) ends the process quietly.
pub fn print_out(text: &str) {
    let text = redacted(text);
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        std::process::exit(0);
    }
}

/// Writes a diagnostic to stderr (never data).
pub fn print_err(text: &str) {
    let text = redacted(text);
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.flush();
}

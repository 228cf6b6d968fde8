//! The `planseal` binary: argument parsing, output and exit codes. The only place that touches the
//! terminal; every command module in `cli/` calls the library and hands text back here.

mod cli;

use planseal::report::redact::EnvRedactor;
use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;

/// The `.env` values hidden from everything this process prints (added by the command once it
/// knows which project it works on).
static OUTPUT_REDACTOR: Mutex<Option<EnvRedactor>> = Mutex::new(None);

/// From now on, every `.env` value of the folders from `target` up to its repository root is
/// replaced in stdout and stderr — text and JSON, results, refusals and errors alike.
pub fn redact_output_for(target: &Path) {
    redact_output_with(EnvRedactor::for_target(target));
}

/// From now on, every value `redactor` knows is hidden from stdout and stderr too.
pub fn redact_output_with(redactor: EnvRedactor) {
    if redactor.is_empty() {
        return;
    }
    let mut slot = OUTPUT_REDACTOR.lock().unwrap_or_else(|e| e.into_inner());
    *slot = Some(match slot.take() {
        Some(known) => known.merge(redactor),
        None => redactor,
    });
}

fn redacted(text: &str) -> Cow<'_, str> {
    let slot = OUTPUT_REDACTOR.lock().unwrap_or_else(|e| e.into_inner());
    match slot.as_ref() {
        Some(r) => Cow::Owned(r.clean(text)),
        None => Cow::Borrowed(text),
    }
}

fn main() -> ExitCode {
    cli::main().into()
}

/// Writes to stdout; a closed pipe (`planseal verify | head`) ends the process quietly.
pub fn print_out(text: &str) {
    write_stdout(&redacted(text));
}

/// Writes one JSON document (pretty, then a newline) to stdout. The `.env` values are hidden
/// in its strings and keys, never in its text, so the document stays valid JSON whatever the
/// values are (`true`, `null` or a number included).
pub fn print_json(value: serde_json::Value) {
    let value = {
        let slot = OUTPUT_REDACTOR.lock().unwrap_or_else(|e| e.into_inner());
        match slot.as_ref() {
            Some(r) => r.clean_json(value),
            None => value,
        }
    };
    write_stdout(&format!("{value:#}\n"));
}

fn write_stdout(text: &str) {
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

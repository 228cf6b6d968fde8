//! The `planseal` binary: argument parsing, output and exit codes. The only place that touches the
//! terminal; every command module in `cli/` calls the library and hands text back here.
//!
//! The process is entered from the C runtime's `main`, not through Rust's start-up: that start-up
//! reads `/proc/self/maps` and sets up a stack-overflow handler before the first line of planseal
//! runs — a tenth of a millisecond, a sixth of what `gsd statusline` may cost on every prompt. Of
//! what it does, planseal needs two things, done in [`main`]: a closed pipe must be an error
//! (`EPIPE`), not a signal, and stdout is flushed before the process ends. Arguments come from
//! `std::env::args_os` as before (glibc hands them to Rust's runtime on load).

// The unit tests of the binary keep the test harness's own `main`.
#![cfg_attr(not(test), no_main)]

mod cli;
// Release builds abort on panic and never unwind (see the module).
#[cfg(all(panic = "abort", target_os = "linux", target_env = "gnu", not(test)))]
mod no_unwinder;

use planseal::report::redact::EnvRedactor;
use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// Set once a writer's change is in place: from then on the run ends with 0 or 4, never 3.
static APPLIED: AtomicBool = AtomicBool::new(false);

/// Why stdout could not be written (`planseal verify > /dev/full`): the report was not
/// delivered, so the run does not end with 0.
static STDOUT_FAILED: Mutex<Option<std::io::Error>> = Mutex::new(None);

/// The C entry point (see the module comment for why not Rust's `fn main`).
#[cfg(not(test))]
#[unsafe(no_mangle)]
extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    run()
}

/// In the binary's unit-test build the test harness is the entry point; this `main` only keeps
/// the code it reaches compiled and checked.
#[cfg(test)]
fn main() {
    std::process::exit(run());
}

/// Runs the command and returns its exit code.
fn run() -> libc::c_int {
    // SAFETY: setting a signal's disposition to "ignore" has no precondition; it is what Rust's
    // own start-up does for SIGPIPE, before any other thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    let code = delivered(cli::main());
    let _ = std::io::stdout().flush();
    code as libc::c_int
}

/// Marks the run as one whose change is in place (a writer's outcome is about to be printed).
pub fn mark_applied() {
    APPLIED.store(true, Ordering::SeqCst);
}

/// The exit code once the report is out: when stdout could not be written, stderr says so and
/// the run ends with 3 — nothing was applied — or, for a writer whose change is in place, 4: the
/// change is applied, only its report was not delivered.
fn delivered(code: planseal::report::ExitCode) -> planseal::report::ExitCode {
    use planseal::report::ExitCode as Code;
    let failed = STDOUT_FAILED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    let Some(e) = failed else {
        return code;
    };
    let applied = APPLIED.load(Ordering::SeqCst);
    let what = if applied {
        "the change was applied; only its report was not delivered (do not run the command again)"
    } else {
        "nothing was changed"
    };
    print_err(&format!(
        "planseal: error: writing the report to stdout failed: {e}\n  {what}\n"
    ));
    if applied {
        Code::AppliedUnconfirmed
    } else {
        Code::Io
    }
}

/// Writes to stdout. A closed pipe (`planseal verify | head`) is a normal end: a read-only command
/// ends quietly with 0, a writer whose change is in place goes on to its own exit code. Any other
/// failure is kept for [`delivered`], and nothing more is written.
pub fn print_out(text: &str) {
    write_stdout(&redacted(text));
}

/// Writes one JSON document (pretty, then a newline) to stdout. The `.env` values are hidden
/// in its strings and keys, never in its text, so the document stays valid JSON whatever the
/// values are (`true`, `null` or a number included).
pub fn print_json(value: serde_json::Value) {
    print_json_as(value, "ok");
}

/// A JSON document of another format (SARIF), printed as it is — not in planseal's envelope,
/// which is for planseal's own documents — with `.env` values hidden like everything printed.
pub fn print_foreign_json(value: serde_json::Value) {
    let value = {
        let slot = OUTPUT_REDACTOR.lock().unwrap_or_else(|e| e.into_inner());
        match slot.as_ref() {
            Some(r) => r.clean_json(value),
            None => value,
        }
    };
    write_stdout(&format!("{value:#}\n"));
}

/// [`print_json`] of a document whose `result`, when it has none, is `default`: every document
/// goes out in the one envelope (`docs/json.md`), `result` first.
pub fn print_json_as(value: serde_json::Value, default: &str) {
    let value = planseal::report::envelope::seal(value, default);
    debug_assert!(
        planseal::report::envelope::is_sealed(&value),
        "a --json document outside the envelope: {value}"
    );
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
    let mut failed = STDOUT_FAILED.lock().unwrap_or_else(|e| e.into_inner());
    if failed.is_some() {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
    else {
        return;
    };
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        *failed = Some(e);
    } else if !APPLIED.load(Ordering::SeqCst) {
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

//! The `planseal` binary: argument parsing, output and exit codes. The only place that touches the
//! terminal; every command module in `cli/` calls the library and hands text back here.

mod cli;

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let code = cli::main();
    ExitCode::from(u8::try_from(code).unwrap_or(2))
}

/// Writes to stdout; a closed pipe (`planseal verify | head`) ends the process quietly.
pub fn print_out(text: &str) {
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
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.flush();
}

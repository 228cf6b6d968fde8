//! `planseal-harness`: the helpers scripts/crash-loop.sh runs, kept out of the product's CLI.
//!
//! ```text
//! planseal-harness ready-plan DIR TASKS   a plan of TASKS tasks (at least 2) awaiting its terminal
//!                                         close under DIR/.dwp/plans/, plus DIR/candidate.json
//! planseal-harness json-check FILE...     exit 0 when every FILE is one whole JSON document, 1
//!                                         otherwise (each read and parsed: the merge benchmark's
//!                                         "reading the three versions")
//! ```
//!
//! Exit 2 on a usage error or a file that cannot be read or written.

use std::path::Path;
use std::process::ExitCode;

const USAGE: &str = "usage: planseal-harness ready-plan DIR TASKS | json-check FILE...";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["ready-plan", dir, tasks] => {
            let Ok(n) = tasks.parse::<usize>() else {
                return fail(&format!("TASKS must be a number ≥ 2, not {tasks}"));
            };
            match planseal_harness::ready_plan(Path::new(dir), n) {
                Ok(_) => {
                    println!(".dwp/plans/{}/state.json", planseal_harness::PLAN);
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&format!("cannot write the plan under {dir}: {e}")),
            }
        }
        ["json-check", files @ ..] if !files.is_empty() => {
            let mut code = ExitCode::SUCCESS;
            for file in files {
                match std::fs::read(file) {
                    Ok(bytes) if planseal_harness::is_json(&bytes) => {}
                    Ok(_) => code = ExitCode::FAILURE,
                    Err(e) => return fail(&format!("cannot read {file}: {e}")),
                }
            }
            code
        }
        _ => fail(USAGE),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("planseal-harness: {message}");
    ExitCode::from(2)
}

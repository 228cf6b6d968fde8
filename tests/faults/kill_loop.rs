//! kill -9 at a seeded random moment of `update` and `finalize`, 100 rounds each, then the same
//! invariants and recovery as the fault matrix.

use crate::check;
use crate::fixture::{self, CLOCK, Writer};
use crate::matrix::{Rng, SEED};
use crate::support::run::{BIN, hermetic};
use crate::trace::Outcome;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

const ROUNDS: usize = 100;

/// Starts the writer, kills it after `delay` (unless it ended before), and collects it.
fn run_killed(root: &Path, writer: &Writer, delay: Duration) -> Outcome {
    let mut child = hermetic(BIN)
        .env("PLANSEAL_FAKE_NOW", CLOCK)
        .current_dir(root)
        .args(&writer.args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("planseal starts");
    std::thread::sleep(delay);
    let _ = child.kill();
    let out = child.wait_with_output().expect("wait");
    Outcome {
        code: out.status.code(),
        killed: out.status.signal() == Some(9),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn kill_loop(name: &str) {
    let writer = fixture::writers()
        .into_iter()
        .find(|w| w.name == name)
        .expect("writer");
    let template = fixture::template(writer.setup);
    let clean = check::clean_run(&template, &writer);
    // the span of an untouched run, the slowest of three
    let span = (0..3)
        .map(|_| {
            let (_tmp, root) = fixture::copy_of(&template);
            let start = Instant::now();
            let _ = crate::trace::run(&root, &writer.args, crate::trace::Traced::Plain);
            start.elapsed()
        })
        .max()
        .unwrap();
    let limit_us = (span.as_micros() as usize * 11 / 10).max(1000);
    let mut rng = Rng::new(SEED ^ 0x9);
    let mut killed = 0;
    let mut tally: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for round in 1..=ROUNDS {
        let (_tmp, root) = fixture::copy_of(&template);
        let delay = Duration::from_micros(rng.below(limit_us) as u64);
        let out = run_killed(&root, &writer, delay);
        killed += usize::from(out.killed);
        let broken = check::check(&root, &writer, &clean, &out);
        for inv in check::INVARIANTS {
            let e = tally.entry(inv).or_default();
            if broken.iter().any(|b| b.invariant == *inv) {
                e.1 += 1;
            } else {
                e.0 += 1;
            }
        }
        for b in broken {
            failures.push(format!(
                "{name} · round {round}, kill at {} µs · {}: {}",
                delay.as_micros(),
                b.invariant,
                b.detail
            ));
        }
    }
    let mut text = format!(
        "kill-loop: {name} — {ROUNDS} rounds, an untouched run takes {} ms, kills in [0, {} µs]; {killed} killed before the end\n",
        span.as_millis(),
        limit_us
    );
    for inv in check::INVARIANTS {
        let (held, failed) = tally.get(inv).copied().unwrap_or_default();
        let _ = writeln!(text, "  {inv:<14} held {held:>4}  failed {failed:>4}");
    }
    for f in &failures {
        let _ = writeln!(text, "  FAIL {f}");
    }
    crate::publish(&format!("kill-loop {name}"), &text);
    assert!(killed > 0, "{name}: no round was killed before the end");
    assert!(failures.is_empty(), "{name}: invariants broken:\n{text}");
}

#[test]
fn kill_loop_update() {
    kill_loop("update");
}

#[test]
fn kill_loop_finalize() {
    kill_loop("finalize");
}

//! The transition journal through the CLI: a torn last line (a crash mid-append) is ignored and
//! never breaks the next update; the next line stays readable.

use crate::support::update::*;

fn scratch() -> Scratch {
    Scratch::a_task1_in_progress()
}

fn gate_update(s: &Scratch) -> Run {
    planseal()
        .args(["update", ".dwp/plans/PLAN_http_rate_limit/state.json", "--task", "1", "--status", "in_progress",
            "--gate", "python3 -m unittest tests.test_ratelimit|0|ran=4/4; log=analysis_results/gates/t1-unittest.log"])
        .cwd(s.root())
        .output()
}

#[test]
fn a_torn_journal_line_is_ignored_and_the_next_append_stays_readable() {
    let s = scratch();
    std::fs::create_dir_all(s.journal().parent().unwrap()).unwrap();
    std::fs::write(s.journal(), b"{\"time\":\"2026-10-05T09:00:00+00:00\",\"op").unwrap();
    let out = gate_update(&s);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let read = planseal::recovery::store::Journal::new(s.journal())
        .read()
        .unwrap();
    assert_eq!(read.entries.len(), 1);
    assert_eq!(read.bad_lines, vec![1]);
    assert!(!read.torn_tail);
}

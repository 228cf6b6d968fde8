//! `PLANSEAL_FAKE_NOW` fixes every timestamp finalize and recover write: the lock's owner
//! record, the marker's `started_at` and the journal lines — read from the one clock the command
//! was given, never from the system clock. (The receipt holds no time at all.)

use crate::support::finalize::*;
use crate::support::run::Planseal;
use planseal::clock::Clock;
use planseal::dwp::publish::recover::{RecoverRequest, recover};
use planseal::dwp::publish::{self, Candidate, FinalizeRequest, Marker, Step};
use serde_json::Value;

const JOURNAL: &str = "analysis_results/STATE_JOURNAL.ndjson";
/// A moment no system clock of a test run shows.
const T0: &str = "2031-02-03T04:05:06+00:00";

fn clock() -> Clock {
    Clock::fixed(T0.parse().expect("an instant"), 1_250_000)
}

/// The k-th instant of [`clock`], as planseal writes it.
fn nth(k: usize) -> String {
    let mut c = clock();
    (0..k).for_each(|_| {
        c.now();
    });
    c.now_iso()
}

fn last_journal_line(ws: &Workspace) -> Value {
    let text = String::from_utf8(ws.file(JOURNAL).expect("a journal")).expect("utf-8");
    serde_json::from_str(text.lines().last().expect("a line")).expect("a JSON line")
}

fn lock_owner(ws: &Workspace) -> Value {
    let bytes = std::fs::read(ws.plan_dir().join("state.json.lock/owner.json"))
        .expect("an owner record while the lock is held");
    serde_json::from_slice(&bytes).expect("JSON")
}

fn interrupted() -> Workspace {
    let (fixture, plan) = FIXTURES[0];
    let ws = Workspace::from_folder(
        fixture,
        plan,
        &format!("interrupted/before_publish/plan-after-interruption/{plan}"),
    );
    ws.place("interrupted/candidate.json", "candidate.json");
    ws
}

#[test]
fn finalize_stamps_the_lock_the_marker_and_the_journal_with_its_clock() {
    let (fixture, plan) = FIXTURES[0];
    let ws = Workspace::ready_to_publish(fixture, plan);
    let candidate = read(ws.vectors().join("lifecycle/publication/02-state.json"));
    let mut req = FinalizeRequest::new(
        ws.plan_dir(),
        Candidate::Bytes {
            bytes: candidate,
            origin: "candidate.json".into(),
        },
    );
    req.clock = clock();
    let (mut owner, mut marker) = (None, None);
    publish::finalize(&req, &mut |step| match step {
        Step::AfterLock => owner = Some(lock_owner(&ws)),
        Step::AfterMarker => {
            let bytes = std::fs::read(ws.plan_dir().join(".finalizing.json")).expect("marker");
            marker = Some(Marker::parse(&bytes).expect("a marker"));
        }
        _ => {}
    })
    .expect("published");
    assert_eq!(owner.expect("seen")["acquired_at"], nth(0).as_str());
    let ext = marker.expect("seen").planseal.expect("planseal's keys");
    assert_eq!(ext.started_at, nth(1));
    assert_eq!(last_journal_line(&ws)["time"], nth(2).as_str());
}

#[test]
fn the_finalize_command_takes_its_clock_from_planseal_fake_now() {
    let (fixture, plan) = FIXTURES[1];
    let ws = Workspace::ready_to_publish(fixture, plan);
    ws.place("lifecycle/publication/02-state.json", "candidate.json");
    let out = Planseal::new()
        .cwd(ws.root())
        .clock(T0)
        .args(["finalize", &ws.plan_rel(), "--candidate", "candidate.json"])
        .output();
    assert_ok(&out);
    // lock, marker, then the journal line: the third instant of the clock
    assert_eq!(last_journal_line(&ws)["time"], nth(2).as_str());
    let receipt =
        String::from_utf8(ws.file("analysis_results/FINALIZATION.json").unwrap()).expect("utf-8");
    assert!(
        !receipt.contains("2031"),
        "the receipt holds no time: {receipt}"
    );
}

#[test]
fn recover_stamps_its_lock_and_journal_with_its_clock() {
    let ws = interrupted();
    let req = RecoverRequest {
        plan_dir: ws.plan_dir(),
        candidate: Some((
            read(ws.root().join("candidate.json")),
            "candidate.json".into(),
        )),
        rollback: false,
        clock: clock(),
    };
    let mut owner = None;
    recover(&req, &mut |step| {
        if step == Step::AfterLock {
            owner = Some(lock_owner(&ws));
        }
    })
    .expect("rolled forward");
    assert_eq!(owner.expect("seen")["acquired_at"], nth(0).as_str());
    let line = last_journal_line(&ws);
    assert_eq!(line["operation"], "recover");
    assert_eq!(line["time"], nth(1).as_str());
}

#[test]
fn the_recover_command_takes_its_clock_from_planseal_fake_now() {
    for rollback in [false, true] {
        let ws = interrupted();
        let mut args = vec!["recover".to_string(), ws.plan_rel()];
        if rollback {
            args.push("--rollback".into());
        } else {
            args.extend(["--candidate".into(), "candidate.json".into()]);
        }
        let out = Planseal::new()
            .cwd(ws.root())
            .clock(T0)
            .args(&args)
            .output();
        assert_ok(&out);
        let line = last_journal_line(&ws);
        assert_eq!(line["time"], nth(1).as_str(), "rollback {rollback}: {line}");
    }
}

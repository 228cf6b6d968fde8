//! `Repo::scan_ids`, the one walk verify's git cross-checks make: every commit's full id and
//! subject, newest first, stopping where the caller says — so a published plan whose recorded
//! commits are recent costs a few commits, not the whole history.

use crate::support::gitrepo::{FixtureRepo, git};
use planseal::recovery::git::{Repo, Scan};

fn five_commits() -> (FixtureRepo, Vec<String>) {
    let mut r = FixtureRepo::new();
    let mut ids = Vec::new();
    for i in 1..=5 {
        r.write("f.txt", &format!("{i}\n"));
        ids.push(r.commit(&format!("feat: step {i} - Task {i} of PLAN_x")));
    }
    ids.reverse(); // newest first, as the walk goes
    (r, ids)
}

#[test]
fn scan_ids_hands_every_commit_id_and_subject_newest_first() {
    let (r, ids) = five_commits();
    let repo = Repo::discover(r.path()).expect("read").expect("repo");
    let mut seen = Vec::new();
    let scan = repo
        .scan_ids(|id, subject| {
            seen.push((id.to_string(), subject.to_string()));
            Scan::Skip
        })
        .expect("walk");
    assert_eq!(scan.walked, 5);
    assert!(!scan.stopped_early && !scan.truncated);
    let seen_ids: Vec<&str> = seen.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(seen_ids, ids.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(seen[0].1, "feat: step 5 - Task 5 of PLAN_x");
    assert_eq!(
        git(r.path(), &["log", "--format=%H"])
            .lines()
            .collect::<Vec<_>>(),
        seen_ids
    );
}

#[test]
fn scan_ids_stops_where_the_caller_says() {
    let (r, ids) = five_commits();
    let repo = Repo::discover(r.path()).expect("read").expect("repo");
    let target = ids[2].clone();
    let scan = repo
        .scan_ids(|id, _| {
            if id == target {
                Scan::TakeAndStop
            } else {
                Scan::Skip
            }
        })
        .expect("walk");
    assert_eq!(scan.walked, 3);
    assert!(scan.stopped_early);
    assert_eq!(scan.commits.len(), 1);
    assert_eq!(scan.commits[0].id, target);
    assert_eq!(scan.commits[0].subject, "feat: step 3 - Task 3 of PLAN_x");
}

/// A complete walk is kept and the next one from the same HEAD replays it (several plans in one
/// repository cost one walk): the same ids, subjects, counts and stops; a new HEAD walks again.
#[test]
fn a_second_scan_replays_the_first_complete_walk_and_a_new_head_walks_again() {
    let (mut r, _) = five_commits();
    let repo = Repo::discover(r.path()).expect("read").expect("repo");
    let collect = |repo: &Repo, stop_at: Option<usize>| {
        let mut seen = Vec::new();
        let scan = repo
            .scan_ids(|id, subject| {
                seen.push((id.to_string(), subject.to_string()));
                if Some(seen.len()) == stop_at {
                    Scan::TakeAndStop
                } else {
                    Scan::Skip
                }
            })
            .expect("walk");
        (seen, scan)
    };
    let (first, scan1) = collect(&repo, None);
    let (again, scan2) = collect(&repo, None);
    assert_eq!(first, again);
    assert_eq!(
        (scan1.walked, scan1.truncated),
        (scan2.walked, scan2.truncated)
    );
    // A stop in the replay stops it, and what is taken is read as on a real walk.
    let (part, scan3) = collect(&repo, Some(2));
    assert_eq!(part, first[..2]);
    assert!(scan3.stopped_early);
    assert_eq!(scan3.commits.len(), 1);
    assert_eq!(scan3.commits[0].id, first[1].0);
    // A commit made since: HEAD moved, so the walk is made again and sees it.
    r.write("f.txt", "6\n");
    let newest = r.commit("feat: step 6 - Task 6 of PLAN_x");
    let (after, _) = collect(&repo, None);
    assert_eq!(after.len(), 6);
    assert_eq!(after[0].0, newest);
}

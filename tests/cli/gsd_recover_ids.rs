//! `gsd recover` ids of lost decisions and blockers are stable: losing another piece later does
//! not renumber the ones already listed (so a `--pick` written down earlier still means the same
//! bullet).

use crate::support::gitrepo;
use crate::support::run::Planseal;
use serde_json::Value;
use std::path::Path;

const V1: &str = "---
status: executing
---
# Project State

### Decisions

- Parse by hand
- Keep key order on write
- Write through the store

### Blockers/Concerns

- Waiting on the release key
- Flaky CI runner
";

fn lost_ids(dir: &Path) -> Vec<(String, String)> {
    let out = Planseal::new()
        .cwd(dir)
        .env("HOME", "/nonexistent-home")
        .args(["--json", "gsd", "recover"])
        .output();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    v["lost"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["label"].as_str().unwrap().to_string(),
                p["id"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn ids_do_not_shift_when_another_piece_is_lost() {
    let mut repo = gitrepo::FixtureRepo::new();
    repo.write(".planning/STATE.md", V1);
    repo.commit("state: v1");
    // First loss: the third decision and the second blocker.
    let v2 = V1
        .replace("- Write through the store\n", "")
        .replace("- Flaky CI runner\n", "");
    repo.write(".planning/STATE.md", &v2);
    repo.commit("state: v2");
    let before = lost_ids(repo.path());
    assert_eq!(
        before,
        [
            (
                "Write through the store".to_string(),
                "decision:3-".to_string() + &before[0].1[11..]
            ),
            (
                "Flaky CI runner".to_string(),
                "blocker:2-".to_string() + &before[1].1[10..]
            ),
        ]
    );
    assert_eq!(before[0].1.len(), "decision:3-".len() + 6, "{before:?}");
    // Second loss, in a newer commit (walked first): an earlier decision and blocker.
    let v3 = v2
        .replace("- Parse by hand\n", "")
        .replace("- Waiting on the release key\n", "");
    repo.write(".planning/STATE.md", &v3);
    let after = lost_ids(repo.path());
    assert_eq!(after.len(), 4, "{after:?}");
    for (label, id) in &before {
        assert!(
            after.contains(&(label.clone(), id.clone())),
            "{label} kept its id {id}: {after:?}"
        );
    }
    // The newly lost ones carry their own positions.
    assert!(
        after
            .iter()
            .any(|(l, id)| l == "Parse by hand" && id.starts_with("decision:1-"))
    );
    assert!(
        after
            .iter()
            .any(|(l, id)| l == "Waiting on the release key" && id.starts_with("blocker:1-"))
    );
}

//! A plan touched only by planseal's writers is accepted by the original DWP helper.
//!
//! `fixtures/vectors/dwp-helper-acceptance/` holds, for fixture A (Lite) and fixture B (Full),
//! the planseal commands that drive the plan from a pending approval to its published receipt
//! (`commands.json`), the plan files they wrote at three points (mid-way, after an amendment
//! reopened a completed task, after publication), and what the DWP helper said on those exact
//! bytes: its plan checker (`conformance.sh --plan`) and a transition of `update-state.py` (or
//! its finalizer). The recordings were made once with the helper (its README says which version
//! and how); this test does not run the helper. It replays the same commands at the same clock
//! and asserts that planseal still writes byte-identical files, so the recorded acceptance holds
//! for what planseal writes today, and that the recordings say what the README claims.

use crate::support::fs::{copy_dir, sha256, tree};
use crate::support::run::Planseal;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// planseal's own journal: not a file of the DWP plan contract (the helper neither reads nor
/// hashes it), and its lines name planseal's version.
const JOURNAL: &str = "analysis_results/STATE_JOURNAL.ndjson";
/// planseal's receipt names the version that wrote it; it is compared as the recorded one.
const RECEIPT: &str = "analysis_results/FINALIZATION.json";
const RECORDED_TOOL: &str = "\"tool_version\": \"planseal 0.1.0\"";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn vectors(fixture: &str) -> PathBuf {
    repo()
        .join("fixtures/vectors/dwp-helper-acceptance")
        .join(fixture)
}

fn json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("`{key}` missing in {v}"))
}

/// The plan's files as the helper was given them, planseal's journal aside, the receipt's
/// version read as the recorded one.
fn plan_files(plan: &Path) -> BTreeMap<String, Vec<u8>> {
    let current = format!(
        "\"tool_version\": \"planseal {}\"",
        env!("CARGO_PKG_VERSION")
    );
    tree(plan)
        .into_iter()
        .filter_map(|(rel, bytes)| Some((rel, bytes?)))
        .filter(|(rel, _)| rel != JOURNAL)
        .map(|(rel, bytes)| {
            if rel == RECEIPT {
                let receipt = String::from_utf8(bytes).expect("receipt is UTF-8");
                (rel, receipt.replace(&current, RECORDED_TOOL).into_bytes())
            } else {
                (rel, bytes)
            }
        })
        .collect()
}

/// The agent's own edits between planseal's commands: the proposal before approval, the gate
/// logs its runs wrote, the Final Review's security review.
fn agent_step(step: &Value, plan: &Path) {
    let path = plan.join(text(step, "path"));
    std::fs::create_dir_all(path.parent().expect("a plan file")).expect("mkdir");
    match text(step, "agent") {
        "replace" => {
            let before = std::fs::read_to_string(&path).expect("read");
            let (from, to) = (text(step, "from"), text(step, "to"));
            assert_eq!(before.matches(from).count(), 1, "{step}");
            std::fs::write(&path, before.replace(from, to)).expect("write");
        }
        "copy" => {
            std::fs::copy(repo().join(text(step, "from")), &path).expect("copy");
        }
        "write" => std::fs::write(&path, text(step, "content")).expect("write"),
        other => panic!("unknown agent step {other}"),
    }
}

fn planseal_step(step: &Value, root: &Path) {
    let args: Vec<&str> = step["planseal"]
        .as_array()
        .expect("argv")
        .iter()
        .map(|a| a.as_str().expect("argument"))
        .collect();
    let out = Planseal::new()
        .cwd(root)
        .clock(text(step, "clock"))
        .args(&args)
        .output();
    let shown = format!("planseal {}", args.join(" "));
    assert_eq!(
        i64::from(out.status.code().unwrap_or(-1)),
        step["exit_code"].as_i64().expect("exit_code"),
        "{shown}\n{}",
        out.stderr
    );
    assert_eq!(out.stdout, text(step, "stdout"), "{shown}");
    assert_eq!(
        out.stderr,
        step["stderr"].as_str().unwrap_or_default(),
        "{shown}"
    );
}

/// The plan planseal wrote is the one the recording was made on: the same files, byte for byte.
fn same_files_as_recorded(plan: &Path, point_dir: &Path, listing: &Value) {
    let actual = plan_files(plan);
    let stored = tree(point_dir);
    assert!(
        !stored.is_empty(),
        "{}: nothing stored",
        point_dir.display()
    );
    for (rel, bytes) in stored {
        let Some(bytes) = bytes else { continue };
        let now = actual
            .get(&rel)
            .unwrap_or_else(|| panic!("{rel}: recorded, not written"));
        assert_eq!(
            String::from_utf8_lossy(now),
            String::from_utf8_lossy(&bytes),
            "{rel} differs from {}",
            point_dir.display()
        );
    }
    let listed: BTreeMap<String, String> = listing
        .as_object()
        .expect("plan_files_sha256")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().expect("hash").to_string()))
        .collect();
    let hashed: BTreeMap<String, String> = actual
        .iter()
        .map(|(rel, bytes)| (rel.clone(), sha256(bytes)))
        .collect();
    assert_eq!(hashed, listed, "{}", point_dir.display());
}

/// What the helper said on those bytes: the checker's verdict, and each transition accepted —
/// or refused where the README documents it (a reopened task completed without a new run of
/// the command its amendment invalidated, which planseal refuses too).
fn helper_accepted(record: &Value, plan: &Path, point: &str) {
    let checker = &record["checker"];
    assert_eq!(checker["exit_code"], 0, "{point}: {checker}");
    assert!(
        text(checker, "verdict").starts_with("Verdict: CONFORMANT"),
        "{point}: {checker}"
    );
    let transitions = record["transitions"].as_array().expect("transitions");
    assert!(!transitions.is_empty(), "{point}");
    for t in transitions {
        let after = &t["checker_after"];
        assert!(
            text(after, "verdict").starts_with("Verdict: CONFORMANT"),
            "{point}: {t}"
        );
        match text(t, "expect") {
            "accepted" => {
                assert_eq!(t["exit_code"], 0, "{point}: {t}");
                assert_eq!(t["stderr"], "", "{point}: {t}");
            }
            "refused" => {
                assert_eq!(t["exit_code"], 1, "{point}: {t}");
                assert_eq!(t["state_changed"], false, "{point}: {t}");
                assert!(
                    text(t, "stderr").contains("evidence invalidated by refine"),
                    "{point}: {t}"
                );
            }
            other => panic!("{point}: unknown expectation {other}"),
        }
        // The finalizer republishing planseal's published state: its own serialization of the
        // state gives the same bytes, and its receipt the same three facts planseal's carries.
        if t["argv"][0] == "finalize_plan.py" {
            assert_eq!(t["state_changed"], false, "{point}: {t}");
            let ours = json(&plan.join(RECEIPT));
            for key in ["state_sha256", "artifacts_sha256", "result"] {
                assert_eq!(t["helper_receipt"][key], ours[key], "{point}: {key}");
            }
        }
    }
}

fn replay(fixture: &str) {
    let dir = vectors(fixture);
    let commands = json(&dir.join("commands.json"));
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let plan = root.join(text(&commands, "plan_dir"));
    copy_dir(&repo().join(text(&commands, "base")), &plan);
    let mut points = 0;
    for step in commands["steps"].as_array().expect("steps") {
        if step.get("agent").is_some() {
            agent_step(step, &plan);
        } else if step.get("planseal").is_some() {
            planseal_step(step, root);
        } else {
            let point = text(step, "point");
            let record = json(&dir.join("helper").join(format!("{point}.json")));
            let stored = dir.join("points").join(point);
            same_files_as_recorded(&plan, &stored, &record["plan_files_sha256"]);
            helper_accepted(&record, &plan, point);
            points += 1;
        }
    }
    assert_eq!(
        points, 3,
        "{fixture}: mid-way, after the amendment, published"
    );
}

#[test]
fn a_lite_plan_written_by_planseal_is_the_one_the_dwp_helper_accepted() {
    replay("A_lite_v2");
}

#[test]
fn a_full_plan_written_by_planseal_is_the_one_the_dwp_helper_accepted() {
    replay("B_full_v5");
}

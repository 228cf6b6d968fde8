//! Verify's findings are pinned: on every DWP fixture plan and on a seeded corpus of generated
//! plans (with deterministic defects), the ids, tasks, severities, plans and files of the
//! findings, in order, and the verdict, are those recorded in `fixtures/verify-equivalence/`.
//! They were recorded before verify learnt to stream its task files, so a change of how verify
//! reads a plan cannot change what it finds.
//!
//! Every plan is checked from a copy in a temporary folder (outside any git repository), so the
//! git state of this checkout plays no part. After a deliberate change of a check, rerun with
//! `PLANSEAL_BLESS=1` to rewrite the records, and review the diff.

use crate::support::fs::copy_dir;
use crate::support::verify::repo_root;
use planseal::dwp::check::{CheckOptions, check_plan};
use planseal::report::{Finding, Report, Section};
use planseal_harness::{PlanSpec, write_ready_plan};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// What is pinned of one finding.
fn finding_record(f: &Finding) -> Value {
    json!({
        "id": f.id,
        "severity": f.severity,
        "task": f.task,
        "plan": f.plan,
        "file": f.file,
    })
}

/// What is pinned of one checked plan.
pub(crate) fn section_record(section: &Section) -> Value {
    let report = Report {
        sections: vec![section.clone()],
    };
    json!({
        "verdict": report.verdict().as_str(),
        "unverified": section.unverified.is_some(),
        "findings": section.findings.iter().map(finding_record).collect::<Vec<_>>(),
    })
}

/// Verify's check of one plan folder, named after its folder.
pub(crate) fn verify_dir(dir: &Path) -> Section {
    let name = dir.file_name().unwrap().to_str().unwrap().to_string();
    let display = dir.display().to_string();
    check_plan(dir, &name, &name, &display, &CheckOptions::default())
}

/// Every folder under `fixtures/` that verify treats as a DWP plan: the `PLAN_*` folders.
fn fixture_plans() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().unwrap().to_str().unwrap();
            if name.starts_with("PLAN_") {
                out.push(p);
            } else if name != "verify-equivalence" {
                walk(&p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(&repo_root().join("fixtures"), &mut out);
    out
}

/// Builds one broken variant of `fixtures/dwp/broken/` in `root` and returns its plan folder.
fn broken_variant(case_dir: &Path, root: &Path) -> PathBuf {
    let doc: Value =
        serde_json::from_slice(&std::fs::read(case_dir.join("variant.json")).unwrap()).unwrap();
    let base = doc["base"].as_str().unwrap();
    let dest = root.join(base);
    copy_dir(
        &repo_root().join("fixtures/dwp/good/.dwp/plans").join(base),
        &dest,
    );
    for op in doc["setup"].as_array().unwrap() {
        let path = dest.join(op["path"].as_str().unwrap());
        match op["op"].as_str().unwrap() {
            "write" => {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::copy(case_dir.join(op["from"].as_str().unwrap()), &path).unwrap();
            }
            "delete" => std::fs::remove_file(&path).unwrap(),
            other => panic!("unknown op {other}"),
        }
    }
    dest
}

/// The defects applied to generated plans.
pub(crate) const MUTATIONS: [&str; 10] = [
    "as-generated",
    "candidate-in-place",
    "task-file-missing",
    "checkbox-unticked",
    "gate-log-missing",
    "outcome-removed",
    "task-file-not-utf8",
    "extra-task-file",
    "final-review-fields-missing",
    "locator-renamed",
];

/// A generated plan of `n` tasks with `mutation` applied, written under `root`; its folder.
pub(crate) fn generated_plan(root: &Path, n: usize, mutation: &str) -> PathBuf {
    let mut spec = PlanSpec::standard(n);
    // Vary the plans a little, deterministically: some gates cite no log, some notes.
    for (i, t) in spec.tasks.iter_mut().enumerate() {
        t.log = !(i + n).is_multiple_of(3);
        if i % 4 == 1 {
            t.note = format!("A note for task {} of {n}.", i + 1);
        }
    }
    spec.skills_candidates = n.is_multiple_of(2);
    let ready = spec.build();
    let dir = write_ready_plan(root, &ready).unwrap();
    let k = n / 2 + 1;
    let task_file = spec.tasks[k - 1].file.clone();
    let edit_state = |f: &dyn Fn(&mut Value)| {
        let path = dir.join("state.json");
        let mut state: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        f(&mut state);
        std::fs::write(&path, serde_json::to_string_pretty(&state).unwrap() + "\n").unwrap();
    };
    match mutation {
        "as-generated" => {}
        "candidate-in-place" => std::fs::write(dir.join("state.json"), &ready.candidate).unwrap(),
        "task-file-missing" => std::fs::remove_file(dir.join(&task_file)).unwrap(),
        "checkbox-unticked" => {
            let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
            let ticked = format!("- [x] Task {k}:");
            assert!(readme.contains(&ticked));
            let readme = readme.replace(&ticked, &format!("- [ ] Task {k}:"));
            std::fs::write(dir.join("README.md"), readme).unwrap();
        }
        "gate-log-missing" => {
            let logged = spec.tasks.iter().position(|t| t.log).unwrap() + 1;
            std::fs::remove_file(dir.join(format!("analysis_results/gates/t{logged}.log")))
                .unwrap();
        }
        "outcome-removed" => edit_state(&|s| {
            s["tasks"][0].as_object_mut().unwrap().remove("outcome");
        }),
        "task-file-not-utf8" => {
            let mut bytes = std::fs::read(dir.join(&task_file)).unwrap();
            bytes.extend_from_slice(b"\nbad byte \xff here\n");
            std::fs::write(dir.join(&task_file), bytes).unwrap();
        }
        "extra-task-file" => {
            std::fs::write(
                dir.join(format!("{}.task_stray.md", n + 1)),
                "# Task: a stray\n",
            )
            .unwrap();
        }
        "final-review-fields-missing" => {
            let last = &spec.tasks[n - 1].file;
            std::fs::write(dir.join(last), format!("# Task {n}: Final Review\n")).unwrap();
        }
        "locator-renamed" => edit_state(&|s| {
            s["tasks"][k - 1]["locator"]["value"] = json!(format!("{k}.task_renamed.md"));
        }),
        other => panic!("unknown mutation {other}"),
    }
    dir
}

/// The sizes of the generated corpus.
const SIZES: [usize; 8] = [2, 3, 4, 5, 7, 11, 17, 30];

fn fixture_records() -> Value {
    let mut out = serde_json::Map::new();
    let root = repo_root();
    for plan in fixture_plans() {
        let rel = plan.strip_prefix(&root).unwrap().display().to_string();
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path().join(plan.file_name().unwrap());
        copy_dir(&plan, &copy);
        out.insert(rel, section_record(&verify_dir(&copy)));
    }
    let broken = root.join("fixtures/dwp/broken");
    let mut cases: Vec<_> = std::fs::read_dir(&broken)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    cases.sort();
    for case in cases {
        let tmp = tempfile::tempdir().unwrap();
        let dir = broken_variant(&broken.join(&case), tmp.path());
        out.insert(
            format!("fixtures/dwp/broken/{case}"),
            section_record(&verify_dir(&dir)),
        );
    }
    Value::Object(out)
}

fn generated_records() -> Value {
    let mut out = serde_json::Map::new();
    for n in SIZES {
        for mutation in MUTATIONS {
            let tmp = tempfile::tempdir().unwrap();
            let dir = generated_plan(tmp.path(), n, mutation);
            out.insert(
                format!("{n} tasks, {mutation}"),
                section_record(&verify_dir(&dir)),
            );
        }
    }
    Value::Object(out)
}

/// Compares `got` with the record `name`, plan by plan (rewritten under `PLANSEAL_BLESS=1`).
fn assert_recorded(name: &str, got: Value) {
    let path = repo_root().join("fixtures/verify-equivalence").join(name);
    if std::env::var_os("PLANSEAL_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
    }
    let want: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let (want, got) = (want.as_object().unwrap(), got.as_object().unwrap());
    let want_keys: Vec<_> = want.keys().collect();
    let got_keys: Vec<_> = got.keys().collect();
    assert_eq!(got_keys, want_keys, "{name}: the checked plans differ");
    for (plan, record) in want {
        assert_eq!(&got[plan], record, "{name}: {plan}: findings differ");
    }
}

#[test]
fn verify_finds_what_it_found_on_every_fixture_plan() {
    let got = fixture_records();
    assert!(got.as_object().unwrap().len() >= 60);
    assert_recorded("fixtures.json", got);
}

#[test]
fn verify_finds_what_it_found_on_generated_plans() {
    assert_recorded("generated.json", generated_records());
}

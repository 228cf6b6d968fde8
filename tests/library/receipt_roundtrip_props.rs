//! The receipt round trip, over generated plans (planseal-harness): whatever plan finalize
//! publishes, verify's code path accepts the receipt it wrote — a passing `receipt-matches` and no
//! failure at all — and once one fingerprinted file gains a byte, verify names that file in a
//! `receipt-mismatch`.
//!
//! The plans vary in what the rules leave free: 2 to 8 tasks, task file slugs, titles and Context
//! text in any printable UTF-8 (non-ASCII included), gates with and without a `log=` pointer, and
//! the optional SKILLS_CANDIDATES.md and PLAN_ANALYSIS.md present or not.
//!
//! Task files outside the plan folder's `N.task_<slug>.md` (a sub-folder, another extension,
//! capitals or non-ASCII in the slug) are refused by the state's closed shape, by finalize and
//! verify alike, so they cannot be published; for those the second property checks that both
//! refuse, that nothing is written, and that the fingerprint finalize would seal is the one
//! verify's receipt check computes — such a file read from disk, not hashed as absent (the two
//! disagreed on that once).

use planseal::dwp::check::receipt::{ReceiptCheck, check_receipt};
use planseal::dwp::check::{CheckOptions, check_plan};
use planseal::dwp::model::State;
use planseal::dwp::publish::{self, Candidate, FinalizeRequest, ValidationInput};
use planseal::dwp::read::PlanFiles;
use planseal::recovery::hash::sha256_hex;
use planseal::report::{Section, Severity};
use planseal_harness::{GenTask, PLAN, PlanSpec, ReadyPlan, write_ready_plan};
use proptest::prelude::*;
use proptest::sample::Index;
use std::path::Path;

/// On tmpfs when there is one: a publication fsyncs every file it writes.
fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    let builder = tempfile::Builder::new().prefix("planseal-receipt-").clone();
    if shm.is_dir() {
        builder.tempdir_in(shm).unwrap()
    } else {
        builder.tempdir().unwrap()
    }
}

/// Printable text: any character but controls, or some markdown punctuation and non-ASCII.
fn text() -> impl Strategy<Value = String> {
    prop_oneof!["\\PC{1,80}", "[a-zA-Z0-9 `*_#<>|!:;=—éßü中✓(){}$-]{1,80}"]
}

/// A title: printable text, but no `](` (see the note at the end of the file).
fn title() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Step".to_string()),
        "\\PC{1,40}",
        "[a-zA-Z0-9 `*_#<>|!:;—éßü中✓()\\[\\]-]{1,24}",
    ]
    .prop_filter("an unclosed link in the index line", |t| !t.contains("]("))
}

fn task(id: usize, n: usize) -> impl Strategy<Value = GenTask> {
    let file = if id == n {
        "(_[a-z0-9_]{1,8})?"
            .prop_map(move |s| format!("{id}.task_final_review{s}.md"))
            .boxed()
    } else {
        "[a-z0-9_]{1,16}"
            .prop_map(move |s| format!("{id}.task_{s}.md"))
            .boxed()
    };
    // A paragraph of the Context section: it starts with a word, as a line that opened a fence
    // or a heading would not be part of the section any more.
    let note = prop_oneof![
        Just(String::new()),
        text().prop_map(|t| format!("Note: {t}"))
    ];
    (file, title(), note, any::<bool>()).prop_map(|(file, title, note, log)| GenTask {
        file,
        title,
        note,
        log,
    })
}

fn plan() -> impl Strategy<Value = PlanSpec> {
    (2usize..=8).prop_flat_map(|n| {
        let tasks: Vec<_> = (1..=n).map(|id| task(id, n).boxed()).collect();
        (tasks, any::<bool>(), any::<bool>()).prop_map(|(tasks, skills, analysis)| PlanSpec {
            tasks,
            skills_candidates: skills,
            plan_analysis: analysis,
        })
    })
}

fn verify(dir: &Path) -> Section {
    check_plan(dir, PLAN, PLAN, "plan", &CheckOptions::default())
}

fn shown(section: &Section) -> String {
    section
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Pass)
        .map(|f| format!("  {:?} {}: {}\n", f.severity, f.id, f.message))
        .collect()
}

fn append(path: &Path, byte: u8) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes.push(byte);
    std::fs::write(path, bytes).unwrap();
}

/// A byte that keeps the file what it is: JSON stays JSON, markdown stays UTF-8 text.
fn harmless_byte(name: &str, pick: Index) -> u8 {
    let choices: &[u8] = if name.ends_with(".json") {
        b" \n\t"
    } else {
        b"\nx #|"
    };
    choices[pick.index(choices.len())]
}

fn candidate(plan: &ReadyPlan) -> Candidate {
    Candidate::Bytes {
        bytes: plan.candidate.clone(),
        origin: "candidate.json".into(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn every_receipt_finalize_writes_passes_verify(spec in plan(), target in any::<Index>(), byte in any::<Index>()) {
        let tmp = scratch();
        let plan = spec.build();
        let dir = write_ready_plan(tmp.path(), &plan).unwrap();
        let published = publish::finalize(&FinalizeRequest::new(&dir, candidate(&plan)), &mut |_| {});
        let published = match published {
            Ok(p) => p,
            Err(e) => {
                let details: Vec<String> = match &e {
                    publish::FinalizeError::Refused(r) => r.details.iter().map(|d| format!("{}: {}", d.id, d.message)).collect(),
                    _ => Vec::new(),
                };
                return Err(TestCaseError::fail(format!("finalize refused: {e}\n{}", details.join("\n"))));
            }
        };
        prop_assert!(published.state_written);

        let section = verify(&dir);
        prop_assert!(section.unverified.is_none(), "{:?}", section.unverified);
        prop_assert!(
            section.findings.iter().any(|f| f.id == "receipt-matches" && f.severity == Severity::Pass),
            "no passing receipt-matches:\n{}", shown(&section)
        );
        prop_assert!(!section.failed(), "verify fails a plan finalize published:\n{}", shown(&section));

        // One fingerprinted file (present on disk) gains a byte: verify names it.
        let present: Vec<&String> = published
            .receipt
            .files()
            .expect("planseal's receipt lists the fingerprinted files")
            .iter()
            .filter_map(|(name, digest)| digest.as_ref().map(|_| name))
            .collect();
        let name = present[target.index(present.len())];
        append(&dir.join(name), harmless_byte(name, byte));
        let section = verify(&dir);
        let changed = format!("{name} changed");
        prop_assert!(
            section.findings.iter().any(|f| f.id == "receipt-mismatch"
                && f.severity == Severity::Fail
                && f.message.contains(&changed)),
            "no receipt-mismatch naming {}:\n{}", name, shown(&section)
        );
    }
}

/// A task file name the rules do not allow for task `id`.
fn unlisted(id: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        Just(format!("tasks/step_{id}.md")),
        "[a-z0-9_]{1,8}".prop_map(move |s| format!("{id}.task_{s}/notes.md")),
        "[a-z0-9_]{1,8}".prop_map(move |s| format!("{id}.task_{s}.markdown")),
        "[a-z0-9_]{0,4}[A-Zéü中-][a-z0-9_]{0,4}".prop_map(move |s| format!("{id}.task_{s}.md")),
        "[a-z0-9_]{1,8}".prop_map(move |s| format!("0{id}.task_{s}.md")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn unlisted_task_files_are_refused_alike_and_fingerprinted_alike(
        (spec, at, name) in plan().prop_flat_map(|spec| {
            let n = spec.tasks.len();
            (Just(spec), 0..n).prop_flat_map(|(spec, i)| (Just(spec), Just(i), unlisted(i + 1)))
        }),
        byte in any::<Index>(),
    ) {
        let mut spec = spec;
        spec.tasks[at].file = name.clone();
        let tmp = scratch();
        let plan = spec.build();
        let dir = write_ready_plan(tmp.path(), &plan).unwrap();
        let state_before = std::fs::read(dir.join("state.json")).unwrap();

        // finalize refuses and writes nothing
        let refused = publish::finalize(&FinalizeRequest::new(&dir, candidate(&plan)), &mut |_| {});
        let Err(publish::FinalizeError::Refused(r)) = refused else {
            return Err(TestCaseError::fail(format!("{name}: finalize did not refuse: {refused:?}")));
        };
        prop_assert!(
            r.details.iter().any(|d| d.id == "state-shape-error" && d.message.contains(&name)),
            "{}: {:?}", name, r
        );
        prop_assert_eq!(std::fs::read(dir.join("state.json")).unwrap(), state_before);
        for left in [publish::RECEIPT_FILE, publish::MARKER_FILE, "state.json.lock"] {
            prop_assert!(!dir.join(left).exists(), "{} left behind", left);
        }

        // verify rejects the plan for the same reason
        let section = verify(&dir);
        prop_assert!(
            section.findings.iter().any(|f| f.id == "state-shape-error"
                && f.severity == Severity::Fail
                && f.message.contains(&name)),
            "{}:\n{}", name, shown(&section)
        );

        // Sealed anyway with finalize's own validation (as another tool might have), the
        // receipt is accepted by verify's receipt check, and a byte more in the unlisted file is
        // named by it.
        let validation = publish::validate_candidate(&ValidationInput {
            plan_dir: &dir,
            candidate: &plan.candidate,
            candidate_value: None,
            candidate_path: None,
            allow_dirty_reason: None,
            allow_unverified_git_reason: None,
        })
        .unwrap();
        let sealed = validation.files.get(&name).cloned().flatten();
        prop_assert_eq!(sealed, Some(sha256_hex(&std::fs::read(dir.join(&name)).unwrap())));
        std::fs::write(dir.join("state.json"), &plan.candidate).unwrap();
        std::fs::write(
            dir.join(publish::RECEIPT_FILE),
            validation.receipt(&sha256_hex(&plan.candidate)).to_bytes(),
        )
        .unwrap();
        let state = State::from_value(&serde_json::from_slice(&plan.candidate).unwrap());
        let check = |dir: &Path| {
            let files = PlanFiles::load(dir, PLAN).unwrap();
            check_receipt(&files, &plan.candidate, &state)
        };
        prop_assert_eq!(check(&dir), ReceiptCheck::Matches);
        append(&dir.join(&name), harmless_byte(&name, byte));
        prop_assert_eq!(check(&dir), ReceiptCheck::Mismatch(vec![format!("{name} changed")]));
    }
}

// Titles leave out `](`: the README index line links the task file after the title
// (`- [x] Task 1: Title — [1.task_x.md](1.task_x.md)`), and a title such as `[](` makes
// planseal's markdown reader take `[](` as the start of a link and miss the real one
// (`readme-task-link-missing`), where a CommonMark reader would still find it. finalize and verify
// agree on it; it is a limit of the README reader, not of the receipt.

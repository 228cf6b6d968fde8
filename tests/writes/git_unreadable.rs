//! Git that cannot be read is never an answer (`docs/verify.md`, `docs/finalize.md`): a
//! damaged object (overwritten or deleted loose object file), a HEAD git cannot decode, a
//! `.git` gix cannot open and a SHA-256 repository make `verify` UNVERIFIED (exit 2) with
//! `git-unreadable` / `git-object-format-unsupported` naming the repository and the object —
//! never an advisory, never CONFORMANT, never `commit-missing`, never "not in a git
//! repository" — and make `finalize` refuse with every file byte-identical, unless
//! `--allow-unverified-git --reason` seals and the receipt records the exception. Scripted
//! repositories (recorded vector A, pinned dates).

use crate::support::finalize::*;
use crate::support::gitrepo::{git, git_command};
use crate::support::plans::snapshot_files;
use serde_json::Value;
use std::path::{Path, PathBuf};

const FIXTURE: &str = "A_lite_v2";
const PLAN: &str = "PLAN_http_rate_limit";
/// Vector A's commit of task 2 (pinned dates: the same id on every machine).
const TASK_2_COMMIT: &str = "0684d9243279d0b1599a7fc80aa427b40a85634e";
const REASON: &str = "object lost in a disk migration; task 2 checked by hand";

/// Vector A's repository holding the ready-to-publish plan, with the terminal candidate at the
/// root as `candidate.json`.
struct Repo {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Repo {
    fn new() -> Self {
        let (tmp, root) = vector_a_ready_with_candidate();
        Self { _tmp: tmp, root }
    }
    fn plan_rel(&self) -> String {
        format!(".dwp/plans/{PLAN}")
    }
    fn finalize(&self, extra: &[&str]) -> Run {
        let plan = self.plan_rel();
        let mut args = vec!["finalize", plan.as_str(), "--candidate", "candidate.json"];
        args.extend(extra);
        run_in(&self.root, &args)
    }
    fn verify(&self) -> Run {
        run_in(&self.root, &["--json", "verify", &self.plan_rel()])
    }
    fn receipt(&self) -> Option<Value> {
        std::fs::read(
            self.root
                .join(self.plan_rel())
                .join("analysis_results/FINALIZATION.json"),
        )
        .ok()
        .map(|b| serde_json::from_slice(&b).unwrap())
    }
    fn object_path(&self, id: &str) -> PathBuf {
        self.root.join(".git/objects").join(&id[..2]).join(&id[2..])
    }
    /// Overwrites a loose object file with bytes that are no zlib stream; returns the old bytes.
    fn corrupt(&self, id: &str) -> Vec<u8> {
        let path = self.object_path(id);
        let old = read(&path);
        let mut perms = std::fs::metadata(&path).unwrap().permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        perms.set_readonly(false);
        std::fs::set_permissions(&path, perms).unwrap();
        std::fs::write(&path, b"not a zlib stream").unwrap();
        old
    }
    fn every_file(&self) -> Vec<(PathBuf, Vec<u8>)> {
        snapshot_files(&self.root)
    }
}

fn findings(run: &Run) -> Vec<Value> {
    run.json()["sections"][0]["findings"]
        .as_array()
        .expect("findings")
        .clone()
}

fn with_id<'a>(findings: &'a [Value], id: &str) -> Vec<&'a Value> {
    findings.iter().filter(|f| f["id"] == id).collect()
}

/// UNVERIFIED, exit 2, one finding `id` of severity `unverified` whose message names `repo`'s
/// `.git` and `object`; no failure and no advisory about git.
fn assert_unverified(run: &Run, id: &str, repo: &Path, object: Option<&str>) {
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.verdict(), "UNVERIFIED", "{}", run.stdout);
    let all = findings(run);
    let found = with_id(&all, id);
    assert_eq!(found.len(), 1, "{all:#?}");
    assert_eq!(found[0]["severity"], "unverified");
    let message = found[0]["message"].as_str().unwrap();
    let dot_git = repo.canonicalize().unwrap().join(".git");
    assert!(
        message.contains(&dot_git.display().to_string()),
        "{message}"
    );
    if let Some(object) = object {
        assert!(message.contains(object), "{message}");
    }
    assert!(
        found[0]["hint"]
            .as_str()
            .unwrap()
            .contains("--allow-unverified-git --reason"),
        "{}",
        found[0]
    );
    for never in [
        "commit-missing",
        "commit-not-ancestor",
        "git-not-applicable",
    ] {
        assert!(with_id(&all, never).is_empty(), "{never}: {all:#?}");
    }
    assert!(
        !all.iter()
            .any(|f| f["severity"] == "advisory" && f["id"] == id),
        "{all:#?}"
    );
    assert_eq!(run.json()["counts"]["unverified"], 1);
}

/// A plan published from a clean repository, then a task commit's object damaged: verify
/// answered CONFORMANT with one advisory before; now UNVERIFIED naming the object, every byte
/// unchanged. Deleting the object instead gives the same answer, never `commit-missing`.
#[test]
fn verify_git_unreadable_is_unverified_not_conformant() {
    let repo = Repo::new();
    assert_ok(&repo.finalize(&[]));
    let clean = repo.verify();
    assert_eq!(clean.code, 0, "{}", clean.stdout);
    let old = repo.corrupt(TASK_2_COMMIT);

    let before = repo.every_file();
    let damaged = repo.verify();
    assert_eq!(repo.every_file(), before, "verify is read-only");
    assert_unverified(&damaged, "git-unreadable", &repo.root, Some(TASK_2_COMMIT));
    let text = run_in(&repo.root, &["verify", &repo.plan_rel()]);
    assert_eq!(text.code, 2);
    assert!(
        text.stdout.contains("  [?] git checks not made"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("Verdict: UNVERIFIED"),
        "{}",
        text.stdout
    );
    assert!(
        !text.stdout.contains("(SHOULD)\n      hint: repair"),
        "{}",
        text.stdout
    );

    std::fs::remove_file(repo.object_path(TASK_2_COMMIT)).unwrap();
    let deleted = repo.verify();
    assert_unverified(&deleted, "git-unreadable", &repo.root, Some(TASK_2_COMMIT));
    assert!(
        findings(&deleted).iter().any(|f| f["message"]
            .as_str()
            .unwrap()
            .contains("the object is missing")),
        "{}",
        deleted.stdout
    );

    // Repaired, the same plan is CONFORMANT again.
    std::fs::write(repo.object_path(TASK_2_COMMIT), old).unwrap();
    assert_eq!(repo.verify().code, 0);
}

/// finalize with a damaged task commit: refused (exit 1, `git-unreadable` naming the object and
/// the way out), every file of the plan and of `.git` byte-identical; with
/// `--allow-unverified-git --reason` it seals, the receipt records the exception and verify
/// accepts the receipt, showing the exception as an advisory (UNVERIFIED while git stays
/// damaged, CONFORMANT once it is repaired).
#[test]
fn finalize_refuses_unreadable_git_and_seals_with_allow_unverified_git() {
    let repo = Repo::new();
    let old = repo.corrupt(TASK_2_COMMIT);
    let before = repo.every_file();
    for extra in [&[][..], &["--dry-run"][..], &["--json"][..]] {
        let out = repo.finalize(extra);
        assert_eq!(
            repo.every_file(),
            before,
            "refused {extra:?}: nothing written"
        );
        if extra == ["--json"] {
            assert_eq!(out.code, 1, "{}", out.stdout);
            assert_eq!(out.json()["kind"], "git-unreadable", "{}", out.stdout);
            continue;
        }
        assert_refused(&out, "git-unreadable");
        let err = stderr(&out);
        assert!(err.contains(TASK_2_COMMIT), "{err}");
        assert!(
            err.contains("--allow-unverified-git --reason TEXT"),
            "{err}"
        );
        assert!(!err.contains("not in a git repository"), "{err}");
    }
    // --reason alone is a usage error; an empty reason is refused.
    assert_eq!(repo.finalize(&["--reason", REASON]).code, 2);
    assert_eq!(repo.finalize(&["--allow-unverified-git"]).code, 2);
    assert!(
        stderr(&repo.finalize(&["--allow-unverified-git", "--reason", " "]))
            .starts_with("usage-error: --reason must not be empty")
    );
    assert_eq!(repo.every_file(), before);

    let sealed = repo.finalize(&["--allow-unverified-git", "--reason", REASON]);
    assert_ok(&sealed);
    assert!(stderr(&sealed).contains(&format!("(accepted: {REASON})")));
    let receipt = repo.receipt().expect("receipt");
    let exceptions = receipt["exceptions"].as_array().unwrap();
    assert_eq!(exceptions.len(), 1, "{receipt:#}");
    assert_eq!(exceptions[0]["kind"], "git-unreadable");
    assert_eq!(exceptions[0]["reason"], REASON);
    assert!(
        exceptions[0]["subjects"][0]
            .as_str()
            .unwrap()
            .contains(TASK_2_COMMIT)
    );
    let journal = String::from_utf8(read(
        repo.root
            .join(repo.plan_rel())
            .join("analysis_results/STATE_JOURNAL.ndjson"),
    ))
    .unwrap();
    assert!(journal.contains(REASON), "{journal}");

    let still_damaged = repo.verify();
    assert_unverified(
        &still_damaged,
        "git-unreadable",
        &repo.root,
        Some(TASK_2_COMMIT),
    );
    let all = findings(&still_damaged);
    assert!(with_id(&all, "receipt-mismatch").is_empty(), "{all:#?}");
    assert_eq!(with_id(&all, "receipt-matches").len(), 1, "{all:#?}");
    let accepted = with_id(&all, "git-unverified-accepted");
    assert_eq!(accepted.len(), 1, "{all:#?}");
    assert_eq!(accepted[0]["severity"], "advisory");
    assert!(accepted[0]["message"].as_str().unwrap().contains(REASON));

    std::fs::write(repo.object_path(TASK_2_COMMIT), old).unwrap();
    let repaired = repo.verify();
    assert_eq!(repaired.code, 0, "{}", repaired.stdout);
    assert_eq!(
        with_id(&findings(&repaired), "git-unverified-accepted").len(),
        1
    );
}

/// A repository that is there but cannot be read — a HEAD git cannot decode, a config gix
/// cannot parse, a broken `.git` inside another repository — is never "not in a git
/// repository": verify is UNVERIFIED, finalize refuses with every file unchanged.
#[test]
fn a_corrupt_repository_is_never_not_in_a_git_repository() {
    type Damage = fn(&Path);
    let cases: [(&str, Damage); 2] = [
        ("HEAD", |root| {
            std::fs::write(root.join(".git/HEAD"), "garbage\n").unwrap()
        }),
        ("config", |root| {
            std::fs::write(root.join(".git/config"), "[core\n\tbare = maybe\n").unwrap()
        }),
    ];
    for (what, damage) in cases {
        let repo = Repo::new();
        damage(&repo.root);
        let before = repo.every_file();
        let out = repo.finalize(&[]);
        assert_refused(&out, "git-unreadable");
        assert!(
            !stderr(&out).contains("not in a git repository"),
            "{what}: {}",
            stderr(&out)
        );
        assert_eq!(repo.every_file(), before, "{what}");
        // The candidate in state.json's place makes the plan itself pass: only git is unknown.
        std::fs::copy(
            repo.root.join("candidate.json"),
            repo.root.join(repo.plan_rel()).join("state.json"),
        )
        .unwrap();
        let verify = repo.verify();
        assert_eq!(verify.code, 2, "{what}: {}", verify.stdout);
        assert_eq!(verify.verdict(), "UNVERIFIED", "{what}");
        assert_eq!(
            with_id(&findings(&verify), "git-unreadable").len(),
            1,
            "{what}: {}",
            verify.stdout
        );
    }

    // A repository nested in another one whose `.git` gix cannot open: the outer repository's
    // history is not the plan's.
    let outer = tempfile::tempdir().unwrap();
    git(
        outer.path(),
        &["init", "-q", "--template=", "-b", "main", "."],
    );
    let repo = Repo::new();
    let nested = outer.path().join("project");
    std::fs::rename(&repo.root, &nested).unwrap();
    std::fs::write(nested.join(".git/HEAD"), "garbage\n").unwrap();
    std::fs::write(nested.join(".git/config"), "[core\n").unwrap();
    let plan = format!(".dwp/plans/{PLAN}");
    let out = run_in(
        &nested,
        &["finalize", &plan, "--candidate", "candidate.json"],
    );
    assert_refused(&out, "git-unreadable");
    assert!(
        stderr(&out).contains(
            &nested
                .canonicalize()
                .unwrap()
                .join(".git")
                .display()
                .to_string()
        ),
        "{}",
        stderr(&out)
    );
}

/// A SHA-256 repository (`git init --object-format=sha256`): gix 0.90 is built here for SHA-1
/// only, so verify is UNVERIFIED with `git-object-format-unsupported` naming the format, and
/// finalize refuses unless `--allow-unverified-git --reason` accepts it.
#[test]
fn a_sha256_repository_is_unverified_and_finalize_refuses() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    git(
        root,
        &[
            "init",
            "-q",
            "--template=",
            "--object-format=sha256",
            "-b",
            "main",
            ".",
        ],
    );
    copy_dir(
        &vectors(FIXTURE).join(format!("lifecycle/snapshots/ready-to-publish/{PLAN}")),
        &root.join(".dwp/plans").join(PLAN),
    );
    std::fs::write(root.join(".gitignore"), ".dwp/\ncandidate.json\n").unwrap();
    git(root, &["add", "-A"]);
    let commit = git_command(root)
        .args(["commit", "-q", "--no-gpg-sign", "-m", "chore: start"])
        .output()
        .unwrap();
    assert!(commit.status.success());
    std::fs::copy(
        vectors(FIXTURE).join("lifecycle/publication/02-state.json"),
        root.join("candidate.json"),
    )
    .unwrap();
    let plan = format!(".dwp/plans/{PLAN}");

    let before = snapshot_files(root);
    let out = run_in(root, &["finalize", &plan, "--candidate", "candidate.json"]);
    assert_refused(&out, "git-object-format-unsupported");
    assert!(stderr(&out).contains("sha256"), "{}", stderr(&out));
    assert!(stderr(&out).contains("gix 0.90"), "{}", stderr(&out));
    assert_eq!(snapshot_files(root), before, "refused: nothing written");

    let sealed = run_in(
        root,
        &[
            "finalize",
            &plan,
            "--candidate",
            "candidate.json",
            "--allow-unverified-git",
            "--reason",
            REASON,
        ],
    );
    assert_ok(&sealed);
    let receipt: Value = serde_json::from_slice(&read(
        root.join(&plan).join("analysis_results/FINALIZATION.json"),
    ))
    .unwrap();
    assert_eq!(receipt["git"], Value::Null);
    assert_eq!(
        receipt["exceptions"][0]["kind"],
        "git-object-format-unsupported"
    );

    let verify = run_in(root, &["--json", "verify", &plan]);
    assert_unverified(
        &verify,
        "git-object-format-unsupported",
        root,
        Some("sha256"),
    );
    assert_eq!(
        with_id(&findings(&verify), "git-unverified-accepted").len(),
        1,
        "{}",
        verify.stdout
    );
}

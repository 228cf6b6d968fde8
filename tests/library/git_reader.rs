//! The git reader of `planseal-recovery` on repositories built with pinned dates: the recorded
//! vector repositories, merges, a shallow clone, a commit-graph, status, and no git at all.
//! File histories are compared with `git log --format=%H -- PATH` run on the same repository.

use crate::support::gitrepo;
use crate::support::gitrepo::{FixtureRepo, git, git_log_path, project_root, vector_repo};
use planseal::recovery::git::{HistoryOptions, Repo, Scan, StatusEntry, StatusKind};
use std::collections::BTreeMap;

fn open(path: &std::path::Path) -> Repo {
    Repo::discover(path)
        .expect("readable")
        .expect("a repository")
}

/// `N` when the right-trimmed subject ends in `- Task N of PLAN_name`.
fn task_of(subject: &str, plan: &str) -> Option<u64> {
    let rest = subject
        .trim_end()
        .strip_suffix(plan)?
        .strip_suffix(" of ")?;
    let (_, n) = rest.rsplit_once("- Task ")?;
    n.parse().ok()
}

#[test]
fn vector_repositories_yield_the_recorded_task_commits() {
    let index: serde_json::Value = serde_json::from_slice(
        &std::fs::read(project_root().join("fixtures/vectors/dwp/index.json")).expect("index"),
    )
    .expect("json");
    for fixture in ["A_lite_v2", "B_full_v5", "D_v1"] {
        let entry = &index["fixtures"][fixture];
        let plan = entry["plan"].as_str().expect("plan");
        let (_tmp, root) = vector_repo(fixture, None, None);
        let repo = open(&root);
        let head = repo.head().expect("head");
        assert_eq!(head.branch.as_deref(), Some("main"));
        assert_eq!(
            head.id.as_deref(),
            entry["repository"]["head"].as_str(),
            "{fixture}"
        );
        assert!(!repo.is_shallow());
        let scan = repo
            .scan_messages(|subject, _| {
                if task_of(subject, plan).is_some() {
                    Scan::Take
                } else {
                    Scan::Skip
                }
            })
            .expect("scan");
        assert!(!scan.truncated);
        let mut found = BTreeMap::new();
        for c in &scan.commits {
            let n = task_of(&c.subject, plan).expect("taken commits name a task");
            found.entry(n.to_string()).or_insert_with(|| c.id.clone());
        }
        let expected: BTreeMap<String, String> = entry["repository"]["task_commits"]
            .as_object()
            .expect("task_commits")
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().expect("hash").to_string()))
            .collect();
        assert_eq!(found, expected, "{fixture}");
        // Every commit is walked (base + one per task) and the walk order is newest first.
        assert_eq!(scan.walked as usize, expected.len() + 1);
        let times: Vec<i64> = scan
            .commits
            .iter()
            .map(|c| c.committer_time.seconds)
            .collect();
        let mut sorted = times.clone();
        sorted.sort_by(|a, b| b.cmp(a));
        assert_eq!(times, sorted);
    }
}

#[test]
fn commit_details_match_git_log() {
    let (_tmp, root) = vector_repo("A_lite_v2", None, None);
    let repo = open(&root);
    let last = repo.last_commits(2).expect("last commits");
    let reference = git(&root, &["log", "-n", "2", "--format=%H %h %ct %s"]);
    let ours: Vec<String> = last
        .iter()
        .map(|c| {
            format!(
                "{} {} {} {}",
                c.id, c.short, c.committer_time.seconds, c.subject
            )
        })
        .collect();
    assert_eq!(ours, reference.lines().collect::<Vec<_>>());
    assert_eq!(
        last[0].committer_time.to_utc_iso(),
        "2026-10-05T10:14:00+00:00"
    );
    assert_eq!(last[0].parents, vec![last[1].id.clone()]);
    assert!(repo.last_commits(0).expect("none").is_empty());
    assert_eq!(repo.last_commits(10).expect("all").len(), 4);
}

#[test]
fn existence_resolution_and_ancestry() {
    let (_tmp, root) = vector_repo("D_v1", None, None);
    let repo = open(&root);
    // D records 12-digit commits in state.json.
    let t1 = repo
        .find_commit("bdef78000c2e")
        .expect("lookup")
        .expect("exists");
    assert_eq!(t1.id, "bdef78000c2edadb233ebca9915fb20833c425a0");
    assert!(repo.commit_exists("bdef780").expect("lookup"));
    assert!(!repo.commit_exists("0123456789ab").expect("lookup"));
    assert!(!repo.commit_exists("not-hex").expect("lookup"));
    // A tree id is an object but not a commit.
    let tree = git(&root, &["rev-parse", "HEAD^{tree}"]);
    assert!(!repo.commit_exists(tree.trim()).expect("lookup"));
    assert_eq!(
        repo.resolve("HEAD~2").expect("resolve").as_deref(),
        Some("bdef78000c2edadb233ebca9915fb20833c425a0")
    );
    assert_eq!(
        repo.resolve("main").expect("resolve").as_deref(),
        Some("378bda684e23482b8eb43a0f936a2a1b8bb1c930")
    );
    assert_eq!(repo.resolve("no-such-branch").expect("resolve"), None);
    assert_eq!(
        repo.is_ancestor("bdef780", "HEAD").expect("walk"),
        Some(true)
    );
    assert_eq!(
        repo.is_ancestor("HEAD", "bdef780").expect("walk"),
        Some(false)
    );
    assert_eq!(repo.is_ancestor("HEAD", "HEAD").expect("walk"), Some(true));
    let (reachable, truncated) = repo.reachable_from_head().expect("walk");
    assert_eq!(reachable.len(), 4);
    assert!(!truncated);
}

#[test]
fn a_branch_reset_leaves_a_commit_that_exists_but_is_not_reachable() {
    let mut r = FixtureRepo::new();
    r.write("a.txt", "1\n");
    r.commit("chore: base");
    r.write("a.txt", "2\n");
    let lost = r.commit("feat: x - Task 1 of PLAN_demo");
    r.git(&["reset", "-q", "--hard", "HEAD~1"]);
    let repo = open(r.path());
    assert!(repo.commit_exists(&lost).expect("lookup"));
    assert_eq!(repo.is_ancestor(&lost, "HEAD").expect("walk"), Some(false));
    let scan = repo.scan_messages(|_, _| Scan::Take).expect("scan");
    assert_eq!(scan.commits.len(), 1);
}

/// A history with two merges; every file's history must equal git's, in both modes.
fn merge_repo() -> FixtureRepo {
    let mut r = FixtureRepo::new();
    r.write("src/lib.rs", "v1\n");
    r.write("docs/a.md", "a1\n");
    r.write("deep/x/y/z.txt", "z1\n");
    r.commit("chore: base");
    r.git(&["checkout", "-q", "-b", "side"]);
    r.write("docs/a.md", "a2 side\n");
    r.commit("docs: side edit - Task 2 of PLAN_demo");
    r.write("deep/x/y/z.txt", "z2 side\n");
    r.commit("feat: side deep edit");
    r.git(&["checkout", "-q", "main"]);
    r.write("src/lib.rs", "v2\n");
    r.commit("feat: main edit - Task 1 of PLAN_demo");
    r.git_dated(&["merge", "-q", "--no-ff", "--no-edit", "side"]);
    r.write("src/lib.rs", "v3\n");
    r.write("deep/x/other.txt", "o\n");
    r.commit("feat: after merge - Task 3 of PLAN_demo");
    r.git(&["checkout", "-q", "-b", "side2", "HEAD~1"]);
    r.write("docs/a.md", "a3 side2\n");
    r.commit("docs: side2");
    r.git(&["checkout", "-q", "main"]);
    r.write("docs/a.md", "a3 main\n");
    r.commit("docs: main conflicting");
    // Resolve the conflict by taking main's version: the merge equals its first parent.
    let out = gitrepo::git_command(r.path())
        .env("GIT_AUTHOR_DATE", "@1791300000 +0000")
        .env("GIT_COMMITTER_DATE", "@1791300000 +0000")
        .args(["merge", "-q", "--no-edit", "-s", "ours", "side2"])
        .output()
        .expect("git");
    assert!(out.status.success());
    r.remove("deep/x/other.txt");
    r.commit("chore: delete other");
    r
}

#[test]
fn file_histories_equal_git_log_with_merges() {
    let r = merge_repo();
    let repo = open(r.path());
    for path in [
        "src/lib.rs",
        "docs/a.md",
        "deep/x/y/z.txt",
        "deep/x/other.txt",
        "deep/x",
        "missing/file",
    ] {
        for first_parent in [false, true] {
            let options = HistoryOptions {
                first_parent,
                ..Default::default()
            };
            let ours: Vec<String> = repo
                .file_versions(path, &options)
                .expect("history")
                .versions
                .into_iter()
                .map(|v| v.commit.id)
                .collect();
            assert_eq!(
                ours,
                git_log_path(r.path(), path, first_parent),
                "{path} first_parent={first_parent}"
            );
        }
    }
    // Contents and deletions.
    let history = repo
        .file_versions(
            "deep/x/other.txt",
            &HistoryOptions {
                with_content: true,
                ..Default::default()
            },
        )
        .expect("history");
    assert_eq!(history.versions.len(), 2);
    assert_eq!(history.versions[0].blob_id, None);
    // Versions carry their commit's parents (the deletion is an ordinary commit on main).
    assert_eq!(history.versions[0].commit.parents.len(), 1);
    assert_eq!(history.versions[0].content, None);
    assert_eq!(history.versions[1].content.as_deref(), Some(&b"o\n"[..]));
    // Early exit.
    let limited = repo
        .file_versions(
            "src/lib.rs",
            &HistoryOptions {
                limit: Some(1),
                ..Default::default()
            },
        )
        .expect("history");
    assert_eq!(limited.versions.len(), 1);
    assert!(limited.walked < 5, "walked {}", limited.walked);
    // The message scan sees both sides of every merge.
    let scan = repo.scan_messages(|_, _| Scan::Take).expect("scan");
    let all = git(r.path(), &["rev-list", "HEAD"]);
    let mut ours: Vec<String> = scan.commits.iter().map(|c| c.id.clone()).collect();
    let mut theirs: Vec<String> = all.lines().map(str::to_string).collect();
    ours.sort();
    theirs.sort();
    assert_eq!(ours, theirs);
}

#[test]
fn file_at_reads_a_revision() {
    let r = merge_repo();
    let repo = open(r.path());
    assert_eq!(
        repo.file_at("HEAD", "src/lib.rs").expect("read"),
        Some(b"v3\n".to_vec())
    );
    let base = git(r.path(), &["rev-list", "--max-parents=0", "HEAD"]);
    assert_eq!(
        repo.file_at(base.trim(), "src/lib.rs").expect("read"),
        Some(b"v1\n".to_vec())
    );
    assert_eq!(
        repo.file_at("HEAD", "deep/x/other.txt").expect("read"),
        None
    );
    assert_eq!(repo.file_at("HEAD", "deep/x").expect("read"), None);
    assert!(repo.file_at("nope", "src/lib.rs").is_err());
}

#[test]
fn a_commit_graph_gives_the_same_answers() {
    let r = merge_repo();
    let before_scan: Vec<String> = open(r.path())
        .scan_messages(|_, _| Scan::Take)
        .expect("scan")
        .commits
        .into_iter()
        .map(|c| c.id)
        .collect();
    git(r.path(), &["commit-graph", "write", "--reachable"]);
    assert!(r.path().join(".git/objects/info/commit-graph").exists());
    let repo = open(r.path());
    let after: Vec<String> = repo
        .scan_messages(|_, _| Scan::Take)
        .expect("scan")
        .commits
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(after, before_scan);
    for path in ["src/lib.rs", "docs/a.md", "deep/x/y/z.txt"] {
        let ours: Vec<String> = repo
            .file_versions(path, &HistoryOptions::default())
            .expect("history")
            .versions
            .into_iter()
            .map(|v| v.commit.id)
            .collect();
        assert_eq!(ours, git_log_path(r.path(), path, false), "{path}");
    }
}

#[test]
fn a_shallow_clone_reports_truncation_instead_of_failing() {
    let (_tmp, root) = vector_repo("B_full_v5", None, None);
    let clone_parent = tempfile::tempdir().expect("tmp");
    let url = format!("file://{}", root.display());
    git(
        clone_parent.path(),
        &["clone", "-q", "--depth", "2", &url, "shallow"],
    );
    let shallow = clone_parent.path().join("shallow");
    let repo = open(&shallow);
    assert!(repo.is_shallow());
    let scan = repo.scan_messages(|_, _| Scan::Take).expect("scan");
    assert_eq!(scan.commits.len(), 2);
    assert!(scan.truncated);
    // Task 1's commit lies beyond the boundary: it is simply not there.
    assert!(!repo.commit_exists("181b2b756f52").expect("lookup"));
    assert_eq!(
        repo.is_ancestor("HEAD~1", "HEAD").expect("walk"),
        Some(true)
    );
    let history = repo
        .file_versions("CHANGELOG.md", &HistoryOptions::default())
        .expect("history");
    assert!(history.truncated);
    // A walk that stops before the boundary is complete.
    let early = repo.scan_messages(|_, _| Scan::TakeAndStop).expect("scan");
    assert!(!early.truncated);
    assert!(early.stopped_early);
}

#[test]
fn status_lists_untracked_modified_and_staged_but_never_ignored() {
    let mut r = FixtureRepo::new();
    r.write(".gitignore", ".dwp/\n*.log\n");
    r.write("src/a.rs", "a\n");
    r.write("src/b.rs", "b\n");
    r.write("keep.txt", "k\n");
    r.commit("chore: base");
    let repo = open(r.path());
    assert!(repo.status(&[]).expect("status").is_empty());
    assert_eq!(repo.unstaged_tracked_count().expect("count"), 0);

    r.write(".dwp/plans/PLAN_x/state.json", "{}\n");
    r.write("build.log", "noise\n");
    r.write("src/a.rs", "a changed\n");
    r.write("new/untracked.txt", "u\n");
    r.write("staged.txt", "s\n");
    r.git(&["add", "staged.txt"]);
    r.remove("keep.txt");
    let repo = open(r.path());
    let status = repo.status(&[]).expect("status");
    let expected = vec![
        StatusEntry {
            path: "keep.txt".into(),
            kind: StatusKind::Deleted,
        },
        StatusEntry {
            path: "new/untracked.txt".into(),
            kind: StatusKind::Untracked,
        },
        StatusEntry {
            path: "src/a.rs".into(),
            kind: StatusKind::Modified,
        },
        StatusEntry {
            path: "staged.txt".into(),
            kind: StatusKind::StagedAdded,
        },
    ];
    assert_eq!(status, expected);
    assert_eq!(repo.unstaged_tracked_count().expect("count"), 2);
    // Limited to a path set.
    let only_src = repo.status(&["src"]).expect("status");
    assert_eq!(only_src, vec![expected[2].clone()]);
    assert!(repo.is_tracked("src/a.rs").expect("index"));
    assert!(repo.is_tracked("src").expect("index"));
    assert!(!repo.is_tracked(".dwp").expect("index"));
    assert!(!repo.is_tracked("new/untracked.txt").expect("index"));
    assert_eq!(
        repo.relative_to_work_tree(&r.path().join("src/a.rs"))
            .expect("inside"),
        "src/a.rs"
    );
    assert_eq!(
        repo.relative_to_work_tree(&r.path().join("not/yet/there.txt"))
            .expect("inside"),
        "not/yet/there.txt"
    );
    assert!(
        repo.relative_to_work_tree(std::path::Path::new("/"))
            .is_err()
    );
}

#[test]
fn no_git_and_unborn_head() {
    let plain = tempfile::tempdir().expect("tmp");
    assert!(Repo::discover(plain.path()).expect("no error").is_none());
    let r = FixtureRepo::new();
    let repo = open(r.path());
    let head = repo.head().expect("head");
    assert_eq!(head.id, None);
    assert_eq!(head.branch.as_deref(), Some("main"));
    assert!(
        repo.scan_messages(|_, _| Scan::Take)
            .expect("scan")
            .commits
            .is_empty()
    );
    assert!(
        repo.file_versions("a", &HistoryOptions::default())
            .expect("history")
            .versions
            .is_empty()
    );
}

#[test]
fn detached_head_and_progress_callback() {
    let mut r = FixtureRepo::new();
    for i in 0..600 {
        r.write("n.txt", &format!("{i}\n"));
        git(r.path(), &["add", "-A"]);
        r.git_dated(&["commit", "-q", "--no-gpg-sign", "-m", &format!("c{i}")]);
    }
    r.git(&["checkout", "-q", "--detach", "HEAD~1"]);
    let mut repo = open(r.path());
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = seen.clone();
    repo.set_progress(move |p| sink.borrow_mut().push((p.commits, p.done)));
    let head = repo.head().expect("head");
    assert_eq!(head.branch, None);
    let scan = repo.scan_messages(|_, _| Scan::Skip).expect("scan");
    assert_eq!(scan.walked, 599);
    let events = seen.borrow();
    assert_eq!(events.first(), Some(&(512, false)));
    assert_eq!(events.last(), Some(&(599, true)));
}

/// A repository imported with `git fast-import`: its trees sit at the far end of long delta
/// chains, which switches the file history to its oldest-first warm-up. Answers must not change.
#[test]
fn fast_import_packs_give_the_same_file_histories() {
    let dir = tempfile::tempdir().expect("tmp");
    git(
        dir.path(),
        &["init", "-q", "--template=", "-b", "main", "."],
    );
    let mut stream = String::new();
    let t0 = gitrepo::FIXTURE_EPOCH;
    let data = |s: &str| format!("data {}\n{s}\n", s.len());
    for i in 0..300u32 {
        let msg = if i % 20 == 19 {
            format!("feat: step {i} - Task {} of PLAN_bench", i / 20 + 1)
        } else {
            format!("chore: step {i}")
        };
        stream.push_str(&format!(
            "commit refs/heads/main\nmark :{}\ncommitter F <f@example.invalid> {} +0000\n{}",
            i + 1,
            t0 + 60 * i64::from(i),
            data(&msg)
        ));
        if i == 0 {
            stream.push_str(&format!("M 100644 inline .gitignore\n{}", data(".dwp/\n")));
            for d in 0..20 {
                for f in 0..20 {
                    stream.push_str(&format!(
                        "M 100644 inline src/d{d}/f{f}.txt\n{}",
                        data(&format!("d{d} f{f} v0\n"))
                    ));
                }
            }
        } else {
            stream.push_str(&format!("from :{i}\n"));
            let k = i % 60;
            stream.push_str(&format!(
                "M 100644 inline src/d{}/f{}.txt\n{}",
                k / 20,
                k % 20,
                data(&format!("v{i}\n"))
            ));
        }
    }
    let mut child = gitrepo::git_command(dir.path())
        .args(["fast-import", "--quiet"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("git fast-import");
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stream.as_bytes())
        .expect("feed");
    assert!(child.wait().expect("wait").success());
    let repo = open(dir.path());
    assert!(repo.trees_read_oldest_first("HEAD").expect("headers"));
    for path in [
        "src/d1/f5.txt",
        "src/d0/f0.txt",
        "src/d2",
        "src/d9/f9.txt",
        "src/nope.txt",
    ] {
        for first_parent in [false, true] {
            let ours: Vec<String> = repo
                .file_versions(
                    path,
                    &HistoryOptions {
                        first_parent,
                        ..Default::default()
                    },
                )
                .expect("history")
                .versions
                .into_iter()
                .map(|v| v.commit.id)
                .collect();
            assert_eq!(ours, git_log_path(dir.path(), path, first_parent), "{path}");
        }
    }
    let scan = repo
        .scan_messages(|s, _| {
            if task_of(s, "PLAN_bench").is_some() {
                Scan::Take
            } else {
                Scan::Skip
            }
        })
        .expect("scan");
    assert_eq!(scan.commits.len(), 15);
    assert_eq!(scan.walked, 300);
    // Loose objects (the other fixtures) never take the warm-up.
    let r = merge_repo();
    assert!(
        !open(r.path())
            .trees_read_oldest_first("HEAD")
            .expect("headers")
    );
}

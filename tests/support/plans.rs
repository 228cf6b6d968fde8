//! The fixture plans of the history tests, each in a repository built with pinned dates (the
//! recorded vector repositories, plus merges and a shallow clone), and one without git.
#![allow(dead_code)]

use super::gitrepo::{FixtureRepo, git, git_command, project_root, vector_repo};
use std::path::{Path, PathBuf};

pub const PLAN_A: &str = "PLAN_http_rate_limit";
pub const PLAN_B: &str = "PLAN_webhook_retry_backoff";

/// A plan inside (or outside) a repository; the temp dir lives as long as the case.
pub struct Case {
    pub tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub plan: PathBuf,
}

impl Case {
    pub fn state_bytes(&self) -> Vec<u8> {
        std::fs::read(self.plan.join("state.json")).expect("state.json")
    }
    /// The plan folder relative to the repository root.
    pub fn plan_rel(&self) -> String {
        self.plan
            .strip_prefix(&self.root)
            .expect("plan inside root")
            .to_string_lossy()
            .into_owned()
    }
}

pub fn vector_dir(fixture: &str) -> PathBuf {
    project_root().join("fixtures/vectors/dwp").join(fixture)
}

pub fn snapshot(fixture: &str, plan: &str, name: &str) -> PathBuf {
    vector_dir(fixture)
        .join("lifecycle/snapshots")
        .join(name)
        .join(plan)
}

pub fn lifecycle_state(fixture: &str, file: &str) -> PathBuf {
    vector_dir(fixture).join("lifecycle/states").join(file)
}

pub fn in_vector_repo(fixture: &str, plan: &str, snapshot_name: &str) -> Case {
    let (tmp, root) = vector_repo(fixture, None, Some(&snapshot(fixture, plan, snapshot_name)));
    let plan = root.join(".dwp/plans").join(plan);
    Case { tmp, root, plan }
}

/// B, published and clean: README, logs, state and receipt all agree with git.
pub fn clean() -> Case {
    in_vector_repo("B_full_v5", PLAN_B, "final")
}

/// B, published, then state.json deleted.
pub fn deleted_state() -> Case {
    let case = clean();
    std::fs::remove_file(case.plan.join("state.json")).expect("delete state");
    case
}

/// B's final markdown with the state.json written after task 2: two tasks behind.
pub fn stale_state() -> Case {
    let case = clean();
    std::fs::copy(
        lifecycle_state("B_full_v5", "11-complete-task2.state.json"),
        case.plan.join("state.json"),
    )
    .expect("copy state");
    case
}

/// A after task 1 (README ticks task 1 only) with a state.json edited by hand to call task 2
/// completed too: the state is ahead of the markdown.
pub fn state_ahead() -> Case {
    let case = in_vector_repo("A_lite_v2", PLAN_A, "after-task1");
    let path = case.plan.join("state.json");
    let text = std::fs::read_to_string(&path).expect("state");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
    let t2 = &mut v["tasks"][1];
    t2["status"] = "completed".into();
    t2["started_at"] = "2026-10-05T09:20:00+00:00".into();
    t2["completed_at"] = "2026-10-05T09:45:00+00:00".into();
    t2["commit"] = "0684d9243279d0b1599a7fc80aa427b40a85634e".into();
    v["completed_count"] = 2.into();
    let mut out = serde_json::to_string_pretty(&v).expect("json");
    out.push('\n');
    std::fs::write(&path, out).expect("write");
    case
}

/// A, published, in a repository with one more commit that still uses an old task number
/// (`Task 4` — the plan was renumbered to three tasks after it was made).
pub fn renamed_task_numbers() -> Case {
    let case = in_vector_repo("A_lite_v2", PLAN_A, "final");
    let out = git_command(&case.root)
        .env("GIT_AUTHOR_DATE", "2026-10-05T11:00:00+00:00")
        .env("GIT_COMMITTER_DATE", "2026-10-05T11:00:00+00:00")
        .args([
            "commit",
            "-q",
            "--allow-empty",
            "--no-gpg-sign",
            "-m",
            "chore(release): tag 0.4.0 - Task 4 of PLAN_http_rate_limit",
        ])
        .output()
        .expect("git");
    assert!(out.status.success());
    case
}

/// A's published plan, its tasks committed on a side branch merged into main (with a commit on
/// main in between), task 3 after the merge; state.json deleted so that git must supply the
/// commits. The gate records' `fp=` revisions name this repository's commits (the base, task 1,
/// task 2 — as the vector's name the vector repository's), so the plan can be re-published here.
pub fn merges() -> Case {
    let mut r = FixtureRepo::new();
    r.write(".gitignore", ".dwp/\n");
    r.write("src/lib.py", "base\n");
    let base = r.commit("chore: base");
    r.git(&["checkout", "-q", "-b", "feature"]);
    r.write("src/ratelimit.py", "bucket\n");
    let task1 = r.commit("feat(ratelimit): token bucket - Task 1 of PLAN_http_rate_limit");
    r.write("src/client.py", "client\n");
    let task2 = r.commit("feat(client): pacing - Task 2 of PLAN_http_rate_limit");
    r.git(&["checkout", "-q", "main"]);
    r.write("README.md", "readme\n");
    r.commit("docs: unrelated change on main");
    r.git_dated(&["merge", "-q", "--no-ff", "--no-edit", "feature"]);
    r.write("CHANGELOG.md", "log\n");
    r.commit("docs(changelog): final review - Task 3 of PLAN_http_rate_limit");
    let root = r.path().to_path_buf();
    let plan = root.join(".dwp/plans").join(PLAN_A);
    copy_dir(&snapshot("A_lite_v2", PLAN_A, "final"), &plan);
    std::fs::remove_file(plan.join("state.json")).expect("delete state");
    let readme = plan.join("README.md");
    let mut text = std::fs::read_to_string(&readme).expect("README");
    for (vector_rev, here) in [("f52b629", &base), ("49a4d7e", &task1), ("0684d92", &task2)] {
        let from = format!("fp={vector_rev}+");
        assert_eq!(
            text.matches(&from).count(),
            1,
            "{from} in the vector README"
        );
        text = text.replace(&from, &format!("fp={}+", &here[..7]));
    }
    std::fs::write(&readme, text).expect("write README");
    Case {
        tmp: r.dir,
        root,
        plan,
    }
}

/// A's published plan in a clone that holds only the last commit.
pub fn shallow() -> Case {
    let source = clean_a();
    let tmp = tempfile::tempdir().expect("tmp");
    let url = format!("file://{}", source.root.display());
    git(tmp.path(), &["clone", "-q", "--depth", "1", &url, "repo"]);
    let root = tmp.path().join("repo");
    let plan = root.join(".dwp/plans").join(PLAN_A);
    copy_dir(&source.plan, &plan);
    Case { tmp, root, plan }
}

/// A, published and clean.
pub fn clean_a() -> Case {
    in_vector_repo("A_lite_v2", PLAN_A, "final")
}

/// A's published plan in a folder that is no git repository.
pub fn no_git() -> Case {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().to_path_buf();
    let plan = root.join(".dwp/plans").join(PLAN_A);
    copy_dir(&snapshot("A_lite_v2", PLAN_A, "final"), &plan);
    Case { tmp, root, plan }
}

pub use super::fs::copy_dir;
/// Every file under `dir` with its bytes, for "nothing changed" assertions.
pub fn snapshot_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read dir") {
            let entry = entry.expect("entry");
            if entry.file_type().expect("type").is_dir() {
                stack.push(entry.path());
            } else {
                out.push((entry.path(), std::fs::read(entry.path()).expect("read")));
            }
        }
    }
    out.sort();
    out
}

//! Shared by the finalize / recover / crash tests: recorded vectors placed in scratch folders,
//! and the built binary run on them.
#![allow(dead_code)]

#[allow(unused_imports)] // not every binary uses them through this module
pub use super::run::{Planseal, Run};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub const FIXTURES: [(&str, &str); 3] = [
    ("A_lite_v2", "PLAN_http_rate_limit"),
    ("B_full_v5", "PLAN_webhook_retry_backoff"),
    ("D_v1", "PLAN_config_env_overrides"),
];

pub fn vectors(fixture: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/vectors/dwp")
        .join(fixture)
}

pub fn read(path: impl AsRef<Path>) -> Vec<u8> {
    let path = path.as_ref();
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn json(path: impl AsRef<Path>) -> Value {
    serde_json::from_slice(&read(path)).unwrap()
}

#[allow(unused_imports)] // not every binary uses it through this module
pub use super::fs::copy_dir;
#[allow(unused_imports)] // not every binary uses it through this module
pub use super::fs::sha256;
/// A scratch "repository root" (no git) holding one plan at `.dwp/plans/PLAN_x/`.
pub struct Workspace {
    pub tmp: tempfile::TempDir,
    pub fixture: String,
    pub plan: String,
}

impl Workspace {
    /// `base` is a plan folder inside the fixture (relative to the fixture folder).
    pub fn from_folder(fixture: &str, plan: &str, base: &str) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let ws = Self {
            tmp,
            fixture: fixture.into(),
            plan: plan.into(),
        };
        copy_dir(&vectors(fixture).join(base), &ws.plan_dir());
        ws
    }

    pub fn ready_to_publish(fixture: &str, plan: &str) -> Self {
        Self::from_folder(
            fixture,
            plan,
            &format!("lifecycle/snapshots/ready-to-publish/{plan}"),
        )
    }

    pub fn root(&self) -> &Path {
        self.tmp.path()
    }
    pub fn plan_rel(&self) -> String {
        format!(".dwp/plans/{}", self.plan)
    }
    pub fn plan_dir(&self) -> PathBuf {
        self.root().join(self.plan_rel())
    }
    pub fn state(&self) -> Vec<u8> {
        read(self.plan_dir().join("state.json"))
    }
    pub fn file(&self, rel: &str) -> Option<Vec<u8>> {
        std::fs::read(self.plan_dir().join(rel)).ok()
    }
    pub fn exists(&self, rel: &str) -> bool {
        self.plan_dir().join(rel).exists()
    }
    pub fn vectors(&self) -> PathBuf {
        vectors(&self.fixture)
    }
    /// Puts a vector file at the workspace root under `name`.
    pub fn place(&self, from_fixture_rel: &str, name: &str) {
        std::fs::copy(
            self.vectors().join(from_fixture_rel),
            self.root().join(name),
        )
        .unwrap();
    }
    /// Applies the `setup` operations of a refusal probe or conformance variant.
    pub fn apply_setup(&self, setup: &Value) {
        for op in setup.as_array().unwrap() {
            let path = self.root().join(op["path"].as_str().unwrap());
            match op["op"].as_str().unwrap() {
                "write" => {
                    if let Some(parent) = path.parent() {
                        std::fs::create_dir_all(parent).unwrap();
                    }
                    std::fs::copy(self.vectors().join(op["from"].as_str().unwrap()), &path)
                        .unwrap();
                }
                "delete" => std::fs::remove_file(&path).unwrap(),
                "mkdir" => std::fs::create_dir_all(&path).unwrap(),
                other => panic!("unknown setup op {other}"),
            }
        }
    }
    pub fn run(&self, args: &[&str]) -> Run {
        run_in(self.root(), args)
    }
}

pub fn run_in(dir: &Path, args: &[&str]) -> Run {
    super::run::planseal(dir, args)
}

pub fn stdout(o: &Run) -> String {
    o.stdout.clone()
}
pub fn stderr(o: &Run) -> String {
    o.stderr.clone()
}

/// Asserts a refusal: exit 1, nothing on stdout, the kind leading stderr.
pub fn assert_refused(o: &Run, kind: &str) {
    assert_eq!(
        o.status.code(),
        Some(1),
        "expected refusal {kind}; stdout: {} stderr: {}",
        stdout(o),
        stderr(o)
    );
    assert!(
        stderr(o).starts_with(&format!("{kind}: ")),
        "expected kind {kind}, stderr: {}",
        stderr(o)
    );
}

pub fn assert_ok(o: &Run) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "stdout: {} stderr: {}",
        stdout(o),
        stderr(o)
    );
}

/// The helper's recorded receipt, minus its closing `}` line: planseal's receipt must start with
/// exactly these bytes and continue with its own key.
pub fn assert_receipt_extends(ours: &[u8], recorded: &[u8]) {
    let head = &recorded[..recorded.len() - "\n}\n".len()];
    assert!(
        ours.starts_with(head),
        "receipt does not start with the helper's keys:\n{}",
        String::from_utf8_lossy(ours)
    );
    assert_eq!(&ours[head.len()..head.len() + 2], b",\n");
    assert!(ours.ends_with(b"}\n"));
    let ours: Value = serde_json::from_slice(ours).unwrap();
    let recorded: Value = serde_json::from_slice(recorded).unwrap();
    for key in ["state_sha256", "artifacts_sha256", "result"] {
        assert_eq!(ours[key], recorded[key], "{key}");
    }
}

/// The helper's recorded marker (176 bytes, no closing brace): ours starts with its two keys.
pub fn assert_marker_extends(ours: &[u8], recorded: &[u8]) {
    assert_eq!(recorded.len(), 176);
    let head = &recorded[..recorded.len() - 1];
    assert!(
        ours.starts_with(head),
        "marker does not start with the helper's keys: {}",
        String::from_utf8_lossy(ours)
    );
    assert_eq!(&ours[head.len()..head.len() + 2], b", ");
    assert!(!ours.ends_with(b"\n"));
}

/// Vector A's repository (every task commit) holding its ready-to-publish plan
/// `PLAN_http_rate_limit`, with the recorded terminal candidate at the root as `candidate.json`
/// (untracked on purpose: the candidate file is exempt from the clean-tree check). Returns
/// (temp dir, repository root).
pub fn vector_a_ready_with_candidate() -> (tempfile::TempDir, PathBuf) {
    let fixture = "A_lite_v2";
    let snapshot =
        vectors(fixture).join("lifecycle/snapshots/ready-to-publish/PLAN_http_rate_limit");
    let (tmp, root) = super::gitrepo::vector_repo(fixture, None, Some(&snapshot));
    std::fs::copy(
        vectors(fixture).join("lifecycle/publication/02-state.json"),
        root.join("candidate.json"),
    )
    .expect("copy the terminal candidate");
    (tmp, root)
}

//! Shared helpers of the verify tests: copying plan folders, running the binary, hashing trees.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const BIN: &str = env!("CARGO_BIN_EXE_planseal");

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn vectors() -> PathBuf {
    repo_root().join("fixtures/vectors/dwp")
}

#[allow(unused_imports)] // not every binary uses it through this module
pub use super::fs::copy_dir;
/// sha256 of every file under `dir` (symlinks by their target text, FIFOs by name only), and
/// every folder, so that any write, creation or deletion shows.
pub fn tree_hash(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let rel = path.strip_prefix(root).unwrap().display().to_string();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        let ty = meta.file_type();
        if ty.is_symlink() {
            out.insert(
                rel,
                format!("link:{}", std::fs::read_link(&path).unwrap().display()),
            );
        } else if ty.is_dir() {
            out.insert(rel.clone(), "dir".into());
            walk(root, &path, out);
        } else if ty.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            use std::os::unix::fs::MetadataExt;
            out.insert(
                rel,
                format!(
                    "{}:{:o}:{}",
                    planseal::recovery::hash::sha256_hex(&bytes),
                    meta.mode(),
                    meta.mtime_nsec()
                ),
            );
        } else {
            out.insert(rel, "special".into());
        }
    }
}

/// The outcome of one `planseal` run.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.stdout))
    }
    /// Failing finding ids (with their task) from a `--json` run.
    pub fn failing(&self) -> Vec<(String, Option<u64>)> {
        let v = self.json();
        let mut out = Vec::new();
        for s in v["sections"].as_array().unwrap() {
            for f in s["findings"].as_array().unwrap() {
                if f["severity"] == "fail" {
                    out.push((f["id"].as_str().unwrap().to_string(), f["task"].as_u64()));
                }
            }
        }
        out
    }
    pub fn failing_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.failing().into_iter().map(|(id, _)| id).collect();
        ids.sort();
        ids.dedup();
        ids
    }
    pub fn verdict(&self) -> String {
        self.json()["verdict"].as_str().unwrap().to_string()
    }
}

/// Runs `planseal ARGS` in `cwd` with a clean environment for the variables it reads.
pub fn planseal(cwd: &Path, args: &[&str]) -> Run {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .env_remove("DWP_DIR")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

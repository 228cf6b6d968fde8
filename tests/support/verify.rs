//! Shared helpers of the verify tests: copying plan folders, running the binary, hashing trees.
//! The runs go through `support::run` (re-exported here).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[allow(unused_imports)] // not every binary uses them through this module
pub use super::run::{Planseal, Run, planseal};

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

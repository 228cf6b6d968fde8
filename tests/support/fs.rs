//! File helpers every kind of integration test shares; the other support modules re-export them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Copies a folder tree: folders and regular files (the fixtures hold nothing else).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        let kind = entry.file_type().expect("file type");
        if kind.is_dir() {
            copy_dir(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// SHA-256 of bytes as lower-case hex (planseal's own hash, so the two cannot disagree).
pub fn sha256(bytes: &[u8]) -> String {
    planseal::recovery::hash::sha256_hex(bytes)
}

/// Every entry under `root` by relative path: a file's bytes, or `None` for a folder. Two
/// snapshots compare the bytes of every file and the presence of every folder.
pub fn tree(root: &Path) -> std::collections::BTreeMap<String, Option<Vec<u8>>> {
    fn walk(
        root: &Path,
        dir: &Path,
        out: &mut std::collections::BTreeMap<String, Option<Vec<u8>>>,
    ) {
        for entry in std::fs::read_dir(dir).expect("read dir") {
            let path = entry.expect("entry").path();
            let rel = path
                .strip_prefix(root)
                .expect("inside")
                .display()
                .to_string();
            if path.is_dir() {
                out.insert(rel, None);
                walk(root, &path, out);
            } else {
                out.insert(rel, Some(std::fs::read(&path).expect("read")));
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Where planseal journals the GSD or checkpoint file `rel` of the workspace `root`
/// (`docs/journal.md`): in the git directory of the work tree when `root` is the root of a main
/// work tree (`.git/planseal/journals/<rel>.journal.ndjson`), else beside the file.
pub fn journal_of(root: &Path, rel: &str) -> PathBuf {
    let journal = format!("{rel}.journal.ndjson");
    if root.join(".git").is_dir() {
        root.join(".git/planseal/journals").join(journal)
    } else {
        root.join(journal)
    }
}

//! A throw-away git repository built without spawning `git`: init, then commit files of the work
//! tree with pinned author and committer, keeping the index in step so that the tree reads as
//! clean. Used by `planseal demo`; nothing else writes to a repository.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Why the scratch repository could not be built.
#[derive(Debug, thiserror::Error)]
#[error("scratch repository {path}: {message}")]
pub struct ScratchRepoError {
    /// The scratch repository's root folder.
    pub path: PathBuf,
    /// What failed, as gix or the file system said it.
    pub message: String,
}

/// A repository whose commits this process makes.
pub struct ScratchRepo {
    root: PathBuf,
    repo: gix::Repository,
    tracked: BTreeSet<String>,
    head: Option<gix::ObjectId>,
}

impl ScratchRepo {
    /// `git init` of `root` (which must exist), branch `main`.
    pub fn init(root: &Path) -> Result<Self, ScratchRepoError> {
        let repo = gix::init(root).map_err(|e| err(root, e))?;
        Ok(Self {
            root: root.to_path_buf(),
            repo,
            tracked: BTreeSet::new(),
            head: None,
        })
    }

    /// Commits the work-tree content of `paths` (relative, `/`-separated) plus every path
    /// committed before, as `name <email>` at `unix_seconds` UTC. Returns the full commit id.
    pub fn commit(
        &mut self,
        paths: &[&str],
        subject: &str,
        unix_seconds: i64,
    ) -> Result<String, ScratchRepoError> {
        for p in paths {
            self.tracked.insert((*p).to_string());
        }
        let empty = self.repo.empty_tree().id;
        let mut editor = self.repo.edit_tree(empty).map_err(|e| err(&self.root, e))?;
        for rel in &self.tracked {
            let bytes = std::fs::read(self.root.join(rel)).map_err(|e| err(&self.root, e))?;
            let blob = self
                .repo
                .write_blob(&bytes)
                .map_err(|e| err(&self.root, e))?
                .detach();
            editor
                .upsert(rel.as_str(), gix::object::tree::EntryKind::Blob, blob)
                .map_err(|e| err(&self.root, e))?;
        }
        let tree = editor.write().map_err(|e| err(&self.root, e))?.detach();
        let time = format!("{unix_seconds} +0000");
        let signature = gix::actor::SignatureRef {
            name: "planseal demo".into(),
            email: "demo@planseal.invalid".into(),
            time: &time,
        };
        let parents: Vec<gix::ObjectId> = self.head.into_iter().collect();
        let id = self
            .repo
            .commit_as(signature, signature, "HEAD", subject, tree, parents)
            .map_err(|e| err(&self.root, e))?
            .detach();
        self.head = Some(id);
        let mut index = self
            .repo
            .index_from_tree(&tree)
            .map_err(|e| err(&self.root, e))?;
        index
            .write(Default::default())
            .map_err(|e| err(&self.root, e))?;
        Ok(id.to_string())
    }
}

fn err(path: &Path, e: impl std::fmt::Display) -> ScratchRepoError {
    ScratchRepoError {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(root: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    #[test]
    fn commits_read_back_with_git_and_the_tree_is_clean() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join(".gitignore"), ".dwp/\n").unwrap();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("src/deep/a.txt"), "a\n").unwrap();
        let mut repo = ScratchRepo::init(root).unwrap();
        let first = repo
            .commit(
                &[".gitignore", "src/deep/a.txt"],
                "chore: base",
                1_790_000_000,
            )
            .unwrap();
        std::fs::write(root.join("b.txt"), "b\n").unwrap();
        std::fs::create_dir_all(root.join(".dwp/plans")).unwrap();
        std::fs::write(root.join(".dwp/plans/x"), "ignored").unwrap();
        let second = repo
            .commit(&["b.txt"], "feat: b - Task 1 of PLAN_x", 1_790_000_060)
            .unwrap();
        assert_eq!(git(root, &["rev-parse", "HEAD"]).trim(), second);
        assert_eq!(git(root, &["rev-parse", "HEAD~1"]).trim(), first);
        assert_eq!(
            git(root, &["log", "-1", "--format=%s|%an|%ct"]).trim(),
            "feat: b - Task 1 of PLAN_x|planseal demo|1790000060"
        );
        assert_eq!(git(root, &["status", "--porcelain"]), "");
        assert_eq!(
            git(root, &["symbolic-ref", "HEAD"]).trim(),
            "refs/heads/main"
        );
    }
}

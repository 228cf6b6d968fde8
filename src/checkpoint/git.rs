//! What the checkpoint commands read from git, through gix (no `git` process): the facts of
//! `## Git Recente`, and the checkpoint at a revision.

use super::generate::GitSummary;
use crate::recovery::git::{GitError, Repo};
use std::path::Path;

/// The `## Git Recente` facts of the repository at `root`; outside a repository there are no
/// commits.
pub fn summary(root: &Path) -> Result<GitSummary, GitError> {
    let Some(repo) = Repo::discover(root)? else {
        return Ok(GitSummary::default());
    };
    let head = repo.head()?;
    let commits = if head.id.is_some() {
        repo.last_commits(5)?
            .into_iter()
            .map(|c| (c.short, c.subject))
            .collect()
    } else {
        Vec::new()
    };
    Ok(GitSummary {
        commits,
        branch: head.branch,
        modified: repo.unstaged_tracked_count()?,
    })
}

/// The checkpoint at a revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AtRevision {
    /// `root` is not inside a git repository.
    NoRepository,
    /// The file did not exist at the revision.
    Absent,
    /// The file's bytes at the revision.
    Present(Vec<u8>),
}

/// The bytes of `checkpoint` at revision `rev` of the repository around `root`.
pub fn file_at(root: &Path, rev: &str, checkpoint: &Path) -> Result<AtRevision, GitError> {
    let Some(repo) = Repo::discover(root)? else {
        return Ok(AtRevision::NoRepository);
    };
    let rel = repo.relative_to_work_tree(checkpoint)?;
    Ok(match repo.file_at(rev, &rel)? {
        Some(bytes) => AtRevision::Present(bytes),
        None => AtRevision::Absent,
    })
}

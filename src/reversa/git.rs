//! The committed versions of a state file, read through gix (no `git` process).

use super::history::Version;
use crate::recovery::git::{GitError, HistoryOptions, Repo};
use std::path::Path;

/// The versions of `path` along the history of HEAD, oldest first; `None` when the file is not
/// inside a git repository.
pub fn versions(path: &Path) -> Result<Option<Vec<Version>>, GitError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let Some(repo) = Repo::discover(dir)? else {
        return Ok(None);
    };
    let rel = repo.relative_to_work_tree(path)?;
    let found = repo.file_versions(
        &rel,
        &HistoryOptions {
            with_content: true,
            ..Default::default()
        },
    )?;
    Ok(Some(
        found
            .versions
            .into_iter()
            .rev()
            .map(|v| Version {
                commit: v.commit.short,
                subject: v.commit.subject,
                bytes: v.blob_id.map(|_| v.content.unwrap_or_default()),
            })
            .collect(),
    ))
}

//! A file's versions along history, the way `git log -- PATH` finds them: a commit is a version
//! when the file's entry differs from the entry in every parent. The entry is found level by
//! level, and the answer for each (tree, depth) is cached, so a subtree shared by many commits is
//! read once and a blob is read only for a version the caller keeps.

use super::walk::{ParsedCommit, Walker};
use super::{CommitInfo, GitError, Repo};
use gix::ObjectId;
use gix::objs::FindExt;

/// How far and how to walk a file's history.
#[derive(Debug, Clone, Default)]
pub struct HistoryOptions {
    /// Follow only first parents (`git log --first-parent`).
    pub first_parent: bool,
    /// Stop after this many versions.
    pub limit: Option<usize>,
    /// Read the blob of each version.
    pub with_content: bool,
    /// Start here instead of `HEAD` (a revision or hex prefix).
    pub start: Option<String>,
}

/// One version of the file: the commit that made it, and what it made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileVersion {
    /// The commit at which the file took this content (or was deleted).
    pub commit: CommitInfo,
    /// The file's blob id after this commit; `None` when the commit deleted it.
    pub blob_id: Option<String>,
    /// The blob's bytes (only with [`HistoryOptions::with_content`], and only when present).
    pub content: Option<Vec<u8>>,
}

/// A file's versions, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileHistory {
    /// Every version found, newest first; at most [`HistoryOptions::limit`] of them.
    pub versions: Vec<FileVersion>,
    /// Commits looked at.
    pub walked: u64,
    /// The walk reached the boundary of a shallow clone.
    pub truncated: bool,
}

/// Looks one path up in trees, remembering the answer for every (tree, depth) it passed.
struct PathLookup<'r> {
    repo: &'r Repo,
    components: Vec<Vec<u8>>,
    /// Per depth: tree id → the answer for the rest of the path below that tree.
    cache: Vec<gix::hashtable::HashMap<ObjectId, Option<ObjectId>>>,
    buf: Vec<u8>,
}

impl<'r> PathLookup<'r> {
    fn new(repo: &'r Repo, path: &str) -> Self {
        let components: Vec<Vec<u8>> = path
            .split('/')
            .filter(|c| !c.is_empty() && *c != ".")
            .map(|c| c.as_bytes().to_vec())
            .collect();
        PathLookup {
            repo,
            cache: components.iter().map(|_| Default::default()).collect(),
            components,
            buf: Vec::new(),
        }
    }

    /// The id of the entry at the path inside `root`, `None` when it does not exist.
    fn entry_in(&mut self, root: ObjectId) -> Result<Option<ObjectId>, GitError> {
        if self.components.is_empty() {
            return Ok(None);
        }
        let mut passed: Vec<(ObjectId, usize)> = Vec::new();
        let mut tree = root;
        let mut depth = 0usize;
        let answer = loop {
            if let Some(known) = self.cache[depth].get(&tree) {
                break *known;
            }
            passed.push((tree, depth));
            let objects = &self.repo.gix().objects;
            let entries = objects
                .find_tree_iter(&tree, &mut self.buf)
                .map_err(|e| GitError::object("tree", tree, e))?;
            let wanted = self.components[depth].as_slice();
            let mut found = None;
            for entry in entries {
                let entry = entry.map_err(|e| GitError::object("tree", tree, e))?;
                if entry.filename.as_ref() as &[u8] == wanted {
                    found = Some((entry.oid.to_owned(), entry.mode.is_tree()));
                    break;
                }
            }
            match found {
                None => break None,
                Some((id, _)) if depth + 1 == self.components.len() => break Some(id),
                Some((id, true)) => {
                    tree = id;
                    depth += 1;
                }
                Some((_, false)) => break None,
            }
        };
        for (tree, depth) in passed {
            self.cache[depth].insert(tree, answer);
        }
        Ok(answer)
    }
}

impl Repo {
    /// The versions of `path` (relative to the work tree root, `/`-separated), newest first,
    /// walking from `HEAD` (or `options.start`). Merges follow git's default simplification: a
    /// merge whose file equals one parent's is no version, and only that parent is followed.
    pub fn file_versions(
        &self,
        path: &str,
        options: &HistoryOptions,
    ) -> Result<FileHistory, GitError> {
        let mut history = FileHistory::default();
        let start = match &options.start {
            Some(rev) => Some(self.resolve_commit(rev)?),
            None => self.head_commit_id()?,
        };
        let Some(start) = start else {
            return Ok(history);
        };
        let mut lookup = PathLookup::new(self, path);
        let mut walker = Walker::new(self, "file history");
        walker.first_parent = options.first_parent;
        if self.newest_trees_are_deep(start)? {
            // The trees sit at the far end of their delta chains (a fast-import pack, or an
            // unrepacked import): reading them newest first would resolve each chain anew, so
            // look the path up oldest first — each tree's delta base is then the previous one,
            // still in the pack cache — and let the real walk reuse the answers.
            let mut warm = Walker::new(self, "file history");
            warm.first_parent = options.first_parent;
            warm.push(start)?;
            let mut nodes = Vec::new();
            while let Some(mut node) = warm.next_node() {
                let parents = std::mem::take(&mut node.parents);
                warm.follow(&node, &parents)?;
                node.parents = parents;
                node.raw = None;
                node.parsed = None;
                nodes.push(node);
            }
            for node in nodes.iter().rev() {
                lookup.entry_in(node.tree)?;
            }
            walker.set_preloaded(warm.into_preloaded(nodes));
        }
        walker.push(start)?;
        let mut commit_buf = Vec::new();
        while let Some(mut node) = walker.next_node() {
            let here = lookup.entry_in(node.tree)?;
            let parents = std::mem::take(&mut node.parents);
            let considered = if options.first_parent {
                &parents[..parents.len().min(1)]
            } else {
                &parents[..]
            };
            let mut same_as: Option<ObjectId> = None;
            let mut changed = true;
            if considered.is_empty() {
                changed = here.is_some();
            } else if !walker_is_boundary(self, &node.id) {
                for parent in considered {
                    let Some(parent_tree) = walker.tree_of(*parent)? else {
                        continue;
                    };
                    if lookup.entry_in(parent_tree)? == here {
                        same_as = Some(*parent);
                        changed = false;
                        break;
                    }
                }
            } else {
                // The boundary commit's parents are not here: like git, treat it as a root.
                changed = here.is_some();
            }
            if changed {
                let mut parsed = walker.commit(&mut node)?;
                parsed.parents = parents.clone();
                let commit = self.info_from_parsed(&parsed);
                let content = match (options.with_content, here) {
                    (true, Some(blob)) => Some(
                        self.gix()
                            .objects
                            .find_blob(&blob, &mut commit_buf)
                            .map_err(|e| GitError::object(&format!("the {path} blob"), blob, e))?
                            .data
                            .to_vec(),
                    ),
                    _ => None,
                };
                history.versions.push(FileVersion {
                    commit,
                    blob_id: here.map(|id| id.to_hex().to_string()),
                    content,
                });
                if options.limit.is_some_and(|n| history.versions.len() >= n) {
                    break;
                }
            }
            match same_as {
                Some(parent) if !options.first_parent => walker.follow(&node, &[parent])?,
                _ => walker.follow(&node, &parents)?,
            }
        }
        walker.finish();
        history.walked = walker.walked;
        history.truncated = walker.truncated;
        Ok(history)
    }

    /// Whether `HEAD`'s tree holds `path` as a file or folder (`false` on an unborn branch). A
    /// few tree reads, whatever the size of the repository — unlike loading the index.
    pub fn in_head_tree(&self, path: &str) -> Result<bool, GitError> {
        let Some(commit) = self.head_commit_id()? else {
            return Ok(false);
        };
        let mut buf = Vec::new();
        let raw = self.read_commit_raw(commit, &mut buf)?;
        let tree = ParsedCommit::parse(commit, raw)?.tree;
        let mut lookup = PathLookup::new(self, path.trim_end_matches('/'));
        Ok(lookup.entry_in(tree)?.is_some())
    }

    /// The bytes of `path` at revision `rev`; `Ok(None)` when the file does not exist there.
    pub fn file_at(&self, rev: &str, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        let commit = self.resolve_commit(rev)?;
        let mut buf = Vec::new();
        let raw = self.read_commit_raw(commit, &mut buf)?;
        let tree = ParsedCommit::parse(commit, raw)?.tree;
        let mut lookup = PathLookup::new(self, path);
        let Some(blob) = lookup.entry_in(tree)? else {
            return Ok(None);
        };
        let mut blob_buf = Vec::new();
        match self.gix().objects.find_blob(&blob, &mut blob_buf) {
            Ok(data) => Ok(Some(data.data.to_vec())),
            // The path names a tree or a submodule there, not a file.
            Err(_) => Ok(None),
        }
    }
}

fn walker_is_boundary(repo: &Repo, id: &ObjectId) -> bool {
    repo.is_shallow_boundary(id)
}

/// How many deltas the root trees of the newest commits need, on average, above which the
/// oldest-first warm-up pays.
const DEEP_CHAIN: u32 = 4;

impl Repo {
    /// Whether [`Repo::file_versions`] from `rev` reads trees oldest first (see
    /// `newest_trees_are_deep`); a diagnostic for tests and benchmarks.
    pub fn trees_read_oldest_first(&self, rev: &str) -> Result<bool, GitError> {
        let start = self.resolve_commit(rev)?;
        self.newest_trees_are_deep(start)
    }

    /// Do the root trees of the newest commits (up to 8 along first parents) sit deep in delta
    /// chains? Git's own repacks put the newest objects near the chain heads; imports do not.
    fn newest_trees_are_deep(&self, start: ObjectId) -> Result<bool, GitError> {
        use gix::odb::HeaderExt;
        let mut id = start;
        let mut total = 0u32;
        let mut seen = 0u32;
        let mut buf = Vec::new();
        for _ in 0..8 {
            let Ok(raw) = self.read_commit_raw(id, &mut buf) else {
                break;
            };
            let parsed = ParsedCommit::parse(id, raw)?;
            let (tree, parent) = (parsed.tree, parsed.parents.first().copied());
            if let Ok(gix::odb::find::Header::Packed(h)) = self.gix().objects.header(tree) {
                total += h.num_deltas;
            }
            seen += 1;
            match parent {
                Some(p) if !self.is_shallow_boundary(&id) => id = p,
                _ => break,
            }
        }
        Ok(seen >= 4 && total / seen >= DEEP_CHAIN)
    }
}

impl Walker<'_> {
    /// The root tree of commit `id` without queueing it; `None` when the commit is not in the
    /// repository (beyond a shallow boundary).
    pub(crate) fn tree_of(&mut self, id: ObjectId) -> Result<Option<ObjectId>, GitError> {
        if let Some(tree) = self.known_tree(&id) {
            return Ok(Some(tree));
        }
        match self.load_detached(id) {
            Ok(tree) => Ok(Some(tree)),
            Err(_) if self.repo_is_shallow() => {
                self.truncated = true;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

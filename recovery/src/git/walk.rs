//! The one rev-walk every history question uses: from a start commit over all parents (or the
//! first parent only), newest committer time first, each commit visited once. Parents, times and
//! root trees come from the commit-graph when it has the commit; the commit object is read only
//! when the caller needs the message or the graph lacks it.

use super::{CommitInfo, CommitTime, GitError, Repo};
use gix::ObjectId;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// What a message predicate answers for one commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scan {
    /// Not interesting; keep walking.
    Skip,
    /// Keep this commit; keep walking.
    Take,
    /// Keep this commit and stop.
    TakeAndStop,
    /// Stop without keeping this commit.
    Stop,
}

/// The commits a [`Repo::scan_messages`] walk kept, newest committer time first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MessageScan {
    /// The kept commits, in walk order (newest committer time first).
    pub commits: Vec<CommitInfo>,
    /// Commits looked at.
    pub walked: u64,
    /// The walk reached the boundary of a shallow clone: older commits could not be read.
    pub truncated: bool,
    /// The predicate stopped the walk before history ran out.
    pub stopped_early: bool,
}

/// Walks longer than this are not kept for replay (their memo would cost more memory than a
/// second walk costs time).
const WALK_MEMO_LIMIT: usize = 250_000;

/// What one complete walk of [`Repo::scan_ids`] saw, in walk order, for the next walk from the
/// same HEAD to replay.
#[derive(Debug)]
pub(crate) struct WalkMemo {
    head: ObjectId,
    commits: Vec<(ObjectId, String)>,
    /// How many commits had been walked when the walk first met a shallow boundary.
    truncated_after: Option<usize>,
}

/// A commit's header fields, decoded from its raw bytes.
pub(crate) struct ParsedCommit<'a> {
    pub tree: ObjectId,
    pub parents: Vec<ObjectId>,
    pub time: CommitTime,
    pub message: &'a [u8],
    pub id: ObjectId,
}

impl<'a> ParsedCommit<'a> {
    /// Reads the headers git needs here (tree, parents, committer time) and finds the message.
    /// A hand-written reader: the walk parses every commit, and the generic tokenizer also
    /// decodes author signatures nobody asked for. Continuation lines of multi-line headers
    /// (`gpgsig`, `mergetag`) start with a space and are skipped.
    pub(crate) fn parse(id: ObjectId, data: &'a [u8]) -> Result<ParsedCommit<'a>, GitError> {
        let bad = |what: &str| GitError::object("commit", id, format!("malformed commit: {what}"));
        let mut tree = None;
        let mut parents = Vec::with_capacity(1);
        let mut time = None;
        let mut message: &[u8] = &[];
        let mut rest = data;
        while !rest.is_empty() {
            let (line, after) = match rest.iter().position(|b| *b == b'\n') {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, &rest[rest.len()..]),
            };
            if line.is_empty() {
                message = after;
                break;
            }
            if let Some(hex) = line.strip_prefix(b"tree ") {
                tree = Some(ObjectId::from_hex(hex).map_err(|_| bad("tree id"))?);
            } else if let Some(hex) = line.strip_prefix(b"parent ") {
                parents.push(ObjectId::from_hex(hex).map_err(|_| bad("parent id"))?);
            } else if let Some(sig) = line.strip_prefix(b"committer ") {
                time = Some(signature_time(sig).ok_or_else(|| bad("committer time"))?);
            }
            rest = after;
        }
        Ok(ParsedCommit {
            tree: tree.ok_or_else(|| bad("no tree"))?,
            parents,
            time: time.ok_or_else(|| bad("no committer"))?,
            message,
            id,
        })
    }

    /// First line of the message, without `\r`.
    pub(crate) fn subject(&self) -> std::borrow::Cow<'a, str> {
        let line = self
            .message
            .split(|b| *b == b'\n')
            .next()
            .unwrap_or_default();
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        String::from_utf8_lossy(line)
    }
}

/// `<seconds> <+hhmm>` after the last `>` of a signature line.
fn signature_time(sig: &[u8]) -> Option<CommitTime> {
    let gt = sig.iter().rposition(|b| *b == b'>')?;
    let text = std::str::from_utf8(&sig[gt + 1..]).ok()?;
    let mut parts = text.split_ascii_whitespace();
    let seconds: i64 = parts.next()?.parse().ok()?;
    let tz = parts.next().unwrap_or("+0000");
    let (sign, digits) = match tz.as_bytes().first() {
        Some(b'-') => (-1, &tz[1..]),
        Some(b'+') => (1, &tz[1..]),
        _ => (1, tz),
    };
    let offset_seconds = if digits.len() == 4 && digits.bytes().all(|b| b.is_ascii_digit()) {
        let hh: i32 = digits[..2].parse().ok()?;
        let mm: i32 = digits[2..].parse().ok()?;
        sign * (hh * 3600 + mm * 60)
    } else {
        0
    };
    Some(CommitTime {
        seconds,
        offset_seconds,
    })
}

/// One commit as the walker holds it.
pub(crate) struct Node {
    pub id: ObjectId,
    pub seconds: i64,
    pub parents: Vec<ObjectId>,
    pub tree: ObjectId,
    /// Raw commit bytes, when they had to be read already.
    pub raw: Option<Vec<u8>>,
    /// Where the message starts in `raw` and the full committer time, once `raw` was parsed.
    pub parsed: Option<(usize, CommitTime)>,
}

/// A queued commit, ordered by committer time (newest first), then by queueing order.
struct Queued {
    seconds: i64,
    order: Reverse<u64>,
    node: Node,
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        (self.seconds, self.order) == (other.seconds, other.order)
    }
}
impl Eq for Queued {}
impl Ord for Queued {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.seconds, self.order).cmp(&(other.seconds, other.order))
    }
}
impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

pub(crate) struct Walker<'r> {
    repo: &'r Repo,
    graph: Option<gix::commitgraph::Graph>,
    heap: BinaryHeap<Queued>,
    seen: gix::hashtable::HashSet<ObjectId>,
    /// Root trees of commits loaded so far (parents inspected but not followed included).
    trees: gix::hashtable::HashMap<ObjectId, ObjectId>,
    /// Commits an earlier walk already read (their parents, time and tree), so that a second
    /// walk over them reads no commit object again.
    preloaded: gix::hashtable::HashMap<ObjectId, Node>,
    /// Remember root trees of queued commits (file histories ask for parents' trees).
    pub track_trees: bool,
    seq: u64,
    pub first_parent: bool,
    pub truncated: bool,
    pub walked: u64,
    task: &'static str,
}

const PROGRESS_EVERY: u64 = 512;

impl<'r> Walker<'r> {
    pub(crate) fn new(repo: &'r Repo, task: &'static str) -> Self {
        Self::with_graph(repo, task, true)
    }

    /// `use_graph: false` for walks that read every commit object anyway (message scans): the
    /// graph would only add lookups.
    pub(crate) fn with_graph(repo: &'r Repo, task: &'static str, use_graph: bool) -> Self {
        // A broken or absent commit-graph is only a missed speed-up.
        let graph = if use_graph {
            repo.gix().commit_graph_if_enabled().ok().flatten()
        } else {
            None
        };
        Walker {
            repo,
            graph,
            heap: BinaryHeap::new(),
            seen: Default::default(),
            trees: Default::default(),
            preloaded: Default::default(),
            track_trees: use_graph,
            seq: 0,
            first_parent: false,
            truncated: false,
            walked: 0,
            task,
        }
    }

    fn load(&self, id: ObjectId) -> Result<Node, GitError> {
        if let Some(graph) = &self.graph
            && let Some(commit) = graph.commit_by_id(id)
        {
            let mut parents = Vec::with_capacity(1);
            for pos in commit.iter_parents() {
                let pos = pos.map_err(|e| GitError::read("the commit-graph", e))?;
                parents.push(graph.id_at(pos).to_owned());
            }
            return Ok(Node {
                id,
                seconds: i64::try_from(commit.committer_timestamp()).unwrap_or(i64::MAX),
                parents,
                tree: commit.root_tree_id().to_owned(),
                raw: None,
                parsed: None,
            });
        }
        if let Some(node) = self.preloaded.get(&id) {
            return Ok(Node {
                id,
                seconds: node.seconds,
                parents: node.parents.clone(),
                tree: node.tree,
                raw: None,
                parsed: None,
            });
        }
        let mut buf = Vec::new();
        self.repo.read_commit_raw(id, &mut buf)?;
        let parsed = ParsedCommit::parse(id, &buf)?;
        let message_start = parsed.message.as_ptr() as usize - buf.as_ptr() as usize;
        let time = parsed.time;
        let (parents, tree) = (parsed.parents, parsed.tree);
        Ok(Node {
            id,
            seconds: time.seconds,
            parents,
            tree,
            raw: Some(buf),
            parsed: Some((message_start, time)),
        })
    }

    /// Queues `id` unless it was queued before. A commit missing from a shallow clone marks the
    /// walk truncated instead of failing it; one that is there but cannot be read (corrupt,
    /// permission denied) fails the walk in every repository: what lies behind it is unknown.
    pub(crate) fn push(&mut self, id: ObjectId) -> Result<(), GitError> {
        if !self.seen.insert(id) {
            return Ok(());
        }
        let node = match self.load(id) {
            Ok(node) => node,
            Err(e) => {
                if self.repo.is_shallow() && matches!(e, GitError::Missing { .. }) {
                    self.truncated = true;
                    return Ok(());
                }
                return Err(e);
            }
        };
        self.seq += 1;
        if self.track_trees {
            self.trees.insert(id, node.tree);
        }
        self.heap.push(Queued {
            seconds: node.seconds,
            order: Reverse(self.seq),
            node,
        });
        Ok(())
    }

    pub(crate) fn known_tree(&self, id: &ObjectId) -> Option<ObjectId> {
        self.trees.get(id).copied()
    }

    /// Loads a commit only to learn its root tree (remembered for a later `push`).
    pub(crate) fn load_detached(&mut self, id: ObjectId) -> Result<ObjectId, GitError> {
        let node = self.load(id)?;
        self.trees.insert(id, node.tree);
        Ok(node.tree)
    }

    pub(crate) fn repo_is_shallow(&self) -> bool {
        self.repo.is_shallow()
    }

    /// Queues the parents of `node` this walk follows. At the shallow boundary there are none to
    /// read: the walk is marked truncated.
    pub(crate) fn follow(&mut self, node: &Node, parents: &[ObjectId]) -> Result<(), GitError> {
        if self.repo.is_shallow_boundary(&node.id) {
            self.truncated = true;
            return Ok(());
        }
        let parents = if self.first_parent {
            &parents[..parents.len().min(1)]
        } else {
            parents
        };
        for p in parents {
            self.push(*p)?;
        }
        Ok(())
    }

    /// The next commit, newest committer time first.
    pub(crate) fn next_node(&mut self) -> Option<Node> {
        let queued = self.heap.pop()?;
        self.walked += 1;
        if self.walked.is_multiple_of(PROGRESS_EVERY) {
            self.repo.report(self.task, self.walked, false);
        }
        Some(queued.node)
    }

    /// `node`'s commit decoded: read now if the graph supplied the node, parsed only once.
    pub(crate) fn commit<'n>(&self, node: &'n mut Node) -> Result<ParsedCommit<'n>, GitError> {
        if node.raw.is_none() || node.parsed.is_none() {
            let mut buf = Vec::new();
            self.repo.read_commit_raw(node.id, &mut buf)?;
            let parsed = ParsedCommit::parse(node.id, &buf)?;
            let start = parsed.message.as_ptr() as usize - buf.as_ptr() as usize;
            node.parsed = Some((start, parsed.time));
            node.raw = Some(buf);
        }
        let raw = node.raw.as_deref().unwrap_or_default();
        let (start, time) = node.parsed.unwrap_or((raw.len(), CommitTime::default()));
        Ok(ParsedCommit {
            tree: node.tree,
            parents: node.parents.clone(),
            time,
            message: raw.get(start..).unwrap_or_default(),
            id: node.id,
        })
    }

    /// Keeps the nodes this walk produced for a later walk (see `preloaded`).
    pub(crate) fn into_preloaded(
        self,
        nodes: Vec<Node>,
    ) -> gix::hashtable::HashMap<ObjectId, Node> {
        nodes.into_iter().map(|n| (n.id, n)).collect()
    }

    pub(crate) fn set_preloaded(&mut self, preloaded: gix::hashtable::HashMap<ObjectId, Node>) {
        self.preloaded = preloaded;
    }

    pub(crate) fn finish(&self) {
        if self.walked >= PROGRESS_EVERY {
            self.repo.report(self.task, self.walked, true);
        }
    }
}

impl Repo {
    pub(crate) fn info_from_parsed(&self, parsed: &ParsedCommit<'_>) -> CommitInfo {
        CommitInfo {
            id: parsed.id.to_hex().to_string(),
            short: self.short_id(parsed.id),
            subject: parsed.subject().into_owned(),
            committer_time: parsed.time,
            parents: parsed
                .parents
                .iter()
                .map(|p| p.to_hex().to_string())
                .collect(),
        }
    }

    /// Walks every commit reachable from `HEAD` (all parents), newest committer time first,
    /// handing each one's subject (first line) and full message to `predicate`; no tree is
    /// read. An unborn `HEAD` gives an empty scan.
    pub fn scan_messages(
        &self,
        mut predicate: impl FnMut(&str, &[u8]) -> Scan,
    ) -> Result<MessageScan, GitError> {
        let mut scan = MessageScan::default();
        let Some(head) = self.head_commit_id()? else {
            return Ok(scan);
        };
        let mut walker = Walker::with_graph(self, "commits", false);
        walker.push(head)?;
        while let Some(mut node) = walker.next_node() {
            let parents = std::mem::take(&mut node.parents);
            let mut parsed = walker.commit(&mut node)?;
            let verdict = predicate(&parsed.subject(), parsed.message);
            if matches!(verdict, Scan::Take | Scan::TakeAndStop) {
                parsed.parents = parents.clone();
                scan.commits.push(self.info_from_parsed(&parsed));
            }
            if matches!(verdict, Scan::TakeAndStop | Scan::Stop) {
                scan.stopped_early = true;
                break;
            }
            walker.follow(&node, &parents)?;
        }
        walker.finish();
        scan.walked = walker.walked;
        scan.truncated = walker.truncated;
        Ok(scan)
    }

    /// One walk from `HEAD` over all parents, newest committer time first, that hands each
    /// commit's full hex id and subject to `visit` — the walk `verify` makes once per repository
    /// to learn, together, which commits name a plan's tasks and which recorded commits `HEAD`
    /// reaches, stopping as soon as it knows enough (`Scan::Stop`). Kept commits are returned
    /// as in [`Repo::scan_messages`]; no tree is read.
    pub fn scan_ids(
        &self,
        mut visit: impl FnMut(&str, &str) -> Scan,
    ) -> Result<MessageScan, GitError> {
        if let Some(scan) = self.replay_ids(&mut visit)? {
            return Ok(scan);
        }
        let mut scan = MessageScan::default();
        let Some(head) = self.head_commit_id()? else {
            return Ok(scan);
        };
        let mut walker = Walker::with_graph(self, "commits", false);
        walker.push(head)?;
        let mut hex = [0u8; 40];
        let mut memo = Some(WalkMemo {
            head,
            commits: Vec::new(),
            truncated_after: None,
        });
        while let Some(mut node) = walker.next_node() {
            let parents = std::mem::take(&mut node.parents);
            let oid = node.id;
            let id: &str = oid.hex_to_buf(&mut hex);
            let mut parsed = walker.commit(&mut node)?;
            let subject = parsed.subject();
            let verdict = visit(id, &subject);
            if let Some(m) = &mut memo {
                if m.commits.len() < WALK_MEMO_LIMIT {
                    m.commits.push((oid, subject.to_string()));
                } else {
                    memo = None;
                }
            }
            if matches!(verdict, Scan::Take | Scan::TakeAndStop) {
                parsed.parents = parents.clone();
                scan.commits.push(self.info_from_parsed(&parsed));
            }
            if matches!(verdict, Scan::TakeAndStop | Scan::Stop) {
                scan.stopped_early = true;
                break;
            }
            walker.follow(&node, &parents)?;
            if let Some(m) = &mut memo
                && walker.truncated
                && m.truncated_after.is_none()
            {
                m.truncated_after = Some(m.commits.len());
            }
        }
        walker.finish();
        scan.walked = walker.walked;
        scan.truncated = walker.truncated;
        // Only a walk that ran to the end of history can answer every later question.
        if !scan.stopped_early {
            *self.walk_memo.borrow_mut() = memo;
        }
        Ok(scan)
    }

    /// [`Repo::scan_ids`] from the memo of an earlier complete walk from the same HEAD, or
    /// `None` when there is none.
    fn replay_ids(
        &self,
        visit: &mut impl FnMut(&str, &str) -> Scan,
    ) -> Result<Option<MessageScan>, GitError> {
        let memo = self.walk_memo.borrow();
        let Some(memo) = memo.as_ref() else {
            return Ok(None);
        };
        if self.head_commit_id()? != Some(memo.head) {
            return Ok(None);
        }
        let mut scan = MessageScan::default();
        let mut hex = [0u8; 40];
        for (oid, subject) in &memo.commits {
            scan.walked += 1;
            let id: &str = oid.hex_to_buf(&mut hex);
            let verdict = visit(id, subject);
            if matches!(verdict, Scan::Take | Scan::TakeAndStop)
                && let Some(info) = self.find_commit(id)?
            {
                scan.commits.push(info);
            }
            if matches!(verdict, Scan::TakeAndStop | Scan::Stop) {
                scan.stopped_early = true;
                break;
            }
        }
        scan.truncated = memo
            .truncated_after
            .is_some_and(|n| scan.walked as usize >= n);
        Ok(Some(scan))
    }

    /// The `n` most recent commits reachable from `HEAD` (what `git log -n N` lists).
    pub fn last_commits(&self, n: usize) -> Result<Vec<CommitInfo>, GitError> {
        let mut taken = 0usize;
        if n == 0 {
            return Ok(Vec::new());
        }
        let scan = self.scan_messages(|_, _| {
            taken += 1;
            if taken >= n {
                Scan::TakeAndStop
            } else {
                Scan::Take
            }
        })?;
        Ok(scan.commits)
    }

    /// Is `ancestor` reachable from `descendant` (a commit is its own ancestor, as with
    /// `git merge-base --is-ancestor`)? Both are revisions or hex prefixes. `None` when the
    /// answer lies beyond the boundary of a shallow clone.
    pub fn is_ancestor(&self, ancestor: &str, descendant: &str) -> Result<Option<bool>, GitError> {
        let a = self.resolve_commit(ancestor)?;
        let b = self.resolve_commit(descendant)?;
        let mut walker = Walker::new(self, "ancestry");
        walker.push(b)?;
        while let Some(mut node) = walker.next_node() {
            if node.id == a {
                return Ok(Some(true));
            }
            let parents = std::mem::take(&mut node.parents);
            walker.follow(&node, &parents)?;
        }
        walker.finish();
        Ok(if walker.truncated { None } else { Some(false) })
    }

    /// Every commit id reachable from `HEAD`, and whether the walk hit a shallow boundary.
    /// One walk answers "is it an ancestor of HEAD" for many commits.
    pub fn reachable_from_head(&self) -> Result<(Vec<String>, bool), GitError> {
        let Some(head) = self.head_commit_id()? else {
            return Ok((Vec::new(), false));
        };
        let mut walker = Walker::new(self, "commits");
        walker.push(head)?;
        let mut ids = Vec::new();
        while let Some(mut node) = walker.next_node() {
            ids.push(node.id.to_hex().to_string());
            let parents = std::mem::take(&mut node.parents);
            walker.follow(&node, &parents)?;
        }
        walker.finish();
        Ok((ids, walker.truncated))
    }

    pub(crate) fn resolve_commit(&self, rev: &str) -> Result<ObjectId, GitError> {
        let unknown = || GitError::UnknownRevision {
            rev: rev.to_string(),
        };
        if let Some(info) = self.lookup_commit_id_public(rev)? {
            return Ok(info);
        }
        let id = self.resolve(rev)?.ok_or_else(unknown)?;
        ObjectId::from_hex(id.as_bytes()).map_err(|_| unknown())
    }

    fn lookup_commit_id_public(&self, rev: &str) -> Result<Option<ObjectId>, GitError> {
        if rev.len() >= 4 && rev.bytes().all(|b| b.is_ascii_hexdigit()) {
            return self
                .find_commit(rev)
                .map(|found| found.and_then(|c| ObjectId::from_hex(c.id.as_bytes()).ok()));
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id() -> ObjectId {
        ObjectId::from_hex(b"8ec9422f017f8d1f00e2dc88ac4b2367b3fc5801").expect("hex")
    }

    /// The hand-written reader agrees with gix's tokenizer.
    fn same_as_gix(data: &[u8]) {
        let ours = ParsedCommit::parse(id(), data).expect("parses");
        let theirs =
            gix::objs::CommitRef::from_bytes(data, gix::hash::Kind::Sha1).expect("gix parses");
        assert_eq!(ours.tree, theirs.tree());
        assert_eq!(ours.parents, theirs.parents().collect::<Vec<_>>());
        let t = theirs.committer().expect("committer").time().expect("time");
        assert_eq!(
            (ours.time.seconds, ours.time.offset_seconds),
            (t.seconds, t.offset)
        );
        assert_eq!(ours.message, theirs.message.as_ref() as &[u8]);
    }

    #[test]
    fn plain_merge_and_signed_commits() {
        same_as_gix(b"tree 0684d9243279d0b1599a7fc80aa427b40a85634e\nparent 49a4d7ebed977a49892c2a4ccd8c9e5a784e4422\nauthor A <a@x> 1791190440 +0000\ncommitter C <c@x> 1791190500 +0130\n\nfeat: x - Task 1 of PLAN_a\n\nbody\n");
        same_as_gix(b"tree 0684d9243279d0b1599a7fc80aa427b40a85634e\nparent 49a4d7ebed977a49892c2a4ccd8c9e5a784e4422\nparent f52b629ec708782157c42c86d85a817ead37d649\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 2 -0800\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQ\n -----END PGP SIGNATURE-----\n\nMerge branch 'side'\n");
        same_as_gix(b"tree 0684d9243279d0b1599a7fc80aa427b40a85634e\nauthor A <a@x> 1 +0000\ncommitter Odd > Name <c@x> 1791190500 +0000\nencoding ISO-8859-1\n\nroot");
        let p = ParsedCommit::parse(id(), b"tree 0684d9243279d0b1599a7fc80aa427b40a85634e\ncommitter C <c@x> 5 +0000\n\n  Subject  \r\nbody").expect("parses");
        assert_eq!(p.subject(), "  Subject  ");
        assert!(ParsedCommit::parse(id(), b"parent x\n\n").is_err());
        assert!(
            ParsedCommit::parse(
                id(),
                b"tree 0684d9243279d0b1599a7fc80aa427b40a85634e\n\nno committer"
            )
            .is_err()
        );
    }
}

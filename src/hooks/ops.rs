//! `planseal hooks install|uninstall --claude|--merge`. `--claude` (`docs/claude-code.md`): the
//! Claude Code settings file of `--scope`, edited by [`super::claude`] and written through
//! [`crate::write`] under planseal's lock folder (its `.claude` folder made when missing and
//! removed when an uninstall leaves it empty).
//!
//! `--merge` (`docs/merge.md`): the files git reads the merge
//! driver from — the repository's config (the common git directory's `config`, shared by every
//! linked work tree) and the work tree's `.gitattributes` — found through gix, edited by
//! [`super::merge`], written through [`crate::write`] (atomic, durable; every other byte kept).
//!
//! The config is locked the way git locks it (`config.lock`, created exclusively and holding the
//! writer's pid), so planseal and `git config` never write it at the same time; `.gitattributes`
//! takes planseal's lock folder. Neither file is plan state: no journal line is written.
//! Installing twice changes nothing; uninstalling after installing gives both files back byte
//! for byte (a `.gitattributes` that install created and that holds nothing else is removed).

use super::claude::{self, Commands, Scope};
use super::git::{self, GitHook};
use super::merge;
use crate::recovery::git::Repo;
use crate::recovery::read::{Kind, read};
use crate::recovery::store::LockStyle;
use crate::report::text::unified_diff;
use crate::report::{HintedError, Refusal, RefusalKind};
use crate::write::{Confirmation, Target, WriteError, Writer};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Which way the registration goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Add the entries.
    Install,
    /// Remove them.
    Uninstall,
}

/// What `hooks install|uninstall` is asked.
#[derive(Debug, Clone)]
pub struct HooksRequest {
    /// Install or uninstall.
    pub action: Action,
    /// `--merge`: the merge driver's entries.
    pub merge: bool,
    /// `--claude`: Claude Code's status line and hooks, in the settings file of `scope`.
    pub claude: bool,
    /// `--scope`: which Claude Code settings file.
    pub scope: Scope,
    /// The user's home folder (`HOME`), for `--scope user`.
    pub home: Option<PathBuf>,
    /// `--git`: planseal's git hooks ([`HooksRequest::git_hooks`]).
    pub git: bool,
    /// `--git-hook`: which git hooks (empty: pre-commit).
    pub git_hooks: Vec<GitHook>,
    /// A folder inside the repository (the working folder).
    pub dir: PathBuf,
    /// The program git should run as the driver (this planseal's own path).
    pub program: String,
    /// Show the change as a diff; write nothing.
    pub dry_run: bool,
    /// The clock for the lock owner's record.
    pub clock: crate::clock::Clock,
}

/// One file the command changes (or would).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FileChange {
    /// The file, as shown (relative to the work tree when inside it).
    pub file: String,
    /// Whether its bytes change.
    pub changed: bool,
    #[serde(skip)]
    path: PathBuf,
    #[serde(skip)]
    before: Option<Vec<u8>>,
    #[serde(skip)]
    after: Option<Vec<u8>>,
    /// A folder to create before writing the file (install) or to remove when the removal of
    /// the file leaves it empty (uninstall): Claude Code's `.claude`.
    #[serde(skip)]
    folder: Option<PathBuf>,
    /// The permission bits the file is written with (`None`: the file's own, as it is).
    #[serde(skip)]
    mode: Option<u32>,
}

/// What the command did (or, with `--dry-run`, would do).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct HooksOutcome {
    /// `applied`, `unchanged` (nothing to do) or `ok` (a dry run).
    pub result: &'static str,
    /// `install` or `uninstall`.
    pub action: Action,
    /// The kinds of hook concerned (`claude`, `merge`, `git`).
    pub hooks: Vec<&'static str>,
    /// `--git`: the git hooks concerned (`pre-commit`, `pre-push`, `commit-msg`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub git_hooks: Vec<GitHook>,
    /// The files concerned, in write order.
    pub files: Vec<FileChange>,
    /// The unified diff of every change (empty when nothing changes).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub diff: String,
    /// Whether the files were written.
    pub written: bool,
    /// What the writes could not confirm.
    #[serde(skip)]
    pub confirmation: Confirmation,
}

impl HooksOutcome {
    /// The text output.
    pub fn to_text(&self) -> String {
        let changed: Vec<&str> = self
            .files
            .iter()
            .filter(|f| f.changed)
            .map(|f| f.file.as_str())
            .collect();
        let what = self.hooks.join(", ");
        let done = match self.action {
            Action::Install => "registered",
            Action::Uninstall => "removed",
        };
        if changed.is_empty() {
            return format!("{what} hook already {done}; nothing written\n");
        }
        // A foreign git hook moved aside to be chained: say where it went.
        let chained: String = self
            .files
            .iter()
            .filter(|f| f.changed && f.after.is_some() && f.file.ends_with(git::CHAINED_SUFFIX))
            .filter(|_| self.action == Action::Install)
            .map(|f| format!("the hook that was there runs first, from {}\n", f.file))
            .collect();
        if self.written {
            return format!("{what} hook {done}: {}\n{chained}", changed.join(", "));
        }
        format!(
            "{what} hook would be {done}: {}\n{}nothing written (--dry-run)\n",
            changed.join(", "),
            self.diff
        )
    }
}

/// Why the command could not run.
#[derive(Debug, thiserror::Error)]
pub enum HooksError {
    /// A rule said no, or a file could not be read or written.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The repository could not be read.
    #[error(transparent)]
    Git(#[from] HintedError),
}

impl From<Refusal> for HooksError {
    fn from(r: Refusal) -> Self {
        HooksError::Write(WriteError::Refused(r))
    }
}

/// How long a `git config` run holding `config.lock` is waited for.
const CONFIG_LOCK_WAIT: Duration = Duration::from_secs(5);

/// Runs `hooks install|uninstall` (see the module comment).
pub fn hooks(req: &HooksRequest) -> Result<HooksOutcome, HooksError> {
    if !req.merge && !req.claude && !req.git {
        return Err(HintedError::usage("say which hook: --claude, --git or --merge")
            .hint("planseal hooks install --claude, planseal hooks install --git, or planseal hooks install --merge")
            .into());
    }
    let mut files = Vec::new();
    let mut kinds = Vec::new();
    let mut config = None;
    if req.claude {
        files.push(claude_file(req)?);
        kinds.push("claude");
    }
    if req.merge {
        let (merge_files, merge_config) = merge_files(req)?;
        files.extend(merge_files);
        config = Some(merge_config);
        kinds.push("merge");
    }
    let mut git = GitPart::default();
    if req.git {
        git = git_files(req)?;
        files.extend(std::mem::take(&mut git.files));
        kinds.push("git");
    }
    write_files(req, kinds, files, config.as_deref(), git)
}

/// What `--git` changes: each hook's files, the hooks asked for, and the hooks folder (made on
/// install when missing).
#[derive(Default)]
struct GitPart {
    files: Vec<FileChange>,
    hooks: Vec<GitHook>,
    dir: Option<PathBuf>,
}

/// The repository `req.dir` is in and its work tree (`needs` says what the work tree is for,
/// in the refusal of a bare repository).
fn repository(req: &HooksRequest, needs: &str) -> Result<(Repo, PathBuf), HooksError> {
    let repo = Repo::discover(&req.dir)
        .map_err(|e| HintedError::git_input(&req.dir.display().to_string(), &e))?
        .ok_or_else(|| {
            Refusal::new(
                RefusalKind::NoGit,
                format!("{}: not inside a git repository", req.dir.display()),
            )
            .hint("run it inside the repository the hooks are for")
        })?;
    let work_tree = repo.work_tree().map(Path::to_path_buf).ok_or_else(|| {
        Refusal::new(
            RefusalKind::NoWorkTree,
            format!(
                "{} is a bare repository: there is no work tree for {needs}",
                repo.git_dir().display()
            ),
        )
        .hint("run it in a clone or a linked work tree of the repository")
    })?;
    Ok((repo, work_tree))
}

/// `--git`: the hooks folder git runs hooks from (`core.hooksPath` honoured, found through
/// gix), and per hook asked for its file and its chained copy, in write order.
fn git_files(req: &HooksRequest) -> Result<GitPart, HooksError> {
    let (repo, work_tree) = repository(req, "git's commit hooks")?;
    let shown = |p: &Path| {
        p.strip_prefix(&work_tree)
            .unwrap_or(p)
            .display()
            .to_string()
    };
    let hooks = requested_git_hooks(req);
    let dir = repo
        .hooks_dir()
        .map_err(|e| HintedError::git_input(&req.dir.display().to_string(), &e))?;
    let mut files = Vec::new();
    for hook in &hooks {
        files.extend(git_changes(req, &dir, *hook, &shown)?);
    }
    Ok(GitPart {
        files,
        hooks,
        dir: Some(dir),
    })
}

/// The Claude Code settings file of `req.scope`, edited by [`claude::install`] or
/// [`claude::uninstall`]. The project's folder is the root of the git work tree `req.dir` is in
/// (where Claude Code is started), else `req.dir` itself.
fn claude_file(req: &HooksRequest) -> Result<FileChange, HooksError> {
    let (folder_of, shown_root) = match req.scope {
        Scope::User => {
            let home = req.home.clone().ok_or_else(|| {
                HintedError::usage("--scope user: HOME is not set, so ~/.claude cannot be found")
                    .hint("set HOME, or use --scope local or --scope project")
            })?;
            (home, None)
        }
        Scope::Local | Scope::Project => {
            let root = Repo::discover(&req.dir)
                .ok()
                .flatten()
                .and_then(|r| r.work_tree().map(Path::to_path_buf))
                .unwrap_or_else(|| req.dir.clone());
            (root.clone(), Some(root))
        }
    };
    let path = req.scope.settings_file(&folder_of, &folder_of);
    let file = match &shown_root {
        Some(root) => path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string(),
        None => path.display().to_string(),
    };
    let before = read(&path, Kind::Settings).map_err(WriteError::read)?;
    let text = match before.as_deref().map(std::str::from_utf8) {
        None => None,
        Some(Ok(t)) => Some(t),
        Some(Err(_)) => {
            return Err(Refusal::new(
                RefusalKind::ClaudeSettingsUnparseable,
                format!("{file}: not UTF-8 text; nothing written"),
            )
            .hint(format!("fix {file} (Claude Code reads it as UTF-8 JSON)"))
            .into());
        }
    };
    let after = match (req.action, text) {
        (Action::Install, t) => {
            Some(claude::install(t, &Commands::for_program(&req.program), &file)?.into_bytes())
        }
        (Action::Uninstall, None) => None,
        (Action::Uninstall, Some(t)) => claude::uninstall(t, &file)?.map(String::into_bytes),
    };
    Ok(FileChange {
        file,
        changed: before != after,
        folder: path.parent().map(Path::to_path_buf),
        mode: None,
        path,
        before,
        after,
    })
}

/// The merge driver's two files (the git config, then `.gitattributes`) and the config's path.
fn merge_files(req: &HooksRequest) -> Result<(Vec<FileChange>, PathBuf), HooksError> {
    let (repo, work_tree) = repository(req, ".gitattributes")?;
    let common = repo.common_dir();
    let config = common
        .canonicalize()
        .unwrap_or_else(|_| common.to_path_buf())
        .join("config");
    let shown = |p: &Path| {
        p.strip_prefix(&work_tree)
            .unwrap_or(p)
            .display()
            .to_string()
    };
    let attributes = work_tree.join(".gitattributes");
    let driver = merge::driver_command(&req.program);
    let mut files = Vec::new();
    for path in [&config, &attributes] {
        let before = read(path, Kind::Settings).map_err(WriteError::read)?;
        let text = String::from_utf8_lossy(before.as_deref().unwrap_or_default()).into_owned();
        let edited = match (req.action, path == &config) {
            (Action::Install, true) => merge::config_install(&text, &driver),
            (Action::Install, false) => merge::attributes_install(&text),
            (Action::Uninstall, true) => merge::config_uninstall(&text),
            (Action::Uninstall, false) => merge::attributes_uninstall(&text),
        };
        // A .gitattributes left with nothing of its own goes (install created it).
        let after = (before.is_some() || !edited.is_empty())
            .then(|| edited.into_bytes())
            .filter(|a| !(a.is_empty() && path == &attributes && req.action == Action::Uninstall));
        files.push(FileChange {
            file: shown(path),
            changed: before != after,
            path: path.clone(),
            before,
            after,
            folder: None,
            mode: None,
        });
    }
    if req.action == Action::Uninstall {
        files.reverse();
    }
    Ok((files, config))
}

/// Shows (`--dry-run`) or writes the files' changes, each under its lock: git's for its config
/// (`config`), planseal's lock folder for the others.
fn write_files(
    req: &HooksRequest,
    kinds: Vec<&'static str>,
    files: Vec<FileChange>,
    config: Option<&Path>,
    git: GitPart,
) -> Result<HooksOutcome, HooksError> {
    let diff: String = files
        .iter()
        .filter(|f| f.changed)
        .map(|f| {
            let text = |b: &Option<Vec<u8>>| {
                String::from_utf8_lossy(b.as_deref().unwrap_or_default()).into_owned()
            };
            unified_diff(&text(&f.before), &text(&f.after), &f.file)
        })
        .collect();
    let mut outcome = HooksOutcome {
        result: "ok",
        action: req.action,
        hooks: kinds,
        git_hooks: git.hooks,
        written: false,
        diff,
        files,
        confirmation: Confirmation::Confirmed,
    };
    if !outcome.files.iter().any(|f| f.changed) {
        outcome.result = "unchanged";
        return Ok(outcome);
    }
    if req.dry_run {
        return Ok(outcome);
    }
    if let Some(dir) = git.dir.filter(|_| req.action == Action::Install) {
        crate::write::create_folder(&dir)?;
    }
    let writer = Writer::from_env();
    let now = req.clock.clone().now_iso();
    for f in outcome.files.iter().filter(|f| f.changed) {
        // git's own lock for its config; planseal's lock folder for the other files.
        let lock = if Some(f.path.as_path()) == config {
            LockStyle::PidFile {
                wait: CONFIG_LOCK_WAIT,
            }
        } else {
            LockStyle::Directory
        };
        // Claude Code's `.claude` folder is made when missing (the lock lives in it), as the
        // hooks folder is, and removed again when the write does not happen.
        let made = match (&f.folder, &f.after) {
            (Some(dir), Some(_)) => crate::write::create_folder(dir)?.then(|| dir.clone()),
            _ => None,
        };
        let target = Target::journal_beside(&f.path, lock).shown_as(f.file.clone());
        let written = writer.begin(&target, "hooks", &now).and_then(|tx| {
            tx.expect_unchanged(&f.path, f.before.as_deref())?;
            match (&f.after, f.mode) {
                (Some(bytes), Some(mode)) => tx.replace_with_mode(&f.path, bytes, mode)?,
                (Some(bytes), None) => tx.replace(&f.path, bytes)?,
                (None, _) => tx.remove(&f.path)?,
            }
            Ok(tx.close())
        });
        let confirmation = match written {
            Ok(c) => c,
            Err(e) => {
                if let Some(dir) = &made {
                    let _ = std::fs::remove_dir(dir);
                }
                return Err(e.into());
            }
        };
        for u in confirmation.unconfirmed() {
            outcome.confirmation.push(u.clone());
        }
        // A `.claude` folder the removal leaves empty goes too (best effort: one that still
        // holds anything stays).
        if let (Some(dir), None) = (&f.folder, &f.after) {
            let _ = std::fs::remove_dir(dir);
        }
    }
    outcome.written = true;
    outcome.result = "applied";
    Ok(outcome)
}

/// The git hooks asked for: `--git-hook` values in [`GitHook::ALL`]'s order, once each;
/// pre-commit when none is named.
fn requested_git_hooks(req: &HooksRequest) -> Vec<GitHook> {
    if req.git_hooks.is_empty() {
        return vec![GitHook::PreCommit];
    }
    GitHook::ALL
        .into_iter()
        .filter(|h| req.git_hooks.contains(h))
        .collect()
}

/// A hook file as it is: `None` when absent; a refusal when something other than a regular file
/// is there (a symlink is never followed or replaced).
fn read_hook_file(path: &Path, shown: &str) -> Result<Option<git::Found>, HooksError> {
    use std::os::unix::fs::PermissionsExt;
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(WriteError::reading(path, e).into()),
    };
    if !meta.file_type().is_file() {
        let what = if meta.file_type().is_symlink() {
            "a symbolic link"
        } else if meta.is_dir() {
            "a folder"
        } else {
            "not a regular file"
        };
        return Err(Refusal::new(
            RefusalKind::GitHookNotAFile,
            format!("{shown} is {what}: planseal neither follows nor replaces it"),
        )
        .hint("chain it by hand (replace it with the file it points to), or remove it, then run the command again")
        .into());
    }
    let bytes = crate::recovery::read::read_no_follow(path, Kind::Document)
        .map_err(WriteError::read)?
        .unwrap_or_default();
    Ok(Some(git::Found {
        bytes,
        mode: meta.permissions().mode() & 0o7777,
    }))
}

/// `--git`: one hook's file and its chained copy, in write order.
fn git_changes(
    req: &HooksRequest,
    dir: &Path,
    hook: GitHook,
    shown: &dyn Fn(&Path) -> String,
) -> Result<Vec<FileChange>, HooksError> {
    let hook_path = dir.join(hook.as_str());
    let chained_path = dir.join(format!("{}{}", hook.as_str(), git::CHAINED_SUFFIX));
    let (hook_shown, chained_shown) = (shown(&hook_path), shown(&chained_path));
    let found = read_hook_file(&hook_path, &hook_shown)?;
    let chained = read_hook_file(&chained_path, &chained_shown)?;
    let planned = match req.action {
        Action::Install => {
            let ours = git::script(&req.program, hook);
            git::plan_install(found.as_ref(), chained.as_ref(), ours.as_bytes())
        }
        Action::Uninstall => git::plan_uninstall(found.as_ref(), chained.as_ref()),
    };
    let steps = planned.map_err(|conflict| match conflict {
        git::Conflict::ChainedExists => Refusal::new(
            RefusalKind::GitHookChainedExists,
            format!(
                "{hook_shown} is not planseal's and {chained_shown} already holds another hook: chaining would lose one of them"
            ),
        )
        .hint(format!(
            "compare the two files; keep the one you want as {hook_shown}, remove or rename {chained_shown}, then run the command again"
        )),
        git::Conflict::Replaced => Refusal::new(
            RefusalKind::GitHookReplaced,
            format!(
                "{hook_shown} is no longer planseal's, yet {chained_shown} (the hook planseal chained) is still there: putting it back would lose the current hook"
            ),
        )
        .hint(format!(
            "decide which hook to keep: remove {chained_shown}, or move it back to {hook_shown} by hand"
        )),
    })?;
    let mut files = Vec::new();
    if steps.is_empty() {
        let bytes = found.as_ref().map(|f| f.bytes.clone());
        files.push(FileChange {
            file: hook_shown.clone(),
            changed: false,
            path: hook_path.clone(),
            before: bytes.clone(),
            after: bytes,
            mode: None,
            folder: None,
        });
    }
    for step in steps {
        let (path, file, before, after, mode) = match step {
            git::Step::WriteChained(f) => (
                &chained_path,
                &chained_shown,
                &chained,
                Some(f.bytes),
                Some(f.mode),
            ),
            git::Step::WriteHook(f) => {
                (&hook_path, &hook_shown, &found, Some(f.bytes), Some(f.mode))
            }
            git::Step::RemoveChained => (&chained_path, &chained_shown, &chained, None, None),
            git::Step::RemoveHook => (&hook_path, &hook_shown, &found, None, None),
        };
        // A step may write a file again after an earlier step of this run: its "before" is then
        // what that step left.
        let before = files
            .iter()
            .rev()
            .find(|c: &&FileChange| c.path == *path)
            .map(|c| c.after.clone())
            .unwrap_or_else(|| before.as_ref().map(|f| f.bytes.clone()));
        // Bits alone differ (a hook made non-executable): the bytes are the same, the write is
        // still needed.
        let mode_differs = match (&after, mode, before.is_some()) {
            (Some(_), Some(m), true) => {
                let now = if path == &hook_path { &found } else { &chained };
                now.as_ref().is_some_and(|f| f.mode != m)
            }
            _ => false,
        };
        files.push(FileChange {
            file: file.clone(),
            changed: before != after || mode_differs,
            path: path.clone(),
            before,
            after,
            mode,
            folder: None,
        });
    }
    Ok(files)
}

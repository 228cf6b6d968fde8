//! The demo's scratch repository and its one clock: writing the plan's files, committing, running
//! `planseal` children and showing what they print.

use super::super::Context;
use crate::print_out;
use anyhow::Context as _;
use planseal::clock::{self, Clock};
use planseal::demo::{File, PLAN_DIR};
use planseal::recovery::scratch_repo::ScratchRepo;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The demo's clock moves a minute per event (a commit, a `planseal` run, the candidate)...
const EVENT_STEP_US: i64 = 60_000_000;
/// ...and a child's own clock a second per instant it takes, so that the few a command stamps
/// stay well before the demo's next event.
const CHILD_STEP_US: i64 = 1_000_000;

pub(super) struct Session {
    pub root: PathBuf,
    repo: ScratchRepo,
    exe: PathBuf,
    color: bool,
    /// Every timestamp of the demo comes from here: the manifest's creation, the commits, each
    /// child's clock (PLANSEAL_FAKE_NOW) and the candidate's completion, so they are in the order
    /// the walk takes them.
    clock: Clock,
}

impl Session {
    pub(super) fn new(root: &Path, ctx: &Context) -> anyhow::Result<Self> {
        let repo = ScratchRepo::init(root)?;
        // An hour back, in whole seconds: the walk's minutes stay in the past.
        let now = Clock::from_env()?.now().as_second();
        let start = jiff::Timestamp::from_second(now - 3600)?;
        Ok(Self {
            root: root.to_path_buf(),
            repo,
            exe: std::env::current_exe()?,
            color: ctx.color,
            clock: Clock::fixed(start, EVENT_STEP_US),
        })
    }

    pub(super) fn plan_dir(&self) -> PathBuf {
        self.root.join(PLAN_DIR)
    }

    /// The next instant of the demo's clock, ISO-8601.
    pub(super) fn now_iso(&mut self) -> String {
        self.clock.now_iso()
    }

    /// A clock for a child, starting at the demo's next instant.
    pub(super) fn child_clock(&mut self) -> Clock {
        Clock::fixed(self.clock.now(), CHILD_STEP_US)
    }

    /// Writes files of the scratch repository, creating their folders; an error names the file.
    pub(super) fn write_all(&self, files: &[File]) -> anyhow::Result<()> {
        for (rel, bytes) in files {
            let path = self.root.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {}", parent.display()))?;
            }
            std::fs::write(&path, bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    }

    /// Commits `paths` (with everything committed before) at the demo's next instant.
    pub(super) fn commit(&mut self, paths: &[&str], subject: &str) -> anyhow::Result<String> {
        let at = self.clock.now().as_second();
        Ok(self.repo.commit(paths, subject, at)?)
    }

    /// Runs `planseal ARGS` in the scratch repository on the demo's clock and shows its output;
    /// another exit code than `expect` stops the demo.
    pub(super) fn planseal(&mut self, args: &[&str], expect: i32) -> anyhow::Result<()> {
        self.show_command(args);
        let start = clock::format_timestamp(self.clock.now());
        let out = Command::new(&self.exe)
            .arg("-C")
            .arg(&self.root)
            .args(args)
            .env("NO_COLOR", "1")
            .env(clock::FAKE_NOW_ENV, start)
            .env(clock::FAKE_STEP_ENV, CHILD_STEP_US.to_string())
            .output()?;
        self.indent(&String::from_utf8_lossy(&out.stdout));
        self.indent(&String::from_utf8_lossy(&out.stderr));
        let code = out.status.code();
        if code != Some(expect) {
            anyhow::bail!(
                "demo step `planseal {}` exited with {code:?}, expected {expect}",
                args.join(" ")
            );
        }
        if code != Some(0) {
            self.say(&format!("(exit {})", code.unwrap_or(-1)));
        }
        Ok(())
    }

    pub(super) fn show_command(&self, args: &[&str]) {
        let shown: Vec<String> = args
            .iter()
            .map(|a| {
                // Quoted the way a shell reads it back: anything but plain words in single
                // quotes (a backtick or a `$` in a summary must not run anything when pasted).
                let plain = a
                    .chars()
                    .all(|c| c.is_alphanumeric() || "-_./=:,@%+".contains(c));
                if plain && !a.is_empty() {
                    a.to_string()
                } else {
                    format!("'{}'", a.replace('\'', "'\\''"))
                }
            })
            .collect();
        let line = format!("$ planseal {}", shown.join(" "));
        if self.color {
            print_out(&format!("\x1b[1m{line}\x1b[0m\n"));
        } else {
            print_out(&format!("{line}\n"));
        }
    }

    pub(super) fn indent(&self, text: &str) {
        for line in text.lines() {
            print_out(&format!("    {line}\n"));
        }
    }

    pub(super) fn heading(&self, text: &str) {
        if self.color {
            print_out(&format!("\n\x1b[1;36m{text}\x1b[0m\n"));
        } else {
            print_out(&format!("\n{text}\n"));
        }
    }

    pub(super) fn say(&self, text: &str) {
        print_out(&format!("{text}\n"));
    }
}

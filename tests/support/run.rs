//! The one way the tests start a program: the built `planseal` binary through [`Planseal`], and
//! the git CLI (and the vectors' `build-repo.sh`) through [`hermetic`], which
//! `support::gitrepo` builds on.
//!
//! Every child starts from an empty environment. Nothing a developer has set (`PLANSEAL_*`,
//! `DWP_DIR`, `GSD_WORKSTREAM`, `GIT_DIR`, `LANG`, `COLUMNS`, a `~/.gitconfig`…) reaches it; it
//! gets only:
//!
//! | variable | value |
//! | --- | --- |
//! | `PATH` | the test process's (git and bash must be found) |
//! | `LLVM_PROFILE_FILE` | the test process's, when set (coverage runs profile the child too) |
//! | `HOME` | an empty folder |
//! | `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM` | an empty file |
//! | `GIT_CONFIG_NOSYSTEM` | `1` |
//! | `LC_ALL` | `C` |
//! | `TZ` | `UTC` |
//! | `NO_COLOR` | `1` |
//! | `PLANSEAL_FAKE_NOW` | [`FIXED_NOW`] (planseal only; see [`Planseal::clock`]) |
//!
//! A test that needs more, or something else, says so on the builder (`.env`, `.env_remove`,
//! `.clock`, `.no_fixed_clock`): those settings are applied after the defaults.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;

/// The built binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_planseal");

/// The clock every planseal run reads unless the test picks another one: the morning of the
/// recorded vectors.
pub const FIXED_NOW: &str = "2026-10-05T09:00:00+00:00";

/// Taken over from the test process; everything else is dropped.
const PASSED_THROUGH: &[&str] = &["PATH", "LLVM_PROFILE_FILE"];

/// The folder the hermetic `HOME` and the empty git configuration live in, made once per test
/// process under cargo's scratch folder for integration tests (so runs do not litter /tmp).
struct Sandbox {
    home: PathBuf,
    gitconfig: PathBuf,
}

fn sandbox() -> &'static Sandbox {
    static SANDBOX: OnceLock<Sandbox> = OnceLock::new();
    SANDBOX.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hermetic");
        let home = root.join("home");
        // Empty means empty: whatever an earlier run may have left there goes.
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(&home).expect("hermetic HOME");
        let gitconfig = root.join("empty.gitconfig");
        std::fs::write(&gitconfig, b"").expect("empty git configuration");
        Sandbox { home, gitconfig }
    })
}

/// The path of the empty file that stands for the global and the system git configuration.
pub fn empty_gitconfig() -> &'static Path {
    &sandbox().gitconfig
}

/// The empty folder every child gets as `HOME`.
pub fn hermetic_home() -> &'static Path {
    &sandbox().home
}

/// `program` with the hermetic environment of this module (no fake clock: that is planseal's).
pub fn hermetic(program: impl AsRef<OsStr>) -> Command {
    let sandbox = sandbox();
    let mut cmd = Command::new(program);
    cmd.env_clear();
    for name in PASSED_THROUGH {
        if let Some(value) = std::env::var_os(name) {
            cmd.env(name, value);
        }
    }
    cmd.env("HOME", &sandbox.home)
        .env("GIT_CONFIG_GLOBAL", &sandbox.gitconfig)
        .env("GIT_CONFIG_SYSTEM", &sandbox.gitconfig)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env("NO_COLOR", "1");
    cmd
}

/// A planseal run to be: arguments, folder, environment changes, standard input.
#[must_use = "a Planseal does nothing until .output() or .spawn()"]
#[derive(Clone, Debug)]
pub struct Planseal {
    args: Vec<OsString>,
    cwd: Option<PathBuf>,
    /// Applied in order after the defaults; `None` removes the variable.
    env: Vec<(OsString, Option<OsString>)>,
    stdin: Option<Vec<u8>>,
    /// `None`: the system clock.
    clock: Option<String>,
}

impl Default for Planseal {
    fn default() -> Self {
        Self::new()
    }
}

impl Planseal {
    pub fn new() -> Self {
        Planseal {
            args: Vec::new(),
            cwd: None,
            env: Vec::new(),
            stdin: None,
            clock: Some(FIXED_NOW.to_string()),
        }
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// The folder the process starts in (the test process's when not given).
    pub fn cwd(mut self, dir: impl AsRef<Path>) -> Self {
        self.cwd = Some(dir.as_ref().to_path_buf());
        self
    }

    pub fn env(mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env.push((
            name.as_ref().to_os_string(),
            Some(value.as_ref().to_os_string()),
        ));
        self
    }

    /// Drops one of the default variables (`NO_COLOR`, `HOME`, …) for this run.
    pub fn env_remove(mut self, name: impl AsRef<OsStr>) -> Self {
        self.env.push((name.as_ref().to_os_string(), None));
        self
    }

    /// Bytes fed to standard input (otherwise it reads as closed).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    /// `PLANSEAL_FAKE_NOW` for this run (one instant, or several separated by commas).
    pub fn clock(mut self, now: impl Into<String>) -> Self {
        self.clock = Some(now.into());
        self
    }

    /// The system clock: for the tests whose subject is what the real time does.
    pub fn no_fixed_clock(mut self) -> Self {
        self.clock = None;
        self
    }

    /// The `std` command with everything applied, stdin included only as a pipe when given.
    fn command(&self) -> Command {
        let mut cmd = hermetic(BIN);
        if let Some(now) = &self.clock {
            cmd.env("PLANSEAL_FAKE_NOW", now);
        }
        for (name, value) in &self.env {
            match value {
                Some(v) => cmd.env(name, v),
                None => cmd.env_remove(name),
            };
        }
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        cmd.args(&self.args)
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    /// Starts the process; [`Spawned::wait`] collects it.
    pub fn spawn(self) -> Spawned {
        let json_args = self.json_args();
        let mut child = self
            .command()
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"));
        if let Some(bytes) = self.stdin {
            let mut pipe = child.stdin.take().expect("stdin is piped");
            // A thread, so a child that prints before it reads cannot block on a full pipe.
            std::thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            });
        }
        Spawned { child, json_args }
    }

    /// The arguments of a `--json` run, whose document the suite keeps for the schema check.
    fn json_args(&self) -> Option<Vec<String>> {
        self.args.iter().any(|a| a == "--json").then(|| {
            self.args
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect()
        })
    }

    /// Runs to the end and returns what it printed.
    pub fn output(self) -> Run {
        self.spawn().wait()
    }

    /// Runs to the end with stdout going to `stdout` (`/dev/full`: every write fails with
    /// ENOSPC); the run's `stdout` is then empty.
    pub fn output_with_stdout(self, stdout: std::fs::File) -> Run {
        let mut cmd = self.command();
        cmd.stdout(stdout);
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"));
        Run::from_output(out)
    }
}

/// A started planseal process.
pub struct Spawned {
    child: std::process::Child,
    /// `Some` for a `--json` run: its arguments, kept with its document.
    json_args: Option<Vec<String>>,
}

impl Spawned {
    /// [`Spawned::wait`], but at most `limit`: `None` (the process killed) when it had not ended
    /// by then — the check of "never hangs".
    pub fn wait_at_most(mut self, limit: std::time::Duration) -> Option<Run> {
        let start = std::time::Instant::now();
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => return Some(self.wait()),
                Ok(None) if start.elapsed() < limit => {
                    std::thread::sleep(std::time::Duration::from_millis(20))
                }
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return None;
                }
            }
        }
    }

    pub fn wait(self) -> Run {
        let out = self
            .child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("waiting for {BIN}: {e}"));
        let run = Run::from_output(out);
        if let Some(args) = &self.json_args {
            keep_json_document(args, &run);
        }
        run
    }
}

/// Keeps what a `--json` run printed under `target/tmp/json-documents/`, one file per run
/// (`{"args", "code", "stdout"}`): after the tests, `scripts/check-json-documents.py` validates
/// every document against `planseal schema` of its command (`docs/json.md`), so a document the
/// schema does not describe fails the suite.
fn keep_json_document(args: &[String], run: &Run) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("json-documents");
    let _ = std::fs::create_dir_all(&dir);
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let record = serde_json::json!({ "args": args, "code": run.code, "stdout": run.stdout });
    let path = dir.join(format!("{}-{n}.json", std::process::id()));
    std::fs::write(&path, record.to_string())
        .unwrap_or_else(|e| panic!("cannot keep the --json document in {}: {e}", path.display()));
}

/// `planseal ARGS` in `cwd` with every default.
pub fn planseal(cwd: &Path, args: &[&str]) -> Run {
    Planseal::new().cwd(cwd).args(args).output()
}

/// A `--json` stdout as one document.
pub fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not one JSON document ({e}): {stdout}"))
}

/// The outcome of one planseal run. planseal prints only through `&str`, so its output is always
/// UTF-8; anything else fails the test here.
#[derive(Debug)]
pub struct Run {
    /// The exit code; -1 when a signal ended the process.
    pub code: i32,
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from_output(out: std::process::Output) -> Run {
        let text = |bytes: Vec<u8>, which: &str| {
            String::from_utf8(bytes).unwrap_or_else(|e| panic!("{which} is not UTF-8: {e}"))
        };
        Run {
            code: out.status.code().unwrap_or(-1),
            status: out.status,
            stdout: text(out.stdout, "stdout"),
            stderr: text(out.stderr, "stderr"),
        }
    }

    /// (exit code, stdout, stderr), for tests that destructure.
    pub fn into_parts(self) -> (i32, String, String) {
        (self.code, self.stdout, self.stderr)
    }

    /// stdout then stderr, for "printed anywhere" checks.
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    pub fn json(&self) -> serde_json::Value {
        json(&self.stdout)
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

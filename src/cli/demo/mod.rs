//! `planseal demo`: a small plan's whole life cycle in a throw-away git repository, narrated —
//! guarded updates through the tasks, a publication interrupted right after its marker, `verify`
//! failing, `recover`, `verify` passing, the receipt, and last the report of the plan (an HTML page
//! written beside the scratch folder, so it outlives it). Every `$ planseal …` step runs this same
//! binary as a child process, so what you see is exactly what the commands print; the interrupted
//! publication is a forked child that runs the real finalize and dies after its marker
//! ([`interrupt`]). The repository is built with the git library; no `git` process is started.
//! The plan's files are the library's ([`planseal::demo`]); this module writes, runs and narrates.

mod interrupt;
mod session;

use super::Context;
use crate::{print_json, print_out};
use planseal::demo::{self as plan, PLAN_DIR, TASKS};
use planseal::dwp::publish;
use planseal::report::ExitCode;
use session::Session;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal demo            the narrated walk; the scratch repository is removed afterwards\n  \
planseal demo --keep     keep it, to look around (run `planseal verify` or `git log` inside)\n\n\
Needs no git, no network and no other program; nothing outside the scratch folder is touched but\n\
the report page it ends with, written beside it (its path is printed)."
)]
pub(super) struct Args {
    /// Keep the scratch folder afterwards (its path is printed)
    #[arg(long)]
    pub keep: bool,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    let scratch = planseal::demo::create_scratch_folder().map_err(|e| {
        anyhow::anyhow!(
            "cannot create a scratch folder in {}: {e}",
            std::env::temp_dir().display()
        )
    })?;
    let mut transcript = String::new();
    let result = Session::new(&scratch, ctx).and_then(|mut s| {
        let walked = walk(&mut s);
        transcript = s.transcript();
        walked
    });
    let ending = if args.keep {
        format!(
            "\nThe scratch repository is kept at {}\n",
            scratch.display()
        )
    } else {
        let _ = std::fs::remove_dir_all(&scratch);
        "\nThe scratch repository was removed (run `planseal demo --keep` to look around).\n"
            .to_string()
    };
    result?;
    if ctx.json {
        // The narration as one string, and where to look afterwards.
        transcript.push_str(&ending);
        print_json(serde_json::to_value(DemoDocument {
            result: "ok",
            scratch: args.keep.then(|| scratch.display().to_string()),
            report: format!("{}-report.html", scratch.display()),
            transcript: &transcript,
        })?);
    } else {
        print_out(&ending);
    }
    Ok(ExitCode::Ok)
}

/// `demo --json`: where to look afterwards, and the narration.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(super) struct DemoDocument<'a> {
    result: &'static str,
    /// The kept scratch repository (`null` unless `--keep`).
    scratch: Option<String>,
    /// The report page the demo wrote.
    report: String,
    /// The narration, as one string.
    transcript: &'a str,
}

fn walk(s: &mut Session) -> anyhow::Result<()> {
    s.heading("planseal demo — one plan's life cycle, from its approval to the sealed receipt");
    s.say(&format!("Scratch repository: {}", s.root.display()));
    s.say("The demo plays the agent: it writes the code and runs the gates. Every plan file —");
    s.say("README, PROGRESS, task logs, state.json — is written by planseal's own commands; each");
    s.say("`$ planseal …` line below is a real run of this binary.");

    s.heading("1. A git repository with a three-task plan, proposed");
    s.write_all(&plan::base_files())?;
    let base = s.commit(
        &[".gitignore", "README.md"],
        "chore: start the greeting project",
    )?;
    s.say(&format!(
        "commit {} chore: start the greeting project",
        &base[..7]
    ));
    let created = s.now_iso();
    s.write_all(&plan::plan_files(&created))?;
    s.say(&format!(
        "{PLAN_DIR}/ materialized (git-ignored, as plans usually are): README, PROGRESS,"
    ));
    s.say("PROMPTS, manifest.json, state.json, three task files, analysis_results/.");
    s.planseal(&["verify"], 0)?;

    s.heading("2. The user approves the plan (an agent never approves its own)");
    s.planseal(&["approve", PLAN_DIR, "--by", "Ada (the user)"], 0)?;

    let state = format!("{PLAN_DIR}/state.json");
    for task in &TASKS {
        let id = task.id.to_string();
        s.heading(&format!(
            "{}. Task {}: {}",
            task.id + 2,
            task.id,
            task.title
        ));
        s.planseal(
            &["update", &state, "--task", &id, "--status", "in_progress"],
            0,
        )?;
        s.write_all(&plan::work_files(task))?;
        let sha = s.commit(&[task.work_path], &task.commit_subject())?;
        s.say(&format!("commit {} {}", &sha[..7], task.commit_subject()));
        s.write_all(&[plan::gate_log(task)])?;
        s.say(&format!(
            "gate run: {} ({}), output saved to {}",
            task.gate,
            task.ran,
            task.log()
        ));
        let close = task.close_out(&sha);
        if task.is_last() {
            s.say("Before the last close-out: what would the publication still refuse?");
            s.planseal(&["publish-check", PLAN_DIR], 1)?;
            interrupted_close(s, &close)?;
        } else {
            let args = close.args();
            s.planseal(&args.iter().map(String::as_str).collect::<Vec<_>>(), 0)?;
        }
    }

    s.heading("6. verify refuses to call the plan done");
    s.planseal(&["verify"], 1)?;

    s.heading("7. recover finishes the publication, bound to the marker's candidate");
    s.planseal(&["recover", PLAN_DIR], 0)?;

    s.heading("8. verify again");
    s.planseal(&["verify"], 0)?;

    s.heading("9. The receipt");
    let receipt = std::fs::read_to_string(s.plan_dir().join(publish::RECEIPT_FILE))?;
    s.say(&format!("{PLAN_DIR}/{}:", publish::RECEIPT_FILE));
    s.out(&receipt);
    s.say(
        "The first three keys are the DWP helper's; `planseal` adds every covered file's hash, the",
    );
    s.say("git HEAD, the checks that passed and any accepted exception — and no timestamp, so");
    s.say(&format!(
        "sealing again (`planseal finalize {PLAN_DIR}`) writes the same bytes."
    ));

    s.heading("10. A picture of the plan");
    // Beside the scratch folder, not in it: the page outlives the repository.
    let page = format!("{}-report.html", s.root.display());
    s.planseal(&["report", PLAN_DIR, "--out", &page], 0)?;
    s.say(&format!("The report of the plan: {page}"));
    s.say("Open it in a browser: the task lanes, the gate runs, the commits, the crash and the recovery.");
    Ok(())
}

/// The last task's close-out: `task done` writes the markdown, then publishes the plan — and
/// here its process dies right after the publication's marker.
fn interrupted_close(s: &mut Session, close: &plan::CloseOut) -> anyhow::Result<()> {
    s.say(
        "Closing the last task publishes the plan: the close-out writes the task log, README and",
    );
    s.say(
        "PROGRESS, then the finalizer checks the completed state against every artifact and git,",
    );
    s.say("writes the marker .finalizing.json, replaces state.json, re-verifies and seals the receipt.");
    s.say("Here that process dies right after writing its marker:");
    let args = close.args();
    s.show_command(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let request = close.request(&s.plan_dir(), s.child_clock());
    let code = interrupt::close_out_and_die(request)?;
    s.indent("(the process stopped: task log, README and PROGRESS written, marker written, state.json not yet replaced)");
    if code != interrupt::KILLED {
        anyhow::bail!(
            "the interrupted close-out exited with {code}, expected {}",
            interrupt::KILLED
        );
    }
    s.say(&format!("(exit {code}) Left behind: .finalizing.json and the lock state.json.lock/ of a process that is gone."));
    Ok(())
}

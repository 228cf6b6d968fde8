//! `planseal merge-driver %O %A %B %L %P [%S %X %Y]`: git's merge-driver protocol for plan state
//! files (docs/merge.md). The arguments and the printing; the driver itself is
//! `planseal::merge::ops`.

use super::Context;
use crate::{print_err, print_json};
use planseal::merge::ops::{DriverRequest, merge_driver};
use planseal::report::ExitCode;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Git runs this command; you register it once (`planseal hooks install --merge`, \
or by hand as docs/merge.md shows):\n\n  \
[merge \"planseal\"]\n      name = planseal: plan state files merged by meaning\n      \
driver = planseal merge-driver %O %A %B %L %P %S %X %Y\n\n\
and in .gitattributes, for example:\n  **/.dwp/plans/*/state.json merge=planseal\n\n\
The result goes into %A: the merged file, or the file with conflict blocks (markers of %L \
characters, labelled %X and %Y) and a `planseal:` note per disagreement. No journal line is \
written. After a merge, `planseal verify` checks what the driver cannot see.\n\n\
Examples:\n  planseal merge-driver base.json ours.json theirs.json 7 .dwp/plans/PLAN_x/state.json\n  \
planseal merge-driver %O %A %B %L %P %S %X %Y        (as git runs it)\n\n\
Exit codes: 0 merged clean, 1 conflict (%A holds the conflict blocks), 2 usage error, \
3 a version could not be read or %A not written (%A left as it was)."
)]
pub(super) struct Args {
    /// %O: the common ancestor's version (an empty file when there is none)
    #[arg(value_name = "ANCESTOR")]
    pub ancestor: PathBuf,
    /// %A: ours' version; the result is written here
    #[arg(value_name = "CURRENT")]
    pub current: PathBuf,
    /// %B: theirs' version
    #[arg(value_name = "OTHER")]
    pub other: PathBuf,
    /// %L: the length of a conflict marker
    #[arg(value_name = "MARKER_SIZE")]
    pub marker_size: usize,
    /// %P: the path being merged, relative to the repository
    #[arg(value_name = "PATH", allow_hyphen_values = true)]
    pub path: String,
    /// %S: the common ancestor's label (not used in markers: git's default style has no base
    /// section)
    #[arg(value_name = "ANCESTOR_LABEL", allow_hyphen_values = true)]
    pub ancestor_label: Option<String>,
    /// %X: ours' label, written after `<<<<<<<`
    #[arg(value_name = "OURS_LABEL", allow_hyphen_values = true)]
    pub ours_label: Option<String>,
    /// %Y: theirs' label, written after `>>>>>>>`
    #[arg(value_name = "THEIRS_LABEL", allow_hyphen_values = true)]
    pub theirs_label: Option<String>,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    crate::redact_output_for(&ctx.cwd);
    let req = DriverRequest {
        ancestor: ctx.cwd.join(&args.ancestor),
        current: ctx.cwd.join(&args.current),
        other: ctx.cwd.join(&args.other),
        marker_size: args.marker_size,
        path: args.path.clone(),
        ours_label: args.ours_label.clone(),
        theirs_label: args.theirs_label.clone(),
        workdir: ctx.cwd.clone(),
    };
    let outcome = merge_driver(req).map_err(|e| match e {
        planseal::merge::ops::DriverError::Write(w) => anyhow::Error::from(w),
        planseal::merge::ops::DriverError::Usage(u) => anyhow::Error::from(u),
    })?;
    if ctx.json {
        print_json(serde_json::to_value(&outcome)?);
    }
    print_err(&outcome.to_text());
    Ok(if outcome.is_clean() {
        ExitCode::Ok
    } else {
        ExitCode::Failed
    })
}

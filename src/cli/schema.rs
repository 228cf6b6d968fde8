//! `planseal schema [COMMAND…]`: the JSON Schema of what a command prints with `--json`
//! (`docs/json.md`). Each schema is derived from the typed outcome the command serialises, put in
//! the one envelope (a success, a refusal or an error), so it cannot drift from the output; the
//! test suite validates every `--json` document it produces against it.

use super::Context;
use crate::print_foreign_json;
use clap::CommandFactory;
use planseal::report::{ExitCode, HintedError, envelope};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value};

#[derive(clap::Args, Debug)]
#[command(after_help = "\
Without a command: one object with the schema of every command, keyed by its name. With one: \
that command's schema (the words of a subcommand as separate arguments or quoted together).\n\n\
Examples:\n  planseal schema update\n  planseal schema gsd sync\n  \
planseal schema \"checkpoint session add\"\n  planseal schema > planseal-schemas.json\n\n\
The schemas are JSON Schema draft 2020-12; each document is one of a success (`result` ok, \
applied, applied-unconfirmed or unchanged, with the command's fields), a refusal or an error.\n\n\
Exit codes: 0 printed, 2 no such command.")]
pub(super) struct Args {
    /// The command, e.g. `update` or `gsd sync` (default: every command)
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
}

pub(super) fn run(args: Args, _ctx: &Context) -> anyhow::Result<ExitCode> {
    let wanted = args
        .command
        .iter()
        .flat_map(|w| w.split_whitespace())
        .collect::<Vec<_>>()
        .join(" ");
    if wanted.is_empty() {
        let mut all = Map::new();
        for name in commands() {
            all.insert(
                name.clone(),
                schema_of(&name).expect("every command has one"),
            );
        }
        print_foreign_json(Value::Object(all));
        return Ok(ExitCode::Ok);
    }
    let Some(schema) = schema_of(&wanted) else {
        return Err(
            HintedError::usage(format!("schema {wanted}: no such command"))
                .hint(format!("one of: {}", commands().join(", ")))
                .into(),
        );
    };
    print_foreign_json(schema);
    Ok(ExitCode::Ok)
}

/// Every command that prints a document with `--json` (all but `schema` and `mcp`), as the words that run it (`gsd sync`),
/// in the order of `planseal --help`.
pub(super) fn commands() -> Vec<String> {
    fn walk(cmd: &clap::Command, prefix: &str, out: &mut Vec<String>) {
        for sub in cmd.get_subcommands() {
            let name = if prefix.is_empty() {
                sub.get_name().to_string()
            } else {
                format!("{prefix} {}", sub.get_name())
            };
            // `schema` prints schemas, `mcp` speaks the Model Context Protocol: neither prints
            // a document of its own.
            if matches!(name.as_str(), "schema" | "help" | "mcp") {
                continue;
            }
            if sub.has_subcommands() {
                walk(sub, &name, out);
            } else {
                out.push(name);
            }
        }
    }
    let mut out = Vec::new();
    walk(&super::Cli::command(), "", &mut out);
    out
}

/// The schema of `command`'s `--json` documents, `None` for an unknown command.
pub(super) fn schema_of(command: &str) -> Option<Value> {
    // The schema of what is printed (serialised), not of what would be read back.
    let mut generator = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let successes = successes(command, &mut generator)?;
    Some(envelope::schema(
        &format!("planseal {command} --json"),
        successes,
        &mut generator,
    ))
}

fn one<T: JsonSchema>(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<T>()
}

/// The documents `command` prints when it runs to its end: the outcome types its code
/// serialises (several where the command has several forms, e.g. `recover --dry-run`).
fn successes(command: &str, g: &mut SchemaGenerator) -> Option<Vec<Schema>> {
    use planseal::{checkpoint, dwp, gsd, hooks, merge, picture, report, reversa, unlock};
    Some(match command {
        "verify" => vec![one::<report::json::ReportDocument<'static>>(g)],
        "update" => vec![one::<dwp::ops::update::UpdateOutcome>(g)],
        "approve" => vec![one::<dwp::ops::approve::ApproveOutcome>(g)],
        "task done" => vec![one::<dwp::ops::task_done::TaskDoneOutcome>(g)],
        "amend" => vec![one::<dwp::ops::amend::AmendOutcome>(g)],
        "publish-check" => vec![one::<dwp::ops::publish_check::PublishCheck>(g)],
        "refine" => vec![one::<dwp::ops::refine::RefineOutcome>(g)],
        "promote" => vec![one::<dwp::ops::promote::PromoteOutcome>(g)],
        "unlock" => vec![one::<unlock::UnlockOutcome>(g)],
        "finalize" => vec![one::<dwp::ops::finalize::FinalizeOutcome>(g)],
        "recover" => vec![
            one::<dwp::ops::recover::DryRunOutcome>(g),
            one::<dwp::ops::recover::RecoveredOutcome>(g),
        ],
        "rebuild" => vec![one::<dwp::ops::rebuild::RebuildOutcome>(g)],
        "diff" => vec![one::<dwp::ops::diff::DiffOutcome>(g)],
        "log" => vec![
            one::<dwp::ops::log::LogOutcome>(g),
            one::<dwp::ops::log::FileHistoryOutcome>(g),
        ],
        "status" => vec![one::<dwp::ops::status::StatusView>(g)],
        "report" => vec![one::<picture::ReportOutcome>(g)],
        "gsd statusline" => vec![one::<super::gsd::StatuslineDocument<'static>>(g)],
        "gsd status" => vec![one::<gsd::ops::StatusOutcome>(g)],
        "gsd check" => vec![one::<gsd::ops::CheckOutcome>(g)],
        "gsd sync" => vec![one::<gsd::ops::SyncOutcome>(g)],
        "gsd recover" => vec![one::<gsd::ops::RecoverOutcome>(g)],
        "gsd decision add" | "gsd blocker add" | "gsd blocker resolve" | "gsd session record" => {
            vec![one::<gsd::ops::RecordOutcome>(g)]
        }
        "reversa status" => vec![one::<reversa::ops::StatusOutcome>(g)],
        "reversa advance" | "reversa set" => vec![one::<reversa::ops::WriteOutcome>(g)],
        "reversa history" => vec![one::<reversa::ops::HistoryOutcome>(g)],
        "checkpoint status" => vec![one::<checkpoint::ops::StatusOutcome>(g)],
        "checkpoint init" => vec![one::<checkpoint::ops::InitOutcome>(g)],
        "checkpoint refresh" => vec![one::<checkpoint::ops::RefreshOutcome>(g)],
        "checkpoint diff" => vec![one::<checkpoint::ops::DiffOutcome>(g)],
        "checkpoint session add" => vec![one::<checkpoint::ops::SessionOutcome>(g)],
        "checkpoint context" => vec![one::<checkpoint::ops::ContextOutcome>(g)],
        "checkpoint restore" => vec![one::<checkpoint::ops::RestoreOutcome>(g)],
        "demo" => vec![one::<super::demo::DemoDocument<'static>>(g)],
        "merge-driver" => vec![one::<merge::ops::DriverOutcome>(g)],
        "hook session-start" => vec![one::<super::hook::claude::SessionStartDocument<'static>>(g)],
        "hook stop" => vec![one::<super::hook::claude::StopDocument<'static>>(g)],
        "hooks install" | "hooks uninstall" => vec![one::<hooks::ops::HooksOutcome>(g)],
        "hook pre-commit" | "hook pre-push" => vec![one::<super::hook::PlansDocument<'static>>(g)],
        "hook commit-msg" => vec![one::<super::hook::MessageDocument<'static>>(g)],
        "completions" => vec![one::<super::completions::CompletionsDocument<'static>>(g)],
        "man" => vec![one::<super::man::ManDocument<'static>>(g)],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_a_schema_in_the_envelope() {
        let all = commands();
        assert!(all.len() > 30, "{all:?}");
        for name in &all {
            let schema = schema_of(name).unwrap_or_else(|| panic!("{name}: no schema"));
            let branches = schema["oneOf"].as_array().expect("oneOf");
            let titles: Vec<&str> = branches
                .iter()
                .filter_map(|b| b["title"].as_str())
                .collect();
            assert_eq!(titles, ["success", "refused", "error"], "{name}");
            // Every reference points at a definition that is there.
            let text = schema.to_string();
            for piece in text.split("\"$ref\":\"#/$defs/").skip(1) {
                let def = &piece[..piece.find('"').unwrap()];
                assert!(
                    schema["$defs"].get(def).is_some(),
                    "{name}: {def} undefined"
                );
            }
        }
        assert!(schema_of("no-such-command").is_none());
        assert!(schema_of("schema").is_none());
    }
}

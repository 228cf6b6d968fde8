//! Library-level tests: the model, schema and semantics, the markdown readers, gate rules,
//! fingerprints, the git reader and cross-checks, the DWP command pipelines, and the property
//! tests. Nothing here runs the binary.
//!
//! Each file here is a module of this one binary, not a binary of its own: linking a test binary
//! against planseal and gix is most of the suite's build time.

// A test binary has no API: tests/support is `pub` only so that every test module reaches it.
#![allow(missing_docs, unreachable_pub)]

#[path = "../support/mod.rs"]
mod support;

mod architecture;
mod checkpoint_ops;
mod dotenv_syntax;
mod dwp_markdown_fixtures;
mod dwp_markdown_props;
mod dwp_markdown_rules;
mod dwp_model_fingerprint;
mod dwp_model_gates;
mod dwp_model_json;
mod dwp_model_probes;
mod dwp_model_scale;
mod dwp_model_semantics;
mod dwp_model_vectors;
mod dwp_ops;
mod finalize_props;
mod fuzz_replay;
mod git_branch_status;
mod git_crosschecks;
mod git_reader;
mod git_scan_ids;
mod gsd_props;
mod hostile_text_props;
mod linear_props;
mod receipt_roundtrip_props;
mod reshape_props;
mod reversa_ops;
mod verify_equivalence;
mod verify_props;
mod verify_stream_props;

//! Deep Work Plan: the plan model (manifest, state v1/v2/v5), markdown readers, conformance
//! checks, guarded update, finalization and rebuild (SPEC §1).

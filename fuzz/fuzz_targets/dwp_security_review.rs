#![no_main]
//! `cargo +nightly fuzz run dwp_security_review`: see fuzz/targets.rs.

#[path = "../targets.rs"]
#[allow(dead_code)]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::dwp_security_review(data));

//! Fuzzing `xir-run`'s SPEC.json reader; the property is
//! `tools/interp/tests/fuzz_checks/run_spec.rs` (also replayed over the committed corpus by
//! `cargo test -p xir-interp --test fuzz_replay`).
//!
//! `cd ir/fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run --features interp run_spec`
#![no_main]

#[path = "../../../tools/interp/tests/fuzz_checks/run_spec.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));

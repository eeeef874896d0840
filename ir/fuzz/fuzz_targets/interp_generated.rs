//! Fuzzing the interpreter on generated executable kernels; the property is
//! `tools/interp/tests/fuzz_checks/interp_generated.rs` (also replayed over the committed
//! corpus by `cargo test -p xir-interp --test fuzz_replay`).
//!
//! `cd ir/fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run --features interp interp_generated`
#![no_main]

#[path = "../../../tools/interp/tests/fuzz_checks/interp_generated.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));

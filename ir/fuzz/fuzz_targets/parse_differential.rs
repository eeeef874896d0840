//! Differential fuzzing of the two text readers: for arbitrary bytes, whatever the
//! hand-written fast reader accepts, the lalrpop reader must accept with the identical
//! module and source map (and `parse_module` must answer exactly as lalrpop does when
//! the fast reader gives up). Any divergence, or a panic in either reader, is a crash.
//!
//! `cd ir/fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run parse_differential`; the check is
//! `tools/testgen/tests/diff_common/mod.rs`, shared with `cargo test -p xir-testgen --test
//! parse_differential`, which also replays this target's committed corpus.
#![no_main]

#[path = "../../../tools/testgen/tests/diff_common/mod.rs"]
mod diff_common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    if let Err(e) = diff_common::differ(&src) {
        panic!("the readers diverge: {e}");
    }
});

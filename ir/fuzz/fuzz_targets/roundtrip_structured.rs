//! Structure-aware round-trip fuzzing: the input bytes pick a generator seed, a generator
//! configuration and a print form (`structured_case` in `tools/testgen/tests/rt_common/check.rs`);
//! the generated valid module is printed, parsed back, compared structurally and printed
//! again, and any difference (or a parse failure, or a panic) is a crash.
//!
//! `cd ir/fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run roundtrip_structured`; the committed
//! corpus (`corpus/roundtrip_structured`) is replayed by `cargo test -p xir-testgen --test
//! fuzz_replay`.

#![no_main]

#[path = "../../../tools/testgen/tests/rt_common/check.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = check::roundtrip_structured(data) {
        panic!("round trip failed: {e}");
    }
});

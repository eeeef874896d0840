//! Fuzzes the bitcode reader: it must never panic, and whatever it accepts must write
//! back to bitcode that reads to the same module text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xir_ir::interchange::{read_bitcode, write_bitcode, write_interchange_text};

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = read_bitcode(data) {
        let text = write_interchange_text(&m).expect("a decoded module must be writable");
        let bc = write_bitcode(&m).expect("a decoded module must encode");
        let m2 = read_bitcode(&bc).expect("written bitcode must read back");
        assert_eq!(write_interchange_text(&m2).ok().as_deref(), Some(text.as_str()));
    }
});

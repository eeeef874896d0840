//! Fuzzes the interchange text reader: it must never panic, and whatever it accepts must
//! write back, re-read, and write to the same text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xir_ir::interchange::{read_interchange_text, write_interchange_text};

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(m) = read_interchange_text(src) {
        let text = write_interchange_text(&m).expect("a decoded module must be writable");
        let m2 = read_interchange_text(&text).expect("written text must read back");
        assert_eq!(write_interchange_text(&m2).ok().as_deref(), Some(text.as_str()));
    }
});

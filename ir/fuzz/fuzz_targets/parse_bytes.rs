//! Fuzzes the text parser with arbitrary bytes: `parse_module` must never panic (nor
//! overflow the stack, nor run away in time or memory), and whatever it accepts must
//! print without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xir_ir::text::{PrintOptions, parse_module, print_module};

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    if let Ok((m, _)) = parse_module(&src) {
        let _ = print_module(&m, &PrintOptions::default());
    }
});

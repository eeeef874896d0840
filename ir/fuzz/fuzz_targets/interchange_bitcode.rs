//! Fuzzes the bitcode reader: it must never panic, and whatever it accepts must write
//! back to bitcode that reads to the same module text. Each input is also tried with its
//! header repaired (payload size and FNV-1a-64 checksum), so mutations reach the record
//! decoder instead of stopping at the checksum.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xir_ir::interchange::{read_bitcode, write_bitcode, write_interchange_text};

fn check(data: &[u8]) {
    if let Ok(m) = read_bitcode(data) {
        let text = write_interchange_text(&m).expect("a decoded module must be writable");
        let bc = write_bitcode(&m).expect("a decoded module must encode");
        let m2 = read_bitcode(&bc).expect("written bitcode must read back");
        assert_eq!(write_interchange_text(&m2).ok().as_deref(), Some(text.as_str()));
    }
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if data.len() >= 32 {
        let mut fixed = data.to_vec();
        let n = (data.len() - 32) as u64;
        fixed[16..24].copy_from_slice(&n.to_le_bytes());
        let sum = fnv1a64(&data[32..]);
        fixed[24..32].copy_from_slice(&sum.to_le_bytes());
        check(&fixed);
    }
});

//! The round-trip check shared by the tests and the structure-aware fuzz target
//! (`ir/fuzz/fuzz_targets/roundtrip_structured.rs` includes this file): print → parse →
//! compare → print, and the decoding of fuzz input bytes into a generator seed,
//! configuration and print form. Depends only on `xir_ir`.

#![allow(dead_code)]

use xir_ir::Module;
use xir_ir::text::{IdStyle, PrintOptions, parse_module, print_module};
use xir_testgen::structural_diff;
use xir_testgen::{GenConfig, generate_module};

/// The eight print forms: nested/flat × debug info off/on × upstream/stable ids.
pub fn all_forms() -> Vec<PrintOptions> {
    let mut out = Vec::new();
    for ids in [IdStyle::Upstream, IdStyle::Stable] {
        for debug_info in [false, true] {
            for flat in [false, true] {
                out.push(PrintOptions {
                    flat,
                    debug_info,
                    ids,
                });
            }
        }
    }
    out
}

/// A short name of a form (`flat+debug+stable`).
pub fn form_name(o: &PrintOptions) -> String {
    let mut s = String::from(if o.flat { "flat" } else { "nested" });
    if o.debug_info {
        s.push_str("+debug");
    }
    if o.ids == IdStyle::Stable {
        s.push_str("+stable");
    }
    s
}

/// Parses `text`, rendering the diagnostics on failure.
pub fn parse(text: &str) -> Result<Module, String> {
    parse_module(text)
        .map(|(m, _)| m)
        .map_err(|d| xir_ir::diag::render("input.xir", text, &d))
}

/// The first line where `a` and `b` differ, with its number (1-based).
pub fn first_difference(a: &str, b: &str) -> String {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    for k in 0..la.len().max(lb.len()) {
        let (x, y) = (la.get(k), lb.get(k));
        if x != y {
            return format!(
                "line {}:\n  first print:  {}\n  second print: {}",
                k + 1,
                x.unwrap_or(&"<end of text>"),
                y.unwrap_or(&"<end of text>")
            );
        }
    }
    if a.len() != b.len() {
        return "the texts differ only in line endings".into();
    }
    "no difference".into()
}

/// Rewrites every value label (`%7`, `%f1_i3`, the part before a `.undefined` or
/// `.<register>` decoration) and every type name (`T12`) to `%#k` / `T#k`, numbered in
/// order of first appearance: two texts are equal after this iff they are equal up to a
/// consistent renaming of labels and type names.
pub fn canonical_labels(text: &str) -> String {
    use std::collections::HashMap;
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut labels: HashMap<&str, usize> = HashMap::new();
    let mut types: HashMap<&str, usize> = HashMap::new();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    #[derive(PartialEq)]
    enum Mode {
        Code,
        Str,
        Comment,
    }
    let mut mode = Mode::Code;
    while i < b.len() {
        let c = b[i];
        match mode {
            Mode::Str if c == b'\\' && i + 1 < b.len() => {
                out.push('\\');
                i += 1;
            }
            Mode::Str if c == b'"' => mode = Mode::Code,
            Mode::Code if c == b'"' => mode = Mode::Str,
            Mode::Code if c == b'/' && b.get(i + 1) == Some(&b'/') => mode = Mode::Comment,
            // Debug-info comments quote labels in JSON strings: those are renamed too.
            Mode::Comment if c == b'\n' => mode = Mode::Code,
            Mode::Code | Mode::Comment if c == b'%' => {
                let s = i + 1;
                let mut e = s;
                while e < b.len() && ident(b[e]) {
                    e += 1;
                }
                if e > s {
                    let n = labels.len();
                    let k = *labels.entry(&text[s..e]).or_insert(n);
                    out.push_str(&format!("%#{k}"));
                    i = e;
                    continue;
                }
            }
            Mode::Code if c == b'T' && (i == 0 || !ident(b[i - 1])) => {
                let mut e = i + 1;
                while e < b.len() && b[e].is_ascii_digit() {
                    e += 1;
                }
                if e > i + 1 && (e == b.len() || !ident(b[e])) {
                    let n = types.len();
                    let k = *types.entry(&text[i + 1..e]).or_insert(n);
                    out.push_str(&format!("T#{k}"));
                    i = e;
                    continue;
                }
            }
            _ => {}
        }
        let len = text[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&text[i..i + len]);
        i += len;
    }
    out
}

/// Round trip of `m` in form `o`:
///
/// * `t1 = print(m)` parses to `m1` with `structural_diff(m1, m) == None`;
/// * `t2 = print(m1)` equals `t1` byte for byte with upstream ids. Stable ids spell
///   arena handles, which a reader allocates in its own order, so there `t2` must equal
///   `t1` up to a consistent renaming of labels and type names, and be a fixed point
///   byte for byte from then on: `print(parse(t2)) == t2`.
///
/// Returns the printed text on success.
pub fn check_module(m: &Module, o: &PrintOptions) -> Result<String, String> {
    let t1 = print_module(m, o);
    let m1 = parse(&t1).map_err(|e| format!("the printed text does not parse:\n{e}"))?;
    if let Some(d) = structural_diff(&m1, m) {
        return Err(format!("parse(print(m)) differs from m: {d}"));
    }
    let t2 = print_module(&m1, o);
    if o.ids == IdStyle::Upstream {
        if t1 != t2 {
            return Err(format!(
                "print(parse(print(m))) != print(m) at {}",
                first_difference(&t1, &t2)
            ));
        }
        return Ok(t1);
    }
    let (c1, c2) = (canonical_labels(&t1), canonical_labels(&t2));
    if c1 != c2 {
        return Err(format!(
            "print(parse(print(m))) is not print(m) up to label renaming at {}",
            first_difference(&c1, &c2)
        ));
    }
    let m2 = parse(&t2).map_err(|e| format!("the second print does not parse:\n{e}"))?;
    let t3 = print_module(&m2, o);
    if t3 != t2 {
        return Err(format!(
            "stable ids are not a fixed point from the second print on, at {}",
            first_difference(&t2, &t3)
        ));
    }
    Ok(t1)
}

/// One structure-aware fuzz case: the bytes pick a generator seed, a generator
/// configuration and a print form. Missing bytes read as zero, so every input (the empty
/// one included) is a valid case.
///
/// | bytes | meaning |
/// |---|---|
/// | 0..8 | seed (little endian) |
/// | 8 | `max_depth` = 1 + b % 4 |
/// | 9 | `max_stmts` = 1 + b % 6 |
/// | 10 | `max_callables` = b % 4 |
/// | 11 | `recipes_per_module` = 1 + b % 48 |
/// | 12 | form: bit 0 flat, bit 1 debug info, bit 2 stable ids |
pub fn structured_case(data: &[u8]) -> (u64, GenConfig, PrintOptions) {
    let byte = |k: usize| data.get(k).copied().unwrap_or(0);
    let mut seed = [0u8; 8];
    for (k, b) in seed.iter_mut().enumerate() {
        *b = byte(k);
    }
    let cfg = GenConfig {
        max_depth: 1 + u32::from(byte(8) % 4),
        max_stmts: 1 + u32::from(byte(9) % 6),
        max_callables: u32::from(byte(10) % 4),
        recipes_per_module: 1 + u32::from(byte(11) % 48),
    };
    let f = byte(12);
    let opts = PrintOptions {
        flat: f & 1 != 0,
        debug_info: f & 2 != 0,
        ids: if f & 4 != 0 {
            IdStyle::Stable
        } else {
            IdStyle::Upstream
        },
    };
    (u64::from_le_bytes(seed), cfg, opts)
}

/// The bytes that [`structured_case`] decodes to (`seed`, `cfg`, `form`), for seeding a
/// fuzz corpus. `form` is the bit set of byte 12.
pub fn structured_bytes(seed: u64, cfg: &GenConfig, form: u8) -> Vec<u8> {
    let mut v = seed.to_le_bytes().to_vec();
    v.push(cfg.max_depth.saturating_sub(1) as u8);
    v.push(cfg.max_stmts.saturating_sub(1) as u8);
    v.push(cfg.max_callables as u8);
    v.push(cfg.recipes_per_module.saturating_sub(1) as u8);
    v.push(form);
    v
}

/// Generates the module `data` describes and checks its round trip ([`check_module`]).
pub fn roundtrip_structured(data: &[u8]) -> Result<(), String> {
    let (seed, cfg, opts) = structured_case(data);
    let m = generate_module(seed, &cfg);
    check_module(&m, &opts)
        .map(|_| ())
        .map_err(|e| format!("seed {seed}, {cfg:?}, {opts:?}: {e}"))
}

//! Keeps `test-corpus/corpus/print/*.xir` in sync with the printer.
//!
//! Each corpus file is a lit test (`xir-opt %s | xir-filecheck %s`) whose CHECK lines pin
//! the printed output of the module below them. The modules are built here
//! programmatically, so every CHECK line is the printer's real output and every input
//! text is what the printer prints in one of its forms (nested, flat, debug info, stable
//! ids, or with the ids shuffled). Regenerate with `XIR_BLESS=1 cargo test -p
//! xir-testgen --test corpus_print`.

mod common;
mod corpus_modules;

use corpus_modules as cm;
use std::path::PathBuf;
use xir_ir::Module;
use xir_ir::text::{IdStyle, PrintOptions, print_module};

/// How the input module text of a corpus file is written.
#[derive(Copy, Clone)]
enum Input {
    /// Exactly the expected output (a fixpoint).
    Canonical,
    /// The flat form.
    Flat,
    /// With debug-info comments (which the parser skips).
    Debug,
    /// With stable, symbolic ids.
    Stable,
    /// With every `%N` id replaced by `%(7N + 100)`.
    Renumbered,
}

struct Entry {
    file: &'static str,
    about: &'static str,
    build: fn() -> Module,
    input: Input,
    /// Adds a second run with `--strict-whitespace --match-full-lines` (prefix EXACT).
    exact: bool,
}

const fn e(
    file: &'static str,
    about: &'static str,
    build: fn() -> Module,
    input: Input,
    exact: bool,
) -> Entry {
    Entry {
        file,
        about,
        build,
        input,
        exact,
    }
}

use Input::*;

const ENTRIES: &[Entry] = &[
    e(
        "reference-example.xir",
        "Reference §1.8: nested form, lazily numbered %22.dispatch_id and merge block.",
        cm::reference_example,
        Canonical,
        true,
    ),
    e(
        "reference-example-flat-input.xir",
        "Flat-form input is printed back in nested form with the same ids.",
        cm::reference_example,
        Flat,
        false,
    ),
    e(
        "reference-example-debug-input.xir",
        "Debug-info comments (users, preds, CFG JSON) in the input are skipped.",
        cm::reference_example,
        Debug,
        false,
    ),
    e(
        "reference-example-stable-input.xir",
        "Stable symbolic ids in the input are renumbered upstream-style.",
        cm::reference_example,
        Stable,
        false,
    ),
    e(
        "phi-loop.xir",
        "Destructured loop: phi incomings, metadata on its own line, struct type.",
        cm::phi_loop,
        Canonical,
        false,
    ),
    e(
        "phi-loop-renumbered-input.xir",
        "Arbitrary input ids are renumbered by the printer's pre-pass.",
        cm::phi_loop,
        Renumbered,
        false,
    ),
    e(
        "switch-signed.xir",
        "i32 selector: labels printed signed (-1, -2147483648); cases before default.",
        cm::switch_signed,
        Canonical,
        false,
    ),
    e(
        "switch-u32-all-ones.xir",
        "u32 selector: the all-ones label prints as case 4294967295.",
        cm::switch_u32,
        Canonical,
        false,
    ),
    e(
        "switch-u64-all-ones.xir",
        "u64 selector: the all-ones label prints as case 18446744073709551615.",
        cm::switch_u64,
        Canonical,
        false,
    ),
    e(
        "trailing-space.xir",
        "Operand-less `keyword <op> ` instructions keep the space before `;`.",
        cm::trailing_space,
        Canonical,
        true,
    ),
    e(
        "structured-loop.xir",
        "loop prepare/body/update/merge with if, break and continue, nested inline.",
        cm::structured_loop,
        Canonical,
        true,
    ),
    e(
        "structured-loop-flat-input.xir",
        "The structured loop written in flat form.",
        cm::structured_loop,
        Flat,
        false,
    ),
    e(
        "metadata.xir",
        "Every metadata kind on module, constant, function, argument, block, instruction.",
        cm::metadata_all,
        Canonical,
        false,
    ),
    e(
        "types.xir",
        "Type declarations at first use (members first), opaque types, constructors.",
        cm::types,
        Canonical,
        false,
    ),
    e(
        "ext-block-size.xir",
        "Extension: kernel block_size(...) only when not 64, 1, 1.",
        cm::ext_block_size,
        Canonical,
        false,
    ),
    e(
        "ext-struct-align.xir",
        "Extension: struct align(N) only when not the natural alignment.",
        cm::ext_struct_align,
        Canonical,
        false,
    ),
    e(
        "ext-undef.xir",
        "Extension: undef declarations only when the type is not inferable, and unused ones.",
        cm::ext_undef,
        Canonical,
        false,
    ),
    e(
        "ext-extra-block.xir",
        "Extension: an owned block no traversal reaches is printed as an extra top-level block.",
        cm::ext_extra_block,
        Canonical,
        false,
    ),
    e(
        "bindless-access.xir",
        "Bindless [typed], [uniform], [typed, uniform] attributes.",
        cm::bindless_access,
        Canonical,
        false,
    ),
    e(
        "memory-ops.xir",
        "alloca shared, getelementptr, store, atomic, load, cast static_cast.",
        cm::memory_ops,
        Canonical,
        false,
    ),
    e(
        "special-registers.xir",
        "Special registers get ids lazily at first print.",
        cm::special_registers,
        Canonical,
        false,
    ),
    e(
        "simple-loop.xir",
        "simple_loop with break/continue, outline body/merge.",
        cm::simple_loop,
        Canonical,
        false,
    ),
];

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../test-corpus/corpus/print")
}

/// Replaces every numeric id `%N` by `%(7N + 100)`.
fn renumber(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '%' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            let mut n = String::new();
            while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                n.push(*d);
                chars.next();
            }
            let v: u64 = n.parse().unwrap();
            out.push_str(&(7 * v + 100).to_string());
        }
    }
    out
}

fn render(e: &Entry) -> String {
    let m = (e.build)();
    let opts = |flat, debug_info, ids| PrintOptions {
        flat,
        debug_info,
        ids,
    };
    let out = print_module(&m, &opts(false, false, IdStyle::Upstream));
    let input = match e.input {
        Canonical => out.clone(),
        Flat => print_module(&m, &opts(true, false, IdStyle::Upstream)),
        Debug => print_module(&m, &opts(false, true, IdStyle::Upstream)),
        Stable => print_module(&m, &opts(false, false, IdStyle::Stable)),
        Renumbered => renumber(&out),
    };
    let mut s = String::from("// RUN: xir-opt %s | xir-filecheck %s\n");
    if e.exact {
        s.push_str(
            "// RUN: xir-opt %s | xir-filecheck %s --strict-whitespace --match-full-lines \
             --check-prefix=EXACT\n",
        );
    }
    s.push_str(&format!("// {}\n\n", e.about));
    let mut checks = |prefix: &str, sep: &str| {
        for (k, line) in out.lines().enumerate() {
            s.push_str(&if k == 0 {
                format!("// {prefix}:{sep}{line}\n")
            } else if line.is_empty() {
                format!("// {prefix}-EMPTY:\n")
            } else {
                format!("// {prefix}-NEXT:{sep}{line}\n")
            });
        }
        s.push('\n');
    };
    checks("CHECK", " ");
    if e.exact {
        checks("EXACT", "");
    }
    s.push_str(&input);
    s
}

#[test]
fn corpus_files_match_the_printer() {
    let bless = std::env::var_os("XIR_BLESS").is_some();
    let mut stale = Vec::new();
    for e in ENTRIES {
        let path = dir().join(e.file);
        let want = render(e);
        if bless {
            std::fs::create_dir_all(dir()).unwrap();
            std::fs::write(&path, &want).unwrap();
            continue;
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have != want {
            stale.push(e.file);
        }
    }
    assert!(
        stale.is_empty(),
        "out of date (rerun with XIR_BLESS=1): {stale:?}"
    );
}

#[test]
fn corpus_has_no_unlisted_files_and_enough_cases() {
    let mut files: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut listed: Vec<String> = ENTRIES.iter().map(|e| e.file.to_string()).collect();
    listed.sort();
    assert_eq!(files, listed);
    assert!(files.len() >= 15);
    assert!(files.iter().all(|f| f.ends_with(".xir")));
}

#[test]
fn renumbering_changes_only_ids() {
    assert_eq!(
        renumber("%0: u32 = arithmetic extract %22.dispatch_id, %1; \"%x\""),
        "%100: u32 = arithmetic extract %254.dispatch_id, %107; \"%x\""
    );
}

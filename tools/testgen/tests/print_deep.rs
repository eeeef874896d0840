//! Deeply nested modules print without recursion: a 10,000-deep chain of structured
//! constructs (and a 10,000-deep type) printed on a thread with a 256 KiB stack.

mod common;

use common::*;
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::text::{PrintOptions, print_module};
use xir_ir::*;

const DEPTH: usize = 10_000;

/// A kernel whose body is `DEPTH` nested `outline` constructs, each child printed inline.
fn deep_module() -> Module {
    let (mut m, mut k, body) = kernel_shell();
    let mut cur = body;
    for _ in 0..DEPTH {
        let child = k.create_block();
        Cursor::at_end(&mut k, cur).outline(child, None);
        cur = child;
    }
    Cursor::at_end(&mut k, cur).ret(None);
    // A deeply nested array type as the kernel's argument.
    let mut t = m.types.u32();
    for _ in 0..DEPTH {
        t = m.types.intern(TypeData::Array { elem: t, len: 2 });
    }
    k.add_arg(ArgKind::Value, t);
    m.add_function(k);
    m
}

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("printer overflowed the stack or panicked")
}

#[test]
fn ten_thousand_deep_nested_form() {
    let (len, head, tail, lines, widest) = on_small_stack(|| {
        let m = deep_module();
        let s = print_module(&m, &PrintOptions::default());
        let lines = s.lines().count();
        let widest = s
            .lines()
            .map(|l| l.len() - l.trim_start_matches(' ').len())
            .max()
            .unwrap_or(0);
        (
            s.len(),
            s[..200].to_string(),
            s[s.len() - 60..].to_string(),
            lines,
            widest,
        )
    });
    assert!(
        head.starts_with("module;\n\nkernel %0 (\n    %1: array<array<"),
        "{head}"
    );
    // Five header lines, one opening and one closing line per level, the innermost
    // return, `};` and the final blank line.
    assert_eq!(lines, 2 * DEPTH + 8);
    assert!(
        tail.ends_with("        }, merge null;\n    }, merge null;\n};\n\n"),
        "{tail}"
    );
    // Indentation stops at MAX_INDENT_DEPTH levels: the text grows with the number of
    // lines, not lines × depth (unbounded, this module printed 400 MB).
    assert_eq!(widest, 4 * xir_ir::text::print::MAX_INDENT_DEPTH);
    assert!(len < 200 * lines, "{len} bytes for {lines} lines");
}

#[test]
fn ten_thousand_deep_flat_form_and_debug_info() {
    let (text_ok, cfg_ok) = on_small_stack(|| {
        let m = deep_module();
        let s = print_module(
            &m,
            &PrintOptions {
                flat: true,
                debug_info: true,
                ..Default::default()
            },
        );
        let last = format!(
            "%{0}:// users: %{1}, preds: %{2}\n    %{3}: void = return;\n}};",
            2 * DEPTH + 2,
            2 * DEPTH + 1,
            2 * DEPTH,
            2 * DEPTH + 3
        );
        (
            s.contains(&last),
            s.contains("// CFG = {\"function\": \"%0\""),
        )
    });
    assert!(text_ok);
    assert!(cfg_ok);
}

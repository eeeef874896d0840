//! Deep nesting never overflows the stack: the parser is table driven and every
//! semantic step is iterative, so a module nested `MAX_NESTING_DEPTH` deep parses in a
//! 256 KiB thread, and anything deeper is a clean "nesting too deep" error.

use xir_ir::text::{Reader, parse_module, parse_module_with};

/// A callable whose body nests `levels` structured `if`s (each in the previous one's
/// then-block).
fn nested_ifs(levels: usize) -> String {
    let mut s =
        String::from("module;\n\ncallable %f: void (\n    %c: bool;\n) = define %entry: {\n");
    for k in 0..levels {
        s.push_str(&format!("%i{k}: void = if %c, then %t{k}: {{\n"));
    }
    s.push_str("%r: void = return;\n");
    for k in (0..levels).rev() {
        s.push_str(&format!(
            "}}, else %e{k}: {{\n%x{k}: void = return;\n}}, merge null;\n"
        ));
    }
    s.push_str("};\n");
    s
}

fn in_small_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no stack overflow")
}

#[test]
fn ten_thousand_levels_parse_in_a_256k_thread() {
    let src = nested_ifs(xir_ir::MAX_NESTING_DEPTH);
    let n = in_small_thread(move || match parse_module(&src) {
        Ok((m, _)) => m.inst_count(),
        Err(d) => panic!("{:?}", &d[..d.len().min(3)]),
    });
    assert_eq!(n, 2 * xir_ir::MAX_NESTING_DEPTH + 1);
}

#[test]
fn hundred_thousand_levels_are_a_clean_error() {
    let src = nested_ifs(100_000);
    let d = in_small_thread(move || parse_module(&src).expect_err("must fail"));
    assert!(
        d.iter().any(|d| d.message.starts_with("nesting too deep")),
        "{d:?}"
    );
}

#[test]
fn deep_types_and_literals_are_bounded() {
    let deep_type = format!(
        "module;\n\ncallable %f: {}f32{} ();\n",
        "array<".repeat(100_000),
        ", 1>".repeat(100_000)
    );
    let d = in_small_thread(move || parse_module(&deep_type).expect_err("must fail"));
    assert!(
        d.iter().any(|d| d.message.starts_with("nesting too deep")),
        "{d:?}"
    );
    let deep_lit = format!(
        "module;\n\nconst %0: u32 = {}1u32{};\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let d = in_small_thread(move || parse_module(&deep_lit).expect_err("must fail"));
    assert!(
        d.iter().any(|d| d.message.starts_with("nesting too deep")),
        "{d:?}"
    );
}

#[test]
fn deep_errors_recover_in_bounded_time() {
    // An error deep inside many open blocks followed by a long run of junk tokens.
    let mut src = nested_ifs(2_000);
    let at = src.find("%r: void = return;").expect("innermost");
    src.insert_str(at, &", , , ".repeat(20_000));
    let t = std::time::Instant::now();
    let d = in_small_thread(move || parse_module(&src).expect_err("must fail"));
    assert!(!d.is_empty());
    assert!(
        t.elapsed().as_secs() < 60,
        "recovery took {:?}",
        t.elapsed()
    );
}

/// The fast reader recurses, bounded by its bracket-depth limit (16): 14 nested levels
/// are read by it within a 256 KiB stack (even in a debug build, whose frames are ~6 KB a
/// level); 100 levels make it give up, and lalrpop reads them (the whole-input fall-back
/// of `parse_module`).
#[test]
fn fast_reader_nesting_is_bounded_on_a_small_stack() {
    let (shallow, deep_fast, deep) = in_small_thread(|| {
        let shallow = parse_module_with(&nested_ifs(14), Reader::Fast).is_some();
        let deep_fast = parse_module_with(&nested_ifs(100), Reader::Fast).is_some();
        let deep = parse_module(&nested_ifs(100)).map(|(m, _)| m.inst_count());
        (shallow, deep_fast, deep.ok())
    });
    assert!(shallow, "14 levels are within the fast reader's limit");
    assert!(!deep_fast, "100 levels are beyond it");
    // 100 `if`s, 100 else-block returns and the innermost return.
    assert_eq!(deep, Some(2 * 100 + 1));
}

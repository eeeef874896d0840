//! One test per parser error kind: exact message, line and column (and the help line
//! where there is one), plus error recovery (all errors of a file are reported).

use xir_ir::diag::{Diagnostic, line_col};
use xir_ir::text::parse_module;

/// `(line, col, message, help)` of every diagnostic.
fn errors(src: &str) -> Vec<(usize, usize, String, Option<String>)> {
    let d: Vec<Diagnostic> = match parse_module(src) {
        Ok(_) => panic!("expected errors for:\n{src}"),
        Err(d) => d,
    };
    d.into_iter()
        .map(|d| {
            let (l, c) = line_col(
                src,
                d.span.expect("every parser error has a span").start as usize,
            );
            (l, c, d.message, d.help)
        })
        .collect()
}

/// Asserts exactly one error, at `line:col`, with `msg`.
fn one(src: &str, line: usize, col: usize, msg: &str) -> Option<String> {
    let e = errors(src);
    assert_eq!(e.len(), 1, "expected one error, got {e:#?}\n{src}");
    assert_eq!((e[0].0, e[0].1, e[0].2.as_str()), (line, col, msg), "{src}");
    e[0].3.clone()
}

/// Wraps instructions into a callable with arguments `%a: f32`, `%b: bool`, `%c: i8`,
/// `%p: &u32`; the instructions start on line 8.
fn func(body: &str) -> String {
    format!(
        "module;\n\ncallable %f: f32 (\n    %a: f32;\n    %b: bool;\n    %c: i8;\n) = define %entry: {{\n{body}}};\n"
    )
}

#[test]
fn unexpected_character() {
    one(
        &func("%x: f32 = arithmetic binary_add %a, $a;\n%r: void = return %x;\n"),
        8,
        37,
        "unexpected character '$'",
    );
}

#[test]
fn unterminated_string() {
    let h = one(
        &func("%r: void = unreachable \"oops;\n"),
        8,
        24,
        "unterminated string literal",
    );
    assert!(h.is_some());
}

#[test]
fn value_id_too_large() {
    one(
        &func("%r: void = return %99999999999;\n"),
        8,
        19,
        "value id is too large",
    );
}

#[test]
fn missing_semicolon_points_after_the_last_token() {
    one(
        &func("%x: f32 = arithmetic binary_add %a, %a\n%r: void = return %x;\n"),
        8,
        39,
        "expected ';' after instruction",
    );
}

#[test]
fn missing_comma() {
    one(
        &func("%x: f32 = arithmetic binary_add %a %a;\n%r: void = return %x;\n"),
        8,
        36,
        "expected ';' or ',', found '%a'",
    );
}

#[test]
fn unknown_instruction_with_suggestion() {
    let h = one(
        &func("%x: f32 = arithmetc binary_add %a, %a;\n%r: void = return %x;\n"),
        8,
        11,
        "unknown instruction 'arithmetc'",
    );
    assert_eq!(h.as_deref(), Some("did you mean 'arithmetic'?"));
}

#[test]
fn unknown_arithmetic_op_with_suggestion() {
    let h = one(
        &func("%x: f32 = arithmetic binary_ad %a, %a;\n%r: void = return %x;\n"),
        8,
        22,
        "unknown arithmetic op 'binary_ad'",
    );
    assert_eq!(h.as_deref(), Some("did you mean 'binary_add'?"));
}

#[test]
fn unknown_ops_of_every_table() {
    for (body, msg) in [
        (
            "%x: u32 = atomic fetch_ad %p, %a;",
            "unknown atomic op 'fetch_ad'",
        ),
        (
            "%x: void = thread_group synchronise_block ;",
            "unknown thread group op 'synchronise_block'",
        ),
        ("%x: f32 = cast static %a;", "unknown cast op 'static'"),
        ("%x: f32 = alloca locl;", "unknown alloca op 'locl'"),
        (
            "%x: f32 = @autodiff_grad %a;",
            "unknown autodiff op 'autodiff_grad'",
        ),
        (
            "%x: u32 = resource_query buffer_sz %a;",
            "unknown resource query op 'buffer_sz'",
        ),
        (
            "%x: void = resource_write buffer_wr %a;",
            "unknown resource write op 'buffer_wr'",
        ),
        (
            "%x: bool = ray_query_object_read is_terminated %a;",
            "unknown ray query read op 'is_terminated'",
        ),
    ] {
        let e = errors(&func(&format!("{body}\n%r: void = return %a;\n")));
        assert_eq!(e[0].2, msg, "{body}");
    }
}

#[test]
fn unknown_type_with_suggestion() {
    let h = one(
        "module;\n\ncallable %f: f33 () = define %e: {\n    %r: void = return;\n};\n",
        3,
        14,
        "unknown type 'f33'",
    );
    assert_eq!(h.as_deref(), Some("did you mean 'f32'?"));
}

#[test]
fn undeclared_type_name() {
    let src = "module;\n\ncallable %f: f32 (\n    %p: &T5;\n) = define %e: {\n    %x: f32 = load %p;\n    %r: void = return %x;\n};\n";
    one(src, 4, 10, "use of undeclared type T5");
}

#[test]
fn bad_generic_types() {
    let e = errors(
        "module;\n\ncallable %f: vector<f32, 5> () = define %e: {\n    %r: void = return;\n};\n",
    );
    assert_eq!(e[0].2, "expected an integer from 2 to 4");
    let e = errors(
        "module;\n\ncallable %f: matrix<u32, 2> () = define %e: {\n    %r: void = return;\n};\n",
    );
    assert_eq!(e[0].2, "matrix elements must be floats");
    let e = errors(
        "module;\n\ncallable %f: texture2d<f64> () = define %e: {\n    %r: void = return;\n};\n",
    );
    assert_eq!(e[0].2, "texture elements must be i32, u32 or f32");
    let e = errors(
        "module;\n\ncallable %f: vector<f32> () = define %e: {\n    %r: void = return;\n};\n",
    );
    assert_eq!(e[0].2, "'vector' takes 2 arguments");
    let e = errors(
        "module;\n\ncallable %f: array<f32, 1099511627776> () = define %e: {\n    %r: void = return;\n};\n",
    );
    assert_eq!(e[0].2, "type is too large (more than 2^40 bytes)");
}

#[test]
fn undefined_value() {
    one(
        &func("%x: f32 = arithmetic binary_add %a, %zz;\n%r: void = return %x;\n"),
        8,
        37,
        "use of undefined value %zz",
    );
}

#[test]
fn undefined_block() {
    one(
        "module;\n\nkernel %k () = define %e: {\n    %x: void = br %nowhere;\n};\n",
        4,
        19,
        "use of undefined block %nowhere",
    );
}

#[test]
fn undefined_function() {
    one(
        &func("%x: f32 = call %g, %a;\n%r: void = return %x;\n"),
        8,
        16,
        "use of undefined function %g",
    );
}

#[test]
fn redefinition_points_at_both() {
    let src = func(
        "%x: f32 = arithmetic binary_add %a, %a;\n%x: f32 = arithmetic binary_mul %a, %a;\n%r: void = return %x;\n",
    );
    let d = parse_module(&src).expect_err("error");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].message, "redefinition of %x");
    assert_eq!(line_col(&src, d[0].span.unwrap().start as usize), (9, 1));
    let prev = d[0].secondary[0].0;
    assert_eq!(line_col(&src, prev.start as usize), (8, 1));
}

#[test]
fn redefinition_of_type() {
    one(
        "module;\n\ntype T0 = struct { u32 };\n\ntype T0 = struct { f32 };\n",
        5,
        6,
        "redefinition of type T0",
    );
}

#[test]
fn value_kind_mismatch() {
    one(
        &func("%x: f32 = arithmetic binary_add %a, %a;\n%y: void = br %x;\n"),
        9,
        15,
        "%x is an instruction, not a block",
    );
    one(
        &func("%x: f32 = call %a, %a;\n%r: void = return %x;\n"),
        8,
        16,
        "%a is an argument, not a function",
    );
}

#[test]
fn bare_decimal_constant_and_hex_boundary() {
    let h = one(
        "module;\n\nconst %0: u32 = 16;\n",
        3,
        17,
        "integer literal '16' needs a type suffix",
    );
    assert_eq!(
        h.as_deref(),
        Some("write '16u32' for the value, or exactly 8 hex digits for the raw bytes")
    );
    one(
        "module;\n\nconst %0: u32 = 0000803f00;\n",
        3,
        17,
        "expected 8 hex digits for a constant of type u32, found 10",
    );
    one(
        "module;\n\nconst %0: u32 = deadbee;\n",
        3,
        17,
        "expected 8 hex digits for a constant of type u32, found 7",
    );
}

#[test]
fn literal_errors() {
    one(
        "module;\n\nconst %0: u8 = 300u8;\n",
        3,
        16,
        "literal 300 is out of range for u8",
    );
    one(
        "module;\n\nconst %0: u32 = -1u32;\n",
        3,
        17,
        "literal -1 is out of range for u32",
    );
    one(
        "module;\n\nconst %0: u32 = 16i32;\n",
        3,
        17,
        "expected a u32 literal, found '16i32'",
    );
    one(
        "module;\n\nconst %0: vector<f32, 3> = [1.0, 2.0];\n",
        3,
        37,
        "too few elements: expected 3 for vector<f32, 3>, found 2",
    );
    one(
        "module;\n\nconst %0: vector<f32, 2> = [1.0, 2.0, 3.0];\n",
        3,
        39,
        "too many elements: expected 2 for vector<f32, 2>",
    );
    one(
        "module;\n\nconst %0: f32 = 1f32;\n",
        3,
        17,
        "expected 8 hex digits for a constant of type f32, found 4",
    );
    one(
        "module;\n\nconst %0: bool = yes;\n",
        3,
        18,
        "expected 'true' or 'false'",
    );
    one(
        "module;\n\nconst %0: f32 = [1.0];\n",
        3,
        17,
        "expected a f32 value",
    );
    one(
        "module;\n\nconst %0: f8e4m3 = 1.0;\n",
        3,
        20,
        "f8e4m3 values have no literal syntax; write the constant as hex bytes",
    );
    one(
        "module;\n\ntype T0 = struct { u32, f32 };\n\nconst %0: T0 = [1u32, 1.0];\n",
        5,
        16,
        "expected '{' for a value of type struct",
    );
}

#[test]
fn constants_need_data_types() {
    one(
        "module;\n\nconst %0: buffer<f32> = 0000000000000000;\n",
        3,
        7,
        "constants must have a data type (not a resource or opaque type)",
    );
    one(
        "module;\n\nconst %0: void = 00;\n",
        3,
        7,
        "constants cannot have type void",
    );
}

#[test]
fn undefined_value_type_not_inferable() {
    let h = one(
        &func("%x: f32 = arithmetic length %7.undefined;\n%r: void = return %x;\n"),
        8,
        29,
        "cannot infer the type of %7.undefined",
    );
    assert_eq!(
        h.as_deref(),
        Some("declare it in the prelude: 'undef %7.undefined: T;'")
    );
}

#[test]
fn null_block_where_no_slot() {
    let src = func(
        "%i: void = if %b, then null, else %t, merge null;\n}\n%t: {\n%r: void = return %a;\n",
    );
    one(&src, 8, 24, "the 'then' block cannot be null");
    let src = func("%x: void = br null;\n");
    one(&src, 8, 15, "the target block cannot be null");
    let src = func("%x: f32 = phi (%a, null);\n%r: void = return %x;\n");
    one(&src, 8, 20, "phi incoming block cannot be null");
}

#[test]
fn case_label_out_of_range() {
    let src = func(
        "%s: void = switch %c, case 300 %x, default %x, merge %x;\n}\n%x: {\n%r: void = return %a;\n",
    );
    one(&src, 8, 28, "case label 300 is out of range for i8");
    let src = func(
        "%s: void = switch %b, case 2 %x, default %x, merge %x;\n}\n%x: {\n%r: void = return %a;\n",
    );
    one(&src, 8, 28, "case label 2 is out of range for bool");
}

#[test]
fn unknown_special_register() {
    let h = one(
        &func("%x: u32 = arithmetic extract %9.dispatch_idx, %a;\n%r: void = return %a;\n"),
        8,
        30,
        "unknown special register 'dispatch_idx'",
    );
    assert_eq!(h.as_deref(), Some("did you mean 'dispatch_id'?"));
}

#[test]
fn special_register_label_clash() {
    let e = errors(&func(
        "%x: u32 = arithmetic extract %9.dispatch_id, %9.thread_id;\n%r: void = return %a;\n",
    ));
    assert_eq!(
        e[0].2,
        "%9.thread_id is a special register, not special register thread_id"
    );
}

#[test]
fn metadata_errors() {
    let h = one("[nmae = m]\nmodule;\n", 1, 2, "unknown metadata 'nmae'");
    assert_eq!(h.as_deref(), Some("did you mean 'name'?"));
    one(
        "[location = \"a\"]\nmodule;\n",
        1,
        13,
        "'location' takes a tuple of 2 values",
    );
    one(
        "[no_inline = 1]\nmodule;\n",
        1,
        14,
        "'no_inline' takes no value",
    );
    one(
        "[comment]\nmodule;\n",
        1,
        2,
        "'comment' needs a value ('comment = …')",
    );
    one(
        "[reg2mem_spill = loop]\nmodule;\n",
        1,
        18,
        "'reg2mem_spill' is 'phi' or 'cross_block'",
    );
    one(
        "[curve_basis = {linear}]\nmodule;\n",
        1,
        17,
        "unknown curve basis 'linear'",
    );
    one(
        "[strided_mma = {width = 2}]\nmodule;\n",
        1,
        17,
        "invalid strided_mma field 'width'",
    );
}

#[test]
fn invalid_escapes() {
    one(
        &func("%r: void = unreachable \"bad \\q\";\n"),
        8,
        29,
        "invalid escape sequence",
    );
    one(
        &func("%r: void = unreachable \"bad \\u12\";\n"),
        8,
        29,
        "invalid escape sequence",
    );
    one(
        &func("%r: void = unreachable \"bad \\u{110000}\";\n"),
        8,
        29,
        "invalid escape sequence",
    );
}

#[test]
fn module_header() {
    one(
        "const %0: u32 = 00000000;\n",
        1,
        1,
        "expected 'module;' before the first item",
    );
    one("", 1, 1, "expected 'module;' at the start of the file");
    one(
        "// only a comment\n",
        1,
        1,
        "expected 'module;' at the start of the file",
    );
    one("module;\n\nmodule;\n", 3, 1, "duplicate 'module;' header");
}

#[test]
fn function_header_errors() {
    one(
        "module;\n\ncallable %f: f32 block_size(8, 8, 1) () = define %e: {\n    %r: void = return;\n};\n",
        3,
        18,
        "only kernels have a block size",
    );
    one(
        "module;\n\nkernel %k block_size(0, 1, 1) () = define %e: {\n    %r: void = return;\n};\n",
        3,
        22,
        "block size must be a positive 32-bit integer",
    );
    one(
        "module;\n\nexternal %f: f32 () = define %e: {\n    %r: void = return;\n};\n",
        3,
        1,
        "external functions cannot have a body",
    );
}

#[test]
fn struct_declaration_errors() {
    one(
        "module;\n\ntype T0 = struct align(3) { u32 };\n",
        3,
        24,
        "struct alignment must be 1, 2, 4, 8 or 16",
    );
    one(
        "module;\n\ntype T0 = struct align(4) { vector<f32, 4> };\n",
        3,
        24,
        "struct alignment 4 is less than its members' alignment 16",
    );
    one(
        "module;\n\ntype u32 = struct { f32 };\n",
        3,
        6,
        "cannot redefine the built-in type 'u32'",
    );
}

#[test]
fn bindless_attribute_errors() {
    let src = "module;\n\nkernel %k (\n    %buf: buffer<f32>;\n    %i: u32;\n) = define %e: {\n    %x: f32 = resource_read buffer_read [typed] %buf, %i;\n    %r: void = return;\n};\n";
    one(
        src,
        7,
        29,
        "only bindless resource ops take [typed] or [uniform]",
    );
    let src = "module;\n\nkernel %k (\n    %arr: bindless_array;\n    %i: u32;\n) = define %e: {\n    %x: f32 = resource_read bindless_buffer_read [fast] %arr, %i, %i;\n    %r: void = return;\n};\n";
    one(
        src,
        7,
        51,
        "unknown resource attribute 'fast' (expected 'typed' or 'uniform')",
    );
}

#[test]
fn unexpected_end_of_input() {
    one(
        "module;\n\nkernel %k () = define %e: {\n    %r: void = return;\n",
        4,
        23,
        "unexpected end of input, expected '}', '[' or a value",
    );
}

#[test]
fn special_declarations() {
    one(
        "module;\n\nspecial %3;\n",
        3,
        9,
        "%3 is not a special register (expected %N.<register>)",
    );
    let e = errors("module;\n\nspecial %3.thread_id;\n\nspecial %4.thread_id;\n");
    assert_eq!(e[0].2, "special register thread_id declared twice");
}

#[test]
fn nesting_too_deep() {
    let src = format!("module;\n\nconst %0: u32 = {};\n", "[".repeat(20_000));
    let e = errors(&src);
    assert_eq!(e[0].2, "nesting too deep (more than 10000 levels)");
    assert_eq!((e[0].0, e[0].1), (3, 17 + 10_008));
}

#[test]
fn every_error_of_a_file_is_reported_in_order() {
    let src = "module;\n\nconst %0: u32 = 16;\n\ncallable %1: f32 (\n    %2: f32;\n) = define %3: {\n    %4: f32 = arithmetic binary_ad %2, %2;\n    %5: f32 = arithmetic binary_add %2 %2;\n    %6: f32 = load %99;\n    %7: void = return %6;\n};\n\nkernel %8 () = define %9: {\n    %10: void = br %11;\n};\n";
    let e = errors(src);
    let got: Vec<(usize, usize, &str)> = e.iter().map(|e| (e.0, e.1, e.2.as_str())).collect();
    assert_eq!(
        got,
        vec![
            (3, 17, "integer literal '16' needs a type suffix"),
            (8, 26, "unknown arithmetic op 'binary_ad'"),
            (9, 40, "expected ';' or ',', found '%2'"),
            (10, 20, "use of undefined value %99"),
            (15, 20, "use of undefined block %11"),
        ]
    );
}

#[test]
fn a_broken_statement_does_not_cascade() {
    // The definition of %x is lost to the syntax error; its later use is not reported.
    let e = errors(&func(
        "%x: f32 = arithmetic binary_add %a %a;\n%y: f32 = arithmetic binary_add %x, %x;\n%r: void = return %y;\n",
    ));
    assert_eq!(e.len(), 1, "{e:#?}");
    // A missing `;` at the end of a line resumes at the next line's instruction.
    let e = errors(&func(
        "%x: f32 = arithmetic binary_add %a, %a\n%y: f32 = arithmetic binary_ad %x, %x;\n%r: void = return %y;\n",
    ));
    assert_eq!(e.len(), 2, "{e:#?}");
    assert_eq!(e[1].2, "unknown arithmetic op 'binary_ad'");
}

#[test]
fn too_many_errors_stop() {
    let mut body = String::new();
    for k in 0..300 {
        body.push_str(&format!("%x{k}: f32 = arithmetic binary_ad %a, %a;\n"));
    }
    body.push_str("%r: void = return %a;\n");
    let e = errors(&func(&body));
    assert!(e.len() <= 102, "{}", e.len());
    assert_eq!(e.last().unwrap().2, "too many errors; stopping");
}

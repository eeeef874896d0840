//! What the parser builds: constant bytes (hex and literals, the hex/decimal boundary),
//! switch labels, undefined-value types, forward references, symbolic names, flat vs
//! nested form, source spans, extensions and upstream quirks.

use xir_ir::function::{ArgKind, FunctionKind};
use xir_ir::inst::InstKind;
use xir_ir::metadata::Metadata;
use xir_ir::source_map::SourceMap;
use xir_ir::text::parse_module;
use xir_ir::types::{ScalarKind, TypeData};
use xir_ir::{Module, Value};
use xir_testgen::structural_diff;

fn parse(src: &str) -> (Module, SourceMap) {
    match parse_module(src) {
        Ok(x) => x,
        Err(d) => panic!("{}", xir_ir::diag::render("t.xir", src, &d)),
    }
}

/// The bytes of the constants of `consts` (one `const` per line after `module;`).
fn const_bytes(consts: &str) -> Vec<Vec<u8>> {
    let (m, _) = parse(&format!("module;\n{consts}"));
    m.live_constants()
        .map(|c| m.constants[c].bytes.to_vec())
        .collect()
}

#[test]
fn hex_bytes_and_the_decimal_boundary() {
    let b = const_bytes(
        "const %0: u32 = 10000000;\nconst %1: u8 = 16;\nconst %2: u32 = DEADBEEF;\nconst %3: u16 = ffff;\n",
    );
    assert_eq!(b[0], vec![0x10, 0, 0, 0]);
    assert_eq!(u32::from_le_bytes(b[0][..].try_into().unwrap()), 16);
    assert_eq!(b[1], vec![0x16]);
    assert_eq!(b[2], vec![0xde, 0xad, 0xbe, 0xef]);
    assert_eq!(b[3], vec![0xff, 0xff]);
}

#[test]
fn scalar_literals() {
    let b = const_bytes(concat!(
        "const %0: u32 = 16u32;\n",
        "const %1: i32 = -3i32;\n",
        "const %2: f32 = 1.0;\n",
        "const %3: f64 = -2.5e3;\n",
        "const %4: f16 = 1.0;\n",
        "const %5: bool = true;\n",
        "const %6: i64 = -9223372036854775808i64;\n",
        "const %7: u64 = 18446744073709551615u64;\n",
        "const %8: f32 = -inf;\n",
        "const %9: f32 = nan;\n",
        "const %10: u8 = 255u8;\n",
    ));
    assert_eq!(b[0], 16u32.to_le_bytes());
    assert_eq!(b[1], (-3i32).to_le_bytes());
    assert_eq!(b[2], 1.0f32.to_le_bytes());
    assert_eq!(b[3], (-2500.0f64).to_le_bytes());
    assert_eq!(b[4], [0x00, 0x3c]);
    assert_eq!(b[5], [1]);
    assert_eq!(b[6], i64::MIN.to_le_bytes());
    assert_eq!(b[7], u64::MAX.to_le_bytes());
    assert_eq!(b[8], f32::NEG_INFINITY.to_le_bytes());
    assert!(f32::from_le_bytes(b[9][..].try_into().unwrap()).is_nan());
    assert_eq!(b[10], [255]);
}

#[test]
fn aggregate_literals_use_native_layout_with_padding() {
    let b = const_bytes(concat!(
        "type T0 = struct { bool, u32, vector<f32, 2> };\n",
        "const %0: vector<f32, 3> = [1.0, 2.0, 3.0];\n",
        "const %1: matrix<f32, 3> = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]];\n",
        "const %2: array<u16, 3> = [1u16, 2u16, 3u16,];\n",
        "const %3: T0 = {true, 7u32, [0.5, -0.5]};\n",
        "const %4: array<vector<f32, 3>, 2> = [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]];\n",
    ));
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    assert_eq!(b[0], f(&[1.0, 2.0, 3.0, 0.0]));
    assert_eq!(
        b[1],
        f(&[1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0, 0.0, 7.0, 8.0, 9.0, 0.0])
    );
    assert_eq!(b[2], vec![1, 0, 2, 0, 3, 0]);
    let mut t0 = vec![1, 0, 0, 0, 7, 0, 0, 0];
    t0.extend(f(&[0.5, -0.5]));
    assert_eq!(b[3], t0);
    assert_eq!(b[4], f(&[1.0, 1.0, 1.0, 0.0, 2.0, 2.0, 2.0, 0.0]));
}

#[test]
fn switch_labels_are_stored_at_the_selector_width() {
    let (m, _) = parse(concat!(
        "module;\n\ncallable %f: u32 (\n    %a: i32;\n    %b: u32;\n    %c: i8;\n    %d: u64;\n) = define %e: {\n",
        "    %s1: void = switch %a, case -1 %x, case -2147483648 %x, case 2147483647 %x, default %x, merge %x;\n}\n",
        "%x: {\n    %s2: void = switch %b, case 4294967295 %y, default %y, merge %y;\n}\n",
        "%y: {\n    %s3: void = switch %c, case -128 %z, case -1 %z, default %z, merge %z;\n}\n",
        "%z: {\n    %s4: void = indexed_branch %d, case 18446744073709551615 %w, default %w;\n}\n",
        "%w: {\n    %r: void = return %b;\n};\n",
    ));
    let f = m.func(m.func_order[0]);
    let labels: Vec<Vec<u64>> = f
        .placed_insts()
        .filter_map(|i| match &f.insts[i].kind {
            InstKind::Switch { labels, .. } | InstKind::IndexedBranch { labels } => {
                Some(labels.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(labels[0], vec![0xffff_ffff, 0x8000_0000, 0x7fff_ffff]);
    assert_eq!(labels[1], vec![0xffff_ffff]);
    assert_eq!(labels[2], vec![0x80, 0xff]);
    assert_eq!(labels[3], vec![u64::MAX]);
}

#[test]
fn undefined_value_types() {
    let (m, map) = parse(concat!(
        "module;\n\nundef %9.undefined: vector<f32, 4>;\n\n",
        "callable %f: f32 (\n    %p: &u32;\n    %x: f32;\n) = define %e: {\n",
        "    %s: void = store %p, %1.undefined;\n",
        "    %a: f32 = arithmetic binary_add %x, %2.undefined;\n",
        "    %v: vector<f32, 4> = arithmetic binary_mul %9.undefined, %9.undefined;\n",
        "    %r: void = return %3.undefined;\n};\n",
    ));
    let f = m.func(m.func_order[0]);
    let ty_of = |v: Value| {
        m.value_type(m.func_order[0], v)
            .map(|t| m.types.get(t).clone())
    };
    let insts: Vec<_> = f.placed_insts().collect();
    let u32t = TypeData::Scalar(ScalarKind::U32);
    let f32t = TypeData::Scalar(ScalarKind::F32);
    assert_eq!(ty_of(f.insts[insts[0]].operands[1]), Some(u32t));
    assert_eq!(ty_of(f.insts[insts[1]].operands[1]), Some(f32t.clone()));
    assert!(matches!(
        ty_of(f.insts[insts[2]].operands[0]),
        Some(TypeData::Vector { len: 4, .. })
    ));
    assert_eq!(ty_of(f.insts[insts[3]].operands[0]), Some(f32t));
    // One undefined value per type; %2 and %3 are both f32.
    assert_eq!(m.live_undefs().count(), 3);
    for u in m.live_undefs() {
        assert!(map.undefs.get(u) != &xir_ir::diag::Span::default());
    }
}

#[test]
fn forward_references_resolve() {
    let (m, _) = parse(concat!(
        "module;\n\nconst %zero: u32 = 00000000;\n\nconst %one: u32 = 01000000;\n\n",
        "callable %f: u32 (\n    %n: u32;\n) = define %entry: {\n    %b: void = br %head;\n}\n",
        "%head: {\n    %i: u32 = phi (%zero, %entry), (%next, %body);\n",
        "    %c: bool = arithmetic binary_less %i, %n;\n    %cb: void = cond_br %c, %body, %exit;\n}\n",
        "%body: {\n    %next: u32 = arithmetic binary_add %i, %one;\n    %back: void = br %head;\n}\n",
        "%exit: {\n    %r: u32 = call %g, %i;\n    %ret: void = return %r;\n};\n\n",
        "callable %g: u32 (\n    %x: u32;\n) = define %e: {\n    %r: void = return %x;\n};\n",
    ));
    let fid = m.func_order[0];
    let f = m.func(fid);
    assert_eq!(f.block_order.len(), 4);
    let insts: Vec<_> = f.placed_insts().collect();
    let phi = &f.insts[insts[1]];
    assert!(phi.is_phi());
    assert_eq!(
        phi.phi_blocks().collect::<Vec<_>>(),
        vec![f.block_order[0], f.block_order[2]]
    );
    assert_eq!(phi.phi_edge(1).unwrap().0, Value::Inst(insts[4]));
    let call = &f.insts[insts[6]];
    assert_eq!(call.operands[0], Value::Func(m.func_order[1]));
    // Placeholders left nothing behind: every referenced instruction is placed.
    for i in f.placed_insts() {
        for op in &f.insts[i].operands {
            if let Value::Inst(j) = op {
                assert!(f.insts[*j].block.is_some());
            }
        }
    }
}

#[test]
fn a_function_used_as_a_plain_operand_before_its_definition() {
    let (m, _) = parse(concat!(
        "module;\n\nkernel %k () = define %e: {\n    %p: void = debug_break %g;\n    %r: void = return;\n};\n\n",
        "callable %g: void () = define %e: {\n    %r: void = return;\n};\n",
    ));
    let f = m.func(m.func_order[0]);
    let first = f.placed_insts().next().unwrap();
    assert_eq!(f.insts[first].operands[0], Value::Func(m.func_order[1]));
}

#[test]
fn symbolic_names_are_labels_not_metadata() {
    let (m, _) = parse(concat!(
        "module;\n\ncallable %f: f32 (\n    %x: f32;\n) = define %entry: {\n",
        "    %sum: f32 = arithmetic binary_add %x, %x;\n    %ret: void = return %sum;\n};\n\n",
        "callable %g: f32 (\n    %x: f32;\n) = define %entry: {\n    %ret: void = return %x;\n};\n",
    ));
    for fid in &m.func_order {
        let f = m.func(*fid);
        assert!(f.metadata.is_empty());
        for a in &f.arg_order {
            assert!(f.args[*a].metadata.is_empty());
        }
        for i in f.placed_insts() {
            assert!(f.insts[i].metadata.is_empty());
        }
    }
}

#[test]
fn flat_and_nested_forms_build_the_same_module() {
    let nested = concat!(
        "module;\n\nconst %0: u32 = 00000000;\n\nkernel %1 (\n    %2: buffer<u32>;\n) = define %3: {\n",
        "    %4: u32 = arithmetic extract %20.dispatch_id, %0;\n    %5: bool = arithmetic binary_less %4, %0;\n",
        "    %6: void = if %5, then %7: {\n        %8: void = br %9;\n    }, else %10: {\n        %11: void = br %9;\n",
        "    }, merge %9: {\n        %12: void = return;\n    };\n};\n",
    );
    let flat = concat!(
        "module;\n\nconst %0: u32 = 00000000;\n\nkernel %1 (\n    %2: buffer<u32>;\n) = define {\n%3:\n",
        "    %4: u32 = arithmetic extract %20.dispatch_id, %0;\n    %5: bool = arithmetic binary_less %4, %0;\n",
        "    %6: void = if %5, then %7, else %10, merge %9;\n%7:\n    %8: void = br %9;\n%9:\n    %12: void = return;\n",
        "%10:\n    %11: void = br %9;\n};\n",
    );
    let (a, _) = parse(nested);
    let (b, _) = parse(flat);
    assert_eq!(structural_diff(&a, &b), None);
}

#[test]
fn debug_info_comments_are_skipped() {
    let (m, _) = parse(concat!(
        "module;\n\nconst %0: u32 = 00000000;// users: %4\n\n",
        "callable %1: u32 (\n    %2: u32;// users: %4\n) = define %3: {// preds:\n",
        "    %4: u32 = arithmetic binary_add %2, %0;// users: %5\n    %5: void = return %4;\n};",
        "// CFG = {\"function\": \"%1\", \"nodes\": [\"%3\"], \"terminators\": {\"%3\": \n\n",
    ));
    assert_eq!(m.inst_count(), 2);
}

#[test]
fn source_map_spans() {
    let src = "module;\n\nconst %0: u32 = 00000000;\n\nkernel %k (\n    %a: u32;\n) = define %e: {\n    %r: void = return;\n};\n";
    let (m, map) = parse(src);
    let fid = m.func_order[0];
    let f = m.func(fid);
    let text = |s: xir_ir::diag::Span| &src[s.range()];
    assert_eq!(
        text(map.constant(m.live_constants().next().unwrap()).unwrap()),
        "const %0: u32 = 00000000;"
    );
    assert_eq!(text(map.func(fid).unwrap()), "kernel %k");
    assert_eq!(text(map.arg(fid, f.arg_order[0]).unwrap()), "%a: u32");
    assert_eq!(text(map.block(fid, f.block_order[0]).unwrap()), "%e");
    let i = f.placed_insts().next().unwrap();
    assert_eq!(text(map.inst(fid, i).unwrap()), "%r: void = return;");
}

#[test]
fn null_side_blocks_and_argument_kinds() {
    let (m, _) = parse(concat!(
        "module;\n\ncallable %f: u32 (\n    %b: bool;\n    %v: u32;\n    %p: &u32;\n    %buf: buffer<u32>;\n) = define %e: {\n",
        "    %i: void = if %b, then %t: {\n        %r1: void = return %v;\n    }, else %x: {\n        %r2: void = return %v;\n    }, merge null;\n};\n",
    ));
    let f = m.func(m.func_order[0]);
    let kinds: Vec<ArgKind> = f.arg_order.iter().map(|a| f.args[*a].kind).collect();
    assert_eq!(
        kinds,
        vec![
            ArgKind::Value,
            ArgKind::Value,
            ArgKind::Reference,
            ArgKind::Resource
        ]
    );
    let i = f.placed_insts().next().unwrap();
    assert_eq!(f.insts[i].kind, InstKind::If { merge: None });
    assert_eq!(f.body, Some(f.block_order[0]));
}

#[test]
fn extensions_are_read() {
    let (m, _) = parse(concat!(
        "module;\n\ntype T0 = struct align(16) { u32, f32 };\n\ntype T1 = struct { u32, f32 };\n\n",
        "[no_inline, contiguous_copy = (256, 4)]\n",
        "kernel %k block_size(8, 4, 2) (\n    %b: buffer<T0>;\n    %c: buffer<T1>;\n) = define %e: {\n",
        "    %d: void = debug_break callback(0x1f2e) ;\n    %r: void = return;\n};\n",
    ));
    let f = m.func(m.func_order[0]);
    assert_eq!(
        f.kind,
        FunctionKind::Kernel {
            block_size: [8, 4, 2]
        }
    );
    assert_eq!(
        f.metadata,
        vec![
            Metadata::NoInline,
            Metadata::ContiguousCopy {
                element_count: 256,
                vector_width: 4
            }
        ]
    );
    let aligns: Vec<u32> = m
        .types
        .iter()
        .filter_map(|(_, d)| match d {
            TypeData::Struct { align, .. } => Some(*align),
            _ => None,
        })
        .collect();
    assert_eq!(aligns, vec![16, 4]);
    let i = f.placed_insts().next().unwrap();
    assert_eq!(
        f.insts[i].kind,
        InstKind::DebugBreak {
            callback: Some(0x1f2e)
        }
    );
}

#[test]
fn upstream_raw_names_and_empty_metadata_items() {
    let (m, _) =
        parse("[name = my shader.v2, ]\nmodule;\n\n[name = if]\nconst %0: u32 = 00000000;\n");
    assert_eq!(m.metadata, vec![Metadata::Name("my shader.v2".into())]);
    let c = m.live_constants().next().unwrap();
    assert_eq!(m.constants[c].metadata, vec![Metadata::Name("if".into())]);
}

#[test]
fn special_register_declarations() {
    let (m, _) = parse(
        "module;\n\n[comment = \"lane\"]\nspecial %5.warp_lane_id;\n\nspecial %6.block_size;\n",
    );
    assert_eq!(m.special_registers.len(), 2);
    assert_eq!(
        m.special_registers[0].1,
        vec![Metadata::Comment("lane".into())]
    );
}

#[test]
fn labels_may_be_reused_by_other_functions() {
    let (m, _) = parse(concat!(
        "module;\n\ncallable %f: u32 (\n    %x: u32;\n) = define %entry: {\n    %r: void = return %x;\n};\n\n",
        "callable %g: u32 (\n    %x: u32;\n) = define %entry: {\n    %r: void = return %x;\n};\n",
    ));
    assert_eq!(m.inst_count(), 2);
}

#[test]
fn strings_decode_fmt_escapes() {
    let (m, _) = parse(
        "module;\n\nkernel %k () = define %e: {\n    %p: void = print \"a\\\"b\\\\c\\nd\\te\\xe9\\u2603\\U0001f600\\0\\'\\u{41}\" ;\n    %r: void = return;\n};\n",
    );
    let f = m.func(m.func_order[0]);
    let i = f.placed_insts().next().unwrap();
    let InstKind::Print { format } = &f.insts[i].kind else {
        panic!()
    };
    assert_eq!(format, "a\"b\\c\nd\te\u{e9}\u{2603}\u{1f600}\0'A");
}

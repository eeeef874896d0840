//! xir's lossless extensions (docs/text-format.md §4): each is printed only when the fact
//! it carries differs from the default, so upstream-representable modules print exactly
//! as upstream.

mod common;

use common::*;
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::metadata::StridedMma;
use xir_ir::op::*;
use xir_ir::text::{IdStyle, PrintOptions, print_module};
use xir_ir::*;

#[test]
fn kernel_block_size_only_when_not_default() {
    let (mut m, k, _) = kernel_shell();
    let mut k2 = k.clone();
    k2.kind = FunctionKind::Kernel {
        block_size: [8, 8, 1],
    };
    m.add_function(k);
    m.add_function(k2);
    let text = print(&m);
    assert!(text.contains("kernel %0 () = define %1: {\n};\n"), "{text}");
    assert!(
        text.contains("kernel %2 block_size(8, 8, 1) () = define %3: {\n};\n"),
        "{text}"
    );
}

fn struct_decl(align: u32, members: &[ScalarKind]) -> String {
    let mut m = Module::new();
    let ms: Vec<Type> = members.iter().map(|k| m.types.scalar(*k)).collect();
    let s = m.types.intern(TypeData::Struct { align, members: ms });
    m.add_function(Function::new(FunctionKind::Callable, Some(s)));
    let text = print(&m);
    text.lines()
        .find(|l| l.starts_with("type "))
        .unwrap()
        .to_string()
}

#[test]
fn struct_alignment_only_when_not_natural() {
    use ScalarKind::*;
    assert_eq!(
        struct_decl(4, &[U32, F32]),
        "type T0 = struct { u32, f32 };"
    );
    assert_eq!(
        struct_decl(8, &[U32, F64]),
        "type T0 = struct { u32, f64 };"
    );
    assert_eq!(
        struct_decl(16, &[U32, F32]),
        "type T0 = struct align(16) { u32, f32 };"
    );
    assert_eq!(struct_decl(1, &[]), "type T0 = struct {  };");
    assert_eq!(struct_decl(4, &[]), "type T0 = struct align(4) {  };");
}

/// A kernel with `f32`/`u32` arguments `%a`, `%b` and one instruction per `spec`.
fn undef_module(build: impl FnOnce(&mut Module, &mut Function, BlockId)) -> String {
    let mut m = Module::new();
    let mut k = Function::new(FunctionKind::kernel(), None);
    let b = k.ensure_body();
    build(&mut m, &mut k, b);
    Cursor::at_end(&mut k, b).ret(None);
    m.add_function(k);
    print(&m)
}

#[test]
fn undefined_values_declared_only_when_not_inferable() {
    // Inferable from the result type: nothing declared.
    let text = undef_module(|m, k, b| {
        let f = m.types.f32();
        let u = m.undef(f);
        Cursor::at_end(k, b).arith(
            ArithmeticOp::BinaryAdd,
            f,
            &[u.into_value(), u.into_value()],
        );
    });
    assert!(!text.contains("undef "), "{text}");
    assert!(
        text.contains("%2: f32 = arithmetic binary_add %4.undefined, %4.undefined;"),
        "{text}"
    );

    // Result type differs from the undefined value's type: declared at first print.
    let text = undef_module(|m, k, b| {
        let f = m.types.f32();
        let u32t = m.types.u32();
        let uu = m.undef(u32t);
        Cursor::at_end(k, b).arith(ArithmeticOp::BinaryAdd, f, &[uu.into_value()]);
    });
    assert_text(
        &text,
        "module;

undef %4.undefined: u32;

kernel %0 () = define %1: {
    %2: f32 = arithmetic binary_add %4.undefined;
    %3: void = return;
};

",
    );

    // No inference rule (cast): declared; metadata forces a declaration too.
    let text = undef_module(|m, k, b| {
        let f = m.types.f32();
        let u32t = m.types.u32();
        let uu = m.undef(u32t);
        let uf = m.undef(f);
        m.undefs[uf]
            .metadata
            .push(Metadata::Comment("poison".into()));
        Cursor::at_end(k, b).cast(CastOp::StaticCast, f, uu.into_value());
        Cursor::at_end(k, b).arith(ArithmeticOp::Abs, f, &[uf.into_value()]);
    });
    assert!(
        text.starts_with(
            "module;\n\nundef %5.undefined: u32;\n\n[comment = \"poison\"]\nundef %6.undefined: f32;\n\n"
        ),
        "{text}"
    );

    // A store of one undefined value into another: the first printed depends on the
    // second, which a reader has not seen yet, so it is declared; the second is not.
    let text = undef_module(|m, k, b| {
        let f = m.types.f32();
        let i = m.types.i32();
        let p = m.undef(f);
        let _unused = m.undef(i);
        let v = m.undef(f);
        let _ = v;
        Cursor::at_end(k, b).store(p.into_value(), p.into_value());
    });
    assert!(
        text.contains("%2: void = store %4.undefined, %4.undefined;"),
        "{text}"
    );
    assert!(text.contains("undef %4.undefined: f32;\n\n"), "{text}");
    // The unused live undefined value is declared after all functions were printed.
    assert!(text.ends_with("};\n\n"), "{text}");
    assert!(text.contains("undef %5.undefined: i32;\n\n"), "{text}");
    let decl = text.find("undef %5").unwrap();
    assert!(decl < text.find("kernel").unwrap());
}

trait IntoValue {
    fn into_value(self) -> Value;
}
impl IntoValue for UndefId {
    fn into_value(self) -> Value {
        Value::Undef(self)
    }
}

#[test]
fn special_registers_declared_only_with_metadata_or_unused() {
    let mut m = Module::new();
    let u = m.types.u32();
    let tid = m.special(SpecialRegister::WarpLaneId);
    let did = m.special(SpecialRegister::DispatchId);
    m.special(SpecialRegister::BlockId);
    m.special_registers[1].1.push(Metadata::Name("gid".into()));
    let (_, mut k, b) = kernel_shell();
    let u3 = m.types.vector(u, 3);
    Cursor::at_end(&mut k, b).arith(ArithmeticOp::Max, u, &[tid, tid]);
    Cursor::at_end(&mut k, b).arith(ArithmeticOp::Abs, u3, &[did]);
    m.add_function(k);
    assert_text(
        &print(&m),
        "module;

[name = gid]
special %5.dispatch_id;

special %6.block_id;

kernel %0 () = define %1: {
    %2: u32 = arithmetic max %4.warp_lane_id, %4.warp_lane_id;
    %3: vector<u32, 3> = arithmetic abs %5.dispatch_id;
};

",
    );
}

#[test]
fn unreachable_blocks_printed_as_extra_top_level_blocks() {
    let (mut m, mut k, body) = kernel_shell();
    let dead = k.create_block();
    let merge_only = k.create_block();
    let t = m.types.bool();
    let c = m.constant(t, &[0]);
    let then_b = k.create_block();
    Cursor::at_end(&mut k, body).if_(c.into(), then_b, then_b, merge_only);
    Cursor::at_end(&mut k, then_b).ret(None);
    Cursor::at_end(&mut k, merge_only).unreachable(String::new());
    Cursor::at_end(&mut k, dead).ret(None);
    m.add_function(k);
    // Nested: the merge block is printed inline (upstream does too); the dead block is
    // the extension.
    assert_text(
        &print(&m),
        "module;

const %0: bool = 00;

kernel %1 () = define %2: {
    %3: void = if %0, then %4: {
        %5: void = return;
    }, else %4, merge %6: {
        %7: void = unreachable;
    };
}
%8: {
    %9: void = return;
};

",
    );
    // Flat: neither the merge-only block nor the dead block is in upstream's traversal;
    // both follow in owned order.
    assert_text(
        &print_flat(&m),
        "module;

const %0: bool = 00;

kernel %1 () = define {
%2:
    %3: void = if %0, then %4, else %4, merge %6;
%4:
    %5: void = return;
%7:
    %8: void = return;
%6:
    %9: void = unreachable;
};

",
    );
}

#[test]
fn referenced_but_unowned_blocks_are_printed() {
    let (mut m, mut k, body) = kernel_shell();
    let stray = k.create_block();
    Cursor::at_end(&mut k, stray).ret(None);
    k.remove_block(stray);
    Cursor::at_end(&mut k, body).simple_loop(body, stray);
    m.add_function(k);
    let text = print_flat(&m);
    assert!(
        text.contains("%1:\n    %2: void = simple_loop body %1, merge %3;\n%3:\n};"),
        "{text}"
    );
}

#[test]
fn names_quoted_only_when_not_identifiers() {
    let (mut m, mut k, b) = kernel_shell();
    for n in ["x_1", "a b", "3d", "", "q\"", "é"] {
        k.metadata.push(Metadata::Name(n.into()));
    }
    Cursor::at_end(&mut k, b).ret(None);
    m.add_function(k);
    let text = print(&m);
    assert!(
        text.starts_with(
            "module;\n\n[name = x_1, name = \"a b\", name = \"3d\", name = \"\", name = \"q\\\"\", name = \"é\"]\nkernel"
        ),
        "{text}"
    );
}

#[test]
fn newer_metadata_kinds() {
    let (mut m, mut k, b) = kernel_shell();
    let r = Cursor::at_end(&mut k, b).ret(None);
    k.insts[r].metadata = vec![
        Metadata::NoInline,
        Metadata::ContiguousCopy {
            element_count: 256,
            vector_width: 4,
        },
        Metadata::StridedMma(Box::new(StridedMma {
            extents: [16, 8, 32],
            strides: [32, 8, 8],
            vector_width: 2,
            reassociation: true,
            vectorization_mode: 1,
        })),
    ];
    m.add_function(k);
    assert!(print(&m).contains(
        "    [no_inline, contiguous_copy = (256, 4), strided_mma = {extents = (16, 8, 32), \
         strides = (32, 8, 8), vector_width = 2, reassociation = true, vectorization_mode = 1}]\n    %2: void = return;"
    ));
}

#[test]
fn cooperative_types_and_debug_break_callback() {
    let mut m = Module::new();
    let h = m.types.scalar(ScalarKind::F16);
    let f = m.types.f32();
    let vr = m.types.intern(TypeData::CoopVectorRef { len: 16, elem: h });
    let mr = m.types.intern(TypeData::CoopMatrixRef {
        rows: 16,
        cols: 8,
        elem: h,
    });
    let cv = m.types.intern(TypeData::CoopVector { elem: f, len: 32 });
    let mut k = Function::new(FunctionKind::Callable, None);
    let a = k.add_arg(ArgKind::Value, vr);
    k.add_arg(ArgKind::Value, mr);
    k.add_arg(ArgKind::Value, cv);
    let b = k.ensure_body();
    Cursor::at_end(&mut k, b).debug_break(Some(0x1f2e), &[a.into()]);
    Cursor::at_end(&mut k, b).debug_break(Some(0), &[]);
    m.add_function(k);
    let text = print(&m);
    assert!(text.contains("    %1: coopvec_ref<16, f16>;\n    %2: coopmat_ref<16, 8, f16>;\n    %3: coopvec<float,32>;\n"), "{text}");
    assert!(
        text.contains("%5: void = debug_break callback(0x1f2e) %1;"),
        "{text}"
    );
    assert!(
        text.contains("%6: void = debug_break callback(0x0) ;"),
        "{text}"
    );
}

#[test]
fn opaque_names_escaped_like_strings() {
    let mut m = Module::new();
    let t = m.types.intern(TypeData::Custom {
        name: "odd\"name".into(),
    });
    let mut k = Function::new(FunctionKind::Callable, None);
    k.add_arg(ArgKind::Reference, t);
    m.add_function(k);
    assert!(print(&m).contains("type T0 = opaque \"odd\\\"name\";\n"));
}

#[test]
fn stable_type_names_follow_type_handles() {
    let mut m = Module::new();
    let u = m.types.u32();
    let _pad = m.types.f32();
    let s = m.types.intern(TypeData::Struct {
        align: 4,
        members: vec![u],
    });
    m.add_function(Function::new(FunctionKind::Callable, Some(s)));
    let text = print_module(
        &m,
        &PrintOptions {
            ids: IdStyle::Stable,
            ..Default::default()
        },
    );
    assert!(
        text.contains("type T2 = struct { u32 };\n\ncallable %f0: T2 ();"),
        "{text}"
    );
}

#[test]
fn upstream_representable_modules_print_no_extension() {
    let text = print(&example().m);
    for ext in [
        "block_size(",
        "align(",
        "undef ",
        "special ",
        "callback(",
        "coopvec_ref",
        "\"\n}",
    ] {
        assert!(!text.contains(ext), "{ext} in {text}");
    }
}

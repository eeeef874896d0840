//! Every instruction kind printed with its exact body, plus upstream's byte quirks
//! (trailing spaces, switch label signedness, bare `phi`, metadata placement).

mod common;

use common::*;
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::*;
use xir_ir::metadata::{CurveBasis, CurveBasisSet, SpillKind};
use xir_ir::op::*;
use xir_ir::*;

/// The fixture: constants `%0: u32`, `%1: f32`, `%2: bool`; a callable `%3` with
/// arguments `%4: f32`, `%5: &f32`, `%6: buffer<f32>`, `%7: u32`, `%8: bindless_array`;
/// body `%9` holding the instruction under test (`%10`) and a `return` (`%11`).
/// Returns the printed line of the instruction under test.
fn line(kind: InstKind, ty: fn(&mut Module) -> Option<Type>, ops: &[usize]) -> String {
    let mut m = Module::new();
    let u = m.types.u32();
    let f = m.types.f32();
    let b = m.types.bool();
    let buf = m.types.intern(TypeData::Buffer { elem: Some(f) });
    let bindless = m.types.intern(TypeData::BindlessArray);
    let consts: Vec<Value> = vec![
        m.constant(u, &0u32.to_le_bytes()).into(),
        m.constant(f, &1f32.to_le_bytes()).into(),
        m.constant(b, &[1]).into(),
    ];
    let t = ty(&mut m);
    let mut c = Function::new(FunctionKind::Callable, None);
    let mut vals = consts;
    vals.push(Value::Func(FuncId::new(0)));
    vals.push(c.add_arg(ArgKind::Value, f).into());
    vals.push(c.add_arg(ArgKind::Reference, f).into());
    vals.push(c.add_arg(ArgKind::Resource, buf).into());
    vals.push(c.add_arg(ArgKind::Value, u).into());
    vals.push(c.add_arg(ArgKind::Resource, bindless).into());
    let body = c.ensure_body();
    Cursor::at_end(&mut c, body).ins(kind, t, ops.iter().map(|k| vals[*k]));
    Cursor::at_end(&mut c, body).ret(None);
    m.add_function(c);
    let text = print(&m);
    let l = text
        .lines()
        .find(|l| l.starts_with("    %10: "))
        .unwrap_or_else(|| panic!("no %10 line in:\n{text}"));
    l.to_string()
}

fn void(_: &mut Module) -> Option<Type> {
    None
}
fn f32t(m: &mut Module) -> Option<Type> {
    Some(m.types.f32())
}
fn u32t(m: &mut Module) -> Option<Type> {
    Some(m.types.u32())
}
fn u64t(m: &mut Module) -> Option<Type> {
    Some(m.types.u64())
}
fn boolt(m: &mut Module) -> Option<Type> {
    Some(m.types.bool())
}

#[test]
fn value_instructions() {
    let no = BindlessAccess::default();
    type Case = (
        InstKind,
        fn(&mut Module) -> Option<Type>,
        Vec<usize>,
        &'static str,
    );
    let cases: Vec<Case> = vec![
        (
            InstKind::Alloca(AllocaOp::Local),
            f32t,
            vec![],
            "f32 = alloca local",
        ),
        (
            InstKind::Alloca(AllocaOp::Shared),
            f32t,
            vec![],
            "f32 = alloca shared",
        ),
        (InstKind::Load, f32t, vec![5], "f32 = load %5"),
        (InstKind::Store, void, vec![5, 4], "void = store %5, %4"),
        (
            InstKind::Gep,
            f32t,
            vec![5, 0, 7],
            "f32 = getelementptr %5, %0, %7",
        ),
        (
            InstKind::Atomic(AtomicOp::FetchAdd),
            u32t,
            vec![6, 7, 0],
            "u32 = atomic fetch_add %6, %7, %0",
        ),
        (
            InstKind::Atomic(AtomicOp::CompareExchange),
            u32t,
            vec![6, 7, 0, 0],
            "u32 = atomic compare_exchange %6, %7, %0, %0",
        ),
        (
            InstKind::Arithmetic(ArithmeticOp::Select),
            f32t,
            vec![4, 1, 2],
            "f32 = arithmetic select %4, %1, %2",
        ),
        (
            InstKind::ThreadGroup(ThreadGroupOp::SynchronizeBlock),
            void,
            vec![],
            "void = thread_group synchronize_block ",
        ),
        (
            InstKind::ThreadGroup(ThreadGroupOp::WarpReadLane),
            f32t,
            vec![4, 7],
            "f32 = thread_group warp_read_lane %4, %7",
        ),
        (
            InstKind::ResourceQuery(ResourceQueryOp::BufferSize, no),
            u64t,
            vec![6],
            "u64 = resource_query buffer_size %6",
        ),
        (
            InstKind::ResourceRead(ResourceReadOp::BufferRead, no),
            f32t,
            vec![6, 7],
            "f32 = resource_read buffer_read %6, %7",
        ),
        (
            InstKind::ResourceWrite(ResourceWriteOp::BufferWrite, no),
            void,
            vec![6, 7, 4],
            "void = resource_write buffer_write %6, %7, %4",
        ),
        (
            InstKind::ResourceRead(
                ResourceReadOp::BindlessBufferRead,
                BindlessAccess {
                    typed: true,
                    uniform: false,
                },
            ),
            f32t,
            vec![8, 7, 7],
            "f32 = resource_read bindless_buffer_read [typed] %8, %7, %7",
        ),
        (
            InstKind::ResourceQuery(
                ResourceQueryOp::BindlessByteBufferSize,
                BindlessAccess {
                    typed: false,
                    uniform: true,
                },
            ),
            u64t,
            vec![8, 7],
            "u64 = resource_query bindless_byte_buffer_size [uniform] %8, %7",
        ),
        (
            InstKind::ResourceWrite(
                ResourceWriteOp::BindlessBufferWrite,
                BindlessAccess {
                    typed: true,
                    uniform: true,
                },
            ),
            void,
            vec![8, 7, 7, 4],
            "void = resource_write bindless_buffer_write [typed, uniform] %8, %7, %7, %4",
        ),
        (
            InstKind::ResourceQuery(ResourceQueryOp::BufferSize, no),
            u64t,
            vec![],
            "u64 = resource_query buffer_size ",
        ),
        (
            InstKind::RayQueryObjectRead(RayQueryObjectReadOp::IsTerminated),
            boolt,
            vec![5],
            "bool = ray_query_object_read ray_query_object_is_terminated %5",
        ),
        (
            InstKind::RayQueryObjectWrite(RayQueryObjectWriteOp::CommitProcedural),
            void,
            vec![5, 4],
            "void = ray_query_object_write ray_query_object_commit_procedural %5, %4",
        ),
        (
            InstKind::RayQueryPipeline,
            void,
            vec![5, 3, 3, 4],
            "void = ray_query_pipeline %5, %3, %3, %4",
        ),
        (
            InstKind::AutodiffIntrinsic(AutodiffIntrinsicOp::Gradient),
            f32t,
            vec![4],
            "f32 = @autodiff_gradient %4",
        ),
        (
            InstKind::AutodiffIntrinsic(AutodiffIntrinsicOp::Backward),
            void,
            vec![],
            "void = @autodiff_backward",
        ),
        (
            InstKind::Call,
            void,
            vec![3, 4, 5],
            "void = call %3, %4, %5",
        ),
        (
            InstKind::Cast(CastOp::StaticCast),
            u32t,
            vec![4],
            "u32 = cast static_cast %4",
        ),
        (
            InstKind::Cast(CastOp::BitwiseCast),
            u32t,
            vec![4],
            "u32 = cast bitwise_cast %4",
        ),
        (
            InstKind::Print {
                format: "x = {}\n".into(),
            },
            void,
            vec![4],
            "void = print \"x = {}\\n\" %4",
        ),
        (
            InstKind::Print { format: "x".into() },
            void,
            vec![],
            "void = print \"x\" ",
        ),
        (InstKind::Clock, u64t, vec![], "u64 = clock"),
        (
            InstKind::DebugBreak { callback: None },
            void,
            vec![],
            "void = debug_break ",
        ),
        (
            InstKind::DebugBreak { callback: None },
            void,
            vec![4, 7],
            "void = debug_break %4, %7",
        ),
        (
            InstKind::Assert {
                message: String::new(),
            },
            void,
            vec![2],
            "void = assert %2",
        ),
        (
            InstKind::Assert {
                message: "bad \"x\"".into(),
            },
            void,
            vec![2],
            "void = assert \"bad \\\"x\\\"\" %2",
        ),
        (
            InstKind::Assume {
                message: "m".into(),
            },
            void,
            vec![2],
            "void = assume \"m\" %2",
        ),
        (InstKind::Return, void, vec![4], "void = return %4"),
        (InstKind::Return, void, vec![], "void = return"),
        (
            InstKind::Unreachable {
                message: String::new(),
            },
            void,
            vec![],
            "void = unreachable",
        ),
        (
            InstKind::Unreachable {
                message: "oops\t".into(),
            },
            void,
            vec![],
            "void = unreachable \"oops\\t\"",
        ),
        (
            InstKind::RasterDiscard,
            void,
            vec![],
            "void = raster_discard",
        ),
        (
            InstKind::CoroTerminate,
            void,
            vec![],
            "void = coro_terminate",
        ),
        (
            InstKind::CoroResume {
                token: 3,
                has_frame: true,
            },
            void,
            vec![5],
            "void = coro_resume 3 %5",
        ),
        (
            InstKind::CoroResume {
                token: 0,
                has_frame: false,
            },
            void,
            vec![],
            "void = coro_resume 0 null",
        ),
        (InstKind::Phi, f32t, vec![], "f32 = phi"),
    ];
    for (kind, ty, ops, expected) in cases {
        let got = line(kind.clone(), ty, &ops);
        assert_eq!(got, format!("    %10: {expected};"), "{kind:?}");
    }
}

#[test]
fn coroutine_suspend_with_exports_and_extensions() {
    let kind = InstKind::CoroSuspend(Box::new(CoroSuspendData {
        token: 7,
        name: "yield".into(),
        has_frame: true,
        exports: vec!["a".into(), "b".into()],
        extensions: vec![
            CoroExtension {
                schema: "lc.sched".into(),
                version: 2,
                kind: CoroExtensionKind::Semantic,
                fallback: 1,
                items: vec![
                    CoroExtensionItem::Binding {
                        name: "state".into(),
                        access: 3,
                        lifetime: 1,
                    },
                    CoroExtensionItem::Attribute {
                        name: "s".into(),
                        value: CoroAttrValue::String("q\"".into()),
                    },
                    CoroExtensionItem::Attribute {
                        name: "b".into(),
                        value: CoroAttrValue::Bool(true),
                    },
                    CoroExtensionItem::Attribute {
                        name: "i".into(),
                        value: CoroAttrValue::Int(-4),
                    },
                    CoroExtensionItem::Attribute {
                        name: "u".into(),
                        value: CoroAttrValue::UInt(9),
                    },
                    CoroExtensionItem::Attribute {
                        name: "f".into(),
                        value: CoroAttrValue::Float(0.5),
                    },
                ],
            },
            CoroExtension {
                schema: "x".into(),
                version: 1,
                kind: CoroExtensionKind::Annotation,
                fallback: 0,
                items: vec![],
            },
        ],
    }));
    assert_eq!(
        line(kind, void, &[5, 4, 7, 0]),
        "    %10: void = coro_suspend 7 \"yield\" %5, export \"a\"=%4, export \"b\"=%7, \
         extension \"lc.sched\" v2 semantic fallback=1 {binding \"state\" access=3 \
         lifetime=1 value=%0, attribute \"s\" type=0 value=\"q\\\"\", attribute \"b\" \
         type=1 value=true, attribute \"i\" type=2 value=-4, attribute \"u\" type=3 \
         value=9, attribute \"f\" type=4 value=0.5}, extension \"x\" v1 annotation \
         fallback=0 {};"
    );
    let bare = InstKind::CoroSuspend(Box::new(CoroSuspendData {
        token: 1,
        name: String::new(),
        ..Default::default()
    }));
    assert_eq!(
        line(bare, void, &[]),
        "    %10: void = coro_suspend 1 \"\" null;"
    );
}

/// A kernel whose body ends in a switch on a `sel_ty` argument with the given labels.
fn switch_text(sel: ScalarKind, labels: Vec<u64>, indexed: bool) -> String {
    let mut m = Module::new();
    let st = m.types.scalar(sel);
    let mut k = Function::new(FunctionKind::kernel(), None);
    let a = k.add_arg(ArgKind::Value, st);
    let body = k.ensure_body();
    let default = k.create_block();
    let cases: Vec<BlockId> = labels.iter().map(|_| k.create_block()).collect();
    let merge = k.create_block();
    let mut ops = vec![a.into(), default.into()];
    ops.extend(cases.iter().map(|b| Value::from(*b)));
    let kind = if indexed {
        InstKind::IndexedBranch { labels }
    } else {
        InstKind::Switch {
            labels,
            merge: Some(merge),
        }
    };
    Cursor::at_end(&mut k, body).ins(kind, None, ops);
    for b in cases.iter().chain([&default]) {
        Cursor::at_end(&mut k, *b).break_(merge);
    }
    Cursor::at_end(&mut k, merge).ret(None);
    m.add_function(k);
    print(&m)
}

#[test]
fn switch_nested_layout_and_label_signedness() {
    let text = switch_text(ScalarKind::I32, vec![u32::MAX as u64, 5], false);
    // Pre-pass: %0 kernel, %1 arg, %2 body, %3 switch, then operand blocks in operand
    // order: default %4 (whose `break` reaches the merge: %6, %7), cases %8 and %10.
    assert_text(
        &text,
        "module;

kernel %0 (
    %1: i32;
) = define %2: {
    %3: void = switch %1, case -1 %8: {
        %9: void = break %6;
    }, case 5 %10: {
        %11: void = break %6;
    }, default %4: {
        %5: void = break %6;
    }, merge %6: {
        %7: void = return;
    };
};

",
    );
    assert!(
        switch_text(ScalarKind::U32, vec![u32::MAX as u64], false)
            .contains("switch %1, case 4294967295 %")
    );
    assert!(
        switch_text(ScalarKind::U64, vec![u64::MAX], false)
            .contains("switch %1, case 18446744073709551615 %")
    );
    assert!(switch_text(ScalarKind::I64, vec![u64::MAX - 1], false).contains("case -2 %"));
    assert!(switch_text(ScalarKind::I8, vec![0x80], false).contains("case -128 %"));
    assert!(switch_text(ScalarKind::I16, vec![0xffff], false).contains("case -1 %"));
    assert!(switch_text(ScalarKind::U8, vec![0xff], false).contains("case 255 %"));
    assert!(switch_text(ScalarKind::Bool, vec![1], false).contains("case 1 %"));
    let ib = switch_text(ScalarKind::I32, vec![7], true);
    assert!(
        ib.contains("%3: void = indexed_branch %1, case 7 %8: {"),
        "{ib}"
    );
    assert!(
        ib.contains("    }, default %4: {\n        %5: void = break %6;\n    };\n"),
        "{ib}"
    );
    // The merge block is reached only through the `break`s: a top-level block.
    assert!(
        ib.ends_with("    };\n}\n%6: {\n    %7: void = return;\n};\n\n"),
        "{ib}"
    );
    assert!(!ib.contains("merge"));
}

#[test]
fn structured_constructs_nested_and_flat() {
    let mut m = Module::new();
    let b = m.types.bool();
    let t = m.constant(b, &[1]);
    let mut k = Function::new(FunctionKind::kernel(), None);
    let body = k.ensure_body();
    let [
        prep,
        lbody,
        upd,
        lmerge,
        sbody,
        smerge,
        obody,
        omerge,
        aentry,
        amerge,
        dispatch,
        surf,
        proc_,
        rmerge,
        fentry,
        fmerge,
    ] = std::array::from_fn(|_| k.create_block());
    let q = k.add_arg(ArgKind::Reference, b);
    Cursor::at_end(&mut k, body).loop_(prep, lbody, upd, lmerge);
    Cursor::at_end(&mut k, prep).cond_br(t.into(), lbody, lmerge);
    Cursor::at_end(&mut k, lbody).continue_(upd);
    Cursor::at_end(&mut k, upd).br(prep);
    Cursor::at_end(&mut k, lmerge).simple_loop(sbody, smerge);
    Cursor::at_end(&mut k, sbody).break_(smerge);
    Cursor::at_end(&mut k, smerge).outline(obody, omerge);
    Cursor::at_end(&mut k, obody).br(omerge);
    Cursor::at_end(&mut k, omerge).autodiff_scope(aentry, amerge, false, 0);
    Cursor::at_end(&mut k, aentry).br(amerge);
    Cursor::at_end(&mut k, amerge).ray_query_loop(dispatch, rmerge);
    Cursor::at_end(&mut k, dispatch).ray_query_dispatch(q.into(), rmerge, surf, proc_);
    Cursor::at_end(&mut k, surf).br(dispatch);
    Cursor::at_end(&mut k, proc_).br(dispatch);
    Cursor::at_end(&mut k, rmerge).autodiff_scope(fentry, fmerge, true, 2);
    Cursor::at_end(&mut k, fentry).br(fmerge);
    Cursor::at_end(&mut k, fmerge).ret(None);
    m.add_function(k);
    let text = print(&m);
    assert_text(
        &text,
        "module;

const %0: bool = 01;

kernel %1 (
    %2: &bool;
) = define %3: {
    %4: void = loop prepare %5: {
        %6: void = cond_br %0, %7, %11;
    }, body %7: {
        %8: void = continue %9;
    }, update %9: {
        %10: void = br %5;
    }, merge %11: {
        %12: void = simple_loop body %13: {
            %14: void = break %15;
        }, merge %15: {
            %16: void = outline body %17: {
                %18: void = br %19;
            }, merge %19: {
                %20: void = autodiff entry %21: {
                    %22: void = br %23;
                }, merge %23: {
                    %24: void = ray_query_loop dispatch %25: {
                        %26: void = ray_query_dispatch %2, exit %27, on_surface_candidate %33: {
                            %34: void = br %25;
                        }, on_procedural_candidate %35: {
                            %36: void = br %25;
                        };
                    }, merge %27: {
                        %28: void = autodiff forward 2 entry %29: {
                            %30: void = br %31;
                        }, merge %31: {
                            %32: void = return;
                        };
                    };
                };
            };
        };
    };
};

",
    );
    let flat = print_flat(&m);
    assert!(
        flat.contains("    %4: void = loop prepare %5, body %7, update %9, merge %11;\n"),
        "{flat}"
    );
    assert!(
        flat.contains("    %28: void = autodiff forward 2 entry %29, merge %31;\n"),
        "{flat}"
    );
    assert!(flat.contains("    %26: void = ray_query_dispatch %2, exit %27, on_surface_candidate %33, on_procedural_candidate %35;\n"), "{flat}");
}

#[test]
fn phi_and_metadata_placement() {
    let mut m = Module::new();
    let u = m.types.u32();
    let f = m.types.f32();
    let s = m.types.intern(TypeData::Struct {
        align: 4,
        members: vec![u, f],
    });
    let c0 = m.constant(u, &0u32.to_le_bytes());
    m.constants[c0]
        .metadata
        .push(Metadata::Comment("zero".into()));
    m.metadata.push(Metadata::Name("mod".into()));
    let mut k = Function::new(FunctionKind::Callable, Some(s));
    k.metadata.push(Metadata::SignatureConstraint);
    let a = k.add_arg(ArgKind::Value, u);
    k.args[a].metadata.push(Metadata::Location {
        file: "a.cpp".into(),
        line: 3,
    });
    let entry = k.ensure_body();
    let header = k.create_block();
    let exit = k.create_block();
    k.blocks[header]
        .metadata
        .push(Metadata::Name("loop_header".into()));
    Cursor::at_end(&mut k, entry).br(header);
    let phi = Cursor::at_end(&mut k, header).ins(InstKind::Phi, Some(u), []);
    let inc =
        Cursor::at_end(&mut k, header).arith(ArithmeticOp::BinaryAdd, u, &[phi.into(), c0.into()]);
    k.insts[phi].phi_set_edges([(Value::from(c0), entry), (inc, header)]);
    k.insts[phi].metadata.push(Metadata::Name("i".into()));
    k.insts[phi]
        .metadata
        .push(Metadata::Reg2MemSpill(SpillKind::CrossBlock));
    let lt = Cursor::at_end(&mut k, header).arith(
        ArithmeticOp::BinaryLess,
        m.types.bool(),
        &[inc, a.into()],
    );
    Cursor::at_end(&mut k, header).cond_br(lt, header, exit);
    let mut cb = CurveBasisSet::default();
    cb.insert(CurveBasis::CatmullRom);
    cb.insert(CurveBasis::PiecewiseLinear);
    let un = Cursor::at_end(&mut k, exit).unreachable(String::new());
    k.insts[un].metadata.push(Metadata::CurveBasis(cb));
    k.insts[un]
        .metadata
        .push(Metadata::CurveBasis(CurveBasisSet::default()));
    m.add_function(k);
    assert_text(
        &print(&m),
        "[name = mod]
module;

[comment = \"zero\"]
const %0: u32 = 00000000;

type T0 = struct { u32, f32 };

[signature_constraint]
callable %1: T0 (
    [location = (\"a.cpp\", 3)]
    %2: u32;
) = define %3: {
    %4: void = br %5;
}
[name = loop_header] %5: {
    [name = i, reg2mem_spill = cross_block]
    %6: u32 = phi (%0, %3), (%7, %5);
    %7: u32 = arithmetic binary_add %6, %0;
    %8: bool = arithmetic binary_less %7, %2;
    %9: void = cond_br %8, %5, %10;
}
%10: {
    [curve_basis = {piecewise_linear, catmull_rom}, curve_basis = {}]
    %11: void = unreachable;
};

",
    );
    let flat = print_flat(&m);
    assert!(flat.contains("\n[name = loop_header]\n%5:\n    [name = i, reg2mem_spill = cross_block]\n    %6: u32 = phi"), "{flat}");
}

#[test]
fn types_are_declared_lazily_in_first_use_order() {
    let mut m = Module::new();
    let f = m.types.f32();
    let u = m.types.u32();
    let inner = m.types.intern(TypeData::Struct {
        align: 4,
        members: vec![u],
    });
    let v3 = m.types.vector(f, 3);
    let outer = m.types.intern(TypeData::Struct {
        align: 16,
        members: vec![v3, inner, inner],
    });
    let empty = m.types.intern(TypeData::Struct {
        align: 1,
        members: vec![],
    });
    let rq = m.types.intern(TypeData::Custom {
        name: "LC_RayQueryAll".into(),
    });
    let arr = m.types.intern(TypeData::Array {
        elem: outer,
        len: 2,
    });
    let mat = m.types.intern(TypeData::Matrix { elem: f, n: 3 });
    let tex = m.types.intern(TypeData::Texture {
        dim: xir_ir::types::TextureDim::D3,
        elem: f,
    });
    let bytes = m.types.intern(TypeData::Buffer { elem: None });
    m.constant(u, &7u32.to_le_bytes());
    let mut k = Function::new(FunctionKind::Callable, Some(arr));
    k.add_arg(ArgKind::Reference, rq);
    k.add_arg(ArgKind::Value, mat);
    k.add_arg(ArgKind::Resource, tex);
    k.add_arg(ArgKind::Resource, bytes);
    k.add_arg(ArgKind::Value, empty);
    m.add_function(k);
    let ext = Function::new(FunctionKind::External, None);
    m.add_function(ext);
    assert_text(
        &print(&m),
        "module;

const %0: u32 = 07000000;

type T0 = struct { u32 };

type T1 = struct { vector<f32, 3>, T0, T0 };

type T2 = opaque \"LC_RayQueryAll\";

type T3 = struct {  };

callable %1: array<T1, 2> (
    %2: &T2;
    %3: matrix<f32, 3>;
    %4: texture3d<f32>;
    %5: buffer<void>;
    %6: T3;
);

external %7: void ();

",
    );
}

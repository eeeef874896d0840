//! Operand counts, result shapes and operand/result typing per instruction and op.

use crate::{B, err, ok};
use xir_ir::edit::InstBuilder;
use xir_ir::function::ArgKind;
use xir_ir::inst::InstKind;
use xir_ir::module::Module;
use xir_ir::op::{
    AllocaOp, ArithmeticOp as A, AtomicOp, BindlessAccess, CastOp, ResourceQueryOp, ResourceReadOp,
    ThreadGroupOp as G,
};
use xir_ir::types::{ScalarKind as K, TextureDim, Type, TypeData};
use xir_ir::value::Value;

/// A kernel whose body holds the instructions `build` appends, then `return`.
fn one(build: impl FnOnce(&mut B, xir_ir::value::BlockId)) -> Module {
    let mut b = B::kernel();
    let body = b.body();
    build(&mut b, body);
    b.ret(body);
    b.done()
}

fn arith(op: A, ty: impl Fn(&mut B) -> Type, ops: impl Fn(&mut B) -> Vec<Value>) -> Module {
    one(|b, body| {
        let t = ty(b);
        let o = ops(b);
        b.at(body).arith(op, t, &o);
    })
}

#[test]
fn operand_counts_come_from_the_op_table() {
    err(
        &arith(A::BinaryAdd, |b| b.t(K::F32), |b| vec![b.f(1.0)]),
        "expects 2 operands but has 1",
    );
    err(
        &arith(A::Insert, |b| b.t(K::F32), |b| vec![b.f(1.0), b.f(1.0)]),
        "expects at least 3 operands",
    );
    let m = one(|b, body| {
        let x = b.c(K::U32, 1);
        b.at(body)
            .thread_group(G::ShaderExecutionReorder, None, &[x]);
    });
    err(&m, "expects 0 or 2 operands but has 1");
}

#[test]
fn result_type_shapes() {
    err(
        &one(|b, body| {
            let f = b.t(K::F32);
            b.at(body).clock(f);
        }),
        "must produce `u64`",
    );
    err(
        &one(|b, body| {
            b.at(body)
                .ins(InstKind::Alloca(AllocaOp::Local), None, vec![]);
        }),
        "must produce a value",
    );
    err(
        &one(|b, body| {
            let c = b.c(K::Bool, 1);
            let u = b.t(K::U32);
            b.at(body).ins(
                InstKind::Assert {
                    message: String::new(),
                },
                Some(u),
                vec![c],
            );
        }),
        "must not produce a value, but has type `u32`",
    );
}

#[test]
fn conditions_are_bool_rvalues() {
    ok(&one(|b, body| {
        let c = b.c(K::Bool, 1);
        b.at(body).assume(c, "m");
    }));
    err(
        &one(|b, body| {
            let c = b.c(K::U32, 1);
            b.at(body).assert(c, String::new());
        }),
        "condition must be a `bool` rvalue, found `u32`",
    );
    let mut b = B::kernel();
    let (body, t) = (b.body(), b.block());
    let c = b.f(0.0);
    b.at(body).cond_br(c, t, t);
    b.ret(t);
    err(&b.done(), "condition must be a `bool` rvalue, found `f32`");
}

#[test]
fn branch_targets_are_blocks() {
    let mut b = B::kernel();
    let body = b.body();
    let x = b.c(K::U32, 0);
    b.at(body).ins(InstKind::Branch, None, vec![x]);
    err(&b.done(), "operand 0 must be a block");
}

#[test]
fn switch_selectors_are_integer_or_bool_scalars() {
    let mut b = B::kernel();
    let (body, m) = (b.body(), b.block());
    let sel = b.f(1.0);
    b.at(body).ins(
        InstKind::Switch {
            labels: vec![],
            merge: Some(m),
        },
        None,
        vec![sel, Value::Block(m)],
    );
    b.ret(m);
    err(
        &b.done(),
        "selector must be an integer or `bool` scalar rvalue, found `f32`",
    );
}

#[test]
fn returns_match_the_function() {
    let mut b = B::callable(None);
    let body = b.body();
    b.ret(body);
    ok(&b.done());
    let mut b = B::callable(None);
    let body = b.body();
    let x = b.f(1.0);
    b.at(body).ret(Some(x));
    err(
        &b.done(),
        "returns a value of type `f32` from a function returning void",
    );
    let mut b = B::callable(None);
    let f32t = b.t(K::F32);
    b.f.ret = Some(f32t);
    let body = b.body();
    b.ret(body);
    err(
        &b.done(),
        "returns no value from a function returning `f32`",
    );
    let mut b = B::callable(None);
    let f32t = b.t(K::F32);
    b.f.ret = Some(f32t);
    let body = b.body();
    let x = b.c(K::U32, 0);
    b.at(body).ret(Some(x));
    err(
        &b.done(),
        "returned value `u32` does not match the return type `f32`",
    );
}

#[test]
fn load_store_need_exactly_typed_lvalues() {
    ok(&one(|b, body| {
        let u = b.t(K::U32);
        let a = b.alloca(body, u);
        let one = b.c(K::U32, 1);
        b.at(body).store(a, one);
        b.at(body).load(u, a);
    }));
    err(
        &one(|b, body| {
            let u = b.t(K::U32);
            let x = b.c(K::U32, 1);
            b.at(body).load(u, x);
        }),
        "operand must be an lvalue",
    );
    err(
        &one(|b, body| {
            let u = b.t(K::U32);
            let f = b.t(K::F32);
            let a = b.alloca(body, u);
            b.at(body).load(f, a);
        }),
        "result type `f32` differs from the pointee type `u32`",
    );
    err(
        &one(|b, body| {
            let u = b.t(K::U32);
            let a = b.alloca(body, u);
            let x = b.f(1.0);
            b.at(body).store(a, x);
        }),
        "stored value type `f32` differs from the pointee type `u32`",
    );
    err(
        &one(|b, body| {
            let u = b.t(K::U32);
            let a = b.alloca(body, u);
            let a2 = b.alloca(body, u);
            b.at(body).store(a, a2);
        }),
        "the stored value must be a typed rvalue",
    );
    // Reference arguments are lvalues.
    let mut b = B::callable(None);
    let body = b.body();
    let u = b.t(K::U32);
    let r = b.arg(ArgKind::Reference, u);
    let v = b.arg(ArgKind::Value, u);
    b.at(body).store(r, v);
    b.ret(body);
    ok(&b.done());
}

fn gep_module(idx: impl Fn(&mut B) -> Value, result: K) -> Module {
    one(|b, body| {
        let u = b.t(K::U32);
        let f = b.t(K::F32);
        let s = b.ty(TypeData::Struct {
            align: 4,
            members: vec![u, f],
        });
        let a = b.alloca(body, s);
        let i = idx(b);
        let r = b.t(result);
        b.at(body).gep(r, a, &[i]);
    })
}

#[test]
fn gep_struct_indices_are_constant_and_in_range() {
    ok(&gep_module(|b| b.c(K::U32, 1), K::F32));
    ok(&gep_module(|b| b.c(K::I64, 0), K::U32));
    err(
        &gep_module(|b| b.c(K::U32, 2), K::F32),
        "selects member 2 of a structure with 2 members",
    );
    err(
        &gep_module(|b| b.c(K::I32, u32::MAX as u64), K::F32),
        "must be a non-negative integer constant",
    );
    err(
        &gep_module(
            |b| {
                Value::Undef({
                    let u = b.t(K::U32);
                    b.m.undef(u)
                })
            },
            K::F32,
        ),
        "must be a non-negative integer constant",
    );
    err(
        &gep_module(|b| b.c(K::U32, 0), K::F32),
        "result type `f32` differs from the indexed element type `u32`",
    );
    // Arrays index dynamically; bounds are not a typing rule.
    ok(&one(|b, body| {
        let f = b.t(K::F32);
        let arr = b.ty(TypeData::Array { elem: f, len: 4 });
        let a = b.alloca(body, arr);
        let i = b.c(K::U32, 100);
        b.at(body).gep(f, a, &[i]);
    }));
    err(
        &one(|b, body| {
            let f = b.t(K::F32);
            let x = b.f(1.0);
            let i = b.c(K::U32, 0);
            b.at(body).gep(f, x, &[i]);
        }),
        "the base must be an lvalue",
    );
}

#[test]
fn atomics() {
    let good = |op: AtomicOp, elem: K| {
        let mut b = B::kernel();
        let body = b.body();
        let e = b.t(elem);
        let buf = b.ty(TypeData::Buffer { elem: Some(e) });
        let r = b.arg(ArgKind::Resource, buf);
        let i = b.c(K::U32, 0);
        let v = b.zero(e);
        let mut ops = vec![r, i, v];
        if op == AtomicOp::CompareExchange {
            ops.push(v);
        }
        b.at(body).ins(InstKind::Atomic(op), Some(e), ops);
        b.ret(body);
        b.done()
    };
    ok(&good(AtomicOp::FetchAdd, K::U32));
    ok(&good(AtomicOp::CompareExchange, K::I64));
    ok(&good(AtomicOp::Exchange, K::F32));
    err(
        &good(AtomicOp::FetchAnd, K::F32),
        "bitwise atomics need an integer type",
    );
    err(
        &good(AtomicOp::FetchAdd, K::F16),
        "atomic result type must be i32, u32, i64, u64 or f32",
    );
    // Shared array allocas are valid bases; local ones are not.
    for (op, good) in [(AllocaOp::Shared, true), (AllocaOp::Local, false)] {
        let m = one(|b, body| {
            let u = b.t(K::U32);
            let arr = b.ty(TypeData::Array { elem: u, len: 8 });
            let a = b.at(body).alloca(op, arr);
            let (i, v) = (b.c(K::I32, 1), b.c(K::U32, 2));
            b.at(body).atomic(AtomicOp::FetchOr, u, a, &[i], &[v]);
        });
        if good {
            ok(&m)
        } else {
            err(&m, "the base must be a typed buffer resource argument")
        }
    }
}

fn cast(op: CastOp, from: impl Fn(&mut B) -> Value, to: impl Fn(&mut B) -> Type) -> Module {
    one(|b, body| {
        let v = from(b);
        let t = to(b);
        b.at(body).cast(op, t, v);
    })
}

#[test]
fn casts() {
    ok(&cast(
        CastOp::StaticCast,
        |b| b.c(K::Bool, 1),
        |b| b.t(K::F64),
    ));
    err(
        &cast(CastOp::StaticCast, |b| b.f(1.0), |b| b.v(K::F32, 2)),
        "static_cast needs scalar or vector types of the same dimension",
    );
    ok(&cast(CastOp::BitwiseCast, |b| b.f(1.0), |b| b.t(K::I32)));
    ok(&cast(
        CastOp::BitwiseCast,
        |b| {
            let t = b.v(K::F16, 2);
            b.zero(t)
        },
        |b| b.t(K::U32),
    ));
    err(
        &cast(CastOp::BitwiseCast, |b| b.c(K::Bool, 1), |b| b.t(K::U8)),
        "bitwise_cast needs",
    );
    err(
        &cast(CastOp::BitwiseCast, |b| b.f(1.0), |b| b.t(K::U64)),
        "bitwise_cast needs",
    );
    ok(&cast(
        CastOp::BitwiseCast,
        |b| {
            let u = b.t(K::U32);
            let s = b.ty(TypeData::Struct {
                align: 4,
                members: vec![u, u],
            });
            b.zero(s)
        },
        |b| {
            let u = b.t(K::U32);
            b.ty(TypeData::Array { elem: u, len: 2 })
        },
    ));
}

#[test]
fn calls_match_the_callee_signature() {
    let mut b = B::kernel();
    let u = b.t(K::U32);
    let f = b.t(K::F32);
    let buf = b.ty(TypeData::Buffer { elem: Some(u) });
    let mut callee =
        xir_ir::function::Function::new(xir_ir::function::FunctionKind::Callable, Some(f));
    callee.add_arg(ArgKind::Value, u);
    callee.add_arg(ArgKind::Reference, u);
    callee.add_arg(ArgKind::Resource, buf);
    let cb = callee.ensure_body();
    let x = b.f(0.0);
    callee.append_inst(
        cb,
        xir_ir::inst::InstData::new(InstKind::Return, None, vec![x]),
    );
    let g = b.m.add_function(callee);
    let res = b.arg(ArgKind::Resource, buf);
    let body = b.body();
    let a = b.alloca(body, u);
    let one = b.c(K::U32, 1);
    let call = |b: &mut B, ty: Option<Type>, args: Vec<Value>| {
        let mut ops = vec![Value::Func(g)];
        ops.extend(args);
        b.at(body).ins(InstKind::Call, ty, ops);
    };
    call(&mut b, Some(f), vec![one, a, res]);
    b.ret(body);
    let good = b.done();
    ok(&good);
    for (k, needle) in [
        (
            0,
            "result type `u32` differs from the callee's return type `f32`",
        ),
        (1, "passes 2 arguments but %2 takes 3"),
        (
            2,
            "argument 0 must be an rvalue of type `u32`, found `u32` (an lvalue)",
        ),
        (3, "argument 1 must be an lvalue of type `u32`, found `u32`"),
        (4, "argument 2 must be a resource argument"),
    ] {
        let mut m = good.clone();
        let kf = m.func_order[1];
        let kernel = m.func_mut(kf);
        let ci = kernel.blocks[kernel.body.unwrap()].insts[1];
        let d = kernel.inst_mut(ci);
        match k {
            0 => d.ty = Some(u),
            1 => {
                d.operands.pop();
            }
            2 => d.operands[1] = a,
            3 => d.operands[2] = one,
            _ => d.operands[3] = one,
        }
        err(&m, needle);
    }
}

#[test]
fn print_operands_are_data() {
    err(
        &one(|b, body| {
            let u = b.t(K::U32);
            let a = b.alloca(body, u);
            b.at(body).print("{}", &[a]);
        }),
        "operand 0 must be a data rvalue",
    );
}

fn resource_module(build: impl FnOnce(&mut B, xir_ir::value::BlockId, Value)) -> Module {
    one(|b, body| {
        let f = b.t(K::F32);
        let buf = b.ty(TypeData::Buffer { elem: Some(f) });
        let r = b.arg(ArgKind::Resource, buf);
        build(b, body, r)
    })
}

#[test]
fn resource_typing_and_bindless_attributes() {
    ok(&resource_module(|b, body, r| {
        let f = b.t(K::F32);
        let i = b.c(K::U32, 0);
        b.at(body).resource_read(
            ResourceReadOp::BufferRead,
            BindlessAccess::default(),
            f,
            &[r, i],
        );
    }));
    err(
        &resource_module(|b, body, r| {
            let u = b.t(K::U32);
            let i = b.c(K::U32, 0);
            b.at(body).resource_read(
                ResourceReadOp::BufferRead,
                BindlessAccess::default(),
                u,
                &[r, i],
            );
        }),
        "the result type does not match the op",
    );
    err(
        &resource_module(|b, body, r| {
            let f = b.t(K::F32);
            let i = b.c(K::U32, 0);
            let acc = BindlessAccess {
                typed: true,
                uniform: false,
            };
            b.at(body)
                .resource_read(ResourceReadOp::BufferRead, acc, f, &[r, i]);
        }),
        "only allowed on bindless ops",
    );
    ok(&one(|b, body| {
        let arr = b.ty(TypeData::BindlessArray);
        let r = b.arg(ArgKind::Resource, arr);
        let u = b.t(K::U32);
        let i = b.c(K::I32, 0);
        let acc = BindlessAccess {
            typed: true,
            uniform: true,
        };
        b.at(body)
            .resource_query(ResourceQueryOp::BindlessByteBufferSize, acc, u, &[r, i]);
    }));
    err(
        &resource_module(|b, body, r| {
            let u2 = b.v(K::U32, 2);
            b.at(body).resource_query(
                ResourceQueryOp::Texture2dSize,
                BindlessAccess::default(),
                u2,
                &[r],
            );
        }),
        "the resource operand has the wrong kind",
    );
    // A texture read gives a 4-vector of the texture element.
    ok(&one(|b, body| {
        let i = b.t(K::I32);
        let tex = b.ty(TypeData::Texture {
            dim: TextureDim::D2,
            elem: i,
        });
        let r = b.arg(ArgKind::Resource, tex);
        let c = {
            let u2 = b.v(K::U32, 2);
            b.zero(u2)
        };
        let i4 = b.v(K::I32, 4);
        b.at(body).resource_read(
            ResourceReadOp::Texture2dRead,
            BindlessAccess::default(),
            i4,
            &[r, c],
        );
    }));
}

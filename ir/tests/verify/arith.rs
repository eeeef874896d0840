//! Arithmetic and thread-group typing rules (reference §4.2 and §4.6).

use crate::{B, err, ok};
use xir_ir::edit::InstBuilder;

use xir_ir::module::Module;
use xir_ir::op::{ArithmeticOp as A, ThreadGroupOp as G};
use xir_ir::types::{ScalarKind as K, Type, TypeData};
use xir_ir::value::Value;

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
fn arithmetic_typing_rules() {
    let bt = |b: &mut B| b.t(K::Bool);
    let f32t = |b: &mut B| b.t(K::F32);
    // select is (false, true, condition).
    ok(&arith(A::Select, f32t, |b| {
        vec![b.f(0.0), b.f(1.0), b.c(K::Bool, 1)]
    }));
    err(
        &arith(A::Select, f32t, |b| {
            vec![b.c(K::Bool, 1), b.f(0.0), b.f(1.0)]
        }),
        "(false value, true value, condition)",
    );
    ok(&arith(
        A::Select,
        |b| b.v(K::F32, 3),
        |b| {
            let v = b.v(K::F32, 3);
            let c = b.v(K::Bool, 3);
            vec![b.zero(v), b.zero(v), b.zero(c)]
        },
    ));
    // comparisons give bool of the operand shape
    ok(&arith(A::BinaryLess, bt, |b| vec![b.f(0.0), b.f(1.0)]));
    err(
        &arith(A::BinaryLess, f32t, |b| vec![b.f(0.0), b.f(1.0)]),
        "bool result of their shape",
    );
    ok(&arith(A::BinaryEqual, bt, |b| {
        vec![b.c(K::Bool, 0), b.c(K::Bool, 1)]
    }));
    err(
        &arith(A::BinaryLess, bt, |b| {
            vec![b.c(K::Bool, 0), b.c(K::Bool, 1)]
        }),
        "two numeric operands",
    );
    // shifts: rhs integer of the same shape
    ok(&arith(
        A::BinaryShiftLeft,
        |b| b.t(K::I64),
        |b| vec![b.c(K::I64, 1), b.c(K::U8, 3)],
    ));
    err(
        &arith(
            A::BinaryShiftLeft,
            |b| b.v(K::U32, 2),
            |b| {
                let v = b.v(K::U32, 2);
                vec![b.zero(v), b.c(K::U32, 1)]
            },
        ),
        "same shape",
    );
    // clz/ctz/popcount/reverse are u32-only
    ok(&arith(A::Clz, |b| b.t(K::U32), |b| vec![b.c(K::U32, 8)]));
    err(
        &arith(A::Popcount, |b| b.t(K::I32), |b| vec![b.c(K::I32, 8)]),
        "`u32` or a `u32` vector",
    );
    // pow_int: float base, integer exponent (same shape or scalar)
    ok(&arith(
        A::PowInt,
        |b| b.v(K::F32, 2),
        |b| {
            let v = b.v(K::F32, 2);
            vec![b.zero(v), b.c(K::I32, 2)]
        },
    ));
    err(
        &arith(A::PowInt, f32t, |b| vec![b.f(2.0), b.f(2.0)]),
        "integer exponent",
    );
    // dot / length give the element
    ok(&arith(A::Dot, f32t, |b| {
        let v = b.v(K::F32, 3);
        vec![b.zero(v), b.zero(v)]
    }));
    err(
        &arith(
            A::Length,
            |b| b.v(K::F32, 3),
            |b| {
                let v = b.v(K::F32, 3);
                vec![b.zero(v)]
            },
        ),
        "result of its element type",
    );
    // cross needs float3
    err(
        &arith(
            A::Cross,
            |b| b.v(K::F32, 2),
            |b| {
                let v = b.v(K::F32, 2);
                vec![b.zero(v), b.zero(v)]
            },
        ),
        "3-element float vector",
    );
    // outer product: floatN × floatN → matrix<f32, N>
    let mat = |b: &mut B, n| {
        let f = b.t(K::F32);
        b.ty(TypeData::Matrix { elem: f, n })
    };
    ok(&arith(
        A::OuterProduct,
        |b| mat(b, 3),
        |b| {
            let v = b.v(K::F32, 3);
            vec![b.zero(v), b.zero(v)]
        },
    ));
    err(
        &arith(
            A::OuterProduct,
            |b| mat(b, 2),
            |b| {
                let v = b.v(K::F32, 3);
                vec![b.zero(v), b.zero(v)]
            },
        ),
        "matrix<f32, N>",
    );
    // matrix_comp_* mixes a matrix with its element
    ok(&arith(
        A::MatrixCompMul,
        |b| mat(b, 2),
        |b| {
            let m = mat(b, 2);
            vec![b.f(2.0), b.zero(m)]
        },
    ));
    err(
        &arith(
            A::MatrixCompMul,
            |b| mat(b, 2),
            |b| vec![b.f(2.0), b.f(2.0)],
        ),
        "at least one a matrix",
    );
    // matrix_linalg_mul: mat×vec → vec
    ok(&arith(
        A::MatrixLinalgMul,
        |b| b.v(K::F32, 4),
        |b| {
            let m = mat(b, 4);
            let v = b.v(K::F32, 4);
            vec![b.zero(m), b.zero(v)]
        },
    ));
    err(
        &arith(
            A::MatrixLinalgMul,
            |b| b.v(K::F32, 3),
            |b| {
                let m = mat(b, 4);
                let v = b.v(K::F32, 3);
                vec![b.zero(m), b.zero(v)]
            },
        ),
        "matching dimension",
    );
    // aggregate, shuffle, extract, insert
    ok(&arith(
        A::Aggregate,
        |b| b.v(K::U32, 2),
        |b| vec![b.c(K::U32, 1), b.c(K::U32, 2)],
    ));
    err(
        &arith(
            A::Aggregate,
            |b| b.v(K::U32, 3),
            |b| vec![b.c(K::U32, 1), b.c(K::U32, 2)],
        ),
        "one operand per element",
    );
    ok(&arith(
        A::Shuffle,
        |b| b.v(K::F32, 2),
        |b| {
            let v = b.v(K::F32, 4);
            vec![b.zero(v), b.c(K::U32, 3), b.c(K::I32, 0)]
        },
    ));
    err(
        &arith(
            A::Shuffle,
            |b| b.v(K::F32, 2),
            |b| {
                let v = b.v(K::F32, 4);
                vec![b.zero(v), b.c(K::U32, 3)]
            },
        ),
        "one integer index per result element",
    );
    let st = |b: &mut B| {
        let u = b.t(K::U32);
        let f = b.t(K::F32);
        b.ty(TypeData::Struct {
            align: 4,
            members: vec![u, f],
        })
    };
    ok(&arith(A::Extract, f32t, |b| {
        let s = st(b);
        vec![b.zero(s), b.c(K::U32, 1)]
    }));
    err(
        &arith(A::Extract, f32t, |b| {
            let s = st(b);
            let u = b.t(K::U32);
            let x = Value::Undef(b.m.undef(u));
            vec![b.zero(s), x]
        }),
        "non-negative integer constant",
    );
    ok(&arith(A::Insert, st, |b| {
        let s = st(b);
        vec![b.zero(s), b.f(1.0), b.c(K::U32, 1)]
    }));
    err(
        &arith(A::Insert, st, |b| {
            let s = st(b);
            vec![b.zero(s), b.f(1.0), b.c(K::U32, 0)]
        }),
        "inserted value type `f32` differs",
    );
    // A matrix column need not be an interned type for the walk to pass through it.
    ok(&arith(A::Extract, f32t, |b| {
        let f = b.t(K::F32);
        let m = b.ty(TypeData::Matrix { elem: f, n: 3 });
        assert!(
            b.m.types
                .find(&TypeData::Vector { elem: f, len: 3 })
                .is_none()
        );
        vec![b.zero(m), b.c(K::U32, 2), b.c(K::U32, 1)]
    }));
    // lvalues are not arithmetic operands
    err(
        &one(|b, body| {
            let u = b.t(K::U32);
            let a = b.alloca(body, u);
            b.at(body).arith(A::UnaryMinus, u, &[a]);
        }),
        "must be a data rvalue",
    );
}

#[test]
fn thread_group_typing() {
    ok(&one(|b, body| {
        let u4 = b.v(K::U32, 4);
        let c = b.c(K::Bool, 1);
        b.at(body)
            .thread_group(G::WarpActiveBitMask, Some(u4), &[c]);
    }));
    err(
        &one(|b, body| {
            let x = b.f(1.0);
            let y = b.c(K::U32, 1);
            b.at(body)
                .thread_group(G::ShaderExecutionReorder, None, &[x, y]);
        }),
        "two `u32` operands",
    );
    err(
        &one(|b, body| {
            let u = b.t(K::U32);
            let c = b.c(K::Bool, 1);
            b.at(body).thread_group(G::WarpActiveSum, Some(u), &[c]);
        }),
        "non-bool scalar/vector",
    );
}

//! The synthetic plain-CFG module shared by the benchmark examples: callables made of
//! segments that give every cleanup pass work — foldable dead arithmetic on constants
//! (const-fold, dce), diamonds whose merge has a trivial phi and a real one (phi-cleanup)
//! and a straight-line edge to the next segment's block (simplify-cfg).
//!
//! Deterministic: the module depends only on the requested size.

use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::op::ArithmeticOp;
use xir_ir::{ArgKind, BlockId, Function, FunctionKind, Module, Type, Value};

/// Instructions per generated segment (see [`segment`]).
pub const SEGMENT_INSTS: usize = 13;
/// Segments per function.
pub const SEGMENTS_PER_FUNCTION: usize = 100;

struct Consts {
    u32t: Type,
    c: [Value; 4],
}

fn arith(cur: &mut Cursor<'_>, op: ArithmeticOp, ty: Type, a: Value, b: Value) -> Value {
    cur.arith(op, ty, &[a, b])
}

/// One segment starting in block `at` from value `a`: a live chain step, two foldable
/// dead instructions, a diamond whose merge has a trivial phi (for phi-cleanup) and a
/// real one, and a straight-line edge to the next segment's block (for simplify-cfg).
/// Returns the value and block the next segment continues from.
fn segment(f: &mut Function, k: &Consts, bool_t: Type, at: BlockId, a: Value) -> (Value, BlockId) {
    let (t, fb, m, next) = (
        f.create_block(),
        f.create_block(),
        f.create_block(),
        f.create_block(),
    );
    let mut cur = Cursor::at_end(f, at);
    let t1 = arith(&mut cur, ArithmeticOp::BinaryAdd, k.u32t, a, k.c[0]);
    let d1 = arith(&mut cur, ArithmeticOp::BinaryMul, k.u32t, k.c[1], k.c[2]);
    arith(&mut cur, ArithmeticOp::BinaryAdd, k.u32t, d1, k.c[0]);
    let cond = arith(&mut cur, ArithmeticOp::BinaryLess, bool_t, t1, k.c[3]);
    cur.cond_br(cond, t, fb);
    let mut cur = Cursor::at_end(f, t);
    let tv = arith(&mut cur, ArithmeticOp::BinaryAdd, k.u32t, t1, k.c[0]);
    cur.br(m);
    let mut cur = Cursor::at_end(f, fb);
    let fv = arith(&mut cur, ArithmeticOp::BinaryAdd, k.u32t, t1, k.c[1]);
    cur.br(m);
    let mut cur = Cursor::at_end(f, m);
    let p = cur.phi(k.u32t, &[(t1, t), (t1, fb)]);
    let q = cur.phi(k.u32t, &[(tv, t), (fv, fb)]);
    let s = arith(&mut cur, ArithmeticOp::BinaryAdd, k.u32t, p, q);
    cur.br(next);
    (s, next)
}

/// A module of about `insts` instructions: callables of [`SEGMENTS_PER_FUNCTION`]
/// segments each.
pub fn generate(insts: usize) -> Module {
    let mut m = Module::new();
    let u32t = m.types.u32();
    let bool_t = m.types.bool();
    let c = [1u32, 2, 3, 1000].map(|v| Value::Const(m.constant(u32t, &v.to_le_bytes())));
    let k = Consts { u32t, c };
    let per_fn = SEGMENT_INSTS * SEGMENTS_PER_FUNCTION + 1;
    for _ in 0..insts.div_ceil(per_fn).max(1) {
        let mut f = Function::new(FunctionKind::Callable, Some(u32t));
        let arg = f.add_arg(ArgKind::Value, u32t);
        let mut at = f.ensure_body();
        let mut v = Value::Arg(arg);
        for _ in 0..SEGMENTS_PER_FUNCTION {
            (v, at) = segment(&mut f, &k, bool_t, at, v);
        }
        Cursor::at_end(&mut f, at).ret(Some(v));
        m.add_function(f);
    }
    m
}

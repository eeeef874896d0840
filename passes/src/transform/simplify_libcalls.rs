//! `simplify-libcalls` — replace math-library calls by simpler equivalents.
//!
//! **What:** three rewrites of `arithmetic` instructions (upstream
//! `src/xir/passes/simplify_libcalls.cpp`, LuisaGroup/LuisaCompute commit `0c84a1a`, the
//! version that keeps instruction metadata):
//!
//! | call | becomes | when |
//! |---|---|---|
//! | `clamp(x, lo, hi)` | `saturate(x)` | float `x`; every lane of `lo` is `+0.0` (not `-0.0`) and of `hi` is `1.0` |
//! | `abs(x)` | `x` | unsigned integer `x` (scalar or vector) |
//! | `select(x, x, c)` | `x` | both arms the same value |
//!
//! **Why it is exact:** `saturate(x)` *is* `clamp(x, 0, 1)` (docs/semantics.md; CUDA's
//! `lc_saturate`); a `-0.0` lower bound is left alone because `max(-0.0, +0.0)` may
//! pick either zero. `abs` of an unsigned value is the value. `select` of equal arms
//! is that arm whatever the condition (even undefined).
//!
//! **Algorithm:** one walk over the arithmetic instructions, reachable blocks in reverse
//! post-order, then the rest; each rewrite reroutes all uses through the
//! [`Rewriter`](xir_ir::edit::Rewriter) and removes the call.
//!
//! **Metadata:** the `saturate` replacing a `clamp` takes the clamp's metadata (it is a
//! new instruction, a unique owner); an annotated `abs` or `select` is retained (its
//! replacement is a shared operand).
//!
//! **Differences from upstream:** upstream recognises the bounds `0.0`/`1.0` only in
//! `f32`/`f64` scalars and vectors; here `f16` too (the identity holds at every width).
//!
//! **Preconditions:** none (structured or plain CFG). **Refusals:** none.
//!
//! **Report keys:** `simplified_count` (calls replaced).
//!
//! **Example:**
//! ```text
//! %s: f32 = arithmetic clamp %x, %zero, %one;   // %s: f32 = arithmetic saturate %x;
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::constant::const_lanes;
use crate::util::edit::insts_in_rpo;
use xir_ir::analysis::Cfg;
use xir_ir::constant::ScalarValue;
use xir_ir::edit::{InsertPoint, InstBuilder, Rewriter};
use xir_ir::op::ArithmeticOp as A;
use xir_ir::{FuncId, InstId, InstKind, Module, Value};

/// The `simplify-libcalls` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct SimplifyLibcalls;

crate::declare_pass! {
    SimplifyLibcalls: function pass "simplify-libcalls" {
        summary: "Simplifies math calls: clamp(x, +0.0, 1.0) to saturate(x), abs of an unsigned value, select with equal arms.",
        form: Either,
        counters: SimplifyLibcallsCounters {
            /// Calls replaced.
            simplified_count: Instructions,
        }
    }
}

impl FunctionPass for SimplifyLibcalls {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        cx: &mut PassContext,
        counters: &mut SimplifyLibcallsCounters,
    ) -> Result<(), PassError> {
        let cfg = cx.analyses.get::<Cfg>(module, f);
        let order: Vec<InstId> = {
            let func = module.func(f);
            insts_in_rpo(func, &cfg.rpo)
                .into_iter()
                .filter(|i| {
                    matches!(
                        func.insts[*i].kind,
                        InstKind::Arithmetic(A::Clamp | A::Abs | A::Select)
                    )
                })
                .collect()
        };
        let mut rw = Rewriter::for_module(module, f);
        for i in order {
            if let Some(v) = simplify(&mut rw, i) {
                rw.replace_all_uses(Value::Inst(i), v);
                rw.remove(i);
                counters.simplified_count += 1;
            }
        }
        Ok(())
    }
}

/// Whether every lane of constant `v` is a float satisfying `p`.
fn float_lanes(rw: &mut Rewriter, v: Value, p: impl Fn(f64) -> bool) -> bool {
    let g = rw.globals();
    const_lanes(g.types, g.constants, v).is_some_and(|(k, l)| {
        k.is_float()
            && l
                .iter()
                .all(|x| matches!(x, ScalarValue::Float(f) if p(*f)))
    })
}

/// The value replacing call `i`, if a rewrite applies (a new `saturate` is built here).
fn simplify(rw: &mut Rewriter, i: InstId) -> Option<Value> {
    let d = rw.inst(i);
    let (&InstKind::Arithmetic(op), Some(ty)) = (&d.kind, d.ty) else {
        return None;
    };
    let annotated = !d.metadata.is_empty();
    match (op, &d.operands[..]) {
        (A::Clamp, &[x, lo, hi]) => {
            let zero = float_lanes(rw, lo, |f| f == 0.0 && f.is_sign_positive());
            if !zero || !float_lanes(rw, hi, |f| f == 1.0) {
                return None;
            }
            let s = rw.at(InsertPoint::Before(i)).arith(A::Saturate, ty, &[x]);
            let Value::Inst(si) = s else { unreachable!() };
            let md = std::mem::take(rw.metadata_mut(i));
            *rw.metadata_mut(si) = md;
            Some(s)
        }
        (A::Abs, &[x]) if !annotated => {
            let unsigned = rw
                .globals()
                .types
                .scalar_or_vector_elem(ty)
                .is_some_and(|k| k.is_unsigned_int());
            unsigned.then_some(x)
        }
        (A::Select, &[f, t, _]) if !annotated && f == t => Some(f),
        _ => None,
    }
}

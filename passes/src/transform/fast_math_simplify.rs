//! `fast-math-simplify` — `f32` simplifications allowed under fast math.
//!
//! **What** (only with `enable-fast-math=true`; otherwise the pass changes nothing, as
//! upstream's precise mode):
//! * `pow(x, ±0)` and `pow(1, y)` become the constant `1` (`identity`);
//! * `pow(2, y)` becomes `exp2(y)` and `pow(10, y)` becomes `exp10(y)` (`radix_pow`);
//! * of two opposite differences `a - b` and `b - a` in one block, where one of them is
//!   only observed through its norm (`length`, `length_squared`, `dot(d, d)`, `d * d`),
//!   the later one is replaced by the earlier one, which takes the direction the
//!   sign-sensitive uses need (`opposite_sub`).
//!
//! Scalars and vectors of `f32` only; a constant base or exponent counts when every lane
//! has the value (by bits; a zero exponent of either sign).
//!
//! **Which rewrites are exact:** `identity` is exact wherever `pow` is defined (IEEE and
//! the interpreter give `pow(x, ±0) = 1` for every `x`, NaN included, and
//! `pow(1, y) = 1` for every `y`); where `pow` is undefined (docs/semantics.md: a
//! negative base, or a zero base with a non-positive exponent) `1` replaces undefined
//! behaviour. `opposite_sub` is exact up to the payload of a NaN: IEEE subtraction gives
//! `b - a = -(a - b)` (both `+0` when `a = b`), and a norm, a self-dot or a square does
//! not see the sign. `radix_pow` is **not** exact: `exp2` and `exp10` may round
//! differently from `pow` with the same base (the fast-math contract allows it); the two
//! agree on integer exponents whose results are representable, where the corpus runs it.
//!
//! **Algorithm:** first the differences, block by block in layout order: remember each
//! unannotated `f32` `binary_sub a, b` (`a ≠ b`) by `(a, b)`; at a later `b - a` whose
//! partner still reads `(a, b)`: if the later one is only observed through its norm, or
//! the earlier one is (then the earlier one's operands are swapped to `b - a`), reroute
//! the later one's uses to the earlier one; the merged differences are removed at the
//! end. The earlier one dominates (same block, earlier). Then each unannotated `pow`
//! whose operands have its type is checked against the two patterns.
//!
//! **Metadata:** an annotated difference or `pow` is retained.
//!
//! **Preconditions:** none (structured or plain CFG). **Refusals:** none.
//!
//! **Options:** `enable-fast-math` (default `false`: the pass is a no-op, as upstream's
//! `FastMathSimplifyOptions`).
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/fast_math_simplify.cpp` and
//! `include/luisa/xir/passes/fast_math_simplify.h` (the version with `opposite-sub`):
//! the three rewrites, the even-use set, the operand swap of the earlier difference, the
//! `f32`-only rule. Differences: the report keys are upstream's `identity`, `radix-pow`
//! and `opposite-sub` written with `_` (report keys are counter field names here).
//!
//! **Report keys:** `identity`, `radix_pow`, `opposite_sub` (instructions replaced by
//! each rewrite). **Changed:** any is non-zero (instructions only).
//!
//! **Example:**
//! ```text
//! %p: f32 = arithmetic pow %two, %y;     →   %p: f32 = arithmetic exp2 %y;
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::registry::{PassOptionInfo, PassOptions};
use crate::util::constant::{const_lanes, splat_bytes};
use rustc_hash::FxHashMap;
use xir_ir::constant::ScalarValue;
use xir_ir::edit::{InsertPoint, InstBuilder, Rewriter};
use xir_ir::op::ArithmeticOp as A;
use xir_ir::{FuncId, InstId, InstKind, Module, ScalarKind, Type, Value};

/// The `fast-math-simplify` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct FastMathSimplify {
    /// Run at all (upstream `FastMathSimplifyOptions::enable_fast_math`).
    pub enable_fast_math: bool,
}

crate::declare_pass! {
    FastMathSimplify: function pass "fast-math-simplify" {
        summary: "Under enable-fast-math: f32 pow(x, 0) and pow(1, y) to 1, pow(2|10, y) to exp2/exp10, and shares opposite differences observed only through their norm.",
        form: Either,
        options: [
            PassOptionInfo {
                name: "enable-fast-math",
                default: "false",
                help: "run at all (exp2/exp10 may round differently from pow)",
            },
        ],
        create: |o: &PassOptions| Ok::<_, String>(FastMathSimplify {
            enable_fast_math: o.get_bool("enable-fast-math", false)?,
        }),
        counters: FastMathSimplifyCounters {
            /// `pow(x, ±0)` and `pow(1, y)` replaced by the constant 1.
            identity: Instructions,
            /// `pow(2, y)` and `pow(10, y)` replaced by `exp2(y)` and `exp10(y)`.
            radix_pow: Instructions,
            /// Differences replaced by an earlier opposite difference.
            opposite_sub: Instructions,
        }
    }
}

impl FunctionPass for FastMathSimplify {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        counters: &mut FastMathSimplifyCounters,
    ) -> Result<(), PassError> {
        if !self.enable_fast_math {
            return Ok(());
        }
        let mut rw = Rewriter::for_module(module, f);
        share_opposite_differences(&mut rw, counters);
        simplify_pows(&mut rw, counters);
        Ok(())
    }
}

/// Whether `ty` is `f32` or a vector of `f32`.
fn is_f32ish(rw: &mut Rewriter, ty: Type) -> bool {
    rw.globals().types.scalar_or_vector_elem(ty) == Some(ScalarKind::F32)
}

/// Whether `v` is an `f32` (vector) constant every lane of which satisfies `p`.
fn every_f32_lane(rw: &mut Rewriter, v: Value, p: impl Fn(f64) -> bool) -> bool {
    let g = rw.globals();
    match const_lanes(g.types, g.constants, v) {
        Some((ScalarKind::F32, lanes)) => lanes
            .iter()
            .all(|l| matches!(l, ScalarValue::Float(x) if p(*x))),
        _ => false,
    }
}

/// Whether every use of difference `d` only observes its norm: `length d`,
/// `length_squared d`, `dot d, d` or `binary_mul d, d` (and it has a use).
fn only_norm_uses(rw: &Rewriter, d: InstId) -> bool {
    let v = Value::Inst(d);
    let uses = rw.uses(v);
    !uses.is_empty()
        && uses.iter().all(|u| {
            let user = rw.inst(u.inst);
            match (&user.kind, &user.operands[..]) {
                (InstKind::Arithmetic(A::Length | A::LengthSquared), [x]) => *x == v,
                (InstKind::Arithmetic(A::Dot | A::BinaryMul), [x, y]) => *x == v && *y == v,
                _ => false,
            }
        })
}

/// The `opposite_sub` rewrite (see the module docs).
fn share_opposite_differences(rw: &mut Rewriter, counters: &mut FastMathSimplifyCounters) {
    let blocks: Vec<_> = rw.func().block_order.iter().copied().collect();
    let mut merged: Vec<InstId> = Vec::new();
    let mut seen: FxHashMap<(Value, Value), InstId> = FxHashMap::default();
    for b in blocks {
        seen.clear();
        let insts: Vec<InstId> = rw.insts(b).collect();
        for d in insts {
            let data = rw.inst(d);
            let (InstKind::Arithmetic(A::BinarySub), [lhs, rhs], true, Some(ty)) = (
                &data.kind,
                &data.operands[..],
                data.metadata.is_empty(),
                data.ty,
            ) else {
                continue;
            };
            let (lhs, rhs) = (*lhs, *rhs);
            if lhs == rhs
                || !is_f32ish(rw, ty)
                || rw.value_type(lhs) != Some(ty)
                || rw.value_type(rhs) != Some(ty)
            {
                continue;
            }
            if let Some(&leader) = seen.get(&(rhs, lhs))
                && rw.inst(leader).operands[..] == [rhs, lhs]
            {
                let mut merge = only_norm_uses(rw, d);
                if !merge && only_norm_uses(rw, leader) {
                    // The leader's uses do not see its sign: give it the direction
                    // the later difference's uses need.
                    rw.set_operand(leader, 0, lhs);
                    rw.set_operand(leader, 1, rhs);
                    seen.remove(&(rhs, lhs));
                    seen.insert((lhs, rhs), leader);
                    merge = true;
                }
                if merge {
                    rw.replace_all_uses(Value::Inst(d), Value::Inst(leader));
                    merged.push(d);
                    counters.opposite_sub += 1;
                    continue;
                }
            }
            seen.insert((lhs, rhs), d);
        }
    }
    for d in merged {
        rw.remove(d);
    }
}

/// The `identity` and `radix_pow` rewrites (see the module docs).
fn simplify_pows(rw: &mut Rewriter, counters: &mut FastMathSimplifyCounters) {
    let pows: Vec<InstId> = rw
        .func()
        .placed_insts()
        .collect::<Vec<_>>()
        .into_iter()
        .filter(|&i| rw.inst(i).kind == InstKind::Arithmetic(A::Pow))
        .collect();
    for p in pows {
        let data = rw.inst(p);
        let ([base, exponent], true, Some(ty)) =
            (&data.operands[..], data.metadata.is_empty(), data.ty)
        else {
            continue;
        };
        let (base, exponent) = (*base, *exponent);
        if !is_f32ish(rw, ty)
            || rw.value_type(base) != Some(ty)
            || rw.value_type(exponent) != Some(ty)
        {
            continue;
        }
        let replacement = if every_f32_lane(rw, exponent, |x| x == 0.0)
            || every_f32_lane(rw, base, |x| x == 1.0)
        {
            let g = rw.globals();
            let bytes = splat_bytes(g.types, ty, ScalarValue::Float(1.0))
                .expect("an f32 (vector) type has a splat");
            counters.identity += 1;
            Value::Const(g.constant(ty, &bytes))
        } else {
            let op = if every_f32_lane(rw, base, |x| x == 2.0) {
                A::Exp2
            } else if every_f32_lane(rw, base, |x| x == 10.0) {
                A::Exp10
            } else {
                continue;
            };
            counters.radix_pow += 1;
            rw.at(InsertPoint::Before(p)).arith(op, ty, &[exponent])
        };
        rw.replace_all_uses(Value::Inst(p), replacement);
        rw.remove(p);
    }
}

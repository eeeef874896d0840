//! `div-rem-pairs` — compute a remainder from a dominating division of the same operands.
//!
//! **What:** an integer `x % y` dominated by a division `x / y` of the same two operand
//! values becomes `x - (x / y) * y`, reusing the division (upstream
//! `src/xir/passes/div_rem_pairs.cpp`, LuisaGroup/LuisaCompute commit `9c4ec99`, the
//! version that moves the remainder's metadata to the subtraction). Targets without a
//! combined divide-remainder instruction pay one multiply and one subtract instead of a
//! second division.
//!
//! **Why it is exact:** integer division truncates toward zero and the remainder takes the
//! dividend's sign (docs/semantics.md), so `x = (x / y)·y + x % y` for every defined input,
//! and `+ - *` wrap at the width, so the identity also holds modulo 2^width. The division
//! dominates the remainder, so whenever the remainder runs the division has run on the
//! same operands: `y = 0` and `MIN / -1` were already undefined there, and no undefined
//! case is added or removed. Floats are never paired (`fmod` is not `x - trunc(x/y)·y`
//! once rounded).
//!
//! **Algorithm:** collect the integer (scalar or vector) `binary_div` and `binary_mod`
//! instructions in layout order; for each remainder take the first division with the
//! same operands that dominates it (earlier in the same block, or in a block dominating
//! the remainder's block, from the [`DomTree`]); insert `m = d * y` and `s = x - m` just
//! before the remainder, reroute its uses to `s` and remove it. Remainders in unreachable
//! blocks pair only with an earlier division of their own block.
//!
//! **Metadata:** the remainder's metadata moves to the subtraction (the value that
//! replaces it); an annotated division is only read.
//!
//! **Preconditions:** none (structured or plain CFG). **Refusals:** none.
//!
//! **Report keys:** `merged_div_rem_pair` (remainders rewritten).
//!
//! **Example:**
//! ```text
//! %q: i32 = arithmetic binary_div %x, %y;
//! %r: i32 = arithmetic binary_mod %x, %y;   // %m: i32 = arithmetic binary_mul %q, %y;
//!                                           // %r: i32 = arithmetic binary_sub %x, %m;
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use xir_ir::analysis::DomTree;
use xir_ir::edit::{InsertPoint, InstBuilder, Rewriter};
use xir_ir::op::ArithmeticOp;
use xir_ir::{BlockId, FuncId, InstId, InstKind, Module, Value};

/// The `div-rem-pairs` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct DivRemPairs;

crate::declare_pass! {
    DivRemPairs: function pass "div-rem-pairs" {
        summary: "Rewrites an integer x % y dominated by x / y as x - (x / y) * y.",
        form: Either,
        counters: DivRemPairsCounters {
            /// Remainders rewritten to reuse a dominating division.
            merged_div_rem_pair: Instructions,
        }
    }
}

/// An integer division or remainder: where it is and what it divides.
#[derive(Copy, Clone)]
struct Site {
    inst: InstId,
    block: BlockId,
    /// Position in its block.
    pos: usize,
    x: Value,
    y: Value,
}

impl FunctionPass for DivRemPairs {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        cx: &mut PassContext,
        counters: &mut DivRemPairsCounters,
    ) -> Result<(), PassError> {
        let (divs, mods) = collect(module, f);
        if divs.is_empty() || mods.is_empty() {
            return Ok(());
        }
        let dom = cx.analyses.get::<DomTree>(module, f);
        let dominates = |d: &Site, m: &Site| {
            if d.block == m.block {
                d.pos < m.pos
            } else {
                dom.dominates(d.block, m.block)
            }
        };
        let pairs: Vec<(Site, InstId)> = mods
            .iter()
            .filter_map(|m| {
                let d = divs
                    .iter()
                    .find(|d| d.x == m.x && d.y == m.y && dominates(d, m))?;
                Some((*m, d.inst))
            })
            .collect();
        let mut rw = Rewriter::for_module(module, f);
        for (m, d) in pairs {
            let ty = rw.inst(m.inst).ty.expect("an integer remainder has a type");
            // The operands as they are now: an operand that was itself a rewritten
            // remainder has been replaced (in the division's operands too).
            let (x, y) = (rw.inst(m.inst).operands[0], rw.inst(m.inst).operands[1]);
            let at = InsertPoint::Before(m.inst);
            let mul = rw
                .at(at)
                .arith(ArithmeticOp::BinaryMul, ty, &[Value::Inst(d), y]);
            let sub = rw.at(at).arith(ArithmeticOp::BinarySub, ty, &[x, mul]);
            let Value::Inst(s) = sub else { unreachable!() };
            let md = std::mem::take(rw.metadata_mut(m.inst));
            *rw.metadata_mut(s) = md;
            rw.replace_all_uses(Value::Inst(m.inst), sub);
            rw.remove(m.inst);
            counters.merged_div_rem_pair += 1;
        }
        Ok(())
    }
}

/// The integer `binary_div` and `binary_mod` instructions of `f` (two operands, scalar or
/// vector integer result), in layout order.
fn collect(module: &Module, f: FuncId) -> (Vec<Site>, Vec<Site>) {
    let func = module.func(f);
    let (mut divs, mut mods) = (Vec::new(), Vec::new());
    for &b in &func.block_order {
        for (pos, &i) in func.blocks[b].insts.iter().enumerate() {
            let d = &func.insts[i];
            let is_int = d
                .ty
                .and_then(|t| module.types.scalar_or_vector_elem(t))
                .is_some_and(|k| k.is_int());
            let (InstKind::Arithmetic(op), true, [x, y]) = (&d.kind, is_int, &d.operands[..])
            else {
                continue;
            };
            let site = Site {
                inst: i,
                block: b,
                pos,
                x: *x,
                y: *y,
            };
            match op {
                ArithmeticOp::BinaryDiv => divs.push(site),
                ArithmeticOp::BinaryMod => mods.push(site),
                _ => {}
            }
        }
    }
    (divs, mods)
}

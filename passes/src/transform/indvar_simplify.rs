//! `indvar-simplify` — remove dead induction variables; strength-reduce scaled ones.
//!
//! **What:** (1) in a structured `loop`, an induction variable — a phi of the prepare
//! block whose value from the update block is `phi + step` — that nothing else reads is
//! removed with its increment; (2) in a plain-CFG natural loop with a counted induction
//! variable `iv` (start, constant non-zero stride), an in-loop `iv * C` or `iv << C`
//! (unsigned), or `iv * C + base` with `base` defined outside the loop, is replaced inside
//! the loop by an accumulator phi that starts at `start * C (+ base)` in the preheader
//! and grows by `stride * C` in the latch: one add per iteration instead of a multiply.
//!
//! **Algorithm** (as upstream's `indvar_simplify.cpp` with its loop-bounds analysis, read
//! at LuisaCompute `16ba40f5`; facts only):
//! 1. *Dead IVs* (structured loops whose prepare block ends in `cond_br`): a prepare phi
//!    with an incoming from the update block that is an `arithmetic binary_add` over the
//!    phi, and another incoming; neither carries metadata; the phi is used only by the
//!    increment (or itself) and the increment only by the phi → both go.
//! 2. *Strength reduction* (functions without structured control flow): natural loops
//!    ([`LoopForest`]) with a preheader and one latch whose header ends in `cond_br` on an
//!    integer comparison between a header phi `iv` and a bound, `iv` taking `start` from
//!    the preheader and `iv + stride` (an integer constant, non-zero) from the latch.
//!    Candidates are scanned in the header and the loop's blocks; a bare multiply whose
//!    every use is a matched `… + base` chain is left to the chain. A candidate that is
//!    the recurrence itself, feeds `iv`, carries metadata, or has no use inside the loop is
//!    skipped. Constants wrap to `iv`'s width; uses outside the loop keep the original.
//!
//! **Preconditions:** none. **Refusals:** none.
//!
//! **Report keys** (upstream's): `simplified_iv` (accumulators introduced),
//! `removed_dead_iv`. **Changed:** either is non-zero.
//!
//! **Example:**
//! ```text
//! %h: %i = phi (%zero, %pre), (%i1, %latch); %c = binary_less %i, %n; cond_br %c, …
//! %x = binary_mul %i, %four        →   %acc = phi (%zero*4, %pre), (%acc + 4, %latch)
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::constant::scalar_const;
use xir_ir::analysis::{Cfg, DomTree, LoopData, LoopForest};
use xir_ir::constant::{ScalarValue, read_scalar};
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::InstKind;
use xir_ir::op::ArithmeticOp;
use xir_ir::uses::{Use, UseMap};
use xir_ir::{BlockId, FuncId, Function, InstId, Module, SecondaryMap, Type, Value};

/// The `indvar-simplify` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct IndvarSimplify;

crate::declare_pass! {
    IndvarSimplify: function pass "indvar-simplify" {
        summary: "Removes dead induction variables of structured loops; strength-reduces iv*C in plain-CFG loops",
        form: Either,
        counters: IndvarSimplifyCounters {
            /// Scaled induction expressions replaced by an accumulator phi.
            simplified_iv: Instructions,
            /// Dead induction variables (phi and increment) removed.
            removed_dead_iv: Instructions,
        }
    }
}

impl FunctionPass for IndvarSimplify {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        counters: &mut IndvarSimplifyCounters,
    ) -> Result<(), PassError> {
        remove_dead_ivs(module.func_mut(f), counters);
        let func = module.func(f);
        let structured = crate::form::has_structured_control_flow(func, false);
        if !structured && func.body.is_some() {
            let cfg = Cfg::compute(func);
            let dom = DomTree::compute(func, &cfg);
            let forest = LoopForest::compute(&cfg, &dom);
            let loops: Vec<LoopData> = forest.loops().map(|(_, l)| l.clone()).collect();
            // One use map for the function, kept up to date by each rewrite (a map per
            // loop made the pass quadratic: 1.4 s of 2.7 s for spirv-final on a
            // 100k-instruction kernel with a loop every ~250 instructions).
            let mut uses = UseMap::compute(func);
            for l in loops {
                strength_reduce(module, f, &l, &mut uses, counters);
            }
        }
        Ok(())
    }
}

/// `(start, increment)` of a phi whose incoming from `from_latch` is `binary_add` over
/// the phi itself; `None` otherwise.
fn recurrence(func: &Function, phi: InstId, latch: BlockId) -> Option<(Value, InstId)> {
    let mut start = None;
    let mut next = None;
    for (v, b) in func.insts[phi].phi_incoming() {
        if b == latch {
            next = Some(v);
        } else {
            start = Some(v);
        }
    }
    let Value::Inst(inc) = next? else { return None };
    let d = &func.insts[inc];
    (matches!(d.kind, InstKind::Arithmetic(ArithmeticOp::BinaryAdd))
        && d.operands.contains(&Value::Inst(phi)))
    .then_some((start?, inc))
}

/// Step 1.
fn remove_dead_ivs(func: &mut Function, counters: &mut IndvarSimplifyCounters) {
    let loops: Vec<InstId> = func
        .placed_insts()
        .filter(|i| matches!(func.insts[*i].kind, InstKind::Loop { .. }))
        .collect();
    let mut uses: Option<UseMap> = None;
    for l in loops {
        let d = &func.insts[l];
        let (InstKind::Loop { update: Some(update), .. }, Some(prepare)) =
            (d.kind.clone(), d.operand_blocks().next())
        else {
            continue;
        };
        if !func
            .terminator(prepare)
            .is_some_and(|t| matches!(func.insts[t].kind, InstKind::ConditionalBranch))
        {
            continue;
        }
        let phis: Vec<InstId> = func.blocks[prepare]
            .insts
            .iter()
            .copied()
            .filter(|i| func.insts[*i].is_phi())
            .collect();
        for phi in phis {
            let Some((_, inc)) = recurrence(func, phi, update) else { continue };
            if !func.insts[phi].metadata.is_empty() || !func.insts[inc].metadata.is_empty() {
                continue;
            }
            // One map for the function: removals only take users away, and a removed
            // user (detached, no block) no longer counts.
            let uses = uses.get_or_insert_with(|| UseMap::compute(func));
            let only = |v: InstId, allowed: &[InstId]| {
                uses.insts
                    .get(v)
                    .iter()
                    .all(|u| allowed.contains(&u.inst) || func.insts[u.inst].block.is_none())
            };
            if only(phi, &[phi, inc]) && only(inc, &[phi]) {
                func.remove_insts(&[phi, inc]);
                counters.removed_dead_iv += 1;
            }
        }
    }
}

/// A counted induction variable of a natural loop.
struct Induction {
    phi: InstId,
    ty: Type,
    start: Value,
    stride: i64,
    recurrence: InstId,
}

/// The integer value of constant `v`, if it fits `i64`.
fn const_i64(module: &Module, v: Value) -> Option<i64> {
    let c = v.as_const()?;
    let d = &module.constants[c];
    let k = module.types.scalar_kind(d.ty)?;
    match read_scalar(k, &d.bytes)? {
        ScalarValue::Int(i) => Some(i),
        ScalarValue::UInt(u) => i64::try_from(u).ok(),
        _ => None,
    }
}

/// The loop's counted induction variable (upstream's loop-bounds analysis), if any.
fn induction(module: &Module, f: FuncId, l: &LoopData) -> Option<Induction> {
    let func = module.func(f);
    let (Some(pre), [latch]) = (l.preheader, l.latches.as_slice()) else {
        return None;
    };
    let t = func.terminator(l.header)?;
    let Some(Value::Inst(cond)) = (matches!(func.insts[t].kind, InstKind::ConditionalBranch))
        .then(|| func.insts[t].operands.first().copied())
        .flatten()
    else {
        return None;
    };
    let cd = &func.insts[cond];
    let InstKind::Arithmetic(
        ArithmeticOp::BinaryLess
        | ArithmeticOp::BinaryLessEqual
        | ArithmeticOp::BinaryGreater
        | ArithmeticOp::BinaryGreaterEqual
        | ArithmeticOp::BinaryEqual
        | ArithmeticOp::BinaryNotEqual,
    ) = cd.kind
    else {
        return None;
    };
    for v in cd.operands.iter().take(2) {
        let Value::Inst(phi) = *v else { continue };
        let pd = &func.insts[phi];
        if !pd.is_phi() || pd.block != Some(l.header) || pd.phi_incoming().len() != 2 {
            continue;
        }
        let ty = pd.ty?;
        let k = module.types.scalar_kind(ty)?;
        if !k.is_int() {
            continue;
        }
        let Some((start, inc)) = recurrence(func, phi, *latch) else { continue };
        if !pd.phi_incoming().any(|(_, b)| b == pre) {
            continue;
        }
        let step = func.insts[inc]
            .operands
            .iter()
            .find(|o| **o != Value::Inst(phi))
            .and_then(|o| const_i64(module, *o));
        if let Some(stride) = step.filter(|s| *s != 0) {
            return Some(Induction { phi, ty, start, stride, recurrence: inc });
        }
    }
    None
}

/// A matched candidate: `root` (replaced), its multiply, the base and the scale.
struct Scaled {
    root: InstId,
    mul: InstId,
    base: Option<Value>,
    scale: i64,
}

/// `C` if `i` is `iv * C`, `C * iv`, or `iv << C` with unsigned `iv` and `C` < width.
fn scale_of(module: &Module, func: &Function, i: InstId, iv: &Induction) -> Option<i64> {
    let d = &func.insts[i];
    let me = Value::Inst(iv.phi);
    match (&d.kind, d.operands.as_slice()) {
        (InstKind::Arithmetic(ArithmeticOp::BinaryMul), [a, b]) => {
            if *a == me {
                const_i64(module, *b)
            } else if *b == me {
                const_i64(module, *a)
            } else {
                None
            }
        }
        (InstKind::Arithmetic(ArithmeticOp::BinaryShiftLeft), [a, b]) if *a == me => {
            let k = module.types.scalar_kind(iv.ty)?;
            let width = (k.size() * 8) as i64;
            let s = const_i64(module, *b)?;
            (k.is_unsigned_int() && (0..width.min(63)).contains(&s)).then(|| 1i64 << s)
        }
        _ => None,
    }
}

/// Records the uses `n`'s operands make of instructions.
fn add_uses(uses: &mut UseMap, func: &Function, n: InstId) {
    for (k, op) in func.insts[n].operands.iter().enumerate() {
        if let Value::Inst(v) = op {
            uses.insts.get_mut(*v).push(Use { inst: n, index: k as u32 });
        }
    }
}

/// Step 2 for one natural loop.
fn strength_reduce(
    module: &mut Module,
    f: FuncId,
    l: &LoopData,
    uses: &mut UseMap,
    counters: &mut IndvarSimplifyCounters,
) {
    let Some(iv) = induction(module, f, l) else { return };
    let (Some(pre), latch) = (l.preheader, l.latches[0]) else { return };
    let func = module.func(f);
    let mut in_loop: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    for &b in &l.blocks {
        in_loop[b] = true;
    }
    let invariant = |v: Value| match v {
        Value::Inst(i) => func.insts[i].block.is_none_or(|b| !in_loop[b]),
        _ => true,
    };
    let mut cands: Vec<Scaled> = Vec::new();
    for &b in &l.blocks {
        for &i in &func.blocks[b].insts {
            if let Some(scale) = scale_of(module, func, i, &iv) {
                cands.push(Scaled { root: i, mul: i, base: None, scale });
                continue;
            }
            let d = &func.insts[i];
            if let (InstKind::Arithmetic(ArithmeticOp::BinaryAdd), [a, b2]) = (&d.kind, d.operands.as_slice()) {
                for (m, base) in [(*a, *b2), (*b2, *a)] {
                    if let Value::Inst(mi) = m
                        && invariant(base)
                        && let Some(scale) = scale_of(module, func, mi, &iv)
                    {
                        cands.push(Scaled { root: i, mul: mi, base: Some(base), scale });
                        break;
                    }
                }
            }
        }
    }
    // A bare multiply whose uses are all matched chains is covered by them.
    let chain_roots: Vec<InstId> = cands.iter().filter(|c| c.base.is_some()).map(|c| c.root).collect();
    cands.retain(|c| {
        c.base.is_some() || {
            let us = uses.insts.get(c.mul);
            let covered = us.iter().any(|u| chain_roots.contains(&u.inst));
            let other = us.iter().any(|u| !chain_roots.contains(&u.inst) && u.inst != c.mul);
            !covered || other
        }
    });
    let k = module.types.scalar_kind(iv.ty).expect("integer iv");
    let width = k.size() * 8;
    let wrap = |x: u64| if width >= 64 { x } else { x & ((1u64 << width) - 1) };
    let value = |bits: u64| {
        if k.is_unsigned_int() {
            ScalarValue::UInt(bits)
        } else {
            ScalarValue::Int(bits as i64)
        }
    };
    let mut jobs = Vec::new();
    for c in cands {
        let func = module.func(f);
        if c.root == iv.recurrence || c.mul == iv.recurrence || !func.insts[c.root].metadata.is_empty() {
            continue;
        }
        let us = uses.insts.get(c.root);
        if us.iter().any(|u| u.inst == iv.phi) {
            continue;
        }
        let inside: Vec<(InstId, u32)> = us
            .iter()
            .filter(|u| func.insts[u.inst].block.is_some_and(|b| in_loop[b]))
            .map(|u| (u.inst, u.index))
            .collect();
        if inside.is_empty() {
            continue;
        }
        jobs.push((c, inside));
    }
    for (c, inside) in jobs {
        let scale = wrap(c.scale as u64);
        let step = wrap(wrap(iv.stride as u64).wrapping_mul(scale));
        let (Some(sc), Some(st)) = (
            scalar_const(module, iv.ty, value(scale)),
            scalar_const(module, iv.ty, value(step)),
        ) else {
            continue;
        };
        let func = module.func_mut(f);
        let pre_term = func.terminator(pre).expect("preheader is terminated");
        let mut at = Cursor::before(func, pre_term);
        let product = at.arith(ArithmeticOp::BinaryMul, iv.ty, &[iv.start, Value::Const(sc)]);
        let mut start = product;
        if let Some(base) = c.base {
            start = at.arith(ArithmeticOp::BinaryAdd, iv.ty, &[base, product]);
        }
        let first_non_phi = func.blocks[l.header]
            .insts
            .iter()
            .position(|i| !func.insts[*i].is_phi())
            .unwrap_or(0);
        let anchor = func.blocks[l.header].insts[first_non_phi];
        let acc = Cursor::before(func, anchor).phi(iv.ty, &[]);
        let latch_term = func.terminator(latch).expect("latch is terminated");
        let next = Cursor::before(func, latch_term).arith(ArithmeticOp::BinaryAdd, iv.ty, &[acc, Value::Const(st)]);
        let Value::Inst(acc_id) = acc else { unreachable!("a phi is an instruction") };
        func.insts[acc_id].phi_push(start, pre);
        func.insts[acc_id].phi_push(next, latch);
        for (user, index) in inside {
            func.insts[user].operands[index as usize] = acc;
            let old = uses.insts.get_mut(c.root);
            old.retain(|u| (u.inst, u.index) != (user, index));
            uses.insts.get_mut(acc_id).push(Use { inst: user, index });
        }
        // The new instructions' own operands (order within a use list does not matter
        // to this pass's queries).
        let mut made = vec![product, acc, next];
        if start != product {
            made.push(start);
        }
        for new in made {
            if let Value::Inst(n) = new {
                add_uses(uses, func, n);
            }
        }
        counters.simplified_iv += 1;
    }
}

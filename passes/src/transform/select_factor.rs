//! `select-factor` — factor a common operation out of the two arms of a `select`.
//!
//! **What:** `select(f(.., a, ..), f(.., b, ..), c)` becomes `f(.., select(a, b, c), ..)`
//! when both arms are produced by the same arithmetic op `f`, are used by nothing but
//! this select, and differ in exactly one operand position (unary `f` included). The two
//! producers and the select go; one new select (on the differing operands) and one new
//! `f` come. The new select is itself a candidate, so `select(-(x + a), -(x + b), c)`
//! becomes `-(x + select(a, b, c))`. XIR's `select` operands are
//! `(false_value, true_value, condition)`.
//!
//! **Why it is exact:** `f` is pure and [speculatable](xir_ir::op::ArithmeticOp::is_speculatable)
//! (defined for every operand, so evaluating it on the chosen operand alone adds no
//! undefined case: no division, remainder, shift or dynamic element access), and it is
//! evaluated on the same values either way, bit for bit. Under a scalar `bool` condition
//! any such `f` qualifies. Under a bool-vector condition `f` must be
//! [component-wise](xir_ir::op::ArithmeticOp::is_componentwise) and the differing operands
//! vectors of the condition's dimension, so a per-lane choice of operands is a per-lane
//! choice of results.
//!
//! **Algorithm:** collect the `select` instructions in layout order into a worklist; for
//! each, check the producers (one use each — the select; same op; result type the
//! select's; same operand count; exactly one differing position whose two operands have
//! one type the condition can choose between), insert the operand select and the new
//! `f` just before the select, reroute the select's uses, and remove the select and both
//! producers. The new operand select joins the end of the worklist. Each rewrite removes
//! one instruction net, so the worklist ends.
//!
//! **Metadata:** an annotated select or producer is retained (its metadata would have no
//! single owner after the rewrite).
//!
//! **Preconditions:** none (structured or plain CFG). **Refusals:** none.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/select_factor.cpp` and
//! `include/luisa/xir/passes/select_factor.h` at `0d88a5d` (the producer conditions, the
//! component-wise set, the bool-vector condition rule, the worklist that revisits new
//! operand selects). Differences: the report keys are upstream's `factored-select` and
//! `removed-arithmetic` written with `_` (report keys are counter field names here); the
//! component-wise and speculation-safe sets are the op table's
//! ([`ArithmeticOp::is_componentwise`], [`ArithmeticOp::is_speculatable`]) rather than a
//! list in this file — the same ops once division, remainder, shifts and `select` (all
//! refused as producers anyway) are set aside.
//!
//! **Report keys:** `factored_select` (selects rewritten), `removed_arithmetic` (producers
//! removed: two per rewrite). **Changed:** `factored_select` is non-zero (instructions
//! only).
//!
//! **Example:**
//! ```text
//! %a1: f32 = arithmetic binary_add %x, %a;
//! %b1: f32 = arithmetic binary_add %x, %b;   →   %s: f32 = arithmetic select %a, %b, %c;
//! %r: f32 = arithmetic select %a1, %b1, %c;      %r: f32 = arithmetic binary_add %x, %s;
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use smallvec::SmallVec;
use xir_ir::edit::{InsertPoint, InstBuilder, Rewriter};
use xir_ir::op::ArithmeticOp;
use xir_ir::{FuncId, InstId, InstKind, Module, ScalarKind, Type, TypeData, Value};

/// The `select-factor` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct SelectFactor;

crate::declare_pass! {
    SelectFactor: function pass "select-factor" {
        summary: "Factors a common single-use arithmetic op out of both arms of a select: select(f(a), f(b), c) to f(select(a, b, c)).",
        form: Either,
        counters: SelectFactorCounters {
            /// Selects rewritten into the common op over a select of the differing operands.
            factored_select: Instructions,
            /// Arm producers removed (two per factored select).
            removed_arithmetic: Instructions,
        }
    }
}

impl FunctionPass for SelectFactor {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        counters: &mut SelectFactorCounters,
    ) -> Result<(), PassError> {
        let func = module.func(f);
        let mut work: Vec<InstId> = func
            .placed_insts()
            .filter(|i| func.insts[*i].kind == InstKind::Arithmetic(ArithmeticOp::Select))
            .collect();
        if work.is_empty() {
            return Ok(());
        }
        let mut rw = Rewriter::for_module(module, f);
        let mut k = 0;
        while k < work.len() {
            let s = work[k];
            k += 1;
            let Some(plan) = plan(&mut rw, s) else {
                continue;
            };
            let ty = rw.inst(s).ty.expect("a select has a result type");
            let at = InsertPoint::Before(s);
            let mut ops = plan.common;
            let chosen = rw.at(at).arith(
                ArithmeticOp::Select,
                plan.operand_ty,
                &[plan.false_operand, plan.true_operand, plan.condition],
            );
            ops[plan.position] = chosen;
            let factored = rw.at(at).arith(plan.op, ty, &ops);
            rw.replace_all_uses(Value::Inst(s), factored);
            rw.remove(s);
            rw.remove(plan.false_producer);
            rw.remove(plan.true_producer);
            let Value::Inst(new_select) = chosen else {
                unreachable!("arith returns an instruction")
            };
            work.push(new_select);
            counters.factored_select += 1;
            counters.removed_arithmetic += 2;
        }
        Ok(())
    }
}

/// One factoring of a select, checked and ready to apply.
struct Plan {
    op: ArithmeticOp,
    false_producer: InstId,
    true_producer: InstId,
    /// The producers' operands (the false arm's at `position`, replaced by the new select).
    common: SmallVec<[Value; 3]>,
    position: usize,
    operand_ty: Type,
    false_operand: Value,
    true_operand: Value,
    condition: Value,
}

/// The factoring of select `s`, if it qualifies.
fn plan(rw: &mut Rewriter, s: InstId) -> Option<Plan> {
    let d = rw.inst(s);
    if d.block.is_none() || !d.metadata.is_empty() {
        return None;
    }
    let ty = d.ty?;
    let [fv, tv, condition]: [Value; 3] = d.operands[..].try_into().ok()?;
    let fp = producer(rw, fv, s, ty)?;
    let tp = producer(rw, tv, s, ty)?;
    let (fd, td) = (rw.inst(fp), rw.inst(tp));
    let op = match (&fd.kind, &td.kind) {
        (InstKind::Arithmetic(a), InstKind::Arithmetic(b)) if a == b && fp != tp => *a,
        _ => return None,
    };
    if fd.operands.len() != td.operands.len() {
        return None;
    }
    let common: SmallVec<[Value; 3]> = fd.operands.iter().copied().collect();
    let differing: SmallVec<[usize; 2]> = (0..common.len())
        .filter(|&k| fd.operands[k] != td.operands[k])
        .take(2)
        .collect();
    let [position] = differing[..] else {
        return None;
    };
    let true_operand = td.operands[position];
    let false_operand = common[position];
    let operand_ty = rw.value_type(false_operand)?;
    if rw.value_type(true_operand)? != operand_ty {
        return None;
    }
    let cond_ty = rw.value_type(condition)?;
    let types = &rw.globals().types;
    let scalar_condition = types.scalar_kind(cond_ty) == Some(ScalarKind::Bool);
    if !scalar_condition {
        let TypeData::Vector { elem, len } = *types.get(cond_ty) else {
            return None;
        };
        let chooses_lanes = types.scalar_kind(elem) == Some(ScalarKind::Bool)
            && matches!(types.get(operand_ty), TypeData::Vector { len: n, .. } if *n == len);
        if !op.is_componentwise() || !chooses_lanes {
            return None;
        }
    }
    Some(Plan {
        op,
        false_producer: fp,
        true_producer: tp,
        common,
        position,
        operand_ty,
        false_operand,
        true_operand,
        condition,
    })
}

/// The producer of arm `v` of select `s` (result type `ty`) when it may be factored: an
/// unannotated, speculatable arithmetic instruction other than `select` whose only use
/// is `s`.
fn producer(rw: &Rewriter, v: Value, s: InstId, ty: Type) -> Option<InstId> {
    let Value::Inst(p) = v else { return None };
    let d = rw.inst(p);
    let InstKind::Arithmetic(op) = &d.kind else {
        return None;
    };
    let only_use = matches!(rw.uses(v), [u] if u.inst == s);
    (only_use
        && d.metadata.is_empty()
        && *op != ArithmeticOp::Select
        && op.is_speculatable()
        && d.ty == Some(ty))
    .then_some(p)
}

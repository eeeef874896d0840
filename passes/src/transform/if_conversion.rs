//! `if-conversion` — turn small branch diamonds into straight-line code with `select`.
//!
//! **What:** a diamond `b: cond_br c, T, F` whose arms `T` and `F` are entered only from
//! `b`, hold at most 16 instructions each that may run speculatively, and both end in
//! `br M`, becomes straight-line code: both arms' instructions move into `b`, each phi of
//! `M` takes `select(f_val, t_val, c)` (operand order false, true, condition) as one
//! incoming from `b` in place of its incomings from `T` and `F` (the value itself when
//! both are equal), `b` ends in `br M`, and `T` and `F` are deleted.
//!
//! **Algorithm** (as upstream's `if_conversion.cpp`, read at LuisaCompute `16ba40f5`;
//! facts only): plain CFG only — a module with any structured control flow (`if`,
//! `switch`, loops, `break`/`continue`, ray-query and autodiff regions, outlines) is
//! refused untouched (`structured_cfg_error_count`: run `destructure-cfg` first). Per
//! function, the blocks are visited in order and each convertible diamond is converted.
//! Upstream restarts its scan from the top after each conversion (quadratic in the
//! number of diamonds); a conversion can only make one more diamond convertible — the one
//! whose arm the converted head was (it now ends in `br`) — so that head's predecessor is
//! checked again right away instead, which converts the same diamonds in the same order
//! in one pass (distinct-predecessor counts are updated as diamonds go; the dead arms are
//! removed in one sweep at the end). An arm qualifies when it has no block metadata, one predecessor
//! (`b`), a `br` without metadata, and only pure instructions that may run
//! speculatively: `arithmetic` the table calls speculatable
//! ([`ArithmeticOp::is_speculatable`]) and `bitwise_cast`. The condition must be a
//! scalar `bool`; each phi of `M` must have exactly one incoming from each arm. The old
//! `cond_br`'s metadata moves to the new `br`.
//!
//! **Preconditions:** plain CFG (see above). **Refusals:** structured control flow
//! anywhere in the module.
//!
//! **Report keys** (upstream's names): `converted_diamonds`, `hoisted_insts`,
//! `replaced_phis`, `structured_cfg_error_count`. **Changed:** a diamond converted.
//!
//! **Example:**
//! ```text
//! %b: cond_br %c, %t, %f   %t: %x = a + 1; br %m   %f: br %m   %m: %p = phi (%x, %t), (%a, %f)
//! →  %b: %x = a + 1; %s = select %a, %x, %c; br %m   %m: %p = phi (%s, %b)
//! ```

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::util::edit::{remove_blocks, replace_terminator_with_branch, splice_at};
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::InstKind;
use xir_ir::op::{ArithmeticOp, CastOp};
use xir_ir::types::ScalarKind;
use xir_ir::{BlockId, FuncId, Function, InstId, Module, SecondaryMap, Value};

/// The most instructions (besides the `br`) an arm may hold.
const ARM_CAP: usize = 16;

/// The `if-conversion` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct IfConversion;

crate::declare_pass! {
    IfConversion: module pass "if-conversion" {
        summary: "Turns small cond_br diamonds into straight-line code with select (plain CFG only)",
        form: Either,
        counters: IfConversionCounters {
            /// Diamonds converted.
            converted_diamonds: ControlFlow,
            /// Arm instructions moved into the branching block.
            hoisted_insts: Nothing,
            /// Phis of merge blocks rewritten to one incoming.
            replaced_phis: Nothing,
            /// Functions with structured control flow (the module is refused).
            structured_cfg_error_count: Nothing,
        }
    }
}

impl Pass for IfConversion {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = IfConversionCounters::default();
        let structured: Vec<FuncId> = module
            .func_order
            .iter()
            .copied()
            .filter(|f| crate::form::has_structured_control_flow(module.func(*f), false))
            .collect();
        if let Some(&first) = structured.first() {
            c.structured_cfg_error_count = structured.len() as u64;
            let why = format!(
                "if-conversion needs plain control flow: {} (and {} function(s) in all) has \
                 structured control flow; run destructure-cfg first",
                crate::form::describe_function(module, first),
                structured.len()
            );
            return Ok(PassRun::refused(why, c.report()));
        }
        let bool_ty = module.types.scalar(ScalarKind::Bool);
        for f in module.func_order.clone() {
            let mut preds = distinct_preds(module.func(f));
            let mut work: Vec<BlockId> = module.func(f).block_order.iter().rev().copied().collect();
            let mut dead: Vec<BlockId> = Vec::new();
            while let Some(head) = work.pop() {
                let is_bool = |v| module.value_type(f, v) == Some(bool_ty);
                let Some(d) = diamond_at(module.func(f), &preds, head, is_bool) else {
                    continue;
                };
                // The merge trades two predecessors (the arms) for one (the head); the
                // head, now ending in `br`, may complete its predecessor's diamond.
                let (n, _) = preds[d.merge];
                preds[d.merge] = (n - 1, Some(head));
                if let (1, Some(p)) = preds[head] {
                    work.push(p);
                }
                dead.extend(d.arms);
                convert(module.func_mut(f), d, &mut c);
            }
            remove_blocks(module.func_mut(f), &dead);
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}

/// A convertible diamond.
struct Diamond {
    head: BlockId,
    cond: Value,
    arms: [BlockId; 2],
    merge: BlockId,
}

/// The merge block of arm `side` of `head`, if the arm qualifies.
fn eligible_arm(func: &Function, preds: &SecondaryMap<BlockId, (u32, Option<BlockId>)>, side: BlockId, head: BlockId) -> Option<BlockId> {
    if !func.blocks[side].metadata.is_empty() || preds[side] != (1, Some(head)) {
        return None;
    }
    let t = func.terminator(side)?;
    let d = &func.insts[t];
    if !matches!(d.kind, InstKind::Branch) || !d.metadata.is_empty() {
        return None;
    }
    let merge = d.successors().next()?;
    let body = &func.blocks[side].insts[..func.blocks[side].insts.len() - 1];
    if body.len() > ARM_CAP {
        return None;
    }
    body.iter()
        .all(|&i| {
            let k = &func.insts[i].kind;
            k.is_pure()
                && match k {
                    InstKind::Arithmetic(op) => op.is_speculatable(),
                    InstKind::Cast(op) => *op == CastOp::BitwiseCast,
                    _ => false,
                }
        })
        .then_some(merge)
}

/// Distinct predecessors of every block: (count, the last one seen).
fn distinct_preds(func: &Function) -> SecondaryMap<BlockId, (u32, Option<BlockId>)> {
    let mut preds: SecondaryMap<BlockId, (u32, Option<BlockId>)> = SecondaryMap::with_default((0, None));
    for &b in &func.block_order {
        let Some(t) = func.terminator(b) else { continue };
        let mut seen: Vec<BlockId> = func.insts[t].successors().collect();
        seen.sort();
        seen.dedup();
        for s in seen {
            preds[s] = (preds[s].0 + 1, Some(b));
        }
    }
    preds
}

/// The diamond headed by `head`, if it is convertible. `is_bool` says whether a condition
/// value is a scalar `bool`.
fn diamond_at(
    func: &Function,
    preds: &SecondaryMap<BlockId, (u32, Option<BlockId>)>,
    head: BlockId,
    is_bool: impl Fn(Value) -> bool,
) -> Option<Diamond> {
    let d = &func.insts[func.terminator(head)?];
    if !matches!(d.kind, InstKind::ConditionalBranch) {
        return None;
    }
    let (Some(&cond), Some(Value::Block(tb)), Some(Value::Block(fb))) =
        (d.operands.first(), d.operands.get(1), d.operands.get(2))
    else {
        return None;
    };
    let (tb, fb) = (*tb, *fb);
    if tb == fb {
        return None;
    }
    let mt = eligible_arm(func, preds, tb, head)?;
    let mf = eligible_arm(func, preds, fb, head)?;
    if mt != mf || !is_bool(cond) {
        return None;
    }
    let phis_ok = func.blocks[mt].insts.iter().all(|&i| {
        let p = &func.insts[i];
        !p.is_phi() || {
            let from = |arm: BlockId| p.phi_incoming().filter(|(_, b)| *b == arm).count();
            from(tb) == 1 && from(fb) == 1
        }
    });
    phis_ok.then_some(Diamond { head, cond, arms: [tb, fb], merge: mt })
}

fn convert(func: &mut Function, d: Diamond, c: &mut IfConversionCounters) {
    let [tb, fb] = d.arms;
    let term = func.terminator(d.head).expect("diamond head is terminated");
    for arm in [tb, fb] {
        let moved: Vec<InstId> = {
            let list = &func.blocks[arm].insts;
            list[..list.len() - 1].to_vec()
        };
        func.remove_insts(&moved);
        let pos = func.blocks[d.head].insts.len() - 1;
        splice_at(func, d.head, pos, &moved);
        c.hoisted_insts += moved.len() as u64;
    }
    let phis: Vec<InstId> = func.blocks[d.merge]
        .insts
        .iter()
        .copied()
        .filter(|i| func.insts[*i].is_phi())
        .collect();
    for p in phis {
        let incoming = |arm: BlockId| {
            func.insts[p]
                .phi_incoming()
                .find(|(_, b)| *b == arm)
                .map(|(v, _)| v)
                .expect("checked: one incoming per arm")
        };
        let (t_val, f_val) = (incoming(tb), incoming(fb));
        let merged = if t_val == f_val {
            t_val
        } else {
            let ty = func.insts[p].ty.expect("a phi has a type");
            Cursor::before(func, term).arith(ArithmeticOp::Select, ty, &[f_val, t_val, d.cond])
        };
        func.insts[p].phi_retain(|_, b| b != tb && b != fb);
        func.insts[p].phi_push(merged, d.head);
        c.replaced_phis += 1;
    }
    replace_terminator_with_branch(func, d.head, d.merge);
    // The arms, now holding only their `br`, leave the function in the caller's sweep.
    c.converted_diamonds += 1;
}

//! `loop-rotation` — turn top-tested innermost loops into guarded bottom-tested loops.
//!
//! **What:** a natural loop whose header tests the exit condition (`cond_br c, body,
//! exit`) becomes a guard plus a do-while loop: a new *guard* block between the
//! preheader and the header evaluates `c` once with every header phi replaced by its
//! preheader value and branches to the header or the exit; the header then enters the
//! body unconditionally (`br body`), and the latch ends in `cond_br c', header, exit`,
//! where `c'` is `c` with every header phi replaced by its latch value. A single-block
//! loop keeps its `cond_br` and tests `c'` instead of `c`. The arm order of the original
//! `cond_br` is kept in both new branches.
//!
//! **Algorithm** (as upstream's `loop_rotation.cpp`, read at LuisaCompute `0c84a1aa`;
//! facts only): the natural loops of each function are computed once and visited inner
//! first ([`crate::util::loops::natural_loops`]); only innermost loops are tried. A loop
//! is rotated when all of these hold, and left alone otherwise:
//! * a preheader ending in `br header`, exactly one latch, one exit block and one exit
//!   edge, which leaves from the header's `cond_br`; one arm of that `cond_br` is the
//!   exit and the other is in the loop;
//! * the latch (unless it is the header) ends in `br header`;
//! * every header instruction other than phis and the terminator is pure (an
//!   instruction with no effects: the final failing test no longer runs it);
//! * no value defined in the loop is used outside it, and the exit block has no phis;
//! * every header phi has an incoming from the preheader and from the latch;
//! * the condition can be re-evaluated outside the header: it is a header phi, a value
//!   defined outside the header, or one `arithmetic` instruction of the header whose
//!   operands are header phis or values defined outside the header;
//! * the header `cond_br`, the condition and the latch's `br` carry no metadata (there
//!   is no single owner for it after the rewrite);
//! * a single-block loop has at least one instruction before its `cond_br`.
//!
//! The condition instruction left in the header is dead afterwards (`dce` removes it).
//! A rotated loop is not rotated again: its exit now leaves from the latch (or, for a
//! single-block loop, its guard ends in `cond_br` and is no preheader).
//!
//! **Preconditions:** plain CFG. **Refusals:** any function with structured control flow
//! (`if`, `switch`, loops, `break`/`continue`, ray-query and autodiff regions) refuses
//! the whole module untouched, counting those functions in `structured_cfg_error_count`
//! (run `destructure-cfg` first). Upstream logs a warning and returns; here the refusal
//! is reported like every other refusing pass (`abort-on-refusal` makes it an error).
//!
//! **Report keys** (upstream's): `rotated_loop_count`, `structured_cfg_error_count`.
//! **Changed:** a loop rotated (control flow).
//!
//! **Example:**
//! ```text
//! %pre: br %h    %h: %i = phi (%0, %pre), (%i1, %l); %c = binary_less %i, %n; cond_br %c, %b, %x
//! %l: %i1 = binary_add %i, %1; br %h
//! →  %pre: br %g    %g: %c0 = binary_less %0, %n; cond_br %c0, %h, %x
//!    %h: %i = phi (%0, %g), (%i1, %l); …; br %b
//!    %l: %i1 = …; %c1 = binary_less %i1, %n; cond_br %c1, %h, %x
//! ```

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::util::loops::{def_block, has_nested_loop, in_loop, natural_loops, structured_refusal};
use rustc_hash::FxHashMap;
use xir_ir::analysis::LoopData;
use xir_ir::edit::{InsertPoint, InstBuilder, Rewriter};
use xir_ir::inst::InstKind;
use xir_ir::uses::UseMap;
use xir_ir::{BlockId, FuncId, Function, InstId, Module, Value};

/// The `loop-rotation` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct LoopRotation;

crate::declare_pass! {
    LoopRotation: module pass "loop-rotation" {
        summary: "Rotates top-tested innermost loops into guarded do-while form (opt-in, plain CFG only)",
        form: Either,
        counters: LoopRotationCounters {
            /// Loops rotated.
            rotated_loop_count: ControlFlow,
            /// Functions with structured control flow (the module is refused).
            structured_cfg_error_count: Nothing,
        }
    }
}

impl Pass for LoopRotation {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = LoopRotationCounters::default();
        if let Some((n, why)) = structured_refusal(module, "loop-rotation") {
            c.structured_cfg_error_count = n;
            return Ok(PassRun::refused(why, c.report()));
        }
        for f in module.func_order.clone() {
            let loops = natural_loops(module.func(f));
            for l in &loops {
                if has_nested_loop(l, &loops) {
                    continue;
                }
                if let Some(plan) = plan(module.func(f), l) {
                    rotate(module, f, &plan);
                    c.rotated_loop_count += 1;
                }
            }
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}

/// A loop that passed every check.
struct Plan {
    preheader: BlockId,
    header: BlockId,
    latch: BlockId,
    exit: BlockId,
    body: BlockId,
    body_is_true: bool,
    header_branch: InstId,
    cond: Value,
    /// Header phi → (preheader value, latch value).
    subst: FxHashMap<InstId, (Value, Value)>,
}

/// Whether `v` is a phi of `header` (one the substitution covers).
fn is_header_phi(func: &Function, v: Value, header: BlockId) -> bool {
    matches!(v, Value::Inst(i) if func.insts[i].is_phi() && func.insts[i].block == Some(header))
}

/// The checks of the module docs; `None` leaves the loop alone.
fn plan(func: &Function, l: &LoopData) -> Option<Plan> {
    let header = l.header;
    let preheader = l.preheader?;
    let [latch] = l.latches[..] else { return None };
    let ([exit], [(from, to)]) = (&l.exits[..], &l.exiting_edges[..]) else { return None };
    let exit = *exit;
    if *from != header || *to != exit {
        return None;
    }
    let header_branch = func.terminator(header)?;
    let hb = &func.insts[header_branch];
    if !matches!(hb.kind, InstKind::ConditionalBranch) {
        return None;
    }
    let (cond, tt, ft) = (hb.operands[0], hb.operands[1].as_block()?, hb.operands[2].as_block()?);
    let (body, body_is_true) = if tt == exit && ft != exit {
        (ft, false)
    } else if ft == exit && tt != exit {
        (tt, true)
    } else {
        return None;
    };
    if !in_loop(l, body) || in_loop(l, exit) {
        return None;
    }
    let is_br_to = |b: BlockId| {
        func.terminator(b).is_some_and(|t| {
            let d = &func.insts[t];
            matches!(d.kind, InstKind::Branch) && d.operands[0] == Value::Block(header)
        })
    };
    if !is_br_to(preheader) || (latch != header && !is_br_to(latch)) {
        return None;
    }
    // The header must be speculatable, loop values must not escape, the exit has no phis.
    let header_insts = &func.blocks[header].insts;
    if header_insts.iter().any(|&i| {
        let k = &func.insts[i].kind;
        !func.insts[i].is_phi() && !k.is_terminator() && !k.is_pure()
    }) {
        return None;
    }
    let uses = UseMap::compute(func);
    for &b in &l.blocks {
        for &i in &func.blocks[b].insts {
            let escapes = uses.insts.get(i).iter().any(|u| {
                func.insts[u.inst].block.is_none_or(|ub| !in_loop(l, ub))
            });
            if escapes {
                return None;
            }
        }
    }
    if func.blocks[exit].insts.iter().any(|&i| func.insts[i].is_phi()) {
        return None;
    }
    let mut subst = FxHashMap::default();
    for &p in header_insts {
        let d = &func.insts[p];
        if !d.is_phi() {
            break;
        }
        let (mut pre, mut lat) = (None, None);
        for (v, b) in d.phi_incoming() {
            if b == preheader {
                pre = Some(v);
            }
            if b == latch {
                lat = Some(v);
            }
        }
        subst.insert(p, (pre?, lat?));
    }
    // The condition: a header phi, a value from outside the header, or one header
    // arithmetic over those.
    let outside_or_phi = |v: Value| def_block(func, v) != Some(header) || is_header_phi(func, v, header);
    if let Value::Inst(ci) = cond
        && def_block(func, cond) == Some(header)
        && !func.insts[ci].is_phi()
    {
        let d = &func.insts[ci];
        if !matches!(d.kind, InstKind::Arithmetic(_)) || !d.operands.iter().all(|&o| outside_or_phi(o)) {
            return None;
        }
    }
    let has_md = |v: Value| matches!(v, Value::Inst(i) if !func.insts[i].metadata.is_empty());
    if !hb.metadata.is_empty()
        || has_md(cond)
        || (latch != header && func.terminator(latch).is_some_and(|t| has_md(Value::Inst(t))))
    {
        return None;
    }
    if latch == header && header_insts.len() < 2 {
        return None;
    }
    Some(Plan {
        preheader,
        header,
        latch,
        exit,
        body,
        body_is_true,
        header_branch,
        cond,
        subst,
    })
}

/// Re-evaluates the condition at `at` with header phis replaced by the preheader values
/// (`latch == false`) or the latch values (`latch == true`).
fn clone_cond(rw: &mut Rewriter<'_>, p: &Plan, at: InsertPoint, latch: bool) -> Value {
    let sub = |v: Value| match v {
        Value::Inst(i) => p.subst.get(&i).map_or(v, |&(a, b)| if latch { b } else { a }),
        _ => v,
    };
    let Value::Inst(ci) = p.cond else { return p.cond };
    if p.subst.contains_key(&ci) || rw.inst(ci).block != Some(p.header) {
        return sub(p.cond);
    }
    let d = rw.inst(ci);
    let InstKind::Arithmetic(op) = d.kind else { unreachable!("checked by plan") };
    let ty = d.ty.expect("an arithmetic condition has a type");
    let ops: Vec<Value> = d.operands.iter().map(|&o| sub(o)).collect();
    rw.at(at).arith(op, ty, &ops)
}

fn rotate(module: &mut Module, f: FuncId, p: &Plan) {
    let mut rw = Rewriter::for_module(module, f);
    let guard = rw.create_block();
    let gc = clone_cond(&mut rw, p, InsertPoint::End(guard), false);
    let (t, e) = if p.body_is_true { (p.header, p.exit) } else { (p.exit, p.header) };
    rw.at(InsertPoint::End(guard)).cond_br(gc, t, e);
    let pt = rw.terminator(p.preheader).expect("checked by plan");
    rw.set_operand(pt, 0, Value::Block(guard));
    for phi in rw.phis(p.header) {
        rw.rename_phi_block(phi, p.preheader, guard);
    }
    if p.latch == p.header {
        let lc = clone_cond(&mut rw, p, InsertPoint::Before(p.header_branch), true);
        rw.set_operand(p.header_branch, 0, lc);
    } else {
        rw.at(InsertPoint::Before(p.header_branch)).br(p.body);
        rw.remove(p.header_branch);
        let lt = rw.terminator(p.latch).expect("checked by plan");
        let lc = clone_cond(&mut rw, p, InsertPoint::Before(lt), true);
        rw.at(InsertPoint::Before(lt)).cond_br(lc, t, e);
        rw.remove(lt);
    }
}

//! `early-return-elimination` — early `return`s become branches guarded by a flag.
//!
//! **What:** in a definition whose *final return* is found by following construct merges
//! from the body (the top-level merge chain `body → merge → … → block ending in
//! return`), every other `return` (an *early return*) is replaced by: a store of its
//! value into a return slot (non-void functions), a store of `false` into a
//! `not returned` flag, and `br T`, where `T` is the merge of the outermost top-level
//! construct that contains the return (the last chain block when none does). Every
//! chain block from the first such `T` on is *conditionalized*: its payload moves into a
//! new block entered by `if (load flag)`, the other arm skips to the next merge (a new
//! merge block when the chain block has none), so code after an early return never
//! runs. The final return then returns the slot's value. A phi in a block that gains a
//! predecessor receives an `undefined` incoming (never observed: the flag guards it).
//! The flag (`early return flag`) and the slot (`early return value slot`) are `local`
//! allocas at the top of the body; the flag is set to `true` before the body's
//! terminator.
//!
//! **Algorithm** (per definition, on a copy): find the final return and the chain;
//! pick each early return's target by a reachability walk from each chain container
//! that stops at its merge; conditionalize the chain blocks (already-conditionalized
//! blocks are kept); rewrite the returns; verify the copy and commit it. Definitions
//! without a final return reached this way are left alone.
//!
//! **Preconditions:** structured control flow at top level (the chain follows
//! construct merges). Values defined in a conditionalized chain block and used in a
//! later one break dominance once moved: run `reg2mem` first.
//!
//! **Refusals** (module byte-identical): a definition whose rewritten copy fails the
//! verifier (typically such a cross-block value), with the verifier's first message.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/early_return_elimination.cpp`
//! (final-return walk, merge chain, merge-target rule, conditionalization with the
//! already-conditionalized check, undefined phi incomings, flag and slot placement and
//! comments, report key) and the reference §6.3/§6.5 (Pipeline A step). Upstream counts
//! the early returns of every definition that has a final return.
//!
//! **Report keys:** `removed_return`. **Changed:** `removed_return > 0`.
//!
//! **Example:**
//! ```text
//! %e: if %c, then %t, else %f, merge %m   %t: return   %f: br %m   %m: S; return
//! →  %e: store %flag, true; if %c, then %t, else %f, merge %m
//!    %t: store %flag, false; br %m      %m: %l = load %flag; if %l, then %m1, else %m2, merge %m3
//!    %m1: S; br %m3   %m2: br %m3   %m3: return
//! ```

use crate::declare::Counters;
use crate::form::describe_function;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::util::constant::bool_const;
use xir_ir::inst::{InstData, InstKind};
use xir_ir::op::AllocaOp;
use xir_ir::verify::{VerifyOptions, verify_function};
use xir_ir::{BlockId, FuncId, Function, InstId, Metadata, Module, SecondaryMap, Type, Value};

/// The `early-return-elimination` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct EarlyReturnElimination;

crate::declare_pass! {
    EarlyReturnElimination: module pass "early-return-elimination" {
        summary: "Rewrites early returns into flag-guarded branches to the merge chain.",
        form: Either,
        counters: EarlyReturnEliminationCounters {
            /// Early returns replaced by branches.
            removed_return: ControlFlow,
        }
    }
}

/// The top-level merge chain from the body; empty when it does not end in a `return`.
fn chain(func: &Function) -> Vec<BlockId> {
    let mut out = Vec::new();
    let mut seen: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    let mut b = func.body;
    while let Some(x) = b {
        if seen[x] || !func.has_block(x) {
            return Vec::new();
        }
        seen[x] = true;
        out.push(x);
        let Some(t) = func.terminator(x) else {
            return Vec::new();
        };
        let d = func.inst(t);
        if matches!(d.kind, InstKind::Return) {
            return out;
        }
        b = d.kind.merge();
    }
    Vec::new()
}

/// Whether `target` is reachable from `start` along successor edges without entering
/// `stop`.
fn reachable_avoiding(func: &Function, start: BlockId, target: BlockId, stop: BlockId) -> bool {
    if start == target {
        return true;
    }
    let mut seen: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    seen[start] = true;
    let mut work = vec![start];
    while let Some(b) = work.pop() {
        for s in func.successors(b) {
            if s == stop || seen[s] {
                continue;
            }
            if s == target {
                return true;
            }
            seen[s] = true;
            work.push(s);
        }
    }
    false
}

struct Env {
    flag: InstId,
    bool_ty: Type,
}

/// Adds an `undefined` incoming from `pred` to every phi of `b` that has none.
fn add_undef_incoming(func: &mut Function, undefs: &[(Type, Value)], b: BlockId, pred: BlockId) {
    for k in 0..func.blocks[b].insts.len() {
        let i = func.blocks[b].insts[k];
        let ty = func.inst(i).ty;
        let d = func.inst_mut(i);
        if d.is_phi() && d.phi_edge_from(pred).is_none() {
            let u = undefs
                .iter()
                .find(|(t, _)| Some(*t) == ty)
                .map(|(_, v)| *v)
                .expect("undefined values prepared for every phi type");
            d.phi_push(u, pred);
        }
    }
}

fn rename_incoming(func: &mut Function, succ: BlockId, old: BlockId, new: BlockId) {
    for k in 0..func.blocks[succ].insts.len() {
        let i = func.blocks[succ].insts[k];
        if func.inst(i).is_phi() {
            func.inst_mut(i).phi_rename_block(old, new);
        }
    }
}

/// Wraps `b`'s payload in `if (load flag)`; returns the wrapper's merge and its then arm.
fn conditionalize(
    func: &mut Function,
    env: &Env,
    undefs: &[(Type, Value)],
    b: BlockId,
) -> (BlockId, BlockId) {
    let t = func.terminator(b).expect("chain blocks are terminated");
    if let InstKind::If { merge: Some(m) } = func.inst(t).kind
        && let Some(Value::Inst(l)) = func.inst(t).operands.first()
        && matches!(func.inst(*l).kind, InstKind::Load)
        && func.inst(*l).operands.first() == Some(&Value::Inst(env.flag))
    {
        let then_b = func.inst(t).operands[1].as_block().expect("if arm");
        return (m, then_b);
    }
    let succs = func.successors(b);
    let next_merge = func.inst(t).kind.merge();
    let insts = std::mem::take(&mut func.blocks[b].insts);
    let nphi = insts
        .iter()
        .take_while(|i| matches!(func.inst(**i).kind, InstKind::Phi { .. }))
        .count();
    let (phis, rest) = insts.split_at(nphi);
    let (payload, term) = rest.split_at(rest.len() - 1);
    func.blocks[b].insts = phis.to_vec();
    let t_new = func.create_block();
    let f_new = func.create_block();
    for &i in payload {
        func.inst_mut(i).block = Some(t_new);
        func.blocks[t_new].insts.push(i);
    }
    let merge_new = match next_merge {
        Some(nm) => {
            func.inst_mut(term[0]).block = Some(t_new);
            func.blocks[t_new].insts.push(term[0]);
            for s in &succs {
                rename_incoming(func, *s, b, t_new);
            }
            func.append_inst(
                f_new,
                InstData::new(InstKind::Branch, None, [Value::Block(nm)]),
            );
            add_undef_incoming(func, undefs, nm, f_new);
            nm
        }
        None => {
            let mn = func.create_block();
            func.append_inst(
                t_new,
                InstData::new(InstKind::Branch, None, [Value::Block(mn)]),
            );
            func.append_inst(
                f_new,
                InstData::new(InstKind::Branch, None, [Value::Block(mn)]),
            );
            func.inst_mut(term[0]).block = Some(mn);
            func.blocks[mn].insts.push(term[0]);
            for s in &succs {
                rename_incoming(func, *s, b, mn);
            }
            mn
        }
    };
    let l = func.append_inst(
        b,
        InstData::new(InstKind::Load, Some(env.bool_ty), [Value::Inst(env.flag)]),
    );
    func.append_inst(
        b,
        InstData::new(
            InstKind::If {
                merge: Some(merge_new),
            },
            None,
            [Value::Inst(l), Value::Block(t_new), Value::Block(f_new)],
        ),
    );
    (merge_new, t_new)
}

fn comment(text: &str) -> Metadata {
    Metadata::Comment(text.into())
}

/// Rewrites a copy of `f`; returns it and the number of early returns.
fn rewrite(m: &mut Module, f: FuncId) -> Option<(Function, u64)> {
    let func = m.func(f);
    let chain = chain(func);
    let final_block = *chain.last()?;
    let final_ret = func.terminator(final_block)?;
    let early: Vec<InstId> = func
        .block_order
        .iter()
        .filter_map(|b| func.terminator(*b))
        .filter(|t| *t != final_ret && matches!(func.inst(*t).kind, InstKind::Return))
        .collect();
    if early.is_empty() {
        return Some((func.clone(), 0));
    }
    let bool_ty = m.types.bool();
    let t_true = Value::Const(bool_const(m, true));
    let t_false = Value::Const(bool_const(m, false));
    let mut phi_tys: Vec<Type> = m
        .func(f)
        .placed_insts()
        .filter(|i| matches!(m.func(f).inst(*i).kind, InstKind::Phi { .. }))
        .filter_map(|i| m.func(f).inst(i).ty)
        .collect();
    phi_tys.sort();
    phi_tys.dedup();
    let undefs: Vec<(Type, Value)> = phi_tys
        .into_iter()
        .map(|t| (t, Value::Undef(m.undef(t))))
        .collect();
    let mut func = m.func(f).clone();
    let entry = func.body.expect("definition");
    let mut flag_data = InstData::new(InstKind::Alloca(AllocaOp::Local), Some(bool_ty), []);
    flag_data.metadata.push(comment("early return flag"));
    let flag = func.insert_inst_at(entry, 0, flag_data);
    let slot = func.ret.map(|ty| {
        let mut d = InstData::new(InstKind::Alloca(AllocaOp::Local), Some(ty), []);
        d.metadata.push(comment("early return value slot"));
        func.insert_inst_at(entry, 0, d)
    });
    let entry_term = func.terminator(entry).expect("terminated");
    let mut init = InstData::new(InstKind::Store, None, [Value::Inst(flag), t_true]);
    init.metadata.push(comment("initialize early return flag"));
    func.insert_inst_before(entry_term, init);
    let env = Env { flag, bool_ty };
    let targets: Vec<(InstId, BlockId)> = early
        .iter()
        .map(|&r| {
            let rb = func.inst(r).block.expect("placed");
            let target = (1..chain.len())
                .rev()
                .find(|&i| reachable_avoiding(&func, chain[i - 1], rb, chain[i]))
                .map_or(final_block, |i| chain[i]);
            (r, target)
        })
        .collect();
    let first = targets
        .iter()
        .filter_map(|(_, t)| chain.iter().position(|c| c == t))
        .min()
        .unwrap_or(chain.len());
    for &b in &chain[first..] {
        if b == final_block {
            let (merge_new, t_new) = conditionalize(&mut func, &env, &undefs, b);
            if let Some(s) = slot {
                let ret = func.terminator(merge_new).expect("moved return");
                if let Some(v) = func.inst(ret).operands.first().copied() {
                    let br = func.terminator(t_new).expect("then arm ends in br");
                    func.insert_inst_before(
                        br,
                        InstData::new(InstKind::Store, None, [Value::Inst(s), v]),
                    );
                    let ty = func.ret;
                    let l = func.insert_inst_at(
                        merge_new,
                        0,
                        InstData::new(InstKind::Load, ty, [Value::Inst(s)]),
                    );
                    func.inst_mut(ret).operands[0] = Value::Inst(l);
                }
            }
        } else {
            conditionalize(&mut func, &env, &undefs, b);
        }
    }
    for &(r, target) in &targets {
        let rb = func.inst(r).block.expect("placed");
        if let (Some(s), Some(v)) = (slot, func.inst(r).operands.first().copied()) {
            func.insert_inst_before(r, InstData::new(InstKind::Store, None, [Value::Inst(s), v]));
        }
        func.insert_inst_before(
            r,
            InstData::new(InstKind::Store, None, [Value::Inst(flag), t_false]),
        );
        let d = func.inst_mut(r);
        d.kind = InstKind::Branch;
        d.operands.clear();
        d.operands.push(Value::Block(target));
        add_undef_incoming(&mut func, &undefs, target, rb);
    }
    Some((func, early.len() as u64))
}

impl Pass for EarlyReturnElimination {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = EarlyReturnEliminationCounters::default();
        let funcs: Vec<FuncId> = module
            .func_order
            .iter()
            .copied()
            .filter(|f| module.func(*f).body.is_some())
            .collect();
        // Constants and undefined values are interned on the way; a refusal restores this.
        let snapshot = module.clone();
        for f in funcs {
            let Some((copy, n)) = rewrite(module, f) else {
                continue;
            };
            if n == 0 {
                continue;
            }
            *module.func_mut(f) = copy;
            if let Some(d) = verify_function(module, f, &VerifyOptions::default(), None).first() {
                let msg = d.message.clone();
                *module = snapshot;
                return Ok(PassRun::refused(
                    format!(
                        "{}: eliminating its early returns breaks the IR ({msg}); run reg2mem first",
                        describe_function(module, f)
                    ),
                    EarlyReturnEliminationCounters::default().report(),
                ));
            }
            c.removed_return += n;
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}

//! `early-return-elimination` — early `return`s become flag-guarded structured exits.
//!
//! **What:** in a definition whose *final return* is found by following construct merges
//! from the body (the top-level merge chain `body → merge → … → block ending in
//! return`), every other `return` (an *early return*) becomes: a store of its value into
//! a return slot (non-void functions), a store of `false` into a `not returned` flag, and
//! a branch out of its innermost construct by a **structured exit** (SPIR-V's rules, as
//! `xir_ir::analysis::form` states them): to the merge of the innermost enclosing loop
//! (a `break`), else to the merge of the innermost selection. Every block reached that
//! way is **guarded** — its payload moves into the `then` arm of `if (load flag)` — and
//! the skip arm leaves the guard's own construct by its structured exit in turn:
//!
//! * a block directly in a loop (or its update): the skip arm breaks to the loop's
//!   merge, and the guard has no merge (its `then` arm runs on to the loop's own exits);
//! * a block in a selection: the guard gets a new merge block that collects every branch
//!   of the guarded rest to the selection's merge, then continues there;
//! * a block of the merge chain: the guard's new merge holds the rest of the function's
//!   return (guards nest; the outermost merge loads the slot and returns).
//!
//! So a return inside nested loops becomes a break chain, one guard per loop level, and
//! the code after an early return never runs. A phi in a block that gains a predecessor
//! receives an `undefined` incoming (never observed: the flag guards it). The flag
//! (`early return flag`) and the slot (`early return value slot`) are `local` allocas at
//! the top of the body; the flag is set to `true` before the body's terminator.
//!
//! **Algorithm** (per definition, on a copy): find the final return and the chain; build
//! the construct tree once (`ConstructTree` of `ir::analysis::form`); plan each return's
//! way out and the guards up to the chain; rewrite the returns; place the guards in
//! reverse post-order (an earlier guard's region holds the later ones); nest the chain
//! guards' merges around the final return; verify the copy (and, when the function was
//! in structured form, that it still is) and commit it. Definitions without a final
//! return reached this way are left alone.
//!
//! **Preconditions:** constructs with merges on the way out (see refusals). Values that a
//! guard's `then` arm defines and code after the guard's merge uses break dominance: run
//! `reg2mem` first.
//!
//! **Refusals** (module byte-identical): an early return in a selection without a merge
//! block and outside every loop, or outside every construct; a guarded region whose
//! exits to a selection's merge would need phis; a rewritten copy that fails the verifier
//! (typically a cross-block value) or leaves structured form; each with its reason.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/early_return_elimination.cpp`
//! (final-return walk, merge chain, flag and slot placement and comments, undefined phi
//! incomings, report key). Upstream branches every early return straight to a merge of
//! the top-level chain, which SPIR-V's structured-exit rules reject when the return sits
//! in a nested loop or two selections deep; the break chain and per-level guards here
//! are xir's, so the output stays in structured form. Upstream counts the early returns
//! of every definition that has a final return.
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
use xir_ir::analysis::form::exits::{ConstructId, ConstructPart, ConstructTree};
use xir_ir::analysis::form::{self, Form};
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::InstKind;
use xir_ir::op::AllocaOp;
use xir_ir::verify::{VerifyOptions, verify_function};
use xir_ir::{BlockId, FuncId, Function, InstId, Metadata, Module, SecondaryMap, Type, Value};

/// The `early-return-elimination` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct EarlyReturnElimination;

crate::declare_pass! {
    EarlyReturnElimination: module pass "early-return-elimination" {
        summary: "Rewrites early returns into flag-guarded structured exits (a break chain per loop level).",
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

fn has_phi(func: &Function, b: BlockId) -> bool {
    func.blocks[b]
        .insts
        .first()
        .is_some_and(|i| matches!(func.inst(*i).kind, InstKind::Phi))
}

/// Moves `b`'s payload and terminator (not its phis) into a new block and makes `b` end
/// in `if (load flag), then <new>, else <skip>, merge <merge>`; returns (rest, skip).
fn guard(func: &mut Function, env: &Env, b: BlockId, merge: Option<BlockId>) -> (BlockId, BlockId) {
    let succs = func.successors(b);
    let insts = std::mem::take(&mut func.blocks[b].insts);
    let nphi = insts
        .iter()
        .take_while(|i| matches!(func.inst(**i).kind, InstKind::Phi))
        .count();
    func.blocks[b].insts = insts[..nphi].to_vec();
    let rest = func.create_block();
    let skip = func.create_block();
    for &i in &insts[nphi..] {
        func.inst_mut(i).block = Some(rest);
        func.blocks[rest].insts.push(i);
    }
    for s in succs {
        rename_incoming(func, s, b, rest);
    }
    let mut at = Cursor::at_end(func, b);
    let l = at.load(env.bool_ty, Value::Inst(env.flag));
    at.if_(l, rest, skip, merge);
    (rest, skip)
}

fn br(func: &mut Function, from: BlockId, to: BlockId) {
    Cursor::at_end(func, from).br(to);
}

fn comment(text: &str) -> Metadata {
    Metadata::Comment(text.into())
}

/// How the skip path leaves the block a guard is placed in.
enum GuardKind {
    /// A block of the top-level merge chain.
    Chain,
    /// A block directly in a loop (or its update): the skip arm breaks to the merge.
    Loop(BlockId),
    /// A block in a selection construct: the guard's merge collects the selection's
    /// exits to its merge from the guarded rest.
    Selection(ConstructId, BlockId),
}

/// The legal way out of the construct `c` for a path that has returned: the merge of
/// the innermost enclosing loop, else the selection's own merge.
fn way_out(tree: &ConstructTree, c: ConstructId) -> Result<BlockId, String> {
    match tree.loop_of(c) {
        Some(l) => tree.merge(l),
        None => tree.merge(c),
    }
    .ok_or_else(|| format!("an early return inside a construct (`{}`) without a merge block", tree.at(c).keyword))
}

/// Rewrites a copy of `f`; returns it and the number of early returns, or why not.
fn rewrite(m: &mut Module, f: FuncId) -> Result<Option<(Function, u64)>, String> {
    let func = m.func(f);
    let chain = chain(func);
    let Some(&final_block) = chain.last() else {
        return Ok(None);
    };
    let Some(final_ret) = func.terminator(final_block) else {
        return Ok(None);
    };
    let early: Vec<InstId> = func
        .block_order
        .iter()
        .filter_map(|b| func.terminator(*b))
        .filter(|t| *t != final_ret && matches!(func.inst(*t).kind, InstKind::Return))
        .collect();
    if early.is_empty() {
        return Ok(Some((func.clone(), 0)));
    }
    let tree = ConstructTree::compute(func).ok_or("no body")?;
    // Plan on the original: each return's landing block, then the guards up to the chain.
    let mut landing = Vec::new();
    for &r in &early {
        let rb = func.inst(r).block.expect("placed");
        let c = tree
            .innermost(rb)
            .ok_or("an early return outside every construct (unreachable or not on the merge chain)")?;
        landing.push((r, way_out(&tree, c)?));
    }
    let in_chain = |b: BlockId| chain.contains(&b);
    let mut guards: Vec<(BlockId, GuardKind)> = Vec::new();
    let mut work: Vec<BlockId> = landing.iter().map(|(_, t)| *t).collect();
    while let Some(g) = work.pop() {
        if guards.iter().any(|(b, _)| *b == g) {
            continue;
        }
        let kind = match tree.enclosing(g) {
            None if in_chain(g) => GuardKind::Chain,
            None => return Err("a merge outside every construct and off the merge chain".into()),
            Some(d) => {
                let out = way_out(&tree, d)?;
                work.push(out);
                if tree.loop_of(d).is_some_and(|l| tree.merge(l) == Some(out))
                    && matches!(tree.at(d).part, ConstructPart::Loop | ConstructPart::SimpleLoop | ConstructPart::Continue)
                {
                    GuardKind::Loop(out)
                } else {
                    GuardKind::Selection(d, out)
                }
            }
        };
        guards.push((g, kind));
    }
    // Guards in reverse post-order: an earlier guard's region holds the later ones.
    let rpo = xir_ir::analysis::cfg::Cfg::compute(func).rpo;
    let pos = |b: BlockId| rpo.iter().position(|x| *x == b).unwrap_or(usize::MAX);
    guards.sort_by_key(|(b, _)| pos(*b));

    let bool_ty = m.types.bool();
    let t_true = Value::Const(bool_const(m, true));
    let t_false = Value::Const(bool_const(m, false));
    let mut phi_tys: Vec<Type> = m
        .func(f)
        .placed_insts()
        .filter(|i| matches!(m.func(f).inst(*i).kind, InstKind::Phi))
        .filter_map(|i| m.func(f).inst(i).ty)
        .collect();
    phi_tys.sort();
    phi_tys.dedup();
    let undefs: Vec<(Type, Value)> = phi_tys
        .into_iter()
        .map(|t| (t, Value::Undef(m.undef(t))))
        .collect();
    let mut func = m.func(f).clone();
    let original: Vec<BlockId> = func.block_order.to_vec();
    let entry = func.body.expect("definition");
    // Each at the top of the (terminated, so non-empty) entry block.
    let top_alloca = |func: &mut Function, ty: Type, what: &str| -> InstId {
        let first = func.blocks[entry].insts[0];
        let a = Cursor::before(func, first).alloca(AllocaOp::Local, ty);
        let a = a.as_inst().expect("an alloca");
        func.inst_mut(a).metadata.push(comment(what));
        a
    };
    let flag = top_alloca(&mut func, bool_ty, "early return flag");
    let slot = func.ret.map(|ty| top_alloca(&mut func, ty, "early return value slot"));
    let entry_term = func.terminator(entry).expect("terminated");
    let init = Cursor::before(&mut func, entry_term).store(Value::Inst(flag), t_true);
    func.inst_mut(init).metadata.push(comment("initialize early return flag"));
    let env = Env { flag, bool_ty };
    // 1. Each early return: store, clear the flag, leave by the legal exit.
    for &(r, target) in &landing {
        let rb = func.inst(r).block.expect("placed");
        if let (Some(s), Some(v)) = (slot, func.inst(r).operands.first().copied()) {
            Cursor::before(&mut func, r).store(Value::Inst(s), v);
        }
        Cursor::before(&mut func, r).store(Value::Inst(flag), t_false);
        let d = func.inst_mut(r);
        d.kind = InstKind::Branch;
        d.operands.clear();
        d.operands.push(Value::Block(target));
        add_undef_incoming(&mut func, &undefs, target, rb);
    }
    // 2. Guards, outermost region first.
    let mut moved: SecondaryMap<BlockId, Option<BlockId>> = SecondaryMap::with_default(None);
    let mut exits_of: Vec<(ConstructId, Vec<BlockId>)> = Vec::new();
    let mut chain_merges: Vec<BlockId> = Vec::new();
    for (g, kind) in &guards {
        let g = *g;
        match kind {
            GuardKind::Chain => {
                let merge = func.create_block();
                let (_, skip) = guard(&mut func, &env, g, Some(merge));
                br(&mut func, skip, merge);
                chain_merges.push(merge);
            }
            GuardKind::Loop(out) => {
                let (rest, skip) = guard(&mut func, &env, g, None);
                moved[g] = Some(rest);
                br(&mut func, skip, *out);
                add_undef_incoming(&mut func, &undefs, *out, skip);
            }
            GuardKind::Selection(d, out) => {
                let d = *d;
                let k = match exits_of.iter().position(|(c, _)| *c == d) {
                    Some(k) => k,
                    None => {
                        exits_of.push((d, vec![*out]));
                        exits_of.len() - 1
                    }
                };
                // The guarded rest: original blocks reachable from g inside d.
                let mut seen: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
                let mut stack = vec![g];
                seen[g] = true;
                let mut edges: Vec<(BlockId, BlockId)> = Vec::new();
                while let Some(x) = stack.pop() {
                    let at = moved[x].unwrap_or(x);
                    for s in func.successors(at) {
                        if exits_of[k].1.contains(&s) {
                            edges.push((at, s));
                        } else if !seen[s] && original.contains(&s) && tree.contains(d, s) {
                            seen[s] = true;
                            stack.push(s);
                        }
                    }
                }
                let to = edges.first().map_or(*out, |e| e.1);
                if edges.iter().any(|e| e.1 != to || has_phi(&func, e.1)) {
                    return Err("a guarded region whose exits need phis (run reg2mem first)".into());
                }
                let merge = func.create_block();
                let (rest, skip) = guard(&mut func, &env, g, Some(merge));
                moved[g] = Some(rest);
                for (x, t) in edges {
                    let x = if x == g { rest } else { x };
                    let term = func.terminator(x).expect("terminated");
                    for v in func.inst_mut(term).operands.iter_mut() {
                        if *v == Value::Block(t) {
                            *v = Value::Block(merge);
                        }
                    }
                }
                br(&mut func, skip, merge);
                br(&mut func, merge, to);
                exits_of[k].1.push(merge);
            }
        }
    }
    // 3. The chain guards nest: the innermost merge runs the final return's tail, each
    //    merge continues to the enclosing one, the outermost returns.
    if let Some(&outermost) = chain_merges.first() {
        let fb = func.inst(final_ret).block.expect("placed");
        let value = func.inst(final_ret).operands.first().copied();
        if let (Some(s), Some(v)) = (slot, value) {
            Cursor::before(&mut func, final_ret).store(Value::Inst(s), v);
        }
        let k = func.blocks[fb].insts.iter().position(|i| *i == final_ret).expect("in block");
        func.blocks[fb].insts.remove(k);
        br(&mut func, fb, *chain_merges.last().expect("non-empty"));
        for w in chain_merges.windows(2).rev() {
            br(&mut func, w[1], w[0]);
        }
        if let (Some(s), Some(_)) = (slot, value) {
            let ty = func.ret.expect("a value slot means a return type");
            let l = Cursor::at_end(&mut func, outermost).load(ty, Value::Inst(s));
            func.inst_mut(final_ret).operands[0] = l;
        }
        func.inst_mut(final_ret).block = Some(outermost);
        func.blocks[outermost].insts.push(final_ret);
    }
    Ok(Some((func, early.len() as u64)))
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
            let was_structured = form::is_structured(module.func(f));
            let (copy, n) = match rewrite(module, f) {
                Ok(Some(x)) => x,
                Ok(None) => continue,
                Err(why) => {
                    *module = snapshot;
                    return Ok(PassRun::refused(
                        format!("{}: {why}", describe_function(module, f)),
                        EarlyReturnEliminationCounters::default().report(),
                    ));
                }
            };
            if n == 0 {
                continue;
            }
            *module.func_mut(f) = copy;
            let broken = verify_function(module, f, &VerifyOptions::default(), None)
                .first()
                .map(|d| format!("eliminating its early returns breaks the IR ({}); run reg2mem first", d.message))
                .or_else(|| {
                    let v = form::first_violation(module.func(f), Form::Structured)?;
                    was_structured.then(|| {
                        format!("eliminating its early returns would leave unstructured control flow ({})", v.message())
                    })
                });
            if let Some(msg) = broken {
                *module = snapshot;
                return Ok(PassRun::refused(
                    format!("{}: {msg}", describe_function(module, f)),
                    EarlyReturnEliminationCounters::default().report(),
                ));
            }
            c.removed_return += n;
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}

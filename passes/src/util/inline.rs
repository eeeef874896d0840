//! `inline-call-sites`: the generic, atomic inliner primitive (upstream's
//! `inline_call_sites_pass_run_on_module`). Given a batch of call sites, it checks the
//! whole batch first — each site is a placed `call` of a callable definition with the
//! callee's argument count and types, the callee is not on a call cycle, its metadata
//! can be given up, and a multi-block callee meets plain-CFG caller and callee — and
//! only then inlines them, in order. A refused batch leaves the module untouched.
//!
//! Mechanics. A callee whose body is one block ending in `return` is spliced in front of
//! the call (no block or edge changes: allowed in structured callers). Otherwise the
//! call's block is split after the call, the callee's blocks are cloned between the two
//! halves, the call becomes `br` to the cloned body, and each `return` becomes a store
//! into a `local` return slot (non-void callees) and `br` to the continuation, which
//! reloads the slot in place of the call's result. Cloned allocas move to the top of the
//! caller's body. Side blocks (merges, loop parts, phi incomings) are remapped; phis of
//! the continuation's successors name the continuation.
//!
//! Users: `inline-spirv-pointer-args` (with `override_noinline`, as upstream's SPIR-V
//! legalization) and `inline-all`.

use super::calls::{CallGraph, CallSite};
use crate::form::describe_function;
use rustc_hash::FxHashMap;
use xir_ir::analysis::form::{Form, first_violation};
use xir_ir::function::ArgKind;
use xir_ir::inst::{InstData, InstKind};
use xir_ir::op::AllocaOp;
use xir_ir::{BlockId, FuncId, FunctionKind, InstId, Metadata, Module, SecondaryMap, Value};

/// Options of a batch.
#[derive(Copy, Clone, Debug, Default)]
pub struct InlineOptions {
    /// Inline callees marked `no_inline` too (upstream's SPIR-V legalization sets it).
    pub override_noinline: bool,
    /// Allow multi-block inlining into callers holding structured constructs when the
    /// call is inside an autodiff scope's reach (upstream's
    /// `allow_autodiff_scope_in_caller`): callers whose only structured constructs are
    /// `autodiff` scopes count as plain.
    pub allow_autodiff_scope_in_caller: bool,
}

/// Why a batch was refused (the first site that failed, and its class).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InlineRefusal {
    /// The site is not a placed call of a definition with matching arguments and result.
    Malformed(String),
    /// The callee is on a call cycle.
    Recursive(String),
    /// A multi-block callee meets structured control flow in the caller or callee.
    Structured(String),
    /// The callee (or its signature) is constrained: `signature_constraint`, or
    /// `no_inline` without the override.
    Constrained(String),
    /// The call carries metadata other than names, locations and comments.
    Metadata(String),
}

impl InlineRefusal {
    /// The explanation.
    pub fn message(&self) -> &str {
        match self {
            Self::Malformed(s)
            | Self::Recursive(s)
            | Self::Structured(s)
            | Self::Constrained(s)
            | Self::Metadata(s) => s,
        }
    }
}

/// What a successful batch did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct InlineStats {
    /// Calls inlined.
    pub inlined_call: u64,
    /// Of those, multi-block inlines (which changed the control-flow graph).
    pub multi_block_call: u64,
}

fn single_return_block(func: &xir_ir::Function) -> bool {
    func.block_order.len() == 1
        && func
            .body
            .and_then(|b| func.terminator(b))
            .is_some_and(|t| matches!(func.inst(t).kind, InstKind::Return))
}

/// Checks one site against the batch rules; `recursive` marks functions on cycles.
pub fn preflight_site(
    m: &Module,
    site: &CallSite,
    recursive: &xir_ir::SecondaryMap<FuncId, bool>,
    opts: InlineOptions,
) -> Result<(), InlineRefusal> {
    let caller = m.func(site.caller);
    let at = || {
        format!(
            "call in {} of {}",
            describe_function(m, site.caller),
            describe_function(m, site.callee)
        )
    };
    let d = caller.inst(site.inst);
    if d.block.is_none()
        || !matches!(d.kind, InstKind::Call)
        || d.operands.first() != Some(&Value::Func(site.callee))
    {
        return Err(InlineRefusal::Malformed(format!(
            "{}: not a placed call",
            at()
        )));
    }
    let callee = m.func(site.callee);
    if callee.kind != FunctionKind::Callable || callee.body.is_none() {
        return Err(InlineRefusal::Malformed(format!(
            "{}: the callee is not a callable definition",
            at()
        )));
    }
    if recursive[site.callee] {
        return Err(InlineRefusal::Recursive(format!(
            "{}: the callee is recursive",
            at()
        )));
    }
    let constrained = callee.metadata.iter().any(|md| {
        matches!(md, Metadata::SignatureConstraint)
            || (!opts.override_noinline && matches!(md, Metadata::NoInline))
    });
    if constrained {
        return Err(InlineRefusal::Constrained(format!(
            "{}: the callee is marked signature_constraint or no_inline",
            at()
        )));
    }
    if d.metadata.iter().any(|md| {
        !matches!(
            md,
            Metadata::Name(_) | Metadata::Location { .. } | Metadata::Comment(_)
        )
    }) {
        return Err(InlineRefusal::Metadata(format!(
            "{}: the call carries metadata that no inlined instruction can own",
            at()
        )));
    }
    // Call shape: arity, types, passing modes and result.
    if d.operands.len() != callee.arg_order.len() + 1 || d.ty != callee.ret {
        return Err(InlineRefusal::Malformed(format!(
            "{}: the call's arguments or result do not match the signature",
            at()
        )));
    }
    for (k, &a) in callee.arg_order.iter().enumerate() {
        let actual = d.operands[k + 1];
        let formal = &callee.args[a];
        let lvalue = match actual {
            Value::Inst(i) => caller.inst(i).kind.tag().is_lvalue(),
            Value::Arg(x) => caller.args[x].kind == ArgKind::Reference,
            Value::Block(_) | Value::Func(_) => {
                return Err(InlineRefusal::Malformed(format!(
                    "{}: argument {k} is a block or function",
                    at()
                )));
            }
            _ => false,
        };
        let ok_mode = match formal.kind {
            ArgKind::Reference => lvalue,
            ArgKind::Value | ArgKind::Resource => !lvalue,
        };
        if !ok_mode || m.value_type(site.caller, actual) != Some(formal.ty) {
            return Err(InlineRefusal::Malformed(format!(
                "{}: argument {k} does not match the formal's type or passing mode",
                at()
            )));
        }
    }
    // Every return matches the result type; a non-void callee returns somewhere.
    let mut returns = 0usize;
    for i in callee.placed_insts() {
        let r = callee.inst(i);
        if matches!(r.kind, InstKind::Return) {
            returns += 1;
            let v = r.operands.first().copied();
            let ty = v.and_then(|v| m.value_type(site.callee, v));
            if v.is_some() != callee.ret.is_some() || (v.is_some() && ty != callee.ret) {
                return Err(InlineRefusal::Malformed(format!(
                    "{}: a return of the callee does not match its result type",
                    at()
                )));
            }
        }
    }
    if callee.ret.is_some() && returns == 0 {
        return Err(InlineRefusal::Malformed(format!(
            "{}: the callee returns a value but has no return",
            at()
        )));
    }
    if !single_return_block(callee) {
        let allow = opts.allow_autodiff_scope_in_caller;
        if crate::form::has_structured_control_flow(caller, allow)
            || first_violation(callee, Form::Plain).is_some()
        {
            return Err(InlineRefusal::Structured(format!(
                "{}: a multi-block callee needs plain control flow in caller and callee \
                 (run destructure-cfg first)",
                at()
            )));
        }
    }
    Ok(())
}

/// Preflights the whole batch, then inlines every site in order. On `Err` nothing
/// changed.
pub fn inline_call_sites(
    m: &mut Module,
    sites: &[CallSite],
    opts: InlineOptions,
) -> Result<InlineStats, InlineRefusal> {
    let recursive = CallGraph::compute(m).recursive(m);
    inline_call_sites_with(m, sites, opts, &recursive)
}

/// [`inline_call_sites`] with the module's recursive functions already known (inlining a
/// non-recursive callee creates no call cycle, so a caller inlining one callee after
/// another computes them once).
pub fn inline_call_sites_with(
    m: &mut Module,
    sites: &[CallSite],
    opts: InlineOptions,
    recursive: &SecondaryMap<FuncId, bool>,
) -> Result<InlineStats, InlineRefusal> {
    let mut seen = rustc_hash::FxHashSet::default();
    for s in sites {
        if !seen.insert((s.caller, s.inst)) {
            return Err(InlineRefusal::Malformed(format!(
                "call in {} selected twice",
                describe_function(m, s.caller)
            )));
        }
        preflight_site(m, s, recursive, opts)?;
    }
    let mut stats = InlineStats::default();
    for s in sites {
        if inline_one(m, s) {
            stats.multi_block_call += 1;
        }
        stats.inlined_call += 1;
    }
    Ok(stats)
}

/// Inlines one preflighted site; returns whether blocks were added.
fn inline_one(m: &mut Module, site: &CallSite) -> bool {
    let callee = m.func(site.callee).clone();
    let single = single_return_block(&callee);
    let caller = m.func_mut(site.caller);
    let call = site.inst;
    let call_block = caller
        .inst(call)
        .block
        .expect("invariant: preflighted call is placed");
    let actuals: Vec<Value> = caller.inst(call).operands[1..].to_vec();
    let arg_map: FxHashMap<_, _> = callee.arg_order.iter().copied().zip(actuals).collect();
    let caller_body = caller.body.expect("invariant: the caller has a body");

    // Blocks: fresh ones for a multi-block callee (placed after the call's block).
    let mut block_map: FxHashMap<BlockId, BlockId> = FxHashMap::default();
    let cont = if single {
        None
    } else {
        for &b in &callee.block_order {
            let nb = caller.blocks.push(Default::default());
            block_map.insert(b, nb);
        }
        Some(caller.blocks.push(Default::default()))
    };
    // Instructions: clone every placed one, then remap operands and side blocks.
    let mut inst_map: FxHashMap<InstId, InstId> = FxHashMap::default();
    for &b in &callee.block_order {
        for &i in &callee.blocks[b].insts {
            let mut d = callee.inst(i).clone();
            d.block = None;
            inst_map.insert(i, caller.create_inst(d));
        }
    }
    let map_value = |v: Value| match v {
        Value::Inst(i) => Value::Inst(inst_map[&i]),
        Value::Arg(a) => arg_map[&a],
        Value::Block(b) => Value::Block(block_map.get(&b).copied().unwrap_or(b)),
        other => other,
    };
    for &new in inst_map.values() {
        let d = &mut caller.insts[new];
        for op in d.operands.iter_mut() {
            *op = map_value(*op);
        }
        d.kind
            .map_side_blocks(|b| block_map.get(&b).copied().unwrap_or(b));
    }
    // Allocas go to the top of the caller's body, after its own allocas.
    let mut alloca_pos = caller.blocks[caller_body]
        .insts
        .iter()
        .take_while(|i| matches!(caller.insts[**i].kind, InstKind::Alloca(_)))
        .count();
    let mut place_alloca = |caller: &mut xir_ir::Function, i: InstId| {
        caller.insts[i].block = Some(caller_body);
        caller.blocks[caller_body].insts.insert(alloca_pos, i);
        alloca_pos += 1;
    };
    let call_result = caller.inst(call).ty.map(|_| Value::Inst(call));

    if single {
        let body = callee.body.expect("invariant: callee has a body");
        let mut ret_value = None;
        let mut moved = Vec::new();
        for &i in &callee.blocks[body].insts {
            let ni = inst_map[&i];
            match caller.insts[ni].kind {
                InstKind::Return => ret_value = caller.insts[ni].operands.first().copied(),
                InstKind::Alloca(_) => place_alloca(caller, ni),
                _ => moved.push(ni),
            }
        }
        let pos = caller.position(call).expect("invariant: call is placed");
        for (k, &ni) in moved.iter().enumerate() {
            caller.insts[ni].block = Some(call_block);
            caller.blocks[call_block].insts.insert(pos + k, ni);
        }
        if let (Some(old), Some(new)) = (call_result, ret_value) {
            caller.replace_all_uses(old, new);
        }
        caller.remove_inst(call);
        return false;
    }

    let cont = cont.expect("invariant: multi-block inlines have a continuation");
    // Split after the call: the tail moves to `cont`.
    let pos = caller.position(call).expect("invariant: call is placed");
    let tail = caller.blocks[call_block].insts.split_off(pos + 1);
    for &i in &tail {
        caller.insts[i].block = Some(cont);
    }
    caller.blocks[cont].insts = tail;
    caller.remove_inst(call);
    // Phis of the moved terminator's successors now come from `cont`.
    for s in caller.successors(cont).collect::<Vec<_>>() {
        let phis: Vec<InstId> = caller.blocks[s]
            .insts
            .iter()
            .copied()
            .take_while(|i| caller.insts[*i].is_phi())
            .collect();
        for p in phis {
            caller.insts[p].phi_rename_block(call_block, cont);
        }
    }
    // Block order: call block, cloned blocks, continuation.
    let at = caller
        .block_order
        .iter()
        .position(|b| *b == call_block)
        .expect("invariant: call block is owned")
        + 1;
    let mut new_order: Vec<BlockId> = callee.block_order.iter().map(|b| block_map[b]).collect();
    new_order.push(cont);
    caller.block_order.insert_all(at, new_order);
    // A return slot for non-void callees.
    let slot = callee.ret.map(|ty| {
        let s = caller.create_inst(InstData::new(
            InstKind::Alloca(AllocaOp::Local),
            Some(ty),
            [],
        ));
        place_alloca(caller, s);
        Value::Inst(s)
    });
    for &b in &callee.block_order {
        let nb = block_map[&b];
        for &i in &callee.blocks[b].insts {
            let ni = inst_map[&i];
            if matches!(caller.insts[ni].kind, InstKind::Alloca(_)) {
                place_alloca(caller, ni);
                continue;
            }
            if matches!(caller.insts[ni].kind, InstKind::Return) {
                if let (Some(slot), Some(&v)) = (slot, caller.insts[ni].operands.first()) {
                    caller.append_inst(nb, InstData::new(InstKind::Store, None, [slot, v]));
                }
                caller.append_inst(
                    nb,
                    InstData::new(InstKind::Branch, None, [Value::Block(cont)]),
                );
                continue;
            }
            caller.insts[ni].block = Some(nb);
            caller.blocks[nb].insts.push(ni);
        }
    }
    let entry = block_map[&callee.body.expect("invariant: callee has a body")];
    caller.append_inst(
        call_block,
        InstData::new(InstKind::Branch, None, [Value::Block(entry)]),
    );
    if let (Some(old), Some(slot), Some(ty)) = (call_result, slot, callee.ret) {
        let load = caller.insert_inst_at(cont, 0, InstData::new(InstKind::Load, Some(ty), [slot]));
        caller.replace_all_uses(old, Value::Inst(load));
    }
    true
}

//! Phi utilities: incoming maintenance and the two redundancy rules passes share.
//!
//! * [`redundant_phi`] is upstream's "remove redundant phi" rule (DCE, mem2reg): an unused
//!   phi goes; a phi whose incomings are all one *invariant* value (constant, argument,
//!   special register), ignoring undefined incomings, is replaced by it.
//! * [`simplifiable_phi`] is phi-cleanup's stronger rule: ignoring self references and
//!   undefined incomings, a phi with one unique incoming value is replaced by it when that
//!   value dominates the phi's block.
//!
//! Both leave phis that carry metadata in place unless they are unused (§5.2: a value
//! owning metadata is never replaced by a shared one).

use super::constant::is_invariant;
use super::edit::{UseCounts, ValueSubst};
use xir_ir::analysis::DomTree;
use xir_ir::{BlockId, Function, InstId, Value};

/// What to do with a phi.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PhiAction {
    /// Keep it.
    Keep,
    /// Delete it (it has no uses).
    Remove,
    /// Replace every use by the value, then delete it. `None` = the phi's undefined value.
    Replace(Option<Value>),
}

/// Incoming `(value, block)` pairs of a phi, values resolved through `subst`.
pub fn incomings(f: &Function, phi: InstId, subst: &ValueSubst) -> Vec<(Value, BlockId)> {
    let d = &f.insts[phi];
    if !d.is_phi() {
        return Vec::new();
    }
    d.phi_incoming()
        .map(|(v, b)| (subst.resolve(v), b))
        .collect()
}

/// Removes the incomings of `phi` whose block satisfies `drop`; returns how many went.
pub fn remove_incomings(
    f: &mut Function,
    phi: InstId,
    mut drop: impl FnMut(BlockId) -> bool,
    mut counts: Option<&mut UseCounts>,
) -> usize {
    let d = &mut f.insts[phi];
    if !d.is_phi() {
        return 0;
    }
    d.phi_retain(|v, b| {
        let gone = drop(b);
        if gone && let Some(c) = counts.as_deref_mut() {
            c.drop_use(v);
        }
        !gone
    })
}

/// Upstream's redundant-phi rule (see the module docs). With `respect_metadata`, a phi
/// that carries metadata is only ever removed when unused.
pub fn redundant_phi(
    f: &Function,
    phi: InstId,
    subst: &ValueSubst,
    uses: u32,
    respect_metadata: bool,
) -> PhiAction {
    if uses == 0 {
        return PhiAction::Remove;
    }
    if respect_metadata && !f.insts[phi].metadata.is_empty() {
        return PhiAction::Keep;
    }
    let mut same: Option<Value> = None;
    let mut undef: Option<Value> = None;
    for (v, _) in incomings(f, phi, subst) {
        if matches!(v, Value::Undef(_)) {
            undef = Some(v);
            continue;
        }
        match same {
            None => same = Some(v),
            Some(s) if s != v => return PhiAction::Keep,
            Some(_) => {}
        }
    }
    match same {
        Some(s) if is_invariant(s) => PhiAction::Replace(Some(s)),
        Some(_) => PhiAction::Keep,
        None => PhiAction::Replace(undef),
    }
}

/// phi-cleanup's rule (see the module docs). `dom` answers block dominance.
pub fn simplifiable_phi(
    f: &Function,
    phi: InstId,
    subst: &ValueSubst,
    uses: u32,
    dom: &DomTree,
) -> PhiAction {
    if uses == 0 {
        return PhiAction::Remove;
    }
    if !f.insts[phi].metadata.is_empty() {
        return PhiAction::Keep;
    }
    let me = Value::Inst(phi);
    let mut unique: Option<Value> = None;
    for (v, _) in incomings(f, phi, subst) {
        if v == me || matches!(v, Value::Undef(_)) {
            continue;
        }
        match unique {
            None => unique = Some(v),
            Some(u) if u != v => return PhiAction::Keep,
            Some(_) => {}
        }
    }
    let Some(u) = unique else {
        return PhiAction::Replace(None);
    };
    if is_invariant(u) {
        return PhiAction::Replace(Some(u));
    }
    let (Value::Inst(ui), Some(pb)) = (u, f.insts[phi].block) else {
        return PhiAction::Keep;
    };
    match f.insts[ui].block {
        Some(ub) if ub != pb && dom.dominates(ub, pb) => PhiAction::Replace(Some(u)),
        _ => PhiAction::Keep,
    }
}

/// Applies `rule` to `phis` until no phi changes, then rewrites uses and removes the
/// eliminated phis. Returns how many phis were eliminated.
pub fn eliminate_phis(
    module: &mut xir_ir::Module,
    fid: xir_ir::FuncId,
    mut phis: Vec<InstId>,
    rule: impl Fn(&Function, InstId, &ValueSubst, u32) -> PhiAction,
) -> usize {
    let mut counts = UseCounts::compute(module.func(fid));
    let mut subst = ValueSubst::new();
    let mut dead = Vec::new();
    loop {
        let mut changed = false;
        let mut kept = Vec::with_capacity(phis.len());
        for &p in &phis {
            let action = rule(module.func(fid), p, &subst, counts.get(p));
            let replacement = match action {
                PhiAction::Keep => {
                    kept.push(p);
                    continue;
                }
                PhiAction::Remove => None,
                PhiAction::Replace(Some(v)) => Some(v),
                PhiAction::Replace(None) => {
                    let ty = module.func(fid).insts[p].ty;
                    ty.map(|t| Value::Undef(module.undef(t)))
                }
            };
            for (v, _) in incomings(module.func(fid), p, &subst) {
                counts.drop_use(v);
            }
            if let Some(v) = replacement {
                counts.transfer(p, v);
                subst.replace(p, v);
            }
            dead.push(p);
            changed = true;
        }
        phis = kept;
        if !changed {
            break;
        }
    }
    let f = module.func_mut(fid);
    subst.apply(f);
    f.remove_insts(&dead);
    dead.len()
}

/// Removes, from every phi of block `b`, the incomings from block `from` (the edge
/// `from → b` is gone).
pub fn drop_incomings_from(f: &mut Function, b: BlockId, from: BlockId) {
    let phis: Vec<InstId> = f.blocks[b]
        .insts
        .iter()
        .copied()
        .filter(|i| f.insts[*i].is_phi())
        .collect();
    for p in phis {
        remove_incomings(f, p, |x| x == from, None);
    }
}

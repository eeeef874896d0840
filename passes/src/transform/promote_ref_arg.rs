//! `promote-ref-arg` — read-only reference arguments of callables become value arguments.
//!
//! **What:** a callable whose reference arguments are *all* recursively read-only gets
//! each non-custom reference argument replaced by a value argument of the same type (in
//! the same position, with the old argument's metadata and the comment `promoted
//! reference argument`). The body copies the new argument into a `local` alloca at its
//! top, and every former use of the reference now uses that alloca. Every call site
//! loads the pointer it passed just before the call and passes the loaded value.
//!
//! **Algorithm:** callee-first over the call graph (post-order from the functions nobody
//! calls), so promoting a callee never needs revisiting. A callable qualifies when
//! (1) it is a `callable` with a body and no `signature_constraint` metadata, and every
//! use of it is the callee slot of a `call`; (2) each reference argument is read-only:
//! every use is a `load`, a `ray_query_object_read`, or the base of a `getelementptr`
//! whose result is itself read-only (a reference that is only read may still be aliased
//! by a written one, hence "all of them"); (3) every call site passes as many arguments
//! as the signature has, and each promoted actual traces through `getelementptr` bases
//! to a `local` alloca (a snapshot of shared or caller-reference storage could miss a
//! write by another invocation). All call sites are checked before the callable or any
//! call is changed.
//!
//! **Preconditions:** none (structured or plain CFG). **Refusals:** none; a callable
//! that does not qualify is left as it is.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/promote_ref_arg.cpp` (conditions,
//! callee-first order, metadata transfer and comment, load before the call). The
//! `spirv-legalize` pipeline runs it as `promote-readonly-ref-args`.
//!
//! **Report keys:** `promoted_ref_arg` (arguments promoted). **Changed:** instructions
//! (signatures, allocas, stores and loads; no block or edge changes).
//!
//! **Example:**
//! ```text
//! callable %f: f32 (%p: &f32;) = define %e: { %v: f32 = load %p; … }
//! %r: f32 = call %f, %slot;
//!   →
//! callable %f: f32 (%p: f32;) = define %e: { %l: f32 = alloca local; store %l, %p;
//!                                            %v: f32 = load %l; … }
//! %x: f32 = load %slot; %r: f32 = call %f, %x;
//! ```

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::util::calls::{CallGraph, CallSite};
use crate::util::edit::alloca_prefix_len;
use xir_ir::edit::{Cursor, InsertPoint, InstBuilder, Rewriter, UseIndex};
use xir_ir::function::{ArgData, ArgKind};
use xir_ir::inst::InstKind;
use xir_ir::op::AllocaOp;
use xir_ir::{ArgId, FuncId, Function, FunctionKind, Metadata, Module, Value};

/// The `promote-ref-arg` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct PromoteRefArg;

crate::declare_pass! {
    PromoteRefArg: module pass "promote-ref-arg" {
        summary: "Turns read-only reference arguments of callables into value arguments.",
        form: Either,
        counters: PromoteRefArgCounters {
            /// Reference arguments turned into value arguments.
            promoted_ref_arg: Instructions,
        }
    }
}

impl Pass for PromoteRefArg {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = PromoteRefArgCounters::default();
        // One call graph for the run: promoting a callee adds loads before its call sites
        // and changes the calls' operands in place, so every call keeps its identity and
        // no call appears or disappears (a graph per function made the pass quadratic in
        // callables: 2.8 s for 5,000).
        let graph = CallGraph::compute(module);
        let order = graph.post_order(module);
        for f in order {
            let Some(plan) = plan_function(module, &graph, f) else {
                continue;
            };
            c.promoted_ref_arg += plan.len() as u64;
            let sites: Vec<CallSite> = graph.sites_of(f).copied().collect();
            apply(module, f, &plan, &sites);
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}

/// `(position in the signature, argument)` of each argument to promote, or `None` when
/// the callable does not qualify.
fn plan_function(m: &Module, g: &CallGraph, f: FuncId) -> Option<Vec<(usize, ArgId)>> {
    let func = m.func(f);
    if func.kind != FunctionKind::Callable
        || func.body.is_none()
        || g.is_escaping(f)
        || func
            .metadata
            .iter()
            .any(|md| matches!(md, Metadata::SignatureConstraint))
    {
        return None;
    }
    let uses = UseIndex::compute(func);
    let mut plan = Vec::new();
    for (k, &a) in func.arg_order.iter().enumerate() {
        if func.args[a].kind != ArgKind::Reference {
            continue;
        }
        if !is_read_only(func, &uses, Value::Arg(a), 0) {
            return None;
        }
        if !m.types.is_custom(func.args[a].ty) {
            plan.push((k, a));
        }
    }
    if plan.is_empty() {
        return None;
    }
    for s in g.sites_of(f) {
        let call = m.func(s.caller).inst(s.inst);
        if call.operands.len() != func.arg_order.len() + 1 {
            return None;
        }
        for &(k, _) in &plan {
            if !traces_to_local_alloca(m.func(s.caller), call.operands[k + 1]) {
                return None;
            }
        }
    }
    Some(plan)
}

/// Bound on the `getelementptr` chains followed (deeper chains are treated as written).
const MAX_GEP_DEPTH: usize = 256;

fn is_read_only(func: &Function, uses: &UseIndex, p: Value, depth: usize) -> bool {
    if depth > MAX_GEP_DEPTH {
        return false;
    }
    uses.uses(p).iter().all(|u| {
        let d = func.inst(u.inst);
        match d.kind {
            InstKind::Load | InstKind::RayQueryObjectRead(_) => true,
            InstKind::Gep => {
                u.index == 0 && is_read_only(func, uses, Value::Inst(u.inst), depth + 1)
            }
            _ => false,
        }
    })
}

/// Whether `v` is a `local` alloca or a `getelementptr` chain based on one.
pub fn traces_to_local_alloca(func: &Function, mut v: Value) -> bool {
    for _ in 0..=MAX_GEP_DEPTH {
        let Value::Inst(i) = v else {
            return false;
        };
        let d = func.inst(i);
        match d.kind {
            InstKind::Alloca(AllocaOp::Local) => return true,
            InstKind::Gep => match d.operands.first() {
                Some(base) => v = *base,
                None => return false,
            },
            _ => return false,
        }
    }
    false
}

fn apply(m: &mut Module, f: FuncId, plan: &[(usize, ArgId)], sites: &[CallSite]) {
    // The signature: a value argument takes each reference argument's place.
    let mut replaced = Vec::new();
    {
        let func = m.func_mut(f);
        for &(k, old) in plan {
            let ty = func.args[old].ty;
            let mut metadata = func.args[old].metadata.clone();
            metadata.push(Metadata::Comment("promoted reference argument".into()));
            let new = func.args.push(ArgData {
                kind: ArgKind::Value,
                ty,
                metadata,
            });
            func.arg_order[k] = new;
            replaced.push((k, old, new, ty));
        }
    }
    // The body: a local slot holding the value replaces the reference.
    {
        let body = m.func(f).body.expect("invariant: planned callables have a body");
        let mut pos = alloca_prefix_len(m.func(f), body);
        let mut rw = Rewriter::for_module(m, f);
        let mut slots = Vec::new();
        for &(_, old, _, ty) in &replaced {
            let at = match rw.func().blocks[body].insts.get(pos) {
                Some(&i) => InsertPoint::Before(i),
                None => InsertPoint::End(body),
            };
            let slot = rw.at(at).alloca(AllocaOp::Local, ty);
            pos += 1;
            rw.replace_all_uses(Value::Arg(old), slot);
            slots.push(slot);
        }
        let at = match rw.func().blocks[body].insts.get(pos) {
            Some(&i) => InsertPoint::Before(i),
            None => InsertPoint::End(body),
        };
        for (&(_, _, new, _), slot) in replaced.iter().zip(slots) {
            rw.at(at).store(slot, Value::Arg(new));
        }
    }
    // The call sites: load what was passed by reference.
    // Edited directly (a rewriter indexes the whole caller: one per site was quadratic).
    for s in sites {
        let caller = m.func_mut(s.caller);
        for &(k, _, _, ty) in &replaced {
            // Operand 0 is the callee.
            let ptr = caller.inst(s.inst).operands[k + 1];
            let v = Cursor::before(caller, s.inst).load(ty, ptr);
            caller.inst_mut(s.inst).operands[k + 1] = v;
        }
    }
}

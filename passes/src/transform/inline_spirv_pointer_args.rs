//! `inline-spirv-pointer-args` — inline the calls whose callable ABI SPIR-V cannot
//! represent (the SPIR-V backend's pointer and resource legalization).
//!
//! **What:** a call is specialized (inlined into its caller) when one of its formals,
//! by the seed's rules, cannot cross a SPIR-V function boundary safely:
//! a reference formal whose actual is neither a `local` alloca nor a reference argument
//! of the caller (a `shared` alloca is Workgroup storage; a `getelementptr` result would
//! need VariablePointers); a formal of the indirect-dispatch type
//! (`LC_IndirectDispatchBuffer`); a *used* buffer or bindless-array formal; a *written*
//! acceleration structure; a texture both read and written. A resource formal the callee
//! never uses does not force anything. Everything else stays a call (ordinary structured
//! switches stay native, since only selected sites are touched).
//!
//! **Algorithm:** a fixed point. Each round computes resource-argument usage over the
//! kernel-reachable call graph (read / write, propagated through calls until nothing
//! changes), selects every call site of a callable reachable from a kernel that needs
//! specialization, preflights the whole batch with the generic inliner
//! ([`crate::util::inline`]: recursion, call shape, metadata, structured boundaries —
//! a multi-block callee needs plain CFG, so `destructure-cfg` runs first in
//! `spirv-legalize`), and only then inlines it. Inlining one layer can expose a pointer
//! at the next, hence the rounds; each round removes callables that lost their last
//! use. The rounds run on a copy of the module that replaces it only on success, so a
//! refusal in any round leaves the module byte-identical.
//!
//! **Preconditions:** none (the batch preflight enforces the structured boundary).
//!
//! **Refusals** (module byte-identical): a selected call is malformed (arity, types,
//! passing modes, result; counted in `rejected_malformed_call`); its callee is on a call
//! cycle (`skipped_recursive_callable`); a multi-block callee meets structured control
//! flow (`skipped_structured_call`); the callee carries `signature_constraint`
//! (`skipped_constrained_call`) or the call carries metadata other than names, locations
//! and comments (`skipped_metadata_call`); more than 1024 rounds.
//!
//! **Upstream followed:** LuisaCompute `src/backends/common/spirv_codegen/
//! pointer_legalization.cpp` (rules, fixed point, batch preflight, `override_noinline`,
//! pruning after each round) and the seed's "Callable pointer and resource legalization".
//! Not reproduced: the equal-origin proof that lets a resource formal bound to one kernel
//! resource at every call stay a parameter (such calls are inlined here, which is always
//! correct), the accel instance-buffer side channel, and the in-pass destructuring of
//! blocking switches (the pipeline destructures first). Report keys are the subset of
//! upstream's `SpirvPointerLegalizationInfo` and its inline counters that this
//! implementation can produce.
//!
//! **Report keys:** `planned_pointer_call` (sites selected, over all rounds),
//! `inlined_call`, `pruned_unreachable_callable`,
//! `argument_usage_analysis` (rounds analysed; none without calls), `remaining_pointer_call` (on refusal),
//! `rejected_malformed_call`, `skipped_recursive_callable`, `skipped_structured_call`,
//! `skipped_constrained_call`, `skipped_metadata_call`.
//!
//! **Example:** `call %f, %shared_slot` with `%f: void (%p: &f32;)` and
//! `%shared_slot: f32 = alloca shared` → the body of `%f` replaces the call, storing to
//! `%shared_slot` directly; `%f` is removed once unused.

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::util::calls::{CallGraph, CallSite};
use crate::util::inline::{InlineOptions, InlineRefusal, inline_call_sites};
use rustc_hash::{FxHashMap, FxHashSet};
use xir_ir::edit::UseIndex;
use xir_ir::function::ArgKind;
use xir_ir::inst::InstKind;
use xir_ir::op::AllocaOp;
use xir_ir::types::TypeData;
use xir_ir::{ArgId, FuncId, FunctionKind, Module, Value};

/// The `inline-spirv-pointer-args` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct InlineSpirvPointerArgs;

crate::declare_pass! {
    InlineSpirvPointerArgs: module pass "inline-spirv-pointer-args" {
        summary: "Inlines calls whose pointer or resource arguments SPIR-V cannot pass (fixed point).",
        form: Either,
        counters: InlineSpirvPointerArgsCounters {
            /// Call sites selected for specialization, over all rounds.
            planned_pointer_call: Nothing,
            /// Calls inlined.
            inlined_call: Instructions,
            /// Callables removed after losing their last call (their blocks go too).
            pruned_unreachable_callable: ControlFlow,
            /// Usage analyses run (one per round).
            argument_usage_analysis: Nothing,
            /// Selected calls left when the pass refused.
            remaining_pointer_call: Nothing,
            /// Refusal: a selected call does not match its callee's signature.
            rejected_malformed_call: Nothing,
            /// Refusal: a selected callee is recursive.
            skipped_recursive_callable: Nothing,
            /// Refusal: a multi-block callee meets structured control flow.
            skipped_structured_call: Nothing,
            /// Refusal: the callee's signature is constrained.
            skipped_constrained_call: Nothing,
            /// Refusal: the call's metadata has no owner after inlining.
            skipped_metadata_call: Nothing,
        }
        internal {
            /// Inlines of callees with several blocks (they change the control flow).
            multi_block_inlined_call: ControlFlow,
        }
    }
}

/// Bound on the rounds (each inlines at least one call of an acyclic graph).
const MAX_ROUNDS: u64 = 1024;

const READ: u8 = 1;
const WRITE: u8 = 2;

impl Pass for InlineSpirvPointerArgs {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = InlineSpirvPointerArgsCounters::default();
        let mut work: Option<Module> = None;
        loop {
            let m = work.as_ref().unwrap_or(module);
            let graph = CallGraph::compute(m);
            if graph.has_no_sites() {
                break;
            }
            let reachable = kernel_reachable(m, &graph);
            let usage = resource_usage(m, &reachable);
            c.argument_usage_analysis += 1;
            let selected: Vec<CallSite> = graph
                .sites()
                .filter(|s| reachable.contains(&s.caller) && needs_specialization(m, s, &usage))
                .copied()
                .collect();
            if selected.is_empty() {
                break;
            }
            if c.argument_usage_analysis > MAX_ROUNDS {
                c.remaining_pointer_call = selected.len() as u64;
                let msg = format!("no fixed point after {MAX_ROUNDS} rounds");
                return Ok(PassRun::refused(msg, c.report()));
            }
            c.planned_pointer_call += selected.len() as u64;
            let m = work.get_or_insert_with(|| module.clone());
            let opts = InlineOptions {
                override_noinline: true,
                allow_autodiff_scope_in_caller: false,
            };
            match inline_call_sites(m, &selected, opts) {
                Ok(stats) => {
                    c.inlined_call += stats.inlined_call;
                    c.multi_block_inlined_call += stats.multi_block_call;
                }
                Err(refusal) => {
                    let (mut r, reason) = (
                        InlineSpirvPointerArgsCounters {
                            planned_pointer_call: c.planned_pointer_call,
                            argument_usage_analysis: c.argument_usage_analysis,
                            remaining_pointer_call: selected.len() as u64,
                            ..Default::default()
                        },
                        refusal.message().to_string(),
                    );
                    match refusal {
                        InlineRefusal::Malformed(_) => r.rejected_malformed_call = 1,
                        InlineRefusal::Recursive(_) => r.skipped_recursive_callable = 1,
                        InlineRefusal::Structured(_) => r.skipped_structured_call = 1,
                        InlineRefusal::Constrained(_) => r.skipped_constrained_call = 1,
                        InlineRefusal::Metadata(_) => r.skipped_metadata_call = 1,
                    }
                    let msg = format!("SPIR-V pointer-argument legalization failed: {reason}");
                    return Ok(PassRun::refused(msg, r.report()));
                }
            }
            // Prune callables whose last call was just inlined.
            let callees: FxHashSet<FuncId> = selected.iter().map(|s| s.callee).collect();
            let after = CallGraph::compute(m);
            for f in callees {
                if after.sites_of(f).next().is_none() && !after.is_escaping(f) {
                    m.remove_function(f);
                    c.pruned_unreachable_callable += 1;
                }
            }
        }
        if let Some(m) = work {
            *module = m;
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}

fn kernel_reachable(m: &Module, g: &CallGraph) -> FxHashSet<FuncId> {
    let mut seen = FxHashSet::default();
    let mut stack: Vec<FuncId> = m
        .func_order
        .iter()
        .copied()
        .filter(|f| {
            !matches!(
                m.func(*f).kind,
                FunctionKind::Callable | FunctionKind::External
            )
        })
        .collect();
    while let Some(f) = stack.pop() {
        if seen.insert(f) {
            stack.extend(g.callees_of(f));
        }
    }
    seen
}

/// Read/write usage of every resource formal of the reachable callables, propagated
/// through calls to a fixed point.
fn resource_usage(
    m: &Module,
    reachable: &FxHashSet<FuncId>,
) -> FxHashMap<(FuncId, ArgId), u8> {
    let mut usage: FxHashMap<(FuncId, ArgId), u8> = FxHashMap::default();
    // Per formal: direct usage, and the formals its value is passed on to.
    let mut forwards: Vec<((FuncId, ArgId), (FuncId, usize))> = Vec::new();
    for &f in m.func_order.iter().filter(|f| reachable.contains(f)) {
        let func = m.func(f);
        if func.body.is_none() {
            continue;
        }
        let uses = UseIndex::compute(func);
        for &a in &func.arg_order {
            if func.args[a].kind != ArgKind::Resource {
                continue;
            }
            let mut u = 0u8;
            for use_ in uses.uses(Value::Arg(a)) {
                let d = func.inst(use_.inst);
                match &d.kind {
                    InstKind::ResourceRead(..)
                    | InstKind::ResourceQuery(..)
                    | InstKind::RayQueryObjectRead(_) => u |= READ,
                    InstKind::ResourceWrite(..) => u |= WRITE,
                    InstKind::Call if use_.index >= 1 => match d.operands.first() {
                        Some(Value::Func(callee)) => {
                            forwards.push(((f, a), (*callee, use_.index as usize - 1)));
                        }
                        _ => u |= READ | WRITE,
                    },
                    _ => u |= READ | WRITE,
                }
            }
            usage.insert((f, a), u);
        }
    }
    loop {
        let mut changed = false;
        for &((f, a), (callee, k)) in &forwards {
            let formal = m.func(callee).arg_order.get(k).copied();
            let inner = match formal {
                Some(fa) if m.func(callee).body.is_some() => {
                    usage.get(&(callee, fa)).copied().unwrap_or(READ | WRITE)
                }
                _ => READ | WRITE,
            };
            let e = usage.entry((f, a)).or_insert(0);
            if *e | inner != *e {
                *e |= inner;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    usage
}

fn needs_specialization(m: &Module, s: &CallSite, usage: &FxHashMap<(FuncId, ArgId), u8>) -> bool {
    let callee = m.func(s.callee);
    if callee.kind != FunctionKind::Callable || callee.body.is_none() {
        return false;
    }
    let caller = m.func(s.caller);
    let call = caller.inst(s.inst);
    if call.operands.len() != callee.arg_order.len() + 1 {
        // A malformed call is selected so that the preflight reports it.
        return true;
    }
    for (k, &a) in callee.arg_order.iter().enumerate() {
        let formal = &callee.args[a];
        let actual = call.operands[k + 1];
        let td = m.types.get(formal.ty);
        if matches!(td, TypeData::Custom { name } if name == "LC_IndirectDispatchBuffer") {
            return true;
        }
        match formal.kind {
            ArgKind::Resource => {
                let u = usage.get(&(s.callee, a)).copied().unwrap_or(READ | WRITE);
                if u == 0 {
                    continue;
                }
                let specialize = match td {
                    TypeData::Buffer { .. } | TypeData::BindlessArray => true,
                    TypeData::Accel => u & WRITE != 0,
                    TypeData::Texture { .. } => u == READ | WRITE,
                    _ => false,
                };
                if specialize {
                    return true;
                }
            }
            ArgKind::Reference => {
                let ok = match actual {
                    Value::Arg(x) => caller.args[x].kind == ArgKind::Reference,
                    Value::Inst(i) => matches!(caller.inst(i).kind, InstKind::Alloca(AllocaOp::Local)),
                    _ => false,
                };
                if !ok {
                    return true;
                }
            }
            ArgKind::Value => {}
        }
    }
    false
}

//! `inline-all` — inline every call of a non-recursive callable, leaf first.
//!
//! **What:** repeatedly takes the *leaves* — callables with a body, not on a call cycle,
//! that call no callable — and inlines each of their call sites with the generic inliner
//! ([`crate::util::inline`]); a leaf left without calls is removed. Rounds continue
//! while one inlined something, so a caller becomes a leaf once its callees are gone.
//! Recursive callables, callables marked `signature_constraint` or `no_inline`, and calls
//! carrying metadata that no inlined instruction can own stay calls (counted).
//!
//! **Algorithm:** the rounds run on a copy of the module that replaces it only when the
//! pass completes, so a refusal leaves the module byte-identical. Every site is
//! preflighted by the inliner before it is inlined. Each round inlines at least one call
//! to a leaf, which adds no callable call, so the number of calls to callables falls
//! every round.
//!
//! **Preconditions:** multi-block inlining needs plain CFG in caller and callee (the
//! seed: generic multi-block inlining runs after `destructure-cfg`); a single-block
//! callee ending in `return` is inlined anywhere. With
//! `allow-autodiff-scope-in-caller=true` (as `pre-autodiff` runs it) a caller whose only
//! structured constructs are `autodiff` scopes counts as plain.
//!
//! **Refusals** (module byte-identical, `skipped_structured_call` counted): a call whose
//! inlining would put several blocks into a structured caller or bring a structured
//! multi-block callee — run `destructure-cfg` first.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/inline.cpp`
//! (`inline_all_pass_run_on_module`: leaf-first rounds until no progress, removal of
//! unused leaves, `InlineOptions{allow_autodiff_scope_in_caller}`, report key names).
//! Upstream skips (and counts) a structured site and carries on; here it is a refusal,
//! as the seed insists multi-block inlining happen only after `destructure-cfg`.
//! Upstream's 23 work counters (summary caches, clone layouts, dense resolvers, caller
//! barrier caches, recursion-analysis visits) describe its implementation strategy and
//! are not reproduced.
//!
//! **Report keys:** `inlined_call`, `removed_callable`, `skipped_recursive_callable`,
//! `skipped_structured_call`, `skipped_constrained_call`, `skipped_metadata_call`,
//! `skipped_declaration_call`, `rejected_malformed_call`, `skipped_costly_callable`
//! (always 0: `inline-all` has no cost bound). **Changed:** instructions for
//! single-block inlines only; control flow once a multi-block callee or a removed
//! callable is involved.
//!
//! **Example:** after `destructure-cfg`, `%r = call %f, %x` with a two-block `%f`
//! becomes `br %f.entry` … `store %slot, %v; br %cont` … `%cont: %r = load %slot`.

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::registry::{PassOptionInfo, PassOptions};
use crate::util::calls::{CallGraph, CallSite};
use crate::util::inline::{InlineOptions, InlineRefusal, inline_call_sites_with, preflight_site};
use rustc_hash::FxHashSet;
use xir_ir::{FuncId, FunctionKind, Module};

/// The `inline-all` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct InlineAll {
    /// Callers whose only structured constructs are autodiff scopes count as plain.
    pub allow_autodiff_scope_in_caller: bool,
}

crate::declare_pass! {
    InlineAll: module pass "inline-all" {
        summary: "Inlines every call of a non-recursive callable, leaf first (multi-block only into plain CFG).",
        form: Either,
        options: [PassOptionInfo {
            name: "allow-autodiff-scope-in-caller",
            default: "false",
            help: "multi-block callees may be inlined into callers whose only structured constructs are autodiff scopes",
        }],
        create: |o: &PassOptions| Ok::<_, String>(InlineAll {
            allow_autodiff_scope_in_caller: o.get_bool("allow-autodiff-scope-in-caller", false)?,
        }),
        counters: InlineAllCounters {
            /// Calls inlined.
            inlined_call: Instructions,
            /// Leaves removed once their last call was inlined.
            removed_callable: ControlFlow,
            /// Callables on a call cycle (kept).
            skipped_recursive_callable: Nothing,
            /// Refusal: a multi-block inline into structured control flow.
            skipped_structured_call: Nothing,
            /// Calls of `signature_constraint` / `no_inline` callables (kept).
            skipped_constrained_call: Nothing,
            /// Calls whose metadata no inlined instruction can own (kept).
            skipped_metadata_call: Nothing,
            /// Calls of bodyless declarations (kept).
            skipped_declaration_call: Nothing,
            /// Calls not matching the callee's signature (kept).
            rejected_malformed_call: Nothing,
            /// Callables over a cost bound (never: inline-all has none).
            skipped_costly_callable: Nothing,
        }
        internal {
            /// Inlines of callees with several blocks.
            multi_block_inlined_call: ControlFlow,
        }
    }
}

impl Pass for InlineAll {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let opts = InlineOptions {
            override_noinline: false,
            allow_autodiff_scope_in_caller: self.allow_autodiff_scope_in_caller,
        };
        let mut c = InlineAllCounters::default();
        let mut work: Option<Module> = None;
        let mut recursive_seen = FxHashSet::default();
        let mut skipped = FxHashSet::default();
        loop {
            let m = work.as_ref().unwrap_or(module);
            let graph = CallGraph::compute(m);
            let recursive = graph.recursive(m);
            let callables: FxHashSet<FuncId> = m
                .func_order
                .iter()
                .copied()
                .filter(|f| m.func(*f).kind == FunctionKind::Callable)
                .collect();
            let mut leaves = Vec::new();
            for &f in &m.func_order {
                if !callables.contains(&f) {
                    continue;
                }
                if recursive[f] {
                    if recursive_seen.insert(f) {
                        c.skipped_recursive_callable += 1;
                    }
                    continue;
                }
                if m.func(f).body.is_none() {
                    for s in graph.sites_of(f) {
                        if skipped.insert((s.caller, s.inst)) {
                            c.skipped_declaration_call += 1;
                        }
                    }
                    continue;
                }
                if graph.callees_of(f).iter().all(|g| !callables.contains(g)) {
                    leaves.push(f);
                }
            }
            let sites: Vec<CallSite> = leaves
                .iter()
                .flat_map(|&f| graph.sites_of(f).copied())
                .filter(|s| !skipped.contains(&(s.caller, s.inst)))
                .collect();
            if sites.is_empty() {
                break;
            }
            let m = work.get_or_insert_with(|| module.clone());
            let mut progress = false;
            for s in sites {
                match preflight_site(m, &s, &recursive, opts) {
                    Ok(()) => {
                        let stats = inline_call_sites_with(m, &[s], opts, &recursive).map_err(|r| {
                            PassError::new(format!("inline-all: a preflighted call was refused: {}", r.message()))
                        })?;
                        c.inlined_call += stats.inlined_call;
                        c.multi_block_inlined_call += stats.multi_block_call;
                        progress = true;
                    }
                    Err(InlineRefusal::Structured(why)) => {
                        let r = InlineAllCounters {
                            skipped_structured_call: 1,
                            ..Default::default()
                        };
                        return Ok(PassRun::refused(why, r.report()));
                    }
                    Err(other) => {
                        skipped.insert((s.caller, s.inst));
                        match other {
                            InlineRefusal::Constrained(_) => c.skipped_constrained_call += 1,
                            InlineRefusal::Metadata(_) => c.skipped_metadata_call += 1,
                            _ => c.rejected_malformed_call += 1,
                        }
                    }
                }
            }
            if !progress {
                break;
            }
            let after = CallGraph::compute(m);
            for f in leaves {
                if after.sites_of(f).next().is_none() && !after.is_escaping(f) {
                    m.remove_function(f);
                    c.removed_callable += 1;
                }
            }
        }
        if let Some(m) = work {
            *module = m;
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}

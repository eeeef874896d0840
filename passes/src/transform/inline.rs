//! `inline` — inline the callables that are cheap to inline.
//!
//! **What:** a callable with a body that is not on a call cycle is inlined at all its call
//! sites when it has exactly one, or when it has at most three and at most 50
//! instructions; once no call names it any more it is removed. The generic inliner
//! ([`crate::util::inline`]) does the work, so the rules of `inline-all` hold per site.
//!
//! **Algorithm** (as upstream's `inline.cpp`, `inline_pass_run_on_module`, read at
//! LuisaCompute `0c84a1aa`; facts only): one pass over the callables in module order; the
//! call sites of each are collected when it is reached (inlining an earlier callable may
//! have copied calls of this one into new places). Each site is preflighted and inlined
//! on its own; a site the inliner declines is counted and stays a call: a multi-block
//! callee meeting structured control flow (`skipped_structured_call` — run
//! `destructure-cfg` first; upstream skips such a site too), a `signature_constraint` /
//! `no_inline` callee, a call with metadata no inlined instruction can own, a malformed
//! call. A callable with call sites that fails the size rule is counted in
//! `skipped_costly_callable`. The work happens on a copy of the module that replaces it
//! when the pass completes.
//!
//! **Preconditions:** none (a single-block callee ending in `return` is inlined anywhere;
//! multi-block callees only into plain CFG). **Refusals:** none.
//!
//! **Report keys:** those of `inline-all`: `inlined_call`, `removed_callable`,
//! `skipped_recursive_callable`, `skipped_structured_call`, `skipped_constrained_call`,
//! `skipped_metadata_call`, `skipped_declaration_call`, `rejected_malformed_call`,
//! `skipped_costly_callable`. **Changed:** a call inlined or a callable removed.
//!
//! **Example:** a callable called once, `%r = call %f, %x`, is replaced by `%f`'s body
//! (its single block's instructions, or its blocks after `destructure-cfg`), and `%f`
//! is removed.

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::util::calls::{CallGraph, CallSite};
use crate::util::inline::{InlineOptions, InlineRefusal, inline_call_sites_with, preflight_site};
use xir_ir::{FuncId, FunctionKind, Module};

/// Most call sites a callable with several may have and still be inlined…
const MAX_SITES: usize = 3;
/// …and the most instructions it may have then (upstream's bounds).
const MAX_INSTRUCTIONS: usize = 50;

/// The `inline` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct Inline;

crate::declare_pass! {
    Inline: module pass "inline" {
        summary: "Inlines non-recursive callables with one call site, or up to three and at most 50 instructions",
        form: Either,
        counters: InlineCounters {
            /// Calls inlined.
            inlined_call: Instructions,
            /// Callables removed once no call names them.
            removed_callable: ControlFlow,
            /// Callables on a call cycle (kept).
            skipped_recursive_callable: Nothing,
            /// Sites of multi-block callees in structured control flow (kept).
            skipped_structured_call: Nothing,
            /// Calls of `signature_constraint` / `no_inline` callables (kept).
            skipped_constrained_call: Nothing,
            /// Calls whose metadata no inlined instruction can own (kept).
            skipped_metadata_call: Nothing,
            /// Calls of bodyless declarations (kept).
            skipped_declaration_call: Nothing,
            /// Calls not matching the callee's signature (kept).
            rejected_malformed_call: Nothing,
            /// Callables with call sites over the size rule (kept).
            skipped_costly_callable: Nothing,
        }
        internal {
            /// Inlines of callees with several blocks.
            multi_block_inlined_call: ControlFlow,
        }
    }
}

impl Pass for Inline {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let opts = InlineOptions::default();
        let mut c = InlineCounters::default();
        let mut m = module.clone();
        let recursive = CallGraph::compute(&m).recursive(&m);
        let callables: Vec<_> = m
            .func_order
            .iter()
            .copied()
            .filter(|f| m.func(*f).kind == FunctionKind::Callable)
            .collect();
        // One call graph, rescanned where inlining edited (the callers) or removed (the
        // callee): recomputing it per callee made the pass quadratic in callables
        // (7.5 s for 5,000 after the graph's own indexes; docs/passes-perf.md).
        let mut graph = CallGraph::compute(&m);
        for callee in callables {
            let sites: Vec<CallSite> = graph.sites_of(callee).copied().collect();
            if m.func(callee).body.is_none() {
                c.skipped_declaration_call += sites.len() as u64;
                continue;
            }
            if recursive[callee] {
                c.skipped_recursive_callable += 1;
                continue;
            }
            if sites.is_empty() {
                continue;
            }
            let size = m.func(callee).inst_count();
            if sites.len() > 1 && (sites.len() > MAX_SITES || size > MAX_INSTRUCTIONS) {
                c.skipped_costly_callable += 1;
                continue;
            }
            let callers: Vec<FuncId> = sites.iter().map(|s| s.caller).collect();
            for s in sites {
                match preflight_site(&m, &s, &recursive, opts) {
                    Ok(()) => {
                        let stats = inline_call_sites_with(&mut m, &[s], opts, &recursive).map_err(|r| {
                            PassError::new(format!(
                                "inline: a preflighted call was refused: {}",
                                r.message()
                            ))
                        })?;
                        c.inlined_call += stats.inlined_call;
                        c.multi_block_inlined_call += stats.multi_block_call;
                    }
                    Err(InlineRefusal::Structured(_)) => c.skipped_structured_call += 1,
                    Err(InlineRefusal::Constrained(_)) => c.skipped_constrained_call += 1,
                    Err(InlineRefusal::Metadata(_)) => c.skipped_metadata_call += 1,
                    Err(InlineRefusal::Recursive(_)) => c.skipped_recursive_callable += 1,
                    Err(InlineRefusal::Malformed(_)) => c.rejected_malformed_call += 1,
                }
            }
            graph.rescan(&m, &callers);
            if graph.sites_of(callee).next().is_none() && !graph.is_escaping(callee) {
                m.remove_function(callee);
                graph.rescan(&m, &[callee]);
                c.removed_callable += 1;
            }
        }
        if c.inlined_call + c.removed_callable > 0 {
            *module = m;
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}

//! `inline-call-sites` — inline a chosen batch of call sites, atomically.
//!
//! **What:** the pass form of the generic inliner primitive
//! ([`crate::util::inline::inline_call_sites`], upstream's
//! `inline_call_sites_pass_run_on_module`), which `inline-spirv-pointer-args` and
//! `inline-all` are built on. The batch is every placed `call` of the function at
//! position `callee=K` in module order (the `function #K` of diagnostics), in module
//! order. Single-block callees ending in `return` are spliced in place; others are
//! cloned between the halves of the split call block, returns storing into a return
//! slot (see the primitive's documentation). The callee itself is kept.
//!
//! **Algorithm:** the whole batch is preflighted — each site's call shape (arity, types,
//! passing modes, result), recursion of the callee, constrained signatures (`no_inline`
//! and `signature_constraint`), call metadata that no inlined instruction can own, and
//! the structured boundary (a multi-block callee needs plain CFG in caller and callee)
//! — before the first site is inlined.
//!
//! **Preconditions:** as above. **Refusals** (module byte-identical; the reason's
//! counter is 1): `rejected_malformed_call` (also: no function at position K, or it is
//! not a callable definition), `skipped_recursive_callable`, `skipped_structured_call`,
//! `skipped_constrained_call`, `skipped_metadata_call`.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/inline.cpp`
//! (`inline_call_sites_pass_run_on_module`: whole-plan preflight, then application;
//! the report key names). Upstream takes the call list from its C++ caller; here the
//! `callee` option selects it. Upstream's work counters are not reproduced (see
//! `inline-all`).
//!
//! **Report keys:** `inlined_call`, `skipped_recursive_callable`,
//! `skipped_structured_call`, `skipped_constrained_call`, `skipped_metadata_call`,
//! `rejected_malformed_call`.
//!
//! **Example:** `xir-opt --passes='inline-call-sites{callee=0}'` inlines every call of
//! the module's first function.

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::registry::{PassOptionInfo, PassOptions};
use crate::util::calls::{CallGraph, CallSite};
use crate::util::inline::{InlineOptions, InlineRefusal, inline_call_sites};

/// The `inline-call-sites` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct InlineCallSites {
    /// Module-order position of the callee whose calls form the batch (`None`: none).
    pub callee: Option<u64>,
}

crate::declare_pass! {
    InlineCallSites: module pass "inline-call-sites" {
        summary: "Inlines every call of one callable as one atomic, preflighted batch.",
        form: Either,
        options: [PassOptionInfo {
            name: "callee",
            default: "",
            help: "module-order position K of the callee (function #K); its calls form the batch",
        }],
        create: |o: &PassOptions| Ok::<_, String>(InlineCallSites {
            callee: match o.get("callee") {
                None | Some("") => None,
                Some(_) => Some(o.get_u64("callee", 0)?),
            },
        }),
        counters: InlineCallSitesCounters {
            /// Calls inlined.
            inlined_call: Instructions,
            /// Refusal: the callee is on a call cycle.
            skipped_recursive_callable: Nothing,
            /// Refusal: a multi-block callee meets structured control flow.
            skipped_structured_call: Nothing,
            /// Refusal: `signature_constraint` or `no_inline` callee.
            skipped_constrained_call: Nothing,
            /// Refusal: call metadata without an owner after inlining.
            skipped_metadata_call: Nothing,
            /// Refusal: a call that does not match its callee.
            rejected_malformed_call: Nothing,
        }
        internal {
            /// Inlines of callees with several blocks.
            multi_block_inlined_call: ControlFlow,
        }
    }
}

impl Pass for InlineCallSites {
    fn run(&self, module: &mut xir_ir::Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = InlineCallSitesCounters::default();
        let Some(k) = self.callee else {
            return Ok(PassRun::new(c.changed(), c.report()));
        };
        let Some(&f) = module.func_order.get(k as usize) else {
            c.rejected_malformed_call = 1;
            let why = format!("callee={k}: the module has {} function(s)", module.func_order.len());
            return Ok(PassRun::refused(why, c.report()));
        };
        let sites: Vec<CallSite> = CallGraph::compute(module).sites_of(f).copied().collect();
        match inline_call_sites(module, &sites, InlineOptions::default()) {
            Ok(stats) => {
                c.inlined_call = stats.inlined_call;
                c.multi_block_inlined_call = stats.multi_block_call;
                Ok(PassRun::new(c.changed(), c.report()))
            }
            Err(r) => {
                match r {
                    InlineRefusal::Malformed(_) => c.rejected_malformed_call = 1,
                    InlineRefusal::Recursive(_) => c.skipped_recursive_callable = 1,
                    InlineRefusal::Structured(_) => c.skipped_structured_call = 1,
                    InlineRefusal::Constrained(_) => c.skipped_constrained_call = 1,
                    InlineRefusal::Metadata(_) => c.skipped_metadata_call = 1,
                }
                Ok(PassRun::refused(r.message().to_string(), c.report()))
            }
        }
    }
}

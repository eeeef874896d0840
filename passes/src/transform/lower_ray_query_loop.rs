//! `lower-ray-query-loop` — upstream's older name for `lower-ray-query-to-pipeline`.
//!
//! **What:** exactly `lower-ray-query-to-pipeline` with its default options: every
//! `ray_query_loop` becomes a `ray_query_pipeline` whose two handlers are outlined into
//! callables taking the query and the loop's captures (see that pass for the lowering,
//! the capture ABI and every refusal). Only the report differs, as upstream's
//! compatibility entry point (`lower_ray_query_loop_pass_run_on_module`) publishes it.
//!
//! **Algorithm:** runs the `lower-ray-query-to-pipeline` lowering (whole-module
//! preflight, then outlining and a `dce` of each changed function).
//!
//! **Preconditions:** none. **Refusals:** those of `lower-ray-query-to-pipeline` (module
//! byte-identical, rejected loops counted in `error`).
//!
//! **Upstream followed:** LuisaCompute `include/luisa/xir/passes/lower_ray_query_loop.h`
//! and the compatibility functions at the end of `lower_ray_query_to_pipeline.cpp` (the
//! newest upstream; the older standalone `lower_ray_query_loop.cpp` was folded into
//! them). **Deviation:** `localized_alloca` counts the captured locals upstream's
//! handler-local proof re-creates inside a callback; that proof is not implemented yet
//! (see `lower-ray-query-to-pipeline`), so it stays 0.
//!
//! **Report keys:** `lowered_loop` (loops replaced by a pipeline), `localized_alloca`
//! (0, see above), `error` (loops rejected).
//!
//! **Example:**
//! ```text
//! %b: ray_query_loop dispatch %d, merge %m        (handlers %s, %p; captures %v)
//! →  %b: ray_query_pipeline %q, %on_surface, %on_procedural, %v; …merge's code…
//! ```

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::transform::lower_ray_query_to_pipeline::LowerRayQueryToPipeline;
use xir_ir::Module;

/// The `lower-ray-query-loop` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct LowerRayQueryLoop;

crate::declare_pass! {
    LowerRayQueryLoop: module pass "lower-ray-query-loop" {
        summary: "Outlines ray-query loops into ray-query pipelines (upstream's older name for lower-ray-query-to-pipeline, default options).",
        form: Either,
        counters: LowerRayQueryLoopCounters {
            /// Ray-query loops replaced by a ray-query pipeline.
            lowered_loop: ControlFlow,
            /// Captured locals re-created inside a callback (not implemented: 0).
            localized_alloca: Nothing,
            /// Ray-query loops rejected (refusal).
            error: Nothing,
        }
    }
}

impl Pass for LowerRayQueryLoop {
    fn run(&self, module: &mut Module, cx: &mut PassContext) -> Result<PassRun, PassError> {
        let out = LowerRayQueryToPipeline::default().lower_module(module, cx)?;
        let c = LowerRayQueryLoopCounters {
            lowered_loop: out.lowered,
            localized_alloca: 0,
            error: out.rejected,
        };
        Ok(match out.refusal {
            Some(reason) => PassRun::refused(reason, c.report()),
            None => PassRun::new(c.changed(), c.report()),
        })
    }
}

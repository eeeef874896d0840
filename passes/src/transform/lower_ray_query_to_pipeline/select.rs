//! Loop selection of `lower-ray-query-to-pipeline` (upstream's `select_ray_query_loops`):
//! which preflighted loops are lowered and which are retained for a later lowering.

use super::{Site, captures};
use crate::registry::PassOptions;
use xir_ir::{FuncId, Module};

/// Upstream's `captured_argument_filter` / `captured_argument_cost` callbacks, by name.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum CaptureFilter {
    /// No callback.
    #[default]
    None,
    /// The Metal backend's ray-payload ABI (`metal_xir_pipeline.cpp`).
    MetalRayPayload,
}

impl CaptureFilter {
    fn parse(o: &PassOptions, name: &str) -> Result<Self, String> {
        match o.get(name) {
            None | Some("none") => Ok(Self::None),
            Some("metal-ray-payload") => Ok(Self::MetalRayPayload),
            Some(v) => Err(format!(
                "option '{name}' expects none or metal-ray-payload, got '{v}'"
            )),
        }
    }
}

/// Upstream's `LowerRayQueryToPipelineOptions` selection bounds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// Most captured arguments (inputs + outputs).
    pub max_captured_argument_count: u64,
    /// Which captures are acceptable.
    pub filter: CaptureFilter,
    /// The cost model.
    pub cost: CaptureFilter,
    /// Most total capture cost.
    pub max_captured_argument_cost: u64,
    /// Handler instructions that make a loop profitable on its own.
    pub min_handler_instruction_count: u64,
    /// Capture-eligible loops per function that make every one profitable.
    pub min_small_handler_loop_count: u64,
}

impl Default for Selection {
    fn default() -> Self {
        Self {
            max_captured_argument_count: u64::MAX,
            filter: CaptureFilter::None,
            cost: CaptureFilter::None,
            max_captured_argument_cost: u64::MAX,
            min_handler_instruction_count: 0,
            min_small_handler_loop_count: u64::MAX,
        }
    }
}

/// An unsigned option that may be `unbounded`.
fn bound(o: &PassOptions, name: &str, default: u64) -> Result<u64, String> {
    match o.get(name) {
        Some("unbounded") => Ok(u64::MAX),
        _ => o.get_u64(name, default),
    }
}

impl Selection {
    /// Reads the pass options.
    pub fn from_options(o: &PassOptions) -> Result<Self, String> {
        Ok(Self {
            max_captured_argument_count: bound(o, "max-captured-argument-count", u64::MAX)?,
            filter: CaptureFilter::parse(o, "captured-argument-filter")?,
            cost: CaptureFilter::parse(o, "captured-argument-cost")?,
            max_captured_argument_cost: bound(o, "max-captured-argument-cost", u64::MAX)?,
            min_handler_instruction_count: bound(o, "min-handler-instruction-count", 0)?,
            min_small_handler_loop_count: bound(o, "min-small-handler-loop-count", u64::MAX)?,
        })
    }

    /// The loops of function `f` to lower, in order; the rest are retained.
    pub(crate) fn select(&self, m: &Module, f: FuncId, sites: Vec<Site>) -> Vec<Site> {
        if *self == Self::default() {
            return sites;
        }
        let func = m.func(f);
        let mut judged = Vec::with_capacity(sites.len());
        let mut eligible_loops = 0u64;
        for site in sites {
            let (blocks, caps) = captures(func, &site);
            let handler_insts: u64 = blocks
                .iter()
                .filter(|b| **b != site.dispatch)
                .map(|b| func.blocks[*b].insts.len() as u64)
                .sum();
            let values = caps
                .inputs
                .iter()
                .copied()
                .chain(caps.outputs.iter().map(|i| xir_ir::Value::Inst(*i)));
            let mut filter_ok = true;
            let mut cost = 0u64;
            let mut count = 0u64;
            for v in values {
                filter_ok &= self.filter.accepts(m, f, v);
                cost = cost.saturating_add(self.cost.cost(m, f, v));
                count += 1;
            }
            let eligible = filter_ok
                && cost <= self.max_captured_argument_cost
                && count <= self.max_captured_argument_count;
            eligible_loops += u64::from(eligible);
            judged.push((site, handler_insts, eligible));
        }
        judged
            .into_iter()
            .filter(|(_, insts, eligible)| {
                *eligible
                    && (*insts >= self.min_handler_instruction_count
                        || eligible_loops >= self.min_small_handler_loop_count)
            })
            .map(|(site, _, _)| site)
            .collect()
    }
}

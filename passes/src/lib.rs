//! # xir-passes — passes, the pass registry, pipelines
//!
//! See [`pass`] for the pass API, [`registry`] for looking passes up, [`pipeline`] for
//! the pipeline language and its executor, and [`analysis`] for the analysis cache.

#![warn(missing_docs)]

pub mod analysis;
pub mod catalogue;
pub mod direct;
pub mod form;
pub mod pass;
pub mod pipeline;
pub mod registry;
pub mod test_passes;
pub mod transform;
pub mod util;

#[cfg(test)]
mod tests;

pub use pass::{FunctionPass, Pass, PassContext, PassError, PassReport, PassRun, PerFunction};

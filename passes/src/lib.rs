//! # xir-passes — passes, the pass registry, pipelines
//!
//! See [`pass`] for the pass API and [`analysis`] for the analysis cache.

#![warn(missing_docs)]

pub mod analysis;
pub mod pass;
pub mod registry;
pub mod transform;
pub mod util;

#[cfg(test)]
mod tests;

pub use pass::{FunctionPass, Pass, PassContext, PassError, PassReport, PassRun, PerFunction};

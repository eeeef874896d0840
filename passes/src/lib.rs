//! # xir-passes — passes, the pass registry, pipelines
//!
//! See [`pass`] for the pass API, [`declare`] for declaring a pass, [`transform`] for
//! the one list of passes, [`registry`] for looking passes up, [`pipeline`] for the
//! pipeline language and its executor, and [`analysis`] for the analysis cache.

#![warn(missing_docs)]

pub mod analysis;
pub mod catalogue;
pub mod declare;
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

pub use pass::{
    Changed, FunctionPass, Pass, PassContext, PassError, PassReport, PassRun, PerFunction,
};

//! Control-flow analyses the verifier, the passes and the backend share:
//! predecessor/successor lists and reverse post-order ([`cfg`]), dominator trees and
//! dominance frontiers ([`dom`]), post-dominator trees ([`postdom`]), natural loops with
//! preheaders and exits ([`loops`]), the plain-CFG and structured forms ([`form`]), and
//! the SPIR-V structural closure ([`closure`]), and
//! the registry of analyses `xir-opt --print=ANALYSIS` prints ([`print`]).
//!
//! Edges are upstream's "executable successors": the operand blocks of a block's
//! terminator. Structured side fields (merge, loop body/update) are not edges.

pub mod cfg;
pub mod closure;
pub mod dom;
pub mod form;
pub mod loops;
pub mod postdom;
pub mod print;

pub use cfg::Cfg;
pub use closure::{Membership, StructuralClosure};
pub use dom::DomTree;
pub use loops::{LoopData, LoopForest, LoopId};
pub use postdom::PostDomTree;

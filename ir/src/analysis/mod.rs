//! Control-flow analyses the verifier and passes share: predecessor/successor lists and
//! reverse post-order ([`cfg`]), dominator trees and dominance frontiers ([`dom`]).
//!
//! Edges are upstream's "executable successors": the operand blocks of a block's
//! terminator. Structured side fields (merge, loop body/update) are not edges.

pub mod cfg;
pub mod dom;

pub use cfg::Cfg;
pub use dom::DomTree;

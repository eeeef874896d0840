//! Helpers shared by several passes (never passes themselves): batched editing
//! ([`edit`]), the call graph ([`calls`]), the call-site inliner ([`inline`]), memory-effect classification ([`effects`]), pointers into local variables ([`local_mem`]), what the plain-CFG loop passes share ([`loops`]), constant creation and reading
//! ([`constant`]), the constant evaluator shared by `const-fold` and `sccp`
//! ([`const_eval`]), phi utilities ([`phi`]) constant-aware reachability
//! ([`reach`]) and the equality key of pure instructions ([`value_number`]).

pub mod calls;
pub mod const_eval;
pub mod constant;
pub mod edit;
pub mod effects;
pub mod inline;
pub mod local_mem;
pub mod loops;
pub mod phi;
pub mod reach;
pub mod value_number;

//! Analyses and their cache.
//!
//! An [`Analysis`] is computed for one function on demand and cached by type in
//! [`AnalysisCache`]; the pipeline invalidates a function's entries when a pass reports
//! that it changed the IR (and everything after a module-level change).
//!
//! The analyses themselves live in `xir-ir` (they are shared with the verifier); this
//! module wraps them as [`Analysis`] impls so the cache can serve them:
//! [`Cfg`](xir_ir::analysis::Cfg), [`DomTree`](xir_ir::analysis::DomTree),
//! [`DomFrontiers`] and [`UseMap`](xir_ir::uses::UseMap).
//!
//! A pass that edits a function and then needs an analysis of the *edited* function must
//! invalidate that function first ([`AnalysisCache::invalidate_function`]) or compute the
//! analysis directly; the cache never notices edits by itself.

mod cfg;
mod uses;

pub use cfg::DomFrontiers;

use rustc_hash::FxHashMap;
use std::any::{Any, TypeId};
use std::rc::Rc;
use xir_ir::{FuncId, Module};

/// A per-function analysis.
pub trait Analysis: Any {
    /// Computes the analysis of function `f`.
    fn compute(module: &Module, f: FuncId) -> Self
    where
        Self: Sized;
}

/// Per-function cache of analyses, keyed by analysis type.
#[derive(Default)]
pub struct AnalysisCache {
    entries: FxHashMap<(FuncId, TypeId), Rc<dyn Any>>,
    /// How many analyses were computed (not served from the cache).
    pub computed: u64,
}

impl AnalysisCache {
    /// The analysis `A` of `f`, computed if not cached.
    pub fn get<A: Analysis>(&mut self, module: &Module, f: FuncId) -> Rc<A> {
        let key = (f, TypeId::of::<A>());
        if let Some(a) = self.entries.get(&key)
            && let Ok(a) = a.clone().downcast::<A>()
        {
            return a;
        }
        self.computed += 1;
        let a = Rc::new(A::compute(module, f));
        self.entries.insert(key, a.clone());
        a
    }
    /// Drops every analysis of `f`.
    pub fn invalidate_function(&mut self, f: FuncId) {
        self.entries.retain(|(g, _), _| *g != f);
    }
    /// Drops everything.
    pub fn invalidate_all(&mut self) {
        self.entries.clear();
    }
}

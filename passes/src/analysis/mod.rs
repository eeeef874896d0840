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
    /// Computes the analysis of function `f`. Analyses it depends on come from `cache`
    /// (computed there if missing), so a dominator tree reuses the cached CFG.
    fn compute(module: &Module, f: FuncId, cache: &mut AnalysisCache) -> Self
    where
        Self: Sized;
}

/// The cached analyses of one function, by type (a handful at most: a list beats a map).
type FunctionEntries = Vec<(TypeId, Rc<dyn Any>)>;

/// Per-function cache of analyses, keyed by function and then by analysis type.
///
/// Entries are grouped per function so that invalidating one function costs O(1)
/// whatever the module size (a pass that changes every other function of an N-function
/// module would otherwise pay O(N) per invalidation).
#[derive(Default)]
pub struct AnalysisCache {
    entries: FxHashMap<FuncId, FunctionEntries>,
    /// How many analyses were computed (not served from the cache), dependencies
    /// included.
    pub computed: u64,
}

impl AnalysisCache {
    /// The analysis `A` of `f`, computed if not cached.
    pub fn get<A: Analysis>(&mut self, module: &Module, f: FuncId) -> Rc<A> {
        if let Some(a) = self.cached::<A>(f) {
            return a;
        }
        self.computed += 1;
        let a = Rc::new(A::compute(module, f, self));
        self.entries
            .entry(f)
            .or_default()
            .push((TypeId::of::<A>(), a.clone()));
        a
    }
    /// The analysis `A` of `f` if it is cached (never computes).
    pub fn cached<A: Analysis>(&self, f: FuncId) -> Option<Rc<A>> {
        let id = TypeId::of::<A>();
        let (_, a) = self.entries.get(&f)?.iter().find(|(t, _)| *t == id)?;
        a.clone().downcast::<A>().ok()
    }
    /// Drops every analysis of `f`.
    pub fn invalidate_function(&mut self, f: FuncId) {
        self.entries.remove(&f);
    }
    /// Drops everything.
    pub fn invalidate_all(&mut self) {
        self.entries.clear();
    }
}

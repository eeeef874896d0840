//! Analyses and their cache.
//!
//! An [`Analysis`] is computed for one function on demand and cached by type in
//! [`AnalysisCache`]. Each analysis states the smallest [`Changed`] that invalidates it
//! ([`Analysis::INVALIDATED_BY`]): control-flow analyses (CFG, dominators, frontiers)
//! survive an instruction-only change, the use map survives only "nothing changed".
//! [`PerFunction`](crate::pass::PerFunction) drops each function's entries by that
//! function's change, and the pipeline drops every function's entries by a pass's overall
//! change (a module pass may have touched any function).
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

use crate::pass::Changed;
use rustc_hash::FxHashMap;
use std::any::{Any, TypeId};
use std::rc::Rc;
use xir_ir::{FuncId, Module};

/// A per-function analysis.
pub trait Analysis: Any {
    /// The smallest change that makes a cached result stale.
    const INVALIDATED_BY: Changed;
    /// Computes the analysis of function `f`. Analyses it depends on come from `cache`
    /// (computed there if missing), so a dominator tree reuses the cached CFG.
    fn compute(module: &Module, f: FuncId, cache: &mut AnalysisCache) -> Self
    where
        Self: Sized;
}

/// The cached analyses of one function, by type, each with the change that invalidates
/// it (a handful at most: a list beats a map).
type FunctionEntries = Vec<(TypeId, Changed, Rc<dyn Any>)>;

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
            .push((TypeId::of::<A>(), A::INVALIDATED_BY, a.clone()));
        a
    }
    /// The analysis `A` of `f` if it is cached (never computes).
    pub fn cached<A: Analysis>(&self, f: FuncId) -> Option<Rc<A>> {
        let id = TypeId::of::<A>();
        let (_, _, a) = self.entries.get(&f)?.iter().find(|(t, _, _)| *t == id)?;
        a.clone().downcast::<A>().ok()
    }
    /// Drops every analysis of `f`.
    pub fn invalidate_function(&mut self, f: FuncId) {
        self.entries.remove(&f);
    }
    /// Drops the analyses of `f` that a change of size `changed` invalidates.
    pub fn invalidate_function_for(&mut self, f: FuncId, changed: Changed) {
        match changed {
            Changed::Nothing => {}
            Changed::ControlFlow => self.invalidate_function(f),
            Changed::Instructions => {
                if let Some(e) = self.entries.get_mut(&f) {
                    e.retain(|(_, by, _)| *by > changed);
                }
            }
        }
    }
    /// Drops everything.
    pub fn invalidate_all(&mut self) {
        self.entries.clear();
    }
    /// Drops, in every function, the analyses a change of size `changed` invalidates.
    pub fn invalidate_all_for(&mut self, changed: Changed) {
        match changed {
            Changed::Nothing => {}
            Changed::ControlFlow => self.invalidate_all(),
            Changed::Instructions => {
                for e in self.entries.values_mut() {
                    e.retain(|(_, by, _)| *by > changed);
                }
            }
        }
    }
}

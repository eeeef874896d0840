//! The module's call graph as passes over callables need it: every direct call site,
//! whether a function is used only as a direct callee, callee-first orders and recursive
//! strongly connected components.

use rustc_hash::FxHashSet;
use xir_ir::inst::InstKind;
use xir_ir::{FuncId, InstId, Module, SecondaryMap, Value};

/// One placed `call` instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallSite {
    /// The function holding the call.
    pub caller: FuncId,
    /// The `call` instruction.
    pub inst: InstId,
    /// The called function (operand 0).
    pub callee: FuncId,
}

/// The call graph of a module (placed instructions only).
#[derive(Clone, Debug, Default)]
pub struct CallGraph {
    /// Every direct call, in module order (caller by caller, block by block).
    pub sites: Vec<CallSite>,
    /// Functions named anywhere other than a `call`'s callee slot (ray-query pipelines,
    /// a function passed as an argument, …): their signatures are not ours to change.
    pub escaping: FxHashSet<FuncId>,
}

impl CallGraph {
    /// Scans every placed instruction of `m`.
    pub fn compute(m: &Module) -> Self {
        let mut g = CallGraph::default();
        for &f in &m.func_order {
            let func = m.func(f);
            for i in func.placed_insts() {
                let d = func.inst(i);
                for (k, op) in d.operands.iter().enumerate() {
                    if let Value::Func(callee) = *op {
                        if k == 0 && matches!(d.kind, InstKind::Call) {
                            g.sites.push(CallSite {
                                caller: f,
                                inst: i,
                                callee,
                            });
                        } else {
                            g.escaping.insert(callee);
                        }
                    }
                }
            }
        }
        g
    }

    /// The call sites of `callee`.
    pub fn sites_of(&self, callee: FuncId) -> impl Iterator<Item = &CallSite> + '_ {
        self.sites.iter().filter(move |s| s.callee == callee)
    }

    /// The distinct callees of `caller`, in call order.
    pub fn callees_of(&self, caller: FuncId) -> Vec<FuncId> {
        let mut out = Vec::new();
        for s in self.sites.iter().filter(|s| s.caller == caller) {
            if !out.contains(&s.callee) {
                out.push(s.callee);
            }
        }
        out
    }

    /// Callee-first (post-order) over the functions reachable from the roots: functions
    /// nobody calls, in module order. Functions reachable only through a cycle that no
    /// root reaches are not listed (upstream's traversal from the call graph's roots).
    pub fn post_order(&self, m: &Module) -> Vec<FuncId> {
        let called: FxHashSet<FuncId> = self.sites.iter().map(|s| s.callee).collect();
        let mut visited = FxHashSet::default();
        let mut out = Vec::new();
        for &root in m.func_order.iter().filter(|f| !called.contains(f)) {
            // Iterative DFS: (function, index of the next callee to visit).
            if !visited.insert(root) {
                continue;
            }
            let mut stack = vec![(root, self.callees_of(root), 0usize)];
            while let Some((f, callees, k)) = stack.last_mut() {
                if let Some(&c) = callees.get(*k) {
                    *k += 1;
                    if visited.insert(c) {
                        let cs = self.callees_of(c);
                        stack.push((c, cs, 0));
                    }
                } else {
                    out.push(*f);
                    stack.pop();
                }
            }
        }
        out
    }

    /// Functions on a call cycle (a recursive SCC, including a function calling itself).
    pub fn recursive(&self, m: &Module) -> SecondaryMap<FuncId, bool> {
        // Tarjan's algorithm, iteratively.
        let mut index: SecondaryMap<FuncId, Option<u32>> = SecondaryMap::with_default(None);
        let mut low: SecondaryMap<FuncId, u32> = SecondaryMap::with_default(0);
        let mut on_stack: SecondaryMap<FuncId, bool> = SecondaryMap::with_default(false);
        let mut rec: SecondaryMap<FuncId, bool> = SecondaryMap::with_default(false);
        let mut scc_stack: Vec<FuncId> = Vec::new();
        let mut next = 0u32;
        for &root in &m.func_order {
            if index[root].is_some() {
                continue;
            }
            let mut work = vec![(root, self.callees_of(root), 0usize)];
            index[root] = Some(next);
            low[root] = next;
            next += 1;
            scc_stack.push(root);
            on_stack[root] = true;
            while let Some((f, callees, k)) = work.last_mut() {
                let f = *f;
                if let Some(&c) = callees.get(*k) {
                    *k += 1;
                    if c == f {
                        rec[f] = true;
                    }
                    match index[c] {
                        None => {
                            index[c] = Some(next);
                            low[c] = next;
                            next += 1;
                            scc_stack.push(c);
                            on_stack[c] = true;
                            let cs = self.callees_of(c);
                            work.push((c, cs, 0));
                        }
                        Some(ic) if on_stack[c] => low[f] = low[f].min(ic),
                        Some(_) => {}
                    }
                } else {
                    work.pop();
                    if let Some((p, _, _)) = work.last() {
                        let p = *p;
                        low[p] = low[p].min(low[f]);
                    }
                    if Some(low[f]) == index[f] {
                        let mut comp = Vec::new();
                        while let Some(x) = scc_stack.pop() {
                            on_stack[x] = false;
                            comp.push(x);
                            if x == f {
                                break;
                            }
                        }
                        if comp.len() > 1 {
                            for x in comp {
                                rec[x] = true;
                            }
                        }
                    }
                }
            }
        }
        rec
    }
}

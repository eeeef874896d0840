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

/// The call graph of a module (placed instructions only). Queries cost the size of
/// their answer, and [`CallGraph::rescan`] brings it up to date after an edit in time
/// proportional to what changed: a pass working through the callables one by one keeps
/// one graph (recomputing or re-indexing it per callable made `inline` take 52 s, then
/// 7.5 s, then 3.2 s on a module of 5,000 callables; docs/passes-perf.md).
#[derive(Clone, Debug, Default)]
pub struct CallGraph {
    /// What each function's placed instructions call and name.
    per_caller: SecondaryMap<FuncId, Scanned>,
    /// The module's functions in order when the graph was computed.
    order: Vec<FuncId>,
    /// Position of each function in `order`.
    position: SecondaryMap<FuncId, u32>,
    /// Per callee: its call sites in module order (callers in `order`, each caller's
    /// sites in block order).
    by_callee: SecondaryMap<FuncId, Vec<CallSite>>,
    /// Per function: how many of the module's non-call references name it.
    escaping: SecondaryMap<FuncId, u32>,
    /// Number of call sites in the module.
    site_count: usize,
}

/// One function's call sites (in block order), its distinct callees (in call order) and
/// the functions it names elsewhere.
#[derive(Clone, Debug, Default)]
struct Scanned {
    sites: Vec<CallSite>,
    callees: Vec<FuncId>,
    escaping: Vec<FuncId>,
}

impl CallGraph {
    /// Scans every placed instruction of `m`.
    pub fn compute(m: &Module) -> Self {
        let mut g = CallGraph {
            order: m.func_order.clone(),
            ..CallGraph::default()
        };
        for (k, &f) in m.func_order.iter().enumerate() {
            g.position.set(f, k as u32);
        }
        for &f in &m.func_order {
            let scanned = scan(m, f);
            g.add(&scanned);
            g.per_caller.set(f, scanned);
        }
        g
    }

    /// Scans `callers` again after they were edited (a function no longer in the module
    /// drops out); the cost is theirs and their callees' site lists, not the module's.
    /// Functions added to the module since [`CallGraph::compute`] are not tracked.
    pub fn rescan(&mut self, m: &Module, callers: &[FuncId]) {
        for &f in callers {
            let old = std::mem::take(self.per_caller.get_mut(f));
            for &c in &old.callees {
                self.by_callee.get_mut(c).retain(|s| s.caller != f);
            }
            for &c in &old.escaping {
                *self.escaping.get_mut(c) -= 1;
            }
            self.site_count -= old.sites.len();
            let fresh = if m.func_order.contains(&f) {
                scan(m, f)
            } else {
                Scanned::default()
            };
            self.add(&fresh);
            self.per_caller.set(f, fresh);
        }
    }

    /// Adds one function's scan to the per-callee lists and escape counts.
    fn add(&mut self, scanned: &Scanned) {
        for s in &scanned.sites {
            let at = *self.position.get(s.caller);
            let list = self.by_callee.get_mut(s.callee);
            // After the sites of earlier callers; a caller's sites arrive in block order.
            let k = list.partition_point(|x| *self.position.get(x.caller) <= at);
            list.insert(k, *s);
        }
        for &c in &scanned.escaping {
            *self.escaping.get_mut(c) += 1;
        }
        self.site_count += scanned.sites.len();
    }

    /// Every direct call, in module order (caller by caller, block by block).
    pub fn sites(&self) -> impl Iterator<Item = &CallSite> + '_ {
        self.order
            .iter()
            .flat_map(move |&f| self.per_caller.get(f).sites.iter())
    }

    /// Whether the module has no direct call.
    pub fn has_no_sites(&self) -> bool {
        self.site_count == 0
    }

    /// Whether `f` is named anywhere other than a `call`'s callee slot (ray-query
    /// pipelines, a function passed as an argument, …): its signature is not ours to
    /// change.
    pub fn is_escaping(&self, f: FuncId) -> bool {
        *self.escaping.get(f) > 0
    }

    /// The call sites of `callee`, in module order.
    pub fn sites_of(&self, callee: FuncId) -> impl Iterator<Item = &CallSite> + '_ {
        self.by_callee.get(callee).iter()
    }

    /// The distinct callees of `caller`, in call order.
    pub fn callees_of(&self, caller: FuncId) -> &[FuncId] {
        &self.per_caller.get(caller).callees
    }

    /// Callee-first (post-order) over the functions reachable from the roots: functions
    /// nobody calls, in module order. Functions reachable only through a cycle that no
    /// root reaches are not listed (upstream's traversal from the call graph's roots).
    pub fn post_order(&self, m: &Module) -> Vec<FuncId> {
        let called: FxHashSet<FuncId> = self.sites().map(|s| s.callee).collect();
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

/// The call sites and other function references of `f`'s placed instructions.
fn scan(m: &Module, f: FuncId) -> Scanned {
    let func = m.func(f);
    let mut out = Scanned::default();
    let mut listed: FxHashSet<FuncId> = FxHashSet::default();
    for i in func.placed_insts() {
        let d = func.inst(i);
        for (k, op) in d.operands.iter().enumerate() {
            if let Value::Func(callee) = *op {
                if k == 0 && matches!(d.kind, InstKind::Call) {
                    out.sites.push(CallSite {
                        caller: f,
                        inst: i,
                        callee,
                    });
                    if listed.insert(callee) {
                        out.callees.push(callee);
                    }
                } else {
                    out.escaping.push(callee);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::CallGraph;
    use xir_ir::inst::{InstData, InstKind};
    use xir_ir::{Module, Value};

    const SRC: &str = "module;

const %one: u32 = 1u32;

callable %a: u32 (
    %x: u32;
) = define %a0: {
    %y: u32 = arithmetic binary_add %x, %one;
    %r: void = return %y;
};

callable %b: u32 (
    %x: u32;
) = define %b0: {
    %y: u32 = call %a, %x;
    %r: void = return %y;
};

kernel %k () = define %k0: {
    %p: u32 = call %b, %one;
    %q: u32 = call %a, %p;
    %r: void = return;
};
";

    /// Everything a query can see, for comparing two graphs.
    fn view(g: &CallGraph, m: &Module) -> String {
        let mut out = format!("{:?}\n", g.sites().collect::<Vec<_>>());
        for &f in &m.func_order {
            out += &format!(
                "{f:?}: sites_of {:?} callees {:?} escaping {}\n",
                g.sites_of(f).collect::<Vec<_>>(),
                g.callees_of(f),
                g.is_escaping(f)
            );
        }
        out
    }

    /// Rescanning the edited functions gives the graph a fresh computation gives: after
    /// a call is added in the middle of a caller, and after a function is removed.
    #[test]
    fn rescan_equals_recompute() {
        let (mut m, _) = xir_ir::text::parse_module(SRC).expect("parses");
        let (a, b, k) = (m.func_order[0], m.func_order[1], m.func_order[2]);
        let mut g = CallGraph::compute(&m);
        // `%k` calls `%a` before its call of `%b`.
        let first = m.func(k).blocks[m.func(k).body.unwrap()].insts[0];
        let call = InstData::new(
            InstKind::Call,
            m.func(k).inst(first).ty,
            [
                Value::Func(a),
                Value::Const(m.constants.iter().next().unwrap().0),
            ],
        );
        m.func_mut(k).insert_inst_before(first, call);
        g.rescan(&m, &[k]);
        assert_eq!(view(&g, &m), view(&CallGraph::compute(&m), &m));
        assert_eq!(g.sites_of(a).count(), 3);
        assert_eq!(g.callees_of(k), &[a, b]);
        // `%b` goes: its call of `%a` goes with it.
        m.remove_function(b);
        g.rescan(&m, &[b]);
        assert_eq!(view(&g, &m), view(&CallGraph::compute(&m), &m));
        assert_eq!(g.sites_of(a).count(), 2);
        assert!(!g.has_no_sites());
    }
}

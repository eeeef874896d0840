//! SPIR-V's structured-exit rules over XIR's constructs: the part of
//! [`Form::Structured`](super::Form::Structured) that needs the whole function.
//!
//! **Model** (what the backend emits and spirv-val checks): the executable edges are the
//! operand blocks of the terminators of blocks ordinarily reachable from the body (a
//! role block no ordinary edge reaches is emitted in the canonical unreachable form, so
//! its payload has no edges; a dead `update` block branches back to its prepare block).
//! Constructs, each with a header, a merge and the blocks it contains:
//!
//! * `if` / `switch` (and `autodiff` / `outline`, treated like `if`) headed by the block
//!   they end, with their merge;
//! * `loop`: headed by its prepare block (the SPIR-V loop header), continue target its
//!   update block, and the update's **continue construct** (headed by the update block)
//!   kept apart from the loop construct, as SPIR-V does;
//! * `simple_loop` / `ray_query_loop`: headed by a synthetic header between the
//!   construct's block and its body (the emitter makes one); a branch back to the body
//!   is the loop's `continue`.
//!
//! A construct contains the blocks its header dominates and its merge does not, over the
//! *structural* graph (the edges plus header → merge and prepare → update, as SPIR-V's
//! merge instructions add them). The rules, as spirv-val states them:
//!
//! * an `if` may exit only to its merge, the nearest enclosing `switch`'s merge (when no
//!   loop lies between) or the nearest enclosing loop's merge or continue target;
//! * a `switch` likewise, but never to an enclosing `switch`'s merge;
//! * a loop may exit only to its merge or its continue target (a nested loop cannot
//!   branch to an outer loop's merge or continue target);
//! * a continue construct may exit only to its loop's header (the back edge) or merge;
//! * a branch to a block that dominates it is a back edge: only `update → prepare`
//!   (from the continue construct) or a branch back to a `simple_loop` body from inside;
//! * a header dominates its merge (and a `loop`'s prepare its update block);
//! * one block is the merge or continue target of at most one construct.
//!
//! Linear apart from the exit walk (each edge checks the constructs it leaves, O(1) each):
//! dominators by Lengauer–Tarjan, construct nesting in one dominator-tree walk, and
//! containment and dominance by preorder intervals.

use super::{Violation, ViolationKind};
use crate::analysis::dom::{LengauerTarjan, NONE};
use crate::entity::SecondaryMap;
use crate::function::Function;
use crate::inst::{InstData, InstId, InstKind};
use crate::value::BlockId;

/// What kind of construct a [`ConstructRef`] is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstructPart {
    /// The construct of an `if`, `switch`, `autodiff` or `outline` (selection rules).
    Selection,
    /// A `switch` construct.
    Switch,
    /// A `loop`'s loop construct (prepare and body, not the update).
    Loop,
    /// A `loop`'s continue construct (its update block and what it dominates).
    Continue,
    /// A `simple_loop` or `ray_query_loop` construct.
    SimpleLoop,
}

/// The construct a violation is about: the instruction that declares it and its block.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConstructRef {
    /// The construct instruction (`if`, `switch`, `loop`, …).
    pub inst: InstId,
    /// Its block.
    pub block: BlockId,
    /// Its text keyword.
    pub keyword: &'static str,
    /// Which construct of the instruction (a `loop` has two).
    pub part: ConstructPart,
}

impl ConstructRef {
    /// The rule for this construct's exits, in words.
    pub fn exit_rule(&self) -> String {
        match self.part {
            ConstructPart::Selection => format!(
                "an `{}` may exit only to its merge, the nearest enclosing switch's merge, or the nearest enclosing loop's merge or continue target",
                self.keyword
            ),
            ConstructPart::Switch => "a `switch` may exit only to its merge or the nearest enclosing loop's merge or continue target, never to an enclosing switch's merge".into(),
            ConstructPart::Loop => "a loop may exit only to its own merge or continue target (a nested loop cannot branch to an outer loop's merge or continue target)".into(),
            ConstructPart::Continue => "a loop's update (continue construct) may exit only to its prepare block or its merge".into(),
            ConstructPart::SimpleLoop => format!(
                "a `{}` may exit only to its merge (or continue to its body)",
                self.keyword
            ),
        }
    }
}

#[derive(Clone, Debug)]
struct Construct {
    part: ConstructPart,
    header: u32,
    merge: Option<u32>,
    /// Loop: its update block; simple loop: its body; continue construct: the prepare.
    cont: Option<u32>,
    /// Loop: its continue construct; continue construct: its loop.
    twin: Option<usize>,
    parent: Option<usize>,
    /// Nearest enclosing loop (a continue construct's is its own loop).
    near_loop: Option<usize>,
    /// Nearest enclosing switch with no loop between.
    near_switch: Option<usize>,
    at: ConstructRef,
    pre: u32,
    post: u32,
}

/// The terminator of `b` if the block is owned and its last instruction is a placed
/// terminator.
fn term(f: &Function, b: BlockId) -> Option<(InstId, &InstData)> {
    let i = *f.blocks.get(b)?.insts.last()?;
    let d = f.insts.get(i)?;
    (d.block == Some(b) && d.kind.is_terminator()).then_some((i, d))
}

/// The dominator and construct facts of one function.
struct Analysis {
    blocks: Vec<BlockId>,
    node: SecondaryMap<BlockId, u32>,
    nb: usize,
    synth_body: Vec<u32>,
    num: Vec<u32>,
    dpre: Vec<u32>,
    dpost: Vec<u32>,
    cons: Vec<Construct>,
    inner: Vec<Option<usize>>,
    headed: Vec<Option<usize>>,
    body_of: Vec<Option<usize>>,
    checked: Vec<(u32, u32, InstId, &'static str)>,
}

impl Analysis {
    fn block_of(&self, n: u32) -> BlockId {
        let n = n as usize;
        if n < self.nb {
            self.blocks[n]
        } else {
            self.blocks[self.synth_body[n - self.nb] as usize]
        }
    }
    /// `a` dominates `b` (node numbers; both reachable).
    fn dom(&self, a: u32, b: u32) -> bool {
        let (a, b) = (self.num[a as usize] as usize, self.num[b as usize] as usize);
        self.dpre[a] <= self.dpre[b] && self.dpre[b] <= self.dpost[a]
    }
    fn within(&self, c: usize, x: usize) -> bool {
        let cons = &self.cons;
        cons[c].pre <= cons[x].pre && cons[x].pre <= cons[c].post
    }
    fn contains(&self, c: usize, n: u32) -> bool {
        let Some(x) = self.inner[n as usize] else {
            return false;
        };
        self.within(c, x)
            && !(self.cons[c].part == ConstructPart::Loop
                && self.cons[c].twin.is_some_and(|k| self.within(k, x)))
    }
    fn is_exit(&self, c: usize, t: u32) -> bool {
        let cons = &self.cons;
        let k = &cons[c];
        let lp = |l: Option<usize>| {
            l.is_some_and(|l| cons[l].merge == Some(t) || cons[l].cont == Some(t))
        };
        match k.part {
            ConstructPart::Selection => {
                k.merge == Some(t)
                    || k.near_switch.is_some_and(|s| cons[s].merge == Some(t))
                    || lp(k.near_loop)
            }
            ConstructPart::Switch => k.merge == Some(t) || lp(k.near_loop),
            ConstructPart::Loop | ConstructPart::SimpleLoop => {
                k.merge == Some(t) || k.cont == Some(t)
            }
            ConstructPart::Continue => {
                k.cont == Some(t) || k.twin.is_some_and(|l| cons[l].merge == Some(t))
            }
        }
    }
}

/// Appends the structured-exit violations of `f` to `out`.
pub(super) fn check(f: &Function, out: &mut Vec<Violation>) {
    let Some(a) = analyze(f, out) else { return };
    let mut last: Option<InstId> = None;
    for &(x, t, i, keyword) in &a.checked {
        if last == Some(i) {
            continue; // one report per instruction
        }
        let mut bad = None;
        let mut c = a.inner[x as usize];
        while let Some(cc) = c {
            if a.contains(cc, t) {
                break;
            }
            if !a.is_exit(cc, t) {
                bad = Some((ViolationKind::BadExit, Some(a.cons[cc].at)));
                break;
            }
            c = a.cons[cc].parent;
        }
        if bad.is_none() && a.dom(t, x) {
            let ok = match a.headed[t as usize].map(|h| &a.cons[h]) {
                Some(l) if l.part == ConstructPart::Loop => {
                    l.twin.is_some_and(|k| a.contains(k, x))
                }
                _ => a.body_of[t as usize].is_some_and(|s| a.contains(s, x)),
            };
            if !ok {
                bad = Some((ViolationKind::BadBackEdge, None));
            }
        }
        if let Some((kind, construct)) = bad {
            last = Some(i);
            out.push(Violation {
                block: a.blocks[x as usize],
                inst: i,
                keyword,
                kind,
                target: Some(a.block_of(t)),
                construct,
            });
        }
    }
}

/// Builds the structural graph, dominators and construct tree of `f`, pushing the
/// header-dominates-merge and one-construct-per-merge violations to `out`.
fn analyze(f: &Function, out: &mut Vec<Violation>) -> Option<Analysis> {
    let body = f.body?;
    // Dense node numbers: owned blocks, then synthetic simple-loop headers.
    let mut node: SecondaryMap<BlockId, u32> = SecondaryMap::with_default(NONE);
    let mut blocks: Vec<BlockId> = Vec::new();
    for &b in &f.block_order {
        if f.blocks.get(b).is_some() && node[b] == NONE {
            node[b] = blocks.len() as u32;
            blocks.push(b);
        }
    }
    if node[body] == NONE {
        return None;
    }
    let nb = blocks.len();
    let id = |b: Option<BlockId>| b.map(|b| node[b]).filter(|n| *n != NONE);
    // Ordinary reachability.
    let mut reach = vec![false; nb];
    let mut stack = vec![node[body]];
    reach[node[body] as usize] = true;
    while let Some(n) = stack.pop() {
        if let Some((_, d)) = term(f, blocks[n as usize]) {
            for s in d.operand_blocks().filter_map(|b| id(Some(b))) {
                if !reach[s as usize] {
                    reach[s as usize] = true;
                    stack.push(s);
                }
            }
        }
    }
    // The structural graph, its checked edges and the constructs.
    let mut succ: Vec<Vec<u32>> = vec![Vec::new(); nb];
    let mut checked: Vec<(u32, u32, InstId, &'static str)> = Vec::new();
    let mut cons: Vec<Construct> = Vec::new();
    let mut synth_body: Vec<u32> = Vec::new(); // synthetic header k (node nb + k) → body
    let mut dead_updates: Vec<(u32, u32)> = Vec::new();
    for (n, &b) in blocks.iter().enumerate() {
        if !reach[n] {
            continue;
        }
        let Some((i, d)) = term(f, b) else { continue };
        let keyword = d.kind.tag().text_keyword();
        let at = |part| ConstructRef {
            inst: i,
            block: b,
            keyword,
            part,
        };
        let mk = |part, header: u32, merge: Option<u32>, cont: Option<u32>| Construct {
            part,
            header,
            merge,
            cont,
            twin: None,
            parent: None,
            near_loop: None,
            near_switch: None,
            at: at(part),
            pre: 0,
            post: 0,
        };
        let targets: Vec<u32> = d.operand_blocks().filter_map(|x| id(Some(x))).collect();
        match &d.kind {
            InstKind::If { merge }
            | InstKind::Outline { merge }
            | InstKind::AutodiffScope { merge, .. } => {
                cons.push(mk(ConstructPart::Selection, n as u32, id(*merge), None));
                succ[n].extend(id(*merge));
            }
            InstKind::Switch { merge, .. } => {
                cons.push(mk(ConstructPart::Switch, n as u32, id(*merge), None));
                succ[n].extend(id(*merge));
            }
            InstKind::Loop { update, merge, .. } => {
                if let Some(&p) = targets.first() {
                    let (u, m) = (id(*update), id(*merge));
                    let l = cons.len();
                    cons.push(mk(ConstructPart::Loop, p, m, u));
                    succ[p as usize].extend(m);
                    if let Some(u) = u {
                        succ[p as usize].push(u);
                        let mut k = mk(ConstructPart::Continue, u, None, Some(p));
                        k.twin = Some(l);
                        k.parent = Some(l);
                        cons[l].twin = Some(l + 1);
                        cons.push(k);
                        if !reach[u as usize] {
                            dead_updates.push((u, p));
                        }
                    }
                }
            }
            InstKind::SimpleLoop { merge } | InstKind::RayQueryLoop { merge } => {
                if let Some(&x) = targets.first() {
                    let h = (nb + synth_body.len()) as u32;
                    synth_body.push(x);
                    succ.push(vec![x]);
                    succ[h as usize].extend(id(*merge));
                    succ[n].push(h);
                    cons.push(mk(ConstructPart::SimpleLoop, h, id(*merge), Some(x)));
                    checked.push((n as u32, h, i, keyword));
                    continue;
                }
            }
            _ => {}
        }
        for &t in &targets {
            succ[n].push(t);
            checked.push((n as u32, t, i, keyword));
        }
    }
    for (u, p) in dead_updates {
        succ[u as usize].push(p);
    }
    let total = succ.len();

    // Dominators over the structural graph (DFS preorder numbers for Lengauer–Tarjan).
    let root = node[body];
    let mut num = vec![NONE; total];
    let mut vertex: Vec<u32> = Vec::with_capacity(total);
    let mut parent: Vec<u32> = Vec::with_capacity(total);
    let mut dfs: Vec<(u32, usize)> = vec![(root, 0)];
    num[root as usize] = 0;
    vertex.push(root);
    parent.push(NONE);
    while let Some((v, k)) = dfs.last_mut() {
        let v = *v;
        if let Some(&s) = succ[v as usize].get(*k) {
            *k += 1;
            if num[s as usize] == NONE {
                num[s as usize] = vertex.len() as u32;
                vertex.push(s);
                parent.push(num[v as usize]);
                dfs.push((s, 0));
            }
        } else {
            dfs.pop();
        }
    }
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); vertex.len()];
    for (v, ss) in succ.iter().enumerate() {
        if num[v] == NONE {
            continue;
        }
        for &s in ss {
            preds[num[s as usize] as usize].push(num[v]);
        }
    }
    let mut lt = LengauerTarjan::default();
    lt.compute(&parent, |w| preds[w as usize].iter().copied());
    // Dominator tree preorder intervals (over DFS numbers).
    let nv = vertex.len();
    let mut kids: Vec<Vec<u32>> = vec![Vec::new(); nv];
    for w in 1..nv {
        kids[lt.idom[w] as usize].push(w as u32);
    }
    let (mut dpre, mut dpost) = (vec![0u32; nv], vec![0u32; nv]);
    let mut order: Vec<u32> = Vec::with_capacity(nv); // dominator-tree preorder
    let mut st: Vec<(u32, usize)> = vec![(0, 0)];
    let mut clock = 0u32;
    dpre[0] = 0;
    order.push(0);
    while let Some((v, k)) = st.last_mut() {
        let v = *v as usize;
        if let Some(&c) = kids[v].get(*k) {
            *k += 1;
            clock += 1;
            dpre[c as usize] = clock;
            order.push(c);
            st.push((c, 0));
        } else {
            dpost[v] = clock;
            st.pop();
        }
    }

    let dom = |a: u32, b: u32| {
        let (a, b) = (num[a as usize] as usize, num[b as usize] as usize);
        dpre[a] <= dpre[b] && dpre[b] <= dpost[a]
    };
    let block_of = |n: u32| -> BlockId {
        let n = n as usize;
        if n < nb {
            blocks[n]
        } else {
            blocks[synth_body[n - nb] as usize]
        }
    };
    // Headers, merge owners, and each node's innermost construct.
    let mut headed: Vec<Option<usize>> = vec![None; total];
    let mut owner: Vec<Option<usize>> = vec![None; total];
    let mut body_of: Vec<Option<usize>> = vec![None; total];
    for (c, k) in cons.iter().enumerate() {
        if num[k.header as usize] == NONE {
            continue;
        }
        if k.part != ConstructPart::Continue && headed[k.header as usize].is_none() {
            headed[k.header as usize] = Some(c);
        }
        if k.part == ConstructPart::SimpleLoop
            && let Some(x) = k.cont
        {
            body_of[x as usize] = Some(c);
        }
        let roles = [
            k.merge,
            if k.part == ConstructPart::Loop {
                k.cont
            } else {
                None
            },
        ];
        for r in roles.into_iter().flatten() {
            match owner[r as usize] {
                Some(o) if o != c => {
                    // The second owner's header rarely dominates the shared block too:
                    // one report says it.
                    out.push(Violation {
                        block: k.at.block,
                        inst: k.at.inst,
                        keyword: k.at.keyword,
                        kind: ViolationKind::SharedMerge,
                        target: Some(block_of(r)),
                        construct: Some(cons[o].at),
                    });
                    continue;
                }
                _ => owner[r as usize] = Some(c),
            }
            if !dom(k.header, r) || r == k.header {
                out.push(Violation {
                    block: k.at.block,
                    inst: k.at.inst,
                    keyword: k.at.keyword,
                    kind: ViolationKind::MergeNotDominated,
                    target: Some(block_of(r)),
                    construct: Some(k.at),
                });
            }
        }
    }
    let mut inner: Vec<Option<usize>> = vec![None; total];
    for &w in &order {
        let n = vertex[w as usize];
        let mut c = if w == 0 {
            None
        } else {
            inner[vertex[lt.idom[w as usize] as usize] as usize]
        };
        while let Some(cc) = c {
            let k = &cons[cc];
            if k.merge == Some(n) {
                c = k.parent;
            } else if k.part == ConstructPart::Loop && k.cont == Some(n) {
                c = k.twin;
                break;
            } else {
                break;
            }
        }
        if let Some(h) = headed[n as usize] {
            cons[h].parent = c;
            c = Some(h);
        }
        inner[n as usize] = c;
    }
    // Construct-tree preorder intervals, nearest loop and switch.
    let mut ckids: Vec<Vec<usize>> = vec![Vec::new(); cons.len()];
    let mut roots = Vec::new();
    for (c, k) in cons.iter().enumerate() {
        if num[k.header as usize] == NONE {
            continue;
        }
        match k.parent {
            Some(p) => ckids[p].push(c),
            None => roots.push(c),
        }
    }
    let mut clock = 0u32;
    for r in roots {
        let mut st: Vec<(usize, usize)> = vec![(r, 0)];
        cons[r].pre = clock;
        while let Some((v, k)) = st.last_mut() {
            let v = *v;
            if let Some(&c) = ckids[v].get(*k) {
                *k += 1;
                clock += 1;
                let p = &cons[v];
                let (nl, ns) = match p.part {
                    ConstructPart::Loop | ConstructPart::SimpleLoop => (Some(v), None),
                    ConstructPart::Continue => (p.twin, None),
                    ConstructPart::Switch => (p.near_loop, Some(v)),
                    ConstructPart::Selection => (p.near_loop, p.near_switch),
                };
                cons[c].near_loop = nl;
                cons[c].near_switch = ns;
                cons[c].pre = clock;
                st.push((c, 0));
            } else {
                cons[v].post = clock;
                st.pop();
            }
        }
        clock += 1;
    }
    Some(Analysis {
        blocks,
        node,
        nb,
        synth_body,
        num,
        dpre,
        dpost,
        cons,
        inner,
        headed,
        body_of,
        checked,
    })
}

/// A construct of a [`ConstructTree`].
pub type ConstructId = usize;

/// The constructs of a function as structured form sees them (for passes that must
/// produce structured exits): each ordinarily reachable block's innermost construct,
/// construct nesting, merges and membership. Blocks are the function's at compute time.
pub struct ConstructTree {
    a: Analysis,
}

impl ConstructTree {
    /// The tree of `f` (`None` when `f` has no body).
    pub fn compute(f: &Function) -> Option<Self> {
        let mut ignored = Vec::new();
        analyze(f, &mut ignored).map(|a| ConstructTree { a })
    }
    fn n(&self, b: BlockId) -> Option<u32> {
        let n = *self.a.node.get(b);
        (n != NONE && self.a.num[n as usize] != NONE).then_some(n)
    }
    /// The innermost construct containing `b` (`None` at top level or when `b` is
    /// unknown or unreachable).
    pub fn innermost(&self, b: BlockId) -> Option<ConstructId> {
        self.a.inner[self.n(b)? as usize]
    }
    /// The innermost construct containing `b` that `b` does not head (the construct a
    /// block's own terminator opens is skipped).
    pub fn enclosing(&self, b: BlockId) -> Option<ConstructId> {
        let n = self.n(b)?;
        let c = self.a.inner[n as usize]?;
        if self.a.cons[c].header == n {
            self.a.cons[c].parent
        } else {
            Some(c)
        }
    }
    /// Whether construct `c` contains block `b`.
    pub fn contains(&self, c: ConstructId, b: BlockId) -> bool {
        self.n(b).is_some_and(|n| self.a.contains(c, n))
    }
    /// The construct's kind, instruction and block.
    pub fn at(&self, c: ConstructId) -> ConstructRef {
        self.a.cons[c].at
    }
    /// Its merge block (a continue construct's is its loop's merge).
    pub fn merge(&self, c: ConstructId) -> Option<BlockId> {
        let k = &self.a.cons[c];
        let m = match k.part {
            ConstructPart::Continue => k.twin.and_then(|l| self.a.cons[l].merge),
            _ => k.merge,
        };
        m.map(|m| self.a.block_of(m))
    }
    /// The enclosing construct.
    pub fn parent(&self, c: ConstructId) -> Option<ConstructId> {
        self.a.cons[c].parent
    }
    /// The innermost loop (`loop` or `simple_loop` construct) containing construct `c`
    /// or being it; a continue construct's loop is its own.
    pub fn loop_of(&self, c: ConstructId) -> Option<ConstructId> {
        let k = &self.a.cons[c];
        match k.part {
            ConstructPart::Loop | ConstructPart::SimpleLoop => Some(c),
            ConstructPart::Continue => k.twin,
            _ => k.near_loop,
        }
    }
}

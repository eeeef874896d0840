//! `restructure-cfg` step 3: loop nesting, exit-path absorption, merges, preheaders and loop shapes.

use super::exits::{clone_block, exit_block, is_small_exit, retarget};
use super::guards::Guards;
use super::{Failure, NONE, Restructured};
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::inst::{InstData, InstKind};
use std::collections::HashMap;
use xir_ir::{BlockId, Function, Globals, InstId, SecondaryMap, Value};

/// The shape chosen for a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// `simple_loop header`.
    Simple,
    /// `loop prepare header, body, update`.
    Loop { body: BlockId, update: BlockId },
}

/// One natural loop after canonicalization.
#[derive(Clone, Debug)]
pub(super) struct LoopInfo {
    pub(super) header: BlockId,
    pub(super) merge: BlockId,
    pub(super) preheader: BlockId,
    pub(super) shape: Shape,
}

/// Loop nesting of the current CFG (step 3's analysis).
struct LoopForest {
    headers: Vec<BlockId>,
    parent: Vec<u32>,
    depth: Vec<u32>,
    loop_of: SecondaryMap<BlockId, u32>,
}

impl LoopForest {
    fn compute(cfg: &Cfg, dom: &DomTree) -> Self {
        let mut headers: Vec<BlockId> = cfg
            .rpo
            .iter()
            .copied()
            .filter(|&h| cfg.preds(h).iter().any(|&p| dom.dominates(h, p)))
            .collect();
        headers.reverse(); // inner loops (later in RPO) first
        let mut lf = LoopForest {
            parent: vec![NONE; headers.len()],
            depth: vec![0; headers.len()],
            loop_of: SecondaryMap::with_default(NONE),
            headers,
        };
        for li in 0..lf.headers.len() {
            let h = lf.headers[li];
            lf.loop_of[h] = li as u32;
            let mut work: Vec<BlockId> = cfg
                .preds(h)
                .iter()
                .copied()
                .filter(|&p| dom.dominates(h, p))
                .collect();
            while let Some(x) = work.pop() {
                if x == h {
                    continue;
                }
                let l = lf.loop_of[x];
                if l == NONE {
                    lf.loop_of[x] = li as u32;
                    work.extend(
                        cfg.preds(x)
                            .iter()
                            .copied()
                            .filter(|p| cfg.is_reachable(*p)),
                    );
                    continue;
                }
                let mut top = l;
                while lf.parent[top as usize] != NONE {
                    top = lf.parent[top as usize];
                }
                if top as usize == li {
                    continue;
                }
                lf.parent[top as usize] = li as u32;
                let g = lf.headers[top as usize];
                work.extend(
                    cfg.preds(g)
                        .iter()
                        .copied()
                        .filter(|&p| cfg.is_reachable(p) && !dom.dominates(g, p)),
                );
            }
        }
        for li in (0..lf.headers.len()).rev() {
            let p = lf.parent[li];
            lf.depth[li] = if p == NONE {
                0
            } else {
                lf.depth[p as usize] + 1
            };
        }
        lf
    }

    fn contains(&self, l: u32, b: BlockId) -> bool {
        let mut g = self.loop_of[b];
        while g != NONE && self.depth[g as usize] > self.depth[l as usize] {
            g = self.parent[g as usize];
        }
        g == l
    }

    /// Whether `a` is `l` or one of its enclosing loops.
    fn is_ancestor(&self, a: u32, l: u32) -> bool {
        let mut g = l;
        while g != NONE && self.depth[g as usize] > self.depth[a as usize] {
            g = self.parent[g as usize];
        }
        g == a
    }

    /// The innermost loop containing `l`'s parent chain member that also contains `b`.
    fn nearest_containing(&self, l: u32, b: BlockId) -> u32 {
        let mut g = self.parent[l as usize];
        while g != NONE && !self.contains(g, b) {
            g = self.parent[g as usize];
        }
        g
    }
}

/// Grows each loop (innermost first) while it leaves to more than one block: an exit
/// target whose every reachable predecessor is in the loop, that heads no loop and lies
/// in no loop the current one is not part of, joins the loop (earliest in RPO first).
/// Such a block never returns to the header, so it is code after a `break` path, not
/// after the loop; the natural loop alone would leave to it and to the real merge.
fn absorb_exit_paths(func: &mut Function, cfg: &Cfg, lf: &mut LoopForest) -> u64 {
    let mut copies = 0;
    let count = lf.headers.len();
    let mut own: Vec<Vec<BlockId>> = vec![Vec::new(); count];
    for &b in &cfg.rpo {
        if lf.loop_of[b] != NONE {
            own[lf.loop_of[b] as usize].push(b);
        }
    }
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); count];
    for li in 0..count {
        if lf.parent[li] != NONE {
            children[lf.parent[li] as usize].push(li as u32);
        }
    }
    let mut stamp: SecondaryMap<BlockId, u32> = SecondaryMap::with_default(NONE);
    for li in 0..count as u32 {
        // Members: the own lists of the loop and its descendants (stale entries filtered).
        let mut members = Vec::new();
        let mut stack = vec![li];
        while let Some(l) = stack.pop() {
            stack.extend(children[l as usize].iter().copied());
            for &b in &own[l as usize] {
                if stamp[b] != li && lf.contains(li, b) {
                    stamp[b] = li;
                    members.push(b);
                }
            }
        }
        let mut exits: Vec<(BlockId, BlockId)> = Vec::new();
        for &u in &members {
            for &v in cfg.succs(u) {
                if !lf.contains(li, v) {
                    exits.push((u, v));
                }
            }
        }
        loop {
            let mut targets: Vec<BlockId> = exits.iter().map(|e| e.1).collect();
            targets.sort_by_key(|b| cfg.rpo_index[*b]);
            targets.dedup();
            if targets.len() <= 1 {
                break;
            }
            let absorbable = |v: BlockId| -> bool {
                let l = lf.loop_of[v];
                if l != NONE && (lf.headers[l as usize] == v || !lf.is_ancestor(l, li)) {
                    return false;
                }
                cfg.preds(v)
                    .iter()
                    .all(|&p| !cfg.is_reachable(p) || lf.contains(li, p))
            };
            let pick = targets
                .iter()
                .copied()
                .find(|v| cfg.succs(*v).is_empty() && absorbable(*v))
                .or_else(|| targets.iter().copied().find(|v| absorbable(*v)));
            let Some(v) = pick else {
                // A small exit block shared with code outside the loop: the loop gets
                // its own copy.
                let Some(v) = targets.iter().copied().find(|v| is_small_exit(func, *v)) else {
                    // A whole loop entered only from this one (code after a `break`
                    // path that loops on its own before leaving): it becomes a child.
                    let Some(l) = targets.iter().find_map(|&v| adoptable(cfg, lf, li, v)) else {
                        break;
                    };
                    adopt(lf, &mut children, l, li);
                    let mut stack = vec![l];
                    while let Some(g) = stack.pop() {
                        stack.extend(children[g as usize].iter().copied());
                        for &b in &own[g as usize] {
                            if lf.contains(l, b) {
                                for &s in cfg.succs(b) {
                                    if !lf.contains(li, s) {
                                        exits.push((b, s));
                                    }
                                }
                            }
                        }
                    }
                    exits.retain(|e| !lf.contains(li, e.1));
                    continue;
                };
                let c = clone_block(func, v);
                for &(u, _) in exits.iter().filter(|e| e.1 == v) {
                    retarget(func, u, v, c);
                }
                lf.loop_of[c] = li;
                exits.retain(|e| e.1 != v);
                copies += 1;
                continue;
            };
            lf.loop_of[v] = li;
            own[li as usize].push(v);
            exits.retain(|e| e.1 != v);
            for &s in cfg.succs(v) {
                if !lf.contains(li, s) {
                    exits.push((v, s));
                }
            }
        }
    }
    copies
}

/// The loop headed by `v` when loop `li` may adopt it as a child: `v` heads a loop that
/// is not `li`, not one of its ancestors and not already inside it, whose parent (if any)
/// encloses `li` too, and every entry into it (a reachable predecessor of `v` outside
/// the loop) comes from inside `li`.
fn adoptable(cfg: &Cfg, lf: &LoopForest, li: u32, v: BlockId) -> Option<u32> {
    let l = lf.loop_of[v];
    if l == NONE || l == li || lf.headers[l as usize] != v || lf.is_ancestor(l, li) {
        return None;
    }
    let p = lf.parent[l as usize];
    if p == li || (p != NONE && !lf.is_ancestor(p, li)) {
        return None;
    }
    cfg.preds(v)
        .iter()
        .all(|&q| !cfg.is_reachable(q) || lf.contains(l, q) || lf.contains(li, q))
        .then_some(l)
}

/// Makes loop `l` a child of loop `li`, keeping the depths of `l`'s subtree consistent.
fn adopt(lf: &mut LoopForest, children: &mut [Vec<u32>], l: u32, li: u32) {
    let old = lf.parent[l as usize];
    if old != NONE {
        children[old as usize].retain(|&c| c != l);
    }
    lf.parent[l as usize] = li;
    children[li as usize].push(l);
    let mut stack = vec![l];
    while let Some(g) = stack.pop() {
        let p = lf.parent[g as usize];
        lf.depth[g as usize] = lf.depth[p as usize] + 1;
        stack.extend(children[g as usize].iter().copied());
    }
}

/// The loop a multi-level `break` target `v` can join: the innermost loop holding every
/// reachable predecessor of `v`, when `v` heads no loop and is not already in a loop
/// that does not enclose it (then every path into `v` starts inside that loop, so `v`
/// is code after a `break` of the inner loop, like the blocks [`absorb_exit_paths`] adds).
fn host_loop(cfg: &Cfg, lf: &LoopForest, v: BlockId) -> Option<u32> {
    let q = lf.loop_of[v];
    if q != NONE && lf.headers[q as usize] == v {
        return None;
    }
    let mut host: Option<u32> = None;
    for &p in cfg.preds(v).iter().filter(|p| cfg.is_reachable(**p)) {
        let mut l = lf.loop_of[p];
        if let Some(h) = host {
            // The innermost loop enclosing both `h` and `l`.
            let mut a = h;
            while a != NONE && !lf.is_ancestor(a, l) {
                a = lf.parent[a as usize];
            }
            l = a;
        }
        if l == NONE {
            return None;
        }
        host = Some(l);
    }
    let host = host?;
    (!lf.contains(host, v) && (q == NONE || lf.is_ancestor(q, host))).then_some(host)
}

/// A multi-level exit `u → v` that leaves the loops `L1 ⊂ L2 ⊂ … ⊂ Lk` (`L1` = `lu`,
/// `k ≥ 2`, `v` outside `Lk`) leaves one loop at a time: `u` branches to a trampoline
/// `T1: br T2` placed in `L2`, …, `T(k-1): br v` placed in `Lk`, so each edge of the
/// chain leaves exactly one loop. A loop then leaving to several blocks (its own merge
/// and a trampoline) gets a guard variable at its merge, whose `if` chain breaks again
/// (the next trampoline is an exit of the enclosing loop) or continues the enclosing
/// loop (the target is its header or latch). Trampolines are shared per (loop, target).
/// Returns the blocks made.
fn multi_level_exit(
    func: &mut Function,
    lf: &mut LoopForest,
    trampolines: &mut HashMap<(u32, BlockId), BlockId>,
    u: BlockId,
    v: BlockId,
    lu: u32,
) -> u64 {
    let mut made = 0;
    let mut from = u;
    let mut inner = lu;
    loop {
        let outer = lf.parent[inner as usize];
        if outer == NONE || lf.contains(outer, v) {
            // `from → v` now leaves only `inner`.
            return made;
        }
        let t = match trampolines.get(&(outer, v)) {
            Some(&t) => {
                retarget(func, from, v, t);
                return made;
            }
            None => {
                let t = exit_block(func, InstKind::Branch, v);
                lf.loop_of[t] = outer;
                trampolines.insert((outer, v), t);
                made += 1;
                t
            }
        };
        retarget(func, from, v, t);
        from = t;
        inner = outer;
    }
}

/// Step 3: merges, preheaders and shapes of every natural loop.
pub(super) fn canonicalize_loops(
    func: &mut Function,
    g: &mut Globals<'_>,
    guards: &mut Guards,
    n: &mut Restructured,
) -> Result<Vec<LoopInfo>, Failure> {
    let cfg = Cfg::compute(func);
    let dom = DomTree::compute(func, &cfg);
    let mut lf = LoopForest::compute(&cfg, &dom);
    let count = lf.headers.len();
    if count == 0 {
        return Ok(Vec::new());
    }
    let copies = absorb_exit_paths(func, &cfg, &mut lf);
    n.canonicalized += copies;
    let mut cfg = if copies > 0 { Cfg::compute(func) } else { cfg };
    // Exit edges per loop; an edge leaving two loops is a multi-level break. Its target
    // joins the innermost loop holding all its predecessors when it can be code after a
    // `break` of that loop; otherwise the edge leaves one loop at a time through a chain
    // of trampolines (`multi_level_exit`). Either way the exits are collected again.
    let mut rounds = 0usize;
    let mut trampolines: HashMap<(u32, BlockId), BlockId> = HashMap::new();
    let exits = 'collect: loop {
        let mut exits: Vec<Vec<(BlockId, BlockId)>> = vec![Vec::new(); count];
        for &u in &cfg.rpo {
            let lu = lf.loop_of[u];
            if lu == NONE {
                continue;
            }
            for &v in cfg.succs(u) {
                let mut g = lu;
                let mut left = 0;
                while g != NONE && !lf.contains(g, v) {
                    if left == 0 {
                        exits[g as usize].push((u, v));
                    }
                    left += 1;
                    g = lf.parent[g as usize];
                }
                if left > 1 {
                    rounds += 1;
                    if rounds > 2 * cfg.rpo.len() + 16 {
                        return Err(Failure::Unstructured {
                            from: u,
                            to: Some(v),
                            why: "the branch leaves several loops at once",
                        });
                    }
                    if let Some(host) = host_loop(&cfg, &lf, v) {
                        lf.loop_of[v] = host;
                    } else {
                        n.canonicalized += multi_level_exit(func, &mut lf, &mut trampolines, u, v, lu);
                        cfg = Cfg::compute(func);
                    }
                    continue 'collect;
                }
            }
        }
        break exits;
    };
    // Merges.
    let mut merges: Vec<BlockId> = Vec::with_capacity(count);
    for (li, loop_exits) in exits.iter().enumerate() {
        let mut targets: Vec<BlockId> = loop_exits.iter().map(|e| e.1).collect();
        targets.sort();
        targets.dedup();
        let h = lf.headers[li];
        let merge = match targets.as_slice() {
            [] => {
                let m = func.create_block();
                func.append_inst(
                    m,
                    InstData::new(
                        InstKind::Unreachable {
                            message: String::new(),
                        },
                        None,
                        [],
                    ),
                );
                lf.loop_of[m] = lf.parent[li];
                n.canonicalized += 1;
                m
            }
            [v] => {
                let v = *v;
                let is_header = lf.loop_of[v] != NONE && lf.headers[lf.loop_of[v] as usize] == v;
                let inside = !is_header
                    && cfg
                        .preds(v)
                        .iter()
                        .all(|&p| !cfg.is_reachable(p) || lf.contains(li as u32, p));
                if inside {
                    v
                } else {
                    let m = exit_block(func, InstKind::Branch, v);
                    lf.loop_of[m] = lf.nearest_containing(li as u32, v);
                    for &(u, _) in loop_exits {
                        retarget(func, u, v, m);
                    }
                    n.canonicalized += 1;
                    m
                }
            }
            [a, ..] => {
                // Several exit targets (each in the enclosing loop, the multi-level
                // exits being resolved above): a guard variable selects one at a new
                // merge, whose `if` chain runs in the enclosing region.
                let fail = Failure::Unstructured {
                    from: h,
                    to: Some(*a),
                    why: "the loop headed by the first block leaves to more than one block",
                };
                targets.sort_by_key(|b| cfg.rpo_index[*b]);
                let (d, chain) = guards.loop_exits(func, g, loop_exits, &targets).ok_or(fail)?;
                // The selector stores (`u → G → d`) stay in the loop.
                for &(u, _) in loop_exits {
                    let t = func.terminator(u).expect("terminated");
                    let stores: Vec<BlockId> = func
                        .inst(t)
                        .operand_blocks()
                        .filter(|&s| {
                            func.terminator(s)
                                .is_some_and(|ts| func.inst(ts).operands.as_slice() == [Value::Block(d)])
                        })
                        .collect();
                    for s in stores {
                        lf.loop_of[s] = li as u32;
                    }
                }
                lf.loop_of[d] = lf.parent[li];
                for b in chain {
                    lf.loop_of[b] = lf.parent[li];
                }
                d
            }
        };
        merges.push(merge);
    }
    // Preheaders, on the CFG with the merges in place.
    let cfg = Cfg::compute(func);
    let dom = DomTree::compute(func, &cfg);
    let mut preheaders: Vec<BlockId> = Vec::with_capacity(count);
    for li in 0..count {
        let h = lf.headers[li];
        let outside = cfg.forward_preds(&dom, h);
        let reuse = match outside.as_slice() {
            [p] => func
                .terminator(*p)
                .is_some_and(|t| matches!(func.inst(t).kind, InstKind::Branch))
                .then_some(*p),
            _ => None,
        };
        let preheader = match reuse {
            Some(p) => p,
            None => {
                let ph = exit_block(func, InstKind::Branch, h);
                lf.loop_of[ph] = lf.parent[li];
                if outside.is_empty() {
                    // The header is the body block: the new block becomes the body and
                    // takes the allocas, which must stay outside the loop.
                    let allocas: Vec<InstId> = func.blocks[h]
                        .insts
                        .iter()
                        .copied()
                        .filter(|i| matches!(func.inst(*i).kind, InstKind::Alloca(_)))
                        .collect();
                    func.remove_insts(&allocas);
                    for (k, a) in allocas.iter().enumerate() {
                        func.place_inst_at(ph, k, *a);
                    }
                    func.body = Some(ph);
                }
                for &p in &outside {
                    retarget(func, p, h, ph);
                }
                n.canonicalized += 1;
                ph
            }
        };
        preheaders.push(preheader);
    }
    // Shapes, on the final CFG.
    let cfg = Cfg::compute(func);
    let dom = DomTree::compute(func, &cfg);
    let mut out = Vec::with_capacity(count);
    let mut is_merge: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    for &m in &merges {
        is_merge[m] = true;
    }
    for li in 0..count {
        let h = lf.headers[li];
        let merge = merges[li];
        let shape = loop_shape(func, (&cfg, &dom), &lf, li as u32, h, &merges, &is_merge);
        out.push(LoopInfo {
            header: h,
            merge,
            preheader: preheaders[li],
            shape,
        });
    }
    Ok(out)
}

fn loop_shape(
    func: &Function,
    (cfg, dom): (&Cfg, &DomTree),
    lf: &LoopForest,
    li: u32,
    h: BlockId,
    merges: &[BlockId],
    is_merge: &SecondaryMap<BlockId, bool>,
) -> Shape {
    let merge = merges[li as usize];
    let t = func.terminator(h).expect("terminated");
    let d = func.inst(t);
    let body = match (&d.kind, d.operands.as_slice()) {
        (InstKind::ConditionalBranch, [_, Value::Block(b), Value::Block(m)]) if *m == merge => *b,
        (InstKind::Branch, [Value::Block(b)]) => *b,
        _ => return Shape::Simple,
    };
    if body == h || body == merge || !lf.contains(li, body) || cfg.preds(body) != [h] {
        return Shape::Simple;
    }
    let latches: Vec<BlockId> = cfg
        .preds(h)
        .iter()
        .copied()
        .filter(|&p| dom.dominates(h, p))
        .collect();
    let [u] = latches.as_slice() else {
        return Shape::Simple;
    };
    let u = *u;
    let u_ok = u != body
        && u != h
        && !is_merge[u]
        && func
            .terminator(u)
            .is_some_and(|t| matches!(func.inst(t).kind, InstKind::Branch))
        && cfg
            .preds(u)
            .iter()
            .all(|&p| !cfg.is_reachable(p) || lf.contains(li, p));
    if u_ok {
        Shape::Loop { body, update: u }
    } else {
        Shape::Simple
    }
}

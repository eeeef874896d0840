//! `restructure-cfg` step 5: the walk that turns branches into `if` / `switch` / loops and exits.

use super::exits::{clone_block, exit_block, is_small_exit};
use super::guards::{GuardRequest, Via};
use super::loops::{LoopInfo, Shape};
use super::regions::is_marker;
use super::{Failure, Limits, NONE, Restructured};
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::inst::{InstData, InstKind};
use xir_ir::function::Savepoint;
use xir_ir::{BlockId, Function, InstId, SecondaryMap, Value};

/// A construct on the walk's stack.
#[derive(Clone, Copy, Debug)]
enum FrameKind {
    /// An `if` (`switch == false`) or `switch`; `merge` is `None` until one is needed.
    Selection {
        inst: InstId,
        merge: Option<BlockId>,
        switch: bool,
        /// For a merge created to forward an exit: the block it forwards to.
        forwards: Option<BlockId>,
        /// An `autodiff` / `outline` region (`regions.rs`): no `break`, `continue` or
        /// guard crosses it.
        region: bool,
    },
    /// A loop with its merge and continue block.
    Loop { merge: BlockId, cont: BlockId },
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    kind: FrameKind,
    parent: Option<usize>,
    /// The nearest loop or switch frame (this one included): what `break` leaves.
    breakable: Option<usize>,
    /// The nearest loop frame (this one included): what `continue` continues.
    innermost_loop: Option<usize>,
}

/// How one edge is expressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edge {
    /// The region goes on into the target.
    Enter,
    /// The region goes on into this new copy of a small exit block.
    EnterCopy(BlockId),
    /// A `br` / `break` / `continue` to this block.
    Exit(ExitKind, BlockId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExitKind {
    Br,
    Break,
    Continue,
}

impl ExitKind {
    fn inst_kind(self) -> InstKind {
        match self {
            ExitKind::Br => InstKind::Branch,
            ExitKind::Break => InstKind::Break,
            ExitKind::Continue => InstKind::Continue,
        }
    }
}

/// Step 5's walk.
pub(super) struct Walker<'f> {
    func: &'f mut Function,
    cfg: Cfg,
    dom: DomTree,
    loops: Vec<LoopInfo>,
    /// Loop index whose preheader is this block.
    preheader_of: SecondaryMap<BlockId, u32>,
    /// Loop header, merge or continue block (never a selection merge).
    loop_role: SecondaryMap<BlockId, bool>,
    /// Number of distinct reachable forward predecessors, and the last one seen.
    fwd_preds: SecondaryMap<BlockId, (u32, Option<BlockId>)>,
    processed: SecondaryMap<BlockId, bool>,
    frames: Vec<Frame>,
    /// Per frame: the blocks whose edges go through its forwarding merge (see
    /// `FrameKind::Selection::forwards`), for a guard that replaces that merge.
    forwarded: Vec<Vec<BlockId>>,
    limits: Limits,
    /// Guard dispatch blocks made as a selection's new merge (`guards.rs`,
    /// `Via::NewMerge`): selection block → dispatch block, and back.
    designated_merge: SecondaryMap<BlockId, Option<BlockId>>,
    designated_for: SecondaryMap<BlockId, Option<BlockId>>,
    constructs: u64,
    /// Undo point (so that a walk asking for a guard can be rolled back without a copy
    /// of the definition): the function's undo log keeps the original of each existing
    /// instruction the walk edits (only terminators) and drops what it created.
    savepoint: Option<Savepoint>,
}

impl<'f> Walker<'f> {
    /// `cfg` and `dom` must be those of `func` as it is now.
    pub(super) fn new(
        func: &'f mut Function,
        (cfg, dom): (Cfg, DomTree),
        loops: Vec<LoopInfo>,
        limits: Limits,
        designated: &[(BlockId, BlockId)],
    ) -> Self {
        let mut preheader_of = SecondaryMap::with_default(NONE);
        let mut loop_role = SecondaryMap::with_default(false);
        for (li, l) in loops.iter().enumerate() {
            preheader_of[l.preheader] = li as u32;
            loop_role[l.header] = true;
            loop_role[l.merge] = true;
            if let Shape::Loop { update, .. } = l.shape {
                loop_role[update] = true;
            }
        }
        let mut fwd_preds: SecondaryMap<BlockId, (u32, Option<BlockId>)> =
            SecondaryMap::with_default((0, None));
        for &b in &cfg.rpo {
            let mut last = None;
            for &p in cfg.preds(b) {
                if cfg.is_reachable(p) && !dom.dominates(b, p) && last != Some(p) {
                    last = Some(p);
                    fwd_preds[b].0 += 1;
                    fwd_preds[b].1 = Some(p);
                }
            }
        }
        let mut designated_merge = SecondaryMap::with_default(None);
        let mut designated_for = SecondaryMap::with_default(None);
        for &(h, d) in designated {
            designated_merge[h] = Some(d);
            designated_for[d] = Some(h);
        }
        let savepoint = Some(func.savepoint());
        Walker {
            designated_merge,
            designated_for,
            savepoint,
            func,
            cfg,
            dom,
            loops,
            preheader_of,
            loop_role,
            fwd_preds,
            processed: SecondaryMap::with_default(false),
            frames: Vec::new(),
            forwarded: Vec::new(),
            limits,
            constructs: 0,
        }
    }

    /// An existing instruction to edit (the function's undo log keeps its original for
    /// [`Self::undo`]).
    fn edit(&mut self, i: InstId) -> &mut InstData {
        self.func.inst_mut(i)
    }

    /// Puts the definition back as it was when the walk began: the edited instructions
    /// get their originals back, and the blocks and instructions the walk created are
    /// dropped.
    pub(super) fn undo(mut self) {
        let sp = self.savepoint.take().expect("one undo or into_cfg");
        self.func.rollback_to(sp);
    }

    /// The CFG the walk began with: its unreachable blocks are still unreachable (the
    /// walk never makes an unreachable block reachable).
    pub(super) fn into_cfg(mut self) -> Cfg {
        let sp = self.savepoint.take().expect("one undo or into_cfg");
        self.func.release(sp);
        self.cfg
    }

    pub(super) fn run(&mut self, n: &mut Restructured) -> Result<(), Failure> {
        let entry = self.func.body.expect("definition");
        let mut work: Vec<(BlockId, Option<usize>)> = vec![(entry, None)];
        while let Some((x, frame)) = work.pop() {
            if std::mem::replace(&mut self.processed[x], true) {
                return Err(Failure::Unstructured {
                    from: x,
                    to: None,
                    why: "the block would belong to two structured regions",
                });
            }
            self.process(x, frame, &mut work, n)?;
        }
        for &b in &self.cfg.rpo {
            if !self.processed[b] {
                return Err(Failure::Unstructured {
                    from: b,
                    to: None,
                    why: "the block is not reached by the structured form",
                });
            }
        }
        // A switch whose cases never reach a common merge still needs one.
        for k in 0..self.frames.len() {
            if let FrameKind::Selection {
                inst,
                merge: None,
                switch: true,
                ..
            } = self.frames[k].kind
            {
                let m = self.func.create_block();
                self.func.append_inst(
                    m,
                    InstData::new(
                        InstKind::Unreachable {
                            message: String::new(),
                        },
                        None,
                        [],
                    ),
                );
                self.set_merge(k, inst, m, None);
            }
        }
        Ok(())
    }

    fn bump(&mut self) -> Result<(), Failure> {
        self.constructs += 1;
        if self.constructs > self.limits.main {
            return Err(Failure::IterationLimit {
                which: "main-iteration-limit",
            });
        }
        Ok(())
    }

    fn process(
        &mut self,
        x: BlockId,
        frame: Option<usize>,
        work: &mut Vec<(BlockId, Option<usize>)>,
        n: &mut Restructured,
    ) -> Result<(), Failure> {
        let t = self.func.terminator(x).expect("preflight");
        let li = self.preheader_of[x];
        if li != NONE {
            self.bump()?;
            let l = self.loops[li as usize].clone();
            let (kind, cont) = match l.shape {
                Shape::Simple => (
                    InstKind::SimpleLoop {
                        merge: Some(l.merge),
                    },
                    l.header,
                ),
                Shape::Loop { body, update } => (
                    InstKind::Loop {
                        body: Some(body),
                        update: Some(update),
                        merge: Some(l.merge),
                    },
                    update,
                ),
            };
            self.edit(t).kind = kind;
            let me = self.frames.len();
            self.push_frame(Frame {
                kind: FrameKind::Loop {
                    merge: l.merge,
                    cont,
                },
                parent: frame,
                breakable: Some(me),
                innermost_loop: Some(me),
            });
            let lf = Some(self.frames.len() - 1);
            n.loops += 1;
            work.push((l.merge, frame));
            match l.shape {
                Shape::Simple => work.push((l.header, lf)),
                Shape::Loop { body, update } => {
                    self.processed[l.header] = true;
                    self.processed[update] = true;
                    work.push((body, lf));
                }
            }
            return Ok(());
        }
        let d = self.func.inst(t);
        if is_marker(d) {
            return self.region(x, t, frame, work);
        }
        match d.kind.clone() {
            InstKind::Branch => {
                let y = d.operands[0].as_block().expect("verified");
                match self.classify(x, y, frame)? {
                    Edge::Enter => work.push((y, frame)),
                    Edge::EnterCopy(c) => {
                        self.edit(t).operands[0] = Value::Block(c);
                    }
                    Edge::Exit(k, target) => {
                        let d = self.edit(t);
                        d.kind = k.inst_kind();
                        d.operands[0] = Value::Block(target);
                    }
                }
            }
            InstKind::ConditionalBranch => {
                self.selection(x, t, frame, false, work)?;
                n.ifs += 1;
            }
            InstKind::IndexedBranch { .. } => {
                self.selection(x, t, frame, true, work)?;
                n.switches += 1;
            }
            k => {
                if self.func.inst(t).operand_blocks().next().is_some() {
                    let _ = k;
                    return Err(Failure::Invalid {
                        block: x,
                        what: "ends in a terminator restructure-cfg does not know",
                    });
                }
            }
        }
        Ok(())
    }

    /// `cond_br` → `if`, `indexed_branch` → `switch` in block `x`.
    fn selection(
        &mut self,
        x: BlockId,
        t: InstId,
        frame: Option<usize>,
        switch: bool,
        work: &mut Vec<(BlockId, Option<usize>)>,
    ) -> Result<(), Failure> {
        self.bump()?;
        let mut joins: Vec<BlockId> = self
            .dom
            .children(x)
            .iter()
            .copied()
            .filter(|&c| {
                !self.loop_role[c]
                    && self.fwd_preds[c].0 >= 2
                    && self.designated_for[c].is_none_or(|h| h == x)
            })
            .collect();
        // A dispatch block made as this selection's merge, reached only through a
        // nested construct (so no dominator-tree child of `x`).
        if joins.is_empty()
            && let Some(d) = self.designated_merge[x]
            && self.cfg.is_reachable(d)
            && self.dom.dominates(x, d)
        {
            joins.push(d);
        }
        if joins.len() > 1 {
            // The earliest join stays the merge; the paths into a later one that do not
            // pass the merge can reach it through a guard at the merge.
            let reported = joins[1];
            joins.sort_by_key(|b| self.cfg.rpo_index[*b]);
            let (m, j) = (joins[0], joins[1]);
            let froms: Vec<BlockId> = self.cfg.forward_preds(&self.dom, j)
                .into_iter()
                .filter(|&p| !self.dom.dominates(m, p))
                .collect();
            return Err(Failure::Guardable {
                request: GuardRequest {
                    froms,
                    to: j,
                    via: Via::Merge(m),
                },
                otherwise: Box::new(Failure::Unstructured {
                    from: x,
                    to: Some(reported),
                    why: "the branch has more than one merge point",
                }),
            });
        }
        let merge = joins.first().copied();
        {
            let d = self.edit(t);
            d.kind = match &d.kind {
                InstKind::IndexedBranch { labels } => InstKind::Switch {
                    labels: labels.clone(),
                    merge,
                },
                _ => InstKind::If { merge },
            };
        }
        let me = self.frames.len();
        let (outer_break, outer_loop) = match frame {
            Some(f) => (self.frames[f].breakable, self.frames[f].innermost_loop),
            None => (None, None),
        };
        self.push_frame(Frame {
            kind: FrameKind::Selection {
                inst: t,
                merge,
                switch,
                forwards: None,
                region: false,
            },
            parent: frame,
            breakable: if switch { Some(me) } else { outer_break },
            innermost_loop: outer_loop,
        });
        let sf = Some(self.frames.len() - 1);
        let n_ops = self.func.inst(t).operands.len();
        // Switch cases may share a target: classify each target once.
        let mut done: Vec<(BlockId, BlockId)> = Vec::new();
        for k in 1..n_ops {
            let a = self.func.inst(t).operands[k]
                .as_block()
                .expect("verified arm");
            if let Some(&(_, used)) = done.iter().find(|(o, _)| *o == a) {
                self.edit(t).operands[k] = Value::Block(used);
                continue;
            }
            let used = match self.classify(x, a, sf)? {
                Edge::Enter => {
                    work.push((a, sf));
                    a
                }
                Edge::EnterCopy(c) => c,
                Edge::Exit(kind, target) => exit_block(self.func, kind.inst_kind(), target),
            };
            self.edit(t).operands[k] = Value::Block(used);
            done.push((a, used));
        }
        if let Some(m) = merge {
            work.push((m, frame));
        }
        Ok(())
    }

    /// A region's stand-in in block `x` (`regions.rs`) → `if` with the region's merge,
    /// as one construct that nothing crosses.
    fn region(
        &mut self,
        x: BlockId,
        t: InstId,
        frame: Option<usize>,
        work: &mut Vec<(BlockId, Option<usize>)>,
    ) -> Result<(), Failure> {
        self.bump()?;
        let ops = &self.func.inst(t).operands;
        let (e, m) = (ops[1].as_block().expect("marker"), ops[2].as_block().expect("marker"));
        // The merge is `m` when only the region reaches it; otherwise (a loop role, or
        // a block code outside the region joins) a new merge forwards to it.
        let (merge, forwards) = if !self.loop_role[m] && self.dom.idom(m) == Some(x) {
            work.push((m, frame));
            (m, None)
        } else {
            match self.classify(x, m, frame)? {
                Edge::Enter => {
                    work.push((m, frame));
                    (m, None)
                }
                Edge::EnterCopy(c) => (c, Some(m)),
                Edge::Exit(kind, target) => (exit_block(self.func, kind.inst_kind(), target), Some(m)),
            }
        };
        self.edit(t).kind = InstKind::If { merge: Some(merge) };
        self.push_frame(Frame {
            kind: FrameKind::Selection {
                inst: t,
                merge: Some(merge),
                switch: false,
                forwards,
                region: true,
            },
            parent: frame,
            breakable: None,
            innermost_loop: None,
        });
        let rf = Some(self.frames.len() - 1);
        let used = match self.classify(x, e, rf)? {
            Edge::Enter => {
                work.push((e, rf));
                e
            }
            Edge::EnterCopy(c) => c,
            Edge::Exit(kind, target) => exit_block(self.func, kind.inst_kind(), target),
        };
        self.edit(t).operands[1] = Value::Block(used);
        Ok(())
    }

    fn push_frame(&mut self, f: Frame) {
        self.frames.push(f);
        self.forwarded.push(Vec::new());
    }

    fn set_merge(&mut self, k: usize, inst: InstId, m: BlockId, to: Option<BlockId>) {
        if let FrameKind::Selection {
            merge, forwards, ..
        } = &mut self.frames[k].kind
        {
            *merge = Some(m);
            *forwards = to;
        }
        if let Some(slot) = self.edit(inst).kind.merge_mut() {
            *slot = Some(m);
        }
    }

    /// How the edge `x → y` is expressed inside `frame`.
    fn classify(&mut self, x: BlockId, y: BlockId, frame: Option<usize>) -> Result<Edge, Failure> {
        // 1–2: the innermost selection's merge, possibly through merge-less selections
        // whose forwarding merges are created here.
        let mut chain: Vec<usize> = Vec::new();
        let mut fi = frame;
        let mut found: Option<(usize, BlockId)> = None;
        while let Some(i) = fi {
            match self.frames[i].kind {
                FrameKind::Selection {
                    merge, forwards, ..
                } => {
                    if merge == Some(y) {
                        found = Some((i, y));
                        break;
                    }
                    if let Some(m) = merge {
                        if forwards == Some(y) {
                            found = Some((i, m));
                            self.forwarded[i].push(x);
                        }
                        break;
                    }
                    chain.push(i);
                    fi = self.frames[i].parent;
                }
                FrameKind::Loop { merge, .. } => {
                    // A loop exit from inside merge-less switches: `break` there would
                    // leave the switch, so the switches get merges that break out.
                    let through_switch = chain.iter().any(|&c| {
                        matches!(
                            self.frames[c].kind,
                            FrameKind::Selection { switch: true, .. }
                        )
                    });
                    if merge == y && through_switch {
                        found = Some((i, y));
                    }
                    break;
                }
            }
        }
        if let Some((owner, reach)) = found {
            if chain.len() as u64 > self.limits.post {
                return Err(Failure::IterationLimit {
                    which: "post-iteration-limit",
                });
            }
            let mut target = reach;
            let mut outer = owner;
            for &i in chain.iter().rev() {
                let kind = self.exit_kind_into(outer);
                let m = exit_block(self.func, kind.inst_kind(), target);
                let FrameKind::Selection { inst, .. } = self.frames[i].kind else {
                    unreachable!("chain holds selections")
                };
                self.set_merge(i, inst, m, Some(y));
                self.forwarded[i].push(x);
                target = m;
                outer = i;
            }
            return Ok(Edge::Exit(self.exit_kind_into(outer), target));
        }
        // 3: the nearest loop or switch merge.
        let near = frame.map(|f| self.frames[f]);
        if let Some(b) = near.and_then(|f| f.breakable) {
            let merge = match self.frames[b].kind {
                FrameKind::Selection { merge, .. } => merge,
                FrameKind::Loop { merge, .. } => Some(merge),
            };
            if merge == Some(y) {
                return Ok(Edge::Exit(ExitKind::Break, y));
            }
        }
        // 4: the nearest loop's continue block.
        if let Some(l) = near.and_then(|f| f.innermost_loop)
            && let FrameKind::Loop { cont, .. } = self.frames[l].kind
            && cont == y
        {
            return Ok(Edge::Exit(ExitKind::Continue, y));
        }
        // 5: into a block only `x` enters.
        let (count, only) = self.fwd_preds[y];
        if !self.loop_role[y] && count == 1 && only == Some(x) {
            return Ok(Edge::Enter);
        }
        // 6: the merge of an enclosing switch or loop past `if`s (a `break` ignores
        // them) and merge-less switches (each gets a merge that breaks onwards).
        if let Some(edge) = self.break_through(x, y, frame)? {
            return Ok(edge);
        }
        // 7: a small exit block (`return` / `unreachable` / `raster_discard`) reached
        // from here gets a copy of its own: an exit needs no structured path.
        if is_small_exit(self.func, y) {
            return Ok(Edge::EnterCopy(clone_block(self.func, y)));
        }
        let fail = Failure::Unstructured {
            from: x,
            to: Some(y),
            why: "the target is neither in the region nor an exit the structured form allows",
        };
        Err(match self.guard_via(y, frame) {
            Some(via) => Failure::Guardable {
                request: GuardRequest {
                    froms: vec![x],
                    to: y,
                    via,
                },
                otherwise: Box::new(fail),
            },
            None => fail,
        })
    }

    /// Where a guard variable can take the edge to `y` (see `guards.rs`): the merge of
    /// the innermost enclosing construct that has one of its own, when `y` is the merge
    /// or continue block of a construct further out. A construct whose only merge is one
    /// the walk made to forward other exits (not a block of the plain CFG the guard
    /// rewrites) is passed when it forwards to that same merge; otherwise, or when no
    /// such merge leads to `y`, it gets a new merge taking its forwarded exits and this
    /// edge (the rerun then asks again from there if `y` is still out of reach).
    fn guard_via(&self, y: BlockId, frame: Option<usize>) -> Option<Via> {
        let mut via = None;
        // The innermost construct with a forwarding merge inside `via`.
        let mut blocked: Option<(usize, BlockId)> = None;
        let new_merge = |(i, target): (usize, BlockId)| Via::NewMerge {
            forwarded: self.forwarded[i].clone(),
            target,
            header: match self.frames[i].kind {
                FrameKind::Selection { inst, .. } => self.func.inst(inst).block.expect("placed"),
                FrameKind::Loop { .. } => unreachable!("only selections forward"),
            },
        };
        let mut fi = frame;
        while let Some(i) = fi {
            match self.frames[i].kind {
                FrameKind::Selection {
                    merge,
                    region: true,
                    ..
                } => {
                    return match (via, merge) {
                        (Some(v), Some(m)) if m == y => Some(Via::Merge(v)),
                        _ => None,
                    };
                }
                FrameKind::Selection {
                    merge, forwards, ..
                } => match (via, merge, forwards) {
                    (Some(v), Some(m), _) if m == y => return Some(Via::Merge(v)),
                    (None, Some(m), None) => match blocked {
                        Some((_, t)) if t != m || m == y => return blocked.map(new_merge),
                        _ => via = Some(m),
                    },
                    (None, Some(_), Some(t)) => {
                        // The innermost such construct, unless a switch further out
                        // has one too: only the switch stops a `br` out of the `if`
                        // (a new merge for the `if` alone would leave the edge inside
                        // the switch, and the rerun would ask again, without end).
                        let switch = matches!(self.frames[i].kind, FrameKind::Selection { switch: true, .. });
                        let inner_is_if = blocked.is_some_and(|(b, _)| {
                            matches!(self.frames[b].kind, FrameKind::Selection { switch: false, .. })
                        });
                        if blocked.is_none() || (switch && inner_is_if) {
                            blocked = Some((i, t));
                        }
                    }
                    _ => {}
                },
                FrameKind::Loop { merge, cont } => {
                    let Some(v) = via else {
                        return blocked.map(new_merge);
                    };
                    if merge == y || cont == y {
                        return Some(Via::Merge(v));
                    }
                }
            }
            fi = self.frames[i].parent;
        }
        blocked.map(new_merge)
    }

    /// Step 6 of [`Self::classify`]: `break` to `y` when `y` is the merge of the nearest
    /// loop or switch once the merge-less switches between are given forwarding merges
    /// (`break` to the next one out). `None` when no such frame exists.
    fn break_through(&mut self, x: BlockId, y: BlockId, frame: Option<usize>) -> Result<Option<Edge>, Failure> {
        let mut switches: Vec<usize> = Vec::new();
        let mut fi = frame;
        loop {
            let Some(i) = fi else { return Ok(None) };
            match self.frames[i].kind {
                FrameKind::Selection { region: true, .. } => return Ok(None),
                FrameKind::Selection { switch: false, .. } => {}
                FrameKind::Selection {
                    switch: true,
                    merge,
                    ..
                } => match merge {
                    Some(m) if m == y => break,
                    Some(_) => return Ok(None),
                    None => switches.push(i),
                },
                FrameKind::Loop { merge, .. } => {
                    if merge == y {
                        break;
                    }
                    return Ok(None);
                }
            }
            fi = self.frames[i].parent;
        }
        if switches.len() as u64 > self.limits.post {
            return Err(Failure::IterationLimit {
                which: "post-iteration-limit",
            });
        }
        let mut target = y;
        for &i in switches.iter().rev() {
            let m = exit_block(self.func, InstKind::Break, target);
            let FrameKind::Selection { inst, .. } = self.frames[i].kind else {
                unreachable!("switch frames")
            };
            self.set_merge(i, inst, m, Some(y));
            self.forwarded[i].push(x);
            target = m;
        }
        Ok(Some(Edge::Exit(ExitKind::Break, target)))
    }

    /// The exit used by an edge that reaches frame `owner`'s merge from inside it.
    fn exit_kind_into(&self, owner: usize) -> ExitKind {
        match self.frames[owner].kind {
            FrameKind::Selection { switch: true, .. } | FrameKind::Loop { .. } => ExitKind::Break,
            FrameKind::Selection { .. } => ExitKind::Br,
        }
    }
}

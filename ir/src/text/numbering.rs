//! Value ids for the printer and the CFG traversals it shares with the structural
//! comparison.
//!
//! Upstream numbering (reference §1.3): one module-global uid map, a pre-pass over
//! constants and, per function, the function, its arguments and the body block visited
//! depth first through operand blocks; everything else is numbered lazily at first print.
//! Stable numbering derives ids from arena handles instead. Every traversal here uses an
//! explicit stack: nesting can be arbitrarily deep.

use crate::InstId;
use crate::entity::EntityRef;
use crate::function::Function;
use crate::module::Module;
use crate::value::{ArgId, BlockId, ConstId, FuncId, SpecialRegister, UndefId, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt::Write as _;

/// How the printer spells value ids.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum IdStyle {
    /// Upstream's module-global uids (`%7`, `%22.dispatch_id`, `%30.undefined`).
    #[default]
    Upstream,
    /// Ids derived from arena handles (`%c3`, `%f1`, `%f1_a0`, `%f1_b5`, `%f1_i12`,
    /// `%u0.undefined`, `%dispatch_id.dispatch_id`), so that printing a module before and
    /// after a pass does not renumber unrelated lines.
    Stable,
}

/// A module-wide key for a value: function-local handles carry their function.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    Const(ConstId),
    Undef(UndefId),
    Special(SpecialRegister),
    Func(FuncId),
    Arg(FuncId, ArgId),
    Block(FuncId, BlockId),
    Inst(FuncId, InstId),
}

impl Key {
    /// The key of `v` as seen from inside function `f`.
    pub(crate) fn of(f: FuncId, v: Value) -> Key {
        match v {
            Value::Const(c) => Key::Const(c),
            Value::Undef(u) => Key::Undef(u),
            Value::Special(r) => Key::Special(r),
            Value::Func(g) => Key::Func(g),
            Value::Arg(a) => Key::Arg(f, a),
            Value::Block(b) => Key::Block(f, b),
            Value::Inst(i) => Key::Inst(f, i),
        }
    }
}

/// Marks an id slot that has no uid yet.
const NONE: u32 = u32::MAX;

/// Uids of one kind of typed id: a dense vector for the (normally dense) handles, a hash
/// map for handles far beyond them (invalid handles of a broken module), so a stray
/// huge index never allocates a huge vector.
#[derive(Default)]
struct IdMap {
    dense: Vec<u32>,
    sparse: FxHashMap<u32, u32>,
}

impl IdMap {
    #[inline]
    fn get(&self, i: usize) -> Option<u32> {
        match self.dense.get(i) {
            Some(&u) => (u != NONE).then_some(u),
            None if self.sparse.is_empty() => None,
            None => self.sparse.get(&(i as u32)).copied(),
        }
    }

    /// Numbers slot `i` with `next` unless it has a uid; returns the uid and whether it
    /// was new.
    #[inline]
    fn get_or_insert(&mut self, i: usize, next: u32) -> (u32, bool) {
        match self.dense.get_mut(i) {
            Some(slot) if *slot == NONE => {
                *slot = next;
                (next, true)
            }
            Some(slot) => (*slot, false),
            None => self.get_or_insert_outside(i, next),
        }
    }

    /// [`Self::get_or_insert`] past the dense table: grows it for a nearby index, uses
    /// the hash map for a far one.
    #[cold]
    #[inline(never)]
    fn get_or_insert_outside(&mut self, i: usize, next: u32) -> (u32, bool) {
        if i <= 2 * self.dense.len() + 4096 {
            self.grow((i + 1).max(self.dense.len() * 3 / 2));
            return self.get_or_insert(i, next);
        }
        let mut fresh = false;
        let u = *self.sparse.entry(i as u32).or_insert_with(|| {
            fresh = true;
            next
        });
        (u, fresh)
    }

    /// Makes the dense table at least `len` long (an arena's size: handles of a valid
    /// module index it directly, so numbering never grows it piecemeal).
    fn grow(&mut self, len: usize) {
        if len <= self.dense.len() {
            return;
        }
        self.dense.resize(len, NONE);
        // Sparse entries now inside the dense range move there.
        let moved: Vec<(u32, u32)> = self
            .sparse
            .iter()
            .filter(|(k, _)| (**k as usize) < len)
            .map(|(k, v)| (*k, *v))
            .collect();
        for (k, v) in moved {
            self.sparse.remove(&k);
            self.dense[k as usize] = v;
        }
    }
}

/// Uids of one function's local values.
#[derive(Default)]
struct LocalIds {
    args: IdMap,
    blocks: IdMap,
    insts: IdMap,
}

/// Assigns and spells value ids: dense per-kind uid tables indexed by the typed handles
/// (no hashing on the hot path; the tables of a function are found through its handle).
pub(crate) struct Namer {
    style: IdStyle,
    /// Uids handed out so far (the next uid).
    next: u32,
    consts: IdMap,
    undefs: IdMap,
    funcs: IdMap,
    specials: [u32; SpecialRegister::ALL.len()],
    /// Slot in `locals` of each function that has local uids.
    local_slot: IdMap,
    locals: Vec<LocalIds>,
    /// The last function whose locals were looked up, and their slot (most lookups
    /// are for the function being printed).
    last_local: Option<(FuncId, usize)>,
}

impl Namer {
    /// A namer with nothing numbered yet.
    pub(crate) fn new(style: IdStyle) -> Self {
        Self {
            style,
            next: 0,
            consts: IdMap::default(),
            undefs: IdMap::default(),
            funcs: IdMap::default(),
            specials: [NONE; SpecialRegister::ALL.len()],
            local_slot: IdMap::default(),
            locals: Vec::new(),
            last_local: None,
        }
    }

    fn locals(&self, f: FuncId) -> Option<&LocalIds> {
        self.local_slot
            .get(f.index())
            .map(|s| &self.locals[s as usize])
    }

    #[inline]
    fn locals_mut(&mut self, f: FuncId) -> &mut LocalIds {
        let s = match self.last_local {
            Some((g, s)) if g == f => s,
            _ => self.locals_slot(f),
        };
        &mut self.locals[s]
    }

    /// The slot in `locals` of `f` (made on first use); remembered for the next lookup.
    #[cold]
    fn locals_slot(&mut self, f: FuncId) -> usize {
        let (s, fresh) = self
            .local_slot
            .get_or_insert(f.index(), self.locals.len() as u32);
        if fresh {
            self.locals.push(LocalIds::default());
        }
        self.last_local = Some((f, s as usize));
        s as usize
    }

    /// Sizes the uid tables to the arenas of `m`, so numbering a valid module never
    /// grows them.
    fn presize(&mut self, m: &Module) {
        self.consts.grow(m.constants.len());
        self.undefs.grow(m.undefs.len());
        self.funcs.grow(m.functions.len());
        for &fid in &m.func_order {
            let Some(f) = m.functions.get(fid) else {
                continue;
            };
            let l = self.locals_mut(fid);
            l.args.grow(f.args.len());
            l.blocks.grow(f.blocks.len());
            l.insts.grow(f.insts.len());
        }
    }

    /// The uid of `k`, if it has one.
    fn lookup(&self, k: Key) -> Option<u32> {
        match k {
            Key::Const(c) => self.consts.get(c.index()),
            Key::Undef(u) => self.undefs.get(u.index()),
            Key::Special(r) => Some(self.specials[r as usize]).filter(|u| *u != NONE),
            Key::Func(f) => self.funcs.get(f.index()),
            Key::Arg(f, a) => self.locals(f)?.args.get(a.index()),
            Key::Block(f, b) => self.locals(f)?.blocks.get(b.index()),
            Key::Inst(f, i) => self.locals(f)?.insts.get(i.index()),
        }
    }

    /// Whether `k` has been numbered (upstream) or printed (stable) already.
    pub(crate) fn is_seen(&self, k: Key) -> bool {
        self.lookup(k).is_some()
    }

    /// Numbers `k` if needed; returns its uid and whether it was new.
    #[inline(always)]
    pub(crate) fn uid(&mut self, k: Key) -> (u32, bool) {
        let next = self.next;
        let r = match k {
            Key::Const(c) => self.consts.get_or_insert(c.index(), next),
            Key::Undef(u) => self.undefs.get_or_insert(u.index(), next),
            Key::Special(r) => {
                let slot = &mut self.specials[r as usize];
                if *slot == NONE {
                    *slot = next;
                    (next, true)
                } else {
                    (*slot, false)
                }
            }
            Key::Func(f) => self.funcs.get_or_insert(f.index(), next),
            Key::Arg(f, a) => self.locals_mut(f).args.get_or_insert(a.index(), next),
            Key::Block(f, b) => self.locals_mut(f).blocks.get_or_insert(b.index(), next),
            Key::Inst(f, i) => self.locals_mut(f).insts.get_or_insert(i.index(), next),
        };
        if r.1 {
            self.next += 1;
        }
        r
    }

    /// Appends the identifier of `k` (numbering it if needed); returns whether this was
    /// the first time `k` was seen.
    #[inline]
    pub(crate) fn write(&mut self, out: &mut String, k: Key) -> bool {
        let (uid, fresh) = self.uid(k);
        self.spell(out, k, uid);
        fresh
    }

    /// Appends the upstream identifier of instruction `i` of `f` if it has been numbered
    /// already, and returns whether it did (the printer's most frequent case, without the
    /// general path's dispatch on the key).
    #[inline(always)]
    pub(crate) fn write_numbered_inst(&mut self, out: &mut String, f: FuncId, i: InstId) -> bool {
        if self.style != IdStyle::Upstream {
            return false;
        }
        let uid = match self.last_local {
            Some((g, s)) if g == f => self.locals[s].insts.dense.get(i.index()).copied(),
            _ => None,
        };
        match uid {
            Some(uid) if uid != NONE => {
                out.push('%');
                push_u32(out, uid);
                true
            }
            _ => false,
        }
    }

    /// The identifier of `k` if it has been numbered (nothing is numbered here).
    pub(crate) fn spelled(&self, k: Key) -> Option<String> {
        let uid = self.lookup(k)?;
        let mut out = String::new();
        self.spell(&mut out, k, uid);
        Some(out)
    }

    #[inline(always)]
    fn spell(&self, out: &mut String, k: Key, uid: u32) {
        out.push('%');
        match (self.style, k) {
            (IdStyle::Upstream, Key::Undef(_)) => {
                push_u32(out, uid);
                out.push_str(".undefined");
            }
            (IdStyle::Upstream, Key::Special(r)) => {
                push_u32(out, uid);
                out.push('.');
                out.push_str(r.name());
            }
            (IdStyle::Upstream, _) => push_u32(out, uid),
            (IdStyle::Stable, k) => spell_stable(out, k),
        }
    }

    /// Upstream's pre-pass (reference §1.3 step 2). Only sizes the tables for stable
    /// ids, whose spelling does not depend on order.
    pub(crate) fn pre_pass(&mut self, m: &Module) {
        self.presize(m);
        if self.style == IdStyle::Stable {
            return;
        }
        for c in m.live_constants() {
            self.uid(Key::Const(c));
        }
        for &fid in &m.func_order {
            let Some(f) = m.functions.get(fid) else {
                continue;
            };
            self.uid(Key::Func(fid));
            for &a in &f.arg_order {
                self.uid(Key::Arg(fid, a));
            }
            if let (true, Some(body)) = (f.kind.has_definition(), f.body) {
                self.pre_pass_block(fid, f, body);
            }
        }
    }

    /// Numbers `start`, its instructions and (depth first, at the operand) every operand
    /// block not numbered yet — upstream's recursion, with an explicit stack. Works on
    /// the function's own uid tables (taken out of `self` for the walk) and a local
    /// counter: this visits every instruction of the module, so no per-id dispatch on
    /// [`Key`].
    fn pre_pass_block(&mut self, fid: FuncId, f: &Function, start: BlockId) {
        /// A block being walked: its instructions from the current one on, and the
        /// current instruction's operands not looked at yet.
        struct Frame<'a> {
            insts: &'a [InstId],
            ops: &'a [Value],
        }
        /// The function's uid tables and the next uid.
        struct Walk {
            ids: LocalIds,
            next: u32,
        }
        impl Walk {
            #[inline]
            fn number(map: &mut IdMap, next: &mut u32, i: usize) {
                if map.get_or_insert(i, *next).1 {
                    *next += 1;
                }
            }
            fn enter<'a>(&mut self, stack: &mut Vec<Frame<'a>>, f: &'a Function, b: BlockId) {
                if self.ids.blocks.get(b.index()).is_some() {
                    return;
                }
                let Some(data) = f.blocks.get(b) else {
                    return;
                };
                Self::number(&mut self.ids.blocks, &mut self.next, b.index());
                let Some(&first) = data.insts.first() else {
                    return;
                };
                Self::number(&mut self.ids.insts, &mut self.next, first.index());
                stack.push(Frame {
                    insts: &data.insts,
                    ops: operands(f, first),
                });
            }
        }
        /// The operands walked for blocks: none of a phi (its incoming blocks are not
        /// operands upstream, and its values are never blocks).
        fn operands(f: &Function, i: InstId) -> &[Value] {
            match f.insts.get(i) {
                Some(d) if !d.is_phi() => &d.operands[..],
                _ => &[],
            }
        }
        let slot = match self.last_local {
            Some((g, s)) if g == fid => s,
            _ => self.locals_slot(fid),
        };
        let mut walk = Walk {
            ids: std::mem::take(&mut self.locals[slot]),
            next: self.next,
        };
        let mut stack: Vec<Frame> = Vec::new();
        walk.enter(&mut stack, f, start);
        while let Some(top) = stack.last_mut() {
            // The next operand block of the current instruction, depth first.
            let mut child = None;
            while let Some((&op, rest)) = top.ops.split_first() {
                top.ops = rest;
                if let Value::Block(b) = op {
                    child = Some(b);
                    break;
                }
            }
            if let Some(b) = child {
                walk.enter(&mut stack, f, b);
                continue;
            }
            // Then the next instruction is numbered.
            match top.insts.get(1..) {
                Some(rest @ [next, ..]) => {
                    top.insts = rest;
                    top.ops = operands(f, *next);
                    Walk::number(&mut walk.ids.insts, &mut walk.next, next.index());
                }
                _ => {
                    stack.pop();
                }
            }
        }
        self.locals[slot] = walk.ids;
        self.next = walk.next;
    }
}

/// A stable id (see [`IdStyle::Stable`]) after its `%`.
fn spell_stable(out: &mut String, k: Key) {
    let _ = match k {
        Key::Const(c) => write!(out, "c{}", c.index()),
        Key::Undef(u) => write!(out, "u{}.undefined", u.index()),
        Key::Special(r) => write!(out, "{0}.{0}", r.name()),
        Key::Func(f) => write!(out, "f{}", f.index()),
        Key::Arg(f, a) => write!(out, "f{}_a{}", f.index(), a.index()),
        Key::Block(f, b) => write!(out, "f{}_b{}", f.index(), b.index()),
        Key::Inst(f, i) => write!(out, "f{}_i{}", f.index(), i.index()),
    };
}

/// Appends the decimal digits of `n` (through `itoa`, not `fmt`'s machinery: ids are
/// the most frequent thing the printer writes).
#[inline]
pub(crate) fn push_u32(out: &mut String, n: u32) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// The terminator of `b` (its last instruction, if that is a terminator).
pub(crate) fn terminator(f: &Function, b: BlockId) -> Option<InstId> {
    let last = *f.blocks.get(b)?.insts.last()?;
    f.insts.get(last)?.kind.is_terminator().then_some(last)
}

/// Successor operands of `b`'s terminator, in operand order (with repeats).
fn successor_operands(f: &Function, b: BlockId) -> &[Value] {
    terminator(f, b)
        .and_then(|t| f.insts.get(t))
        .map(|d| d.successor_operands())
        .unwrap_or(&[])
}

/// Distinct successors of `b` in operand order (upstream's `traverse_successors`).
pub(crate) fn successors(f: &Function, b: BlockId) -> Vec<BlockId> {
    // A linear scan for the usual few successors; a set once a switch has many, so a
    // switch with thousands of cases is not quadratic.
    const SCAN_LIMIT: usize = 16;
    let mut out: Vec<BlockId> = Vec::new();
    let mut seen: FxHashSet<BlockId> = FxHashSet::default();
    for v in successor_operands(f, b) {
        let Value::Block(s) = *v else { continue };
        if !f.blocks.is_valid(s) {
            continue;
        }
        let new = if out.len() < SCAN_LIMIT {
            !out.contains(&s)
        } else {
            if seen.is_empty() {
                seen.extend(out.iter().copied());
            }
            seen.insert(s)
        };
        if new {
            out.push(s);
        }
    }
    out
}

/// Upstream's default block traversal from `entry`: depth-first over the terminator's
/// operand blocks. Returns `(pre_order, post_order)`.
pub(crate) fn dfs_orders(f: &Function, entry: BlockId) -> (Vec<BlockId>, Vec<BlockId>) {
    let mut pre = Vec::new();
    let mut post = Vec::new();
    if !f.blocks.is_valid(entry) {
        return (pre, post);
    }
    // Valid handles index the arena: a bit per block.
    let mut visited = vec![false; f.blocks.len()];
    // Each block on the stack with its successor operands not looked at yet.
    let mut stack: Vec<(BlockId, &[Value])> = Vec::new();
    visited[entry.index()] = true;
    pre.push(entry);
    stack.push((entry, successor_operands(f, entry)));
    while let Some((b, ops)) = stack.last_mut() {
        if let Some((&op, rest)) = ops.split_first() {
            *ops = rest;
            if let Value::Block(s) = op
                && f.blocks.is_valid(s)
                && !std::mem::replace(&mut visited[s.index()], true)
            {
                pre.push(s);
                stack.push((s, successor_operands(f, s)));
            }
        } else {
            post.push(*b);
            stack.pop();
        }
    }
    (pre, post)
}

/// Pre-order block traversal of `f`'s body (empty without a body).
pub(crate) fn pre_order(f: &Function) -> Vec<BlockId> {
    match f.body {
        Some(b) => dfs_orders(f, b).0,
        None => Vec::new(),
    }
}

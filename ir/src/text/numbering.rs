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

/// Assigns and spells value ids.
pub(crate) struct Namer {
    style: IdStyle,
    uids: FxHashMap<Key, u32>,
}

impl Namer {
    /// A namer with nothing numbered yet.
    pub(crate) fn new(style: IdStyle) -> Self {
        Self {
            style,
            uids: FxHashMap::default(),
        }
    }

    /// Whether `k` has been numbered (upstream) or printed (stable) already.
    pub(crate) fn is_seen(&self, k: Key) -> bool {
        self.uids.contains_key(&k)
    }

    /// Numbers `k` if needed; returns its uid and whether it was new.
    pub(crate) fn uid(&mut self, k: Key) -> (u32, bool) {
        let next = self.uids.len() as u32;
        let mut fresh = false;
        let id = *self.uids.entry(k).or_insert_with(|| {
            fresh = true;
            next
        });
        (id, fresh)
    }

    /// Appends the identifier of `k` (numbering it if needed); returns whether this was
    /// the first time `k` was seen.
    pub(crate) fn write(&mut self, out: &mut String, k: Key) -> bool {
        let (uid, fresh) = self.uid(k);
        self.spell(out, k, uid);
        fresh
    }

    /// The identifier of `k` if it has been numbered (nothing is numbered here).
    pub(crate) fn spelled(&self, k: Key) -> Option<String> {
        let uid = *self.uids.get(&k)?;
        let mut out = String::new();
        self.spell(&mut out, k, uid);
        Some(out)
    }

    fn spell(&self, out: &mut String, k: Key, uid: u32) {
        out.push('%');
        let _ = match (self.style, k) {
            (IdStyle::Upstream, Key::Undef(_)) => write!(out, "{uid}.undefined"),
            (IdStyle::Upstream, Key::Special(r)) => write!(out, "{uid}.{}", r.name()),
            (IdStyle::Upstream, _) => write!(out, "{uid}"),
            (IdStyle::Stable, Key::Const(c)) => write!(out, "c{}", c.index()),
            (IdStyle::Stable, Key::Undef(u)) => write!(out, "u{}.undefined", u.index()),
            (IdStyle::Stable, Key::Special(r)) => write!(out, "{0}.{0}", r.name()),
            (IdStyle::Stable, Key::Func(f)) => write!(out, "f{}", f.index()),
            (IdStyle::Stable, Key::Arg(f, a)) => write!(out, "f{}_a{}", f.index(), a.index()),
            (IdStyle::Stable, Key::Block(f, b)) => write!(out, "f{}_b{}", f.index(), b.index()),
            (IdStyle::Stable, Key::Inst(f, i)) => write!(out, "f{}_i{}", f.index(), i.index()),
        };
    }

    /// Upstream's pre-pass (reference §1.3 step 2). A no-op for stable ids, whose
    /// spelling does not depend on order.
    pub(crate) fn pre_pass(&mut self, m: &Module) {
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
    /// block not numbered yet — upstream's recursion, with an explicit stack.
    fn pre_pass_block(&mut self, fid: FuncId, f: &Function, start: BlockId) {
        struct Frame<'a> {
            insts: &'a [InstId],
            next_inst: usize,
            next_op: usize,
        }
        fn enter<'a>(
            namer: &mut Namer,
            stack: &mut Vec<Frame<'a>>,
            f: &'a Function,
            fid: FuncId,
            b: BlockId,
        ) {
            if namer.is_seen(Key::Block(fid, b)) {
                return;
            }
            let Some(data) = f.blocks.get(b) else {
                return;
            };
            namer.uid(Key::Block(fid, b));
            if let Some(&first) = data.insts.first() {
                namer.uid(Key::Inst(fid, first));
            }
            stack.push(Frame {
                insts: &data.insts,
                next_inst: 0,
                next_op: 0,
            });
        }
        let mut stack: Vec<Frame> = Vec::new();
        enter(self, &mut stack, f, fid, start);
        while let Some(top) = stack.last_mut() {
            let Some(&inst) = top.insts.get(top.next_inst) else {
                stack.pop();
                continue;
            };
            let ops = f.insts.get(inst).map(|d| &d.operands[..]).unwrap_or(&[]);
            if let Some(&op) = ops.get(top.next_op) {
                top.next_op += 1;
                if let Value::Block(b) = op {
                    enter(self, &mut stack, f, fid, b);
                }
            } else {
                top.next_inst += 1;
                top.next_op = 0;
                if let Some(&next) = top.insts.get(top.next_inst) {
                    self.uid(Key::Inst(fid, next));
                }
            }
        }
    }
}

/// The terminator of `b` (its last instruction, if that is a terminator).
pub(crate) fn terminator(f: &Function, b: BlockId) -> Option<InstId> {
    let last = *f.blocks.get(b)?.insts.last()?;
    f.insts.get(last)?.kind.is_terminator().then_some(last)
}

/// Operand blocks of `b`'s terminator, in operand order (with repeats).
fn successor_operands(f: &Function, b: BlockId) -> &[Value] {
    terminator(f, b)
        .and_then(|t| f.insts.get(t))
        .map(|d| &d.operands[..])
        .unwrap_or(&[])
}

/// Distinct successors of `b` in operand order (upstream's `traverse_successors`).
pub(crate) fn successors(f: &Function, b: BlockId) -> Vec<BlockId> {
    let mut out: Vec<BlockId> = Vec::new();
    for v in successor_operands(f, b) {
        if let Value::Block(s) = *v
            && f.blocks.is_valid(s)
            && !out.contains(&s)
        {
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
    let mut visited: FxHashSet<BlockId> = FxHashSet::default();
    let mut stack: Vec<(BlockId, usize)> = Vec::new();
    visited.insert(entry);
    pre.push(entry);
    stack.push((entry, 0));
    while let Some((b, next)) = stack.last_mut() {
        let ops = successor_operands(f, *b);
        if let Some(&op) = ops.get(*next) {
            *next += 1;
            if let Value::Block(s) = op
                && f.blocks.is_valid(s)
                && visited.insert(s)
            {
                pre.push(s);
                stack.push((s, 0));
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

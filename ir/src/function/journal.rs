//! An undo log for one function ([`Journal`]): a pass that must leave its input
//! untouched when it refuses late (restructure-cfg's transactional mode) starts one with
//! [`Function::begin_journal`](super::Function::begin_journal), edits in place through
//! the [`Function`](super::Function) methods, and then either keeps the result
//! ([`Function::commit_journal`](super::Function::commit_journal)) or puts the function
//! back as it was ([`Function::rollback_journal`](super::Function::rollback_journal)).
//!
//! The log holds the original of each instruction and block that existed when it began,
//! taken the first time a method edits it, and the arena lengths: what was created since
//! is dropped by truncating the arenas. Its cost is proportional to what the pass edits,
//! where a copy of the function costs its whole size (on a 100k-block function the copy
//! and its drop were most of restructure-cfg's cache misses: docs/passes-perf.md).
//!
//! Edits through the public fields (`func.insts[i] = …`, `func.blocks[b].insts.…`) are
//! not logged: code that runs under a journal edits through the methods. Two exceptions
//! are safe by construction: creating entities (truncated on rollback) and removing
//! blocks from the end of `block_order` that were pushed since the journal began.
//!
//! ```
//! use xir_ir::{Function, FunctionKind, InstData, InstKind};
//! let mut f = Function::new(FunctionKind::Callable, None);
//! let b = f.ensure_body();
//! f.append_inst(b, InstData::new(InstKind::Return, None, []));
//! let before = format!("{f:?}");
//! f.begin_journal();
//! let c = f.create_block();
//! f.append_inst(c, InstData::new(InstKind::Return, None, []));
//! let t = f.terminator(b).unwrap();
//! f.inst_mut(t).kind = InstKind::Branch;
//! f.inst_mut(t).operands.push(xir_ir::Value::Block(c));
//! f.rollback_journal();
//! assert_eq!(format!("{f:?}"), before);
//! ```

use super::Function;
use super::{BlockData, BlockLayout};
use crate::entity::{EntityRef, SecondaryMap};
use crate::inst::{InstData, InstId};
use crate::value::BlockId;

/// What a function looked like when a journal or a savepoint began: the lengths of its
/// arenas and lists, its body, and how far the log reached.
#[derive(Clone, Debug)]
pub(super) struct Mark {
    /// Tells this mark's logged entities apart from an earlier mark's.
    id: u32,
    pub(super) insts_len: usize,
    pub(super) blocks_len: usize,
    pub(super) args_len: usize,
    pub(super) arg_order_len: usize,
    pub(super) order_len: usize,
    pub(super) body: Option<BlockId>,
    pub(super) insts_logged: usize,
    pub(super) blocks_logged: usize,
}

/// A point a function can be rolled back to while keeping what was edited before it
/// ([`super::Function::savepoint`]); released or rolled back exactly once.
#[must_use = "a savepoint is released or rolled back"]
#[derive(Debug)]
pub struct Savepoint {
    /// Whether the savepoint opened the journal (and closes it when released).
    pub(super) opened: bool,
    /// Depth of the mark in the journal's stack.
    pub(super) depth: usize,
}

/// The originals a function's edits replaced since [`super::Function::begin_journal`].
#[derive(Clone)]
pub(crate) struct Journal {
    /// The journal's start, then one mark per open savepoint.
    pub(super) marks: Vec<Mark>,
    next_id: u32,
    /// Originals of edited instructions, first edit after the newest mark each.
    pub(super) insts: Vec<(InstId, InstData)>,
    inst_logged: SecondaryMap<InstId, u32>,
    /// Originals of edited block records, first edit after the newest mark each.
    pub(super) blocks: Vec<(BlockId, BlockData)>,
    block_logged: SecondaryMap<BlockId, u32>,
    /// The block list, copied before its first edit other than a push after each mark:
    /// `(mark depth, copy)`.
    pub(super) orders: Vec<(usize, BlockLayout)>,
}

/// Opaque, so that a function's `Debug` text is the same with or without an open log.
impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Journal")
    }
}

impl Journal {
    pub(super) fn new() -> Self {
        Self {
            marks: Vec::new(),
            next_id: 1,
            insts: Vec::new(),
            inst_logged: SecondaryMap::with_default(0),
            blocks: Vec::new(),
            block_logged: SecondaryMap::with_default(0),
            orders: Vec::new(),
        }
    }

    /// Opens a mark at the function's current state.
    pub(super) fn push_mark(
        &mut self,
        (insts_len, blocks_len): (usize, usize),
        (args_len, arg_order_len): (usize, usize),
        order_len: usize,
        body: Option<BlockId>,
    ) -> usize {
        self.marks.push(Mark {
            id: self.next_id,
            insts_len,
            blocks_len,
            args_len,
            arg_order_len,
            order_len,
            body,
            insts_logged: self.insts.len(),
            blocks_logged: self.blocks.len(),
        });
        self.next_id += 1;
        self.marks.len() - 1
    }

    /// Whether the block list needs a copy before an edit other than a push.
    pub(super) fn wants_order(&self) -> bool {
        let depth = self.marks.len() - 1;
        self.orders.last().is_none_or(|(d, _)| *d < depth)
    }

    fn top(&self) -> &Mark {
        self.marks.last().expect("a journal has a mark")
    }

    /// Whether instruction `i` existed at the newest mark and is not logged since.
    #[inline]
    pub(super) fn wants_inst(&mut self, i: InstId) -> bool {
        let m = self.top();
        let (len, id) = (m.insts_len, m.id);
        i.index() < len && std::mem::replace(self.inst_logged.get_mut(i), id) != id
    }

    /// Whether block `b` existed at the newest mark and is not logged since.
    #[inline]
    pub(super) fn wants_block(&mut self, b: BlockId) -> bool {
        let m = self.top();
        let (len, id) = (m.blocks_len, m.id);
        b.index() < len && std::mem::replace(self.block_logged.get_mut(b), id) != id
    }
}

/// Opening, closing and rolling back the undo log, and the logging the editing methods
/// call before they change an existing instruction, block record or the block list.
impl Function {
    /// Opens an undo log: from now on the editing methods keep the original of each
    /// instruction and block they change, so that [`Function::rollback_journal`] can put
    /// the function back as it is now (function/journal.rs). At most one is open.
    pub fn begin_journal(&mut self) {
        assert!(self.journal.is_none(), "begin_journal: a journal is open");
        self.journal = Some(Box::new(Journal::new()));
        self.push_mark();
    }

    /// Whether an undo log is open.
    pub fn has_journal(&self) -> bool {
        self.journal.is_some()
    }

    /// Closes the undo log, keeping every edit.
    pub fn commit_journal(&mut self) {
        self.journal = None;
    }

    /// Closes the undo log and undoes every edit made since it opened: the logged
    /// originals come back and the entities created since are dropped.
    pub fn rollback_journal(&mut self) {
        if self.journal.is_some() {
            self.rollback_to_mark(0);
            self.journal = None;
        }
    }

    /// A point to roll back to ([`Function::rollback_to`]) that keeps the edits made
    /// before it; opens an undo log if none is open (and [`Function::release`] closes it
    /// again then). Savepoints nest.
    pub fn savepoint(&mut self) -> Savepoint {
        let opened = self.journal.is_none();
        if opened {
            self.journal = Some(Box::new(Journal::new()));
        }
        Savepoint {
            opened,
            depth: self.push_mark(),
        }
    }

    /// Undoes every edit made since `sp` (and closes the undo log if `sp` opened it).
    pub fn rollback_to(&mut self, sp: Savepoint) {
        self.rollback_to_mark(sp.depth);
        if sp.opened {
            self.journal = None;
        }
    }

    /// Keeps the edits made since `sp`; they stay undoable by an enclosing savepoint or
    /// journal (the undo log closes if `sp` opened it).
    pub fn release(&mut self, sp: Savepoint) {
        if sp.opened {
            self.journal = None;
        } else if let Some(j) = self.journal.as_deref_mut() {
            j.marks.truncate(sp.depth);
            // A block-list copy taken under the released marks serves the enclosing
            // mark unless that one has its own (which is older, so right for it).
            let parent = sp.depth - 1;
            let mut first = None;
            while j.orders.last().is_some_and(|(d, _)| *d > parent) {
                first = j.orders.pop();
            }
            if let Some((_, o)) = first
                && j.wants_order()
            {
                j.orders.push((parent, o));
            }
        }
    }

    fn push_mark(&mut self) -> usize {
        let j = self.journal.as_deref_mut().expect("an open journal");
        j.push_mark(
            (self.insts.len(), self.blocks.len()),
            (self.args.len(), self.arg_order.len()),
            self.block_order.len(),
            self.body,
        )
    }

    /// Undoes the edits logged since mark `depth` and drops that mark and the newer ones.
    fn rollback_to_mark(&mut self, depth: usize) {
        let j = self.journal.as_deref_mut().expect("an open journal");
        let m = j.marks[depth].clone();
        j.marks.truncate(depth);
        for (i, d) in j.insts.drain(m.insts_logged..).rev() {
            self.insts[i] = d;
        }
        for (b, d) in j.blocks.drain(m.blocks_logged..).rev() {
            self.blocks[b] = d;
        }
        let mut copy = None;
        while j.orders.last().is_some_and(|(d, _)| *d >= depth) {
            copy = j.orders.pop().map(|(_, o)| o);
        }
        if let Some(order) = copy {
            self.block_order = order;
        }
        while self.block_order.len() > m.order_len {
            self.block_order.remove(self.block_order.len() - 1);
        }
        self.insts.truncate(m.insts_len);
        self.blocks.truncate(m.blocks_len);
        self.args.truncate(m.args_len);
        self.arg_order.truncate(m.arg_order_len);
        self.body = m.body;
    }

    /// Logs instruction `i` before an edit, if a journal is open.
    #[inline]
    pub(super) fn log_inst(&mut self, i: InstId) {
        if let Some(j) = self.journal.as_deref_mut()
            && j.wants_inst(i)
        {
            j.insts.push((i, self.insts[i].clone()));
        }
    }

    /// Logs block record `b` before an edit of its list, if a journal is open.
    #[inline]
    pub(super) fn log_block(&mut self, b: BlockId) {
        if let Some(j) = self.journal.as_deref_mut()
            && j.wants_block(b)
        {
            j.blocks.push((b, self.blocks[b].clone()));
        }
    }

    /// Copies the block list before an edit other than a push, if a journal is open.
    pub(super) fn log_order(&mut self) {
        if let Some(j) = self.journal.as_deref_mut()
            && j.wants_order()
        {
            let depth = j.marks.len() - 1;
            j.orders.push((depth, self.block_order.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::entity::EntityRef;
    use crate::function::{Function, FunctionKind, Savepoint};
    use crate::inst::{InstData, InstKind};
    use crate::value::{BlockId, Value};

    /// Random edits under nested savepoints: every rollback gives back exactly the
    /// function as it was at its savepoint (compared through `Debug`, which shows every
    /// arena slot).
    #[test]
    fn random_edits_roll_back_exactly() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for round in 0..200 {
            let mut f = Function::new(FunctionKind::Callable, None);
            let body = f.ensure_body();
            for _ in 0..4 {
                let b = f.create_block();
                f.append_inst(b, InstData::new(InstKind::Return, None, []));
            }
            f.append_inst(
                body,
                InstData::new(InstKind::Branch, None, [Value::Block(BlockId::new(1))]),
            );
            let whole = round % 2 == 0;
            let before = format!("{f:?}");
            if whole {
                f.begin_journal();
            }
            let mut stack: Vec<(Savepoint, String)> = Vec::new();
            for _ in 0..60 {
                let blocks: Vec<BlockId> = f.block_order.to_vec();
                let b = blocks[rnd(blocks.len())];
                match rnd(9) {
                    0 => {
                        let snapshot = format!("{f:?}");
                        stack.push((f.savepoint(), snapshot));
                    }
                    1 => {
                        if let Some((sp, snapshot)) = stack.pop() {
                            f.rollback_to(sp);
                            assert_eq!(format!("{f:?}"), snapshot, "round {round}");
                        }
                    }
                    2 => {
                        if let Some((sp, _)) = stack.pop() {
                            f.release(sp);
                        }
                    }
                    3 => {
                        let c = f.create_block();
                        f.append_inst(c, InstData::new(InstKind::Branch, None, [Value::Block(b)]));
                    }
                    4 => {
                        f.insert_inst_at(b, 0, InstData::new(InstKind::Return, None, []));
                    }
                    5 => {
                        if let Some(&i) = f.blocks[b].insts.first() {
                            f.remove_inst(i);
                            if rnd(2) == 0 {
                                f.place_inst_at(b, f.blocks[b].insts.len(), i);
                            }
                        }
                    }
                    6 => {
                        if let Some(t) = f.terminator(b) {
                            let d = f.inst_mut(t);
                            d.kind = InstKind::Branch;
                            d.operands.clear();
                            d.operands.push(Value::Block(blocks[0]));
                        }
                    }
                    7 => {
                        if blocks.len() > 2 && b != body {
                            f.remove_block(b);
                        }
                    }
                    _ => {
                        f.remap_operands(|v| {
                            if v == Value::Block(b) {
                                Value::Block(body)
                            } else {
                                v
                            }
                        });
                    }
                }
            }
            while let Some((sp, snapshot)) = stack.pop() {
                if rnd(2) == 0 {
                    f.rollback_to(sp);
                    assert_eq!(format!("{f:?}"), snapshot, "round {round}");
                } else {
                    f.release(sp);
                }
            }
            if whole {
                f.rollback_journal();
                assert_eq!(format!("{f:?}"), before, "round {round}");
            } else {
                assert!(!f.has_journal());
            }
        }
    }
}

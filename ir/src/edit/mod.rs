//! Editing IR: the one builder ([`InstBuilder`]) and the [`Rewriter`].
//!
//! * [`Cursor`] builds instructions into a function nobody else is editing (readers,
//!   generators, tests): `Cursor::at_end(&mut f, b).br(target)`.
//! * [`Rewriter`] edits one function of a module while keeping a def-use index
//!   ([`UseIndex`]) valid, so [`Rewriter::replace_all_uses`] costs O(uses), and keeps
//!   each block's instructions in a linked list, so inserting and removing an
//!   instruction anywhere is O(1). The function's `blocks[b].insts` vectors are written
//!   back when the rewriter is dropped (or by [`Rewriter::func`]).
//! * CFG edits keep phis in sync: [`Rewriter::split_block`] renames the phi incoming
//!   block in every successor, [`Rewriter::redirect_edge`] drops the incoming of the old
//!   target (when no other edge from the block reaches it) and adds one to the new
//!   target. A phi edge is edited as one unit, `(value, block)` ([`crate::phi`]), through
//!   [`Rewriter::phi_edges`], [`Rewriter::add_phi_edge`], [`Rewriter::remove_phi_edge`]
//!   [`Rewriter::set_phi_value`] and [`Rewriter::rename_phi_block`]; the incoming blocks
//!   are uses of their blocks, so the use index finds a block's phi edges.
//! * [`Module::split`](crate::Module::split) lends a pass one function and the module's
//!   types, constants and undefined values at once; [`Rewriter::for_module`] uses it.
//!
//! ```
//! use xir_ir::edit::{InsertPoint, InstBuilder, Rewriter};
//! use xir_ir::{op::ArithmeticOp, Value};
//! let (mut m, _) = xir_ir::text::parse_module(
//!     "module; callable %f: u32 (%a: u32;) = define %e: {
//!        %x: u32 = arithmetic binary_add %a, %a; %r: void = return %x; };",
//! ).unwrap();
//! let f = m.func_order[0];
//! let mut rw = Rewriter::for_module(&mut m, f);
//! let e = rw.func().body.unwrap();
//! let (x, ret) = (rw.first_inst(e).unwrap(), rw.terminator(e).unwrap());
//! // x * 2 instead of x + x: build the new value before the return, reroute the uses.
//! let u32_ty = rw.globals().types.u32();
//! let two = Value::Const(rw.globals().constant(u32_ty, &2u32.to_le_bytes()));
//! let a = rw.inst(x).operands[0];
//! let y = rw.at(InsertPoint::Before(ret)).arith(ArithmeticOp::BinaryMul, u32_ty, &[a, two]);
//! assert_eq!(rw.replace_all_uses(Value::Inst(x), y), 1);
//! rw.remove(x);
//! drop(rw);
//! let text = xir_ir::text::print_module(&m, &Default::default());
//! assert!(text.contains("binary_mul") && !text.contains("binary_add"));
//! ```

mod build;
mod uses;

pub use build::{Cursor, InsertPoint, InstBuilder};
pub use uses::UseIndex;

use crate::entity::SecondaryMap;
use crate::function::Function;
use crate::inst::{InstData, InstId};
use crate::module::{Globals, Module};
use crate::phi::{phi_block_slot, phi_slot_edge, phi_value_slot};
use crate::types::Type;
use crate::uses::Use;
use crate::value::{BlockId, FuncId, Value};
use smallvec::SmallVec;

/// Doubly linked instruction lists per block (the rewriter's view of the layout).
#[derive(Default)]
struct Layout {
    next: SecondaryMap<InstId, Option<InstId>>,
    prev: SecondaryMap<InstId, Option<InstId>>,
    first: SecondaryMap<BlockId, Option<InstId>>,
    last: SecondaryMap<BlockId, Option<InstId>>,
    /// Blocks whose `insts` vector is stale.
    dirty: Vec<BlockId>,
    is_dirty: SecondaryMap<BlockId, bool>,
}

/// Edits one function, keeping its use index and phis consistent. See the
/// [module docs](self).
pub struct Rewriter<'a> {
    func: &'a mut Function,
    globals: Option<Globals<'a>>,
    uses: UseIndex,
    layout: Layout,
}

impl<'a> Rewriter<'a> {
    /// A rewriter for a function alone (no constants or types: see
    /// [`Self::for_module`]). Costs one pass over the function.
    pub fn new(func: &'a mut Function) -> Self {
        let uses = UseIndex::compute(func);
        let mut layout = Layout::default();
        for &b in &func.block_order {
            let mut prev = None;
            for &i in &func.blocks[b].insts {
                layout.prev[i] = prev;
                match prev {
                    Some(p) => layout.next[p] = Some(i),
                    None => layout.first[b] = Some(i),
                }
                prev = Some(i);
            }
            layout.last[b] = prev;
        }
        Rewriter {
            func,
            globals: None,
            uses,
            layout,
        }
    }

    /// A rewriter for function `f` of `m`, with the module's types, constants and
    /// undefined values at hand ([`Self::globals`]).
    pub fn for_module(m: &'a mut Module, f: FuncId) -> Self {
        let (func, globals) = m.split(f);
        let mut rw = Rewriter::new(func);
        rw.globals = Some(globals);
        rw
    }

    /// The module's types, constants and undefined values.
    ///
    /// # Panics
    /// When the rewriter was made with [`Self::new`] (no module).
    pub fn globals(&mut self) -> &mut Globals<'a> {
        self.globals
            .as_mut()
            .expect("Rewriter::globals: made with Rewriter::new, not for_module")
    }

    /// The function, with every block's instruction list brought up to date.
    pub fn func(&mut self) -> &Function {
        self.sync();
        self.func
    }

    /// An instruction's data (always current).
    pub fn inst(&self, i: InstId) -> &InstData {
        &self.func.insts[i]
    }

    /// A block's metadata, to edit.
    pub fn block_metadata_mut(&mut self, b: BlockId) -> &mut crate::metadata::MetadataList {
        &mut self.func.blocks[b].metadata
    }

    /// An instruction's metadata, to edit (metadata is not part of the use index).
    pub fn metadata_mut(&mut self, i: InstId) -> &mut crate::metadata::MetadataList {
        &mut self.func.insts[i].metadata
    }

    /// The type of `v` as seen from inside this function (`None`: void, a block or a
    /// function). Needs the module ([`Self::for_module`]) for module-level values.
    pub fn value_type(&mut self, v: Value) -> Option<Type> {
        match v {
            Value::Inst(i) => self.func.insts[i].ty,
            Value::Arg(a) => Some(self.func.args[a].ty),
            Value::Block(_) | Value::Func(_) => None,
            _ => self.globals().global_value_type(v),
        }
    }

    /// The uses of `v` (operand slots naming it; unordered). O(1).
    pub fn uses(&self, v: Value) -> &[Use] {
        self.uses.uses(v)
    }

    /// The use index (for [`UseIndex::check`]).
    pub fn use_index(&self) -> &UseIndex {
        &self.uses
    }

    // ---- layout -------------------------------------------------------------------

    /// The first instruction of `b`.
    pub fn first_inst(&self, b: BlockId) -> Option<InstId> {
        *self.layout.first.get(b)
    }
    /// The last instruction of `b`.
    pub fn last_inst(&self, b: BlockId) -> Option<InstId> {
        *self.layout.last.get(b)
    }
    /// The instruction after `i` in its block.
    pub fn next_inst(&self, i: InstId) -> Option<InstId> {
        *self.layout.next.get(i)
    }
    /// The instruction before `i` in its block.
    pub fn prev_inst(&self, i: InstId) -> Option<InstId> {
        *self.layout.prev.get(i)
    }
    /// The instructions of `b`, in order.
    pub fn insts(&self, b: BlockId) -> impl Iterator<Item = InstId> + '_ {
        std::iter::successors(self.first_inst(b), move |i| self.next_inst(*i))
    }
    /// The leading phis of `b`.
    pub fn phis(&self, b: BlockId) -> Vec<InstId> {
        self.insts(b)
            .take_while(|i| self.inst(*i).is_phi())
            .collect()
    }
    /// The terminator of `b`, if its last instruction is one.
    pub fn terminator(&self, b: BlockId) -> Option<InstId> {
        self.last_inst(b)
            .filter(|i| self.inst(*i).kind.is_terminator())
    }
    /// Executable successors of `b` (operand blocks of its terminator, in order).
    pub fn successors(&self, b: BlockId) -> SmallVec<[BlockId; 2]> {
        match self.terminator(b) {
            Some(t) => self.inst(t).operand_blocks().collect(),
            None => SmallVec::new(),
        }
    }

    fn touch(&mut self, b: BlockId) {
        if !std::mem::replace(&mut self.layout.is_dirty[b], true) {
            self.layout.dirty.push(b);
        }
    }

    /// Writes the linked lists of changed blocks back into `blocks[b].insts`.
    fn sync(&mut self) {
        for b in std::mem::take(&mut self.layout.dirty) {
            self.layout.is_dirty[b] = false;
            let list: Vec<InstId> = self.insts(b).collect();
            self.func.blocks[b].insts = list.into();
        }
    }

    fn link(&mut self, b: BlockId, i: InstId, before: Option<InstId>) {
        let prev = match before {
            Some(n) => self.layout.prev[n],
            None => self.layout.last[b],
        };
        self.layout.prev[i] = prev;
        self.layout.next[i] = before;
        match prev {
            Some(p) => self.layout.next[p] = Some(i),
            None => self.layout.first[b] = Some(i),
        }
        match before {
            Some(n) => self.layout.prev[n] = Some(i),
            None => self.layout.last[b] = Some(i),
        }
        self.func.insts[i].block = Some(b);
        self.touch(b);
    }

    fn unlink(&mut self, i: InstId) -> Option<BlockId> {
        let b = self.func.insts[i].block.take()?;
        let (p, n) = (self.layout.prev[i], self.layout.next[i]);
        match p {
            Some(p) => self.layout.next[p] = n,
            None => self.layout.first[b] = n,
        }
        match n {
            Some(n) => self.layout.prev[n] = p,
            None => self.layout.last[b] = p,
        }
        self.layout.prev[i] = None;
        self.layout.next[i] = None;
        self.touch(b);
        Some(b)
    }

    // ---- instructions -------------------------------------------------------------

    /// A builder inserting at `at` (see [`InstBuilder`] for the per-op constructors).
    pub fn at(&mut self, at: InsertPoint) -> RewriteCursor<'_, 'a> {
        RewriteCursor { rw: self, at }
    }

    /// Places a new instruction at `at`. O(1).
    pub fn insert(&mut self, at: InsertPoint, data: InstData) -> InstId {
        let i = self.func.create_inst(data);
        let (b, before) = match at {
            InsertPoint::End(b) => (b, None),
            InsertPoint::Before(n) => (
                self.func.insts[n]
                    .block
                    .expect("Rewriter::insert: the anchor is not placed"),
                Some(n),
            ),
        };
        self.link(b, i, before);
        self.uses.add_all(i, &self.func.insts[i].operands);
        i
    }

    /// Detaches instruction `i` from its block and forgets its operands' uses. O(operands).
    ///
    /// # Panics
    /// When `i`'s result still has uses (replace them first).
    pub fn remove(&mut self, i: InstId) {
        assert!(
            self.uses(Value::Inst(i)).is_empty(),
            "Rewriter::remove: {i:?} still has uses"
        );
        if self.unlink(i).is_some() {
            let ops = std::mem::take(&mut self.func.insts[i].operands);
            self.uses.remove_all(i, &ops);
            self.func.insts[i].operands = ops;
        }
    }

    /// Sets operand `k` of `i` to `v`.
    pub fn set_operand(&mut self, i: InstId, k: usize, v: Value) {
        let old = std::mem::replace(&mut self.func.insts[i].operands[k], v);
        if self.func.insts[i].block.is_some() {
            self.uses.remove(i, k, old);
            self.uses.add(i, k, v);
        }
    }

    /// Replaces every use of `old` by `new` (every operand slot naming it, a phi's
    /// incoming blocks included; structured side blocks are not uses). Returns the
    /// number of slots rewritten.
    /// O(uses of `old`).
    pub fn replace_all_uses(&mut self, old: Value, new: Value) -> usize {
        if old == new {
            return 0;
        }
        let list: Vec<Use> = self.uses(old).to_vec();
        for u in &list {
            self.set_operand(u.inst, u.index as usize, new);
        }
        list.len()
    }

    // ---- blocks and edges ---------------------------------------------------------

    /// A new empty block at the end of the owned block list.
    pub fn create_block(&mut self) -> BlockId {
        self.func.create_block()
    }

    /// Splits `at`'s block before `at`: `at` and everything after it move to a new block
    /// (placed right after the old one in the block list), and the old block ends in
    /// `br new`. Phis of the moved terminator's successors now name the new block.
    /// Returns the new block.
    ///
    /// # Panics
    /// When `at` is a phi (the split point must follow the block's phis) or not placed.
    pub fn split_block(&mut self, at: InstId) -> BlockId {
        assert!(
            !self.inst(at).is_phi(),
            "Rewriter::split_block: cannot split before a phi"
        );
        let old = self.inst(at).block.expect("split_block: not placed");
        let new = self.func.blocks.push(Default::default());
        let pos = self
            .func
            .block_order
            .iter()
            .position(|x| *x == old)
            .map_or(self.func.block_order.len(), |p| p + 1);
        self.func.block_order.insert(pos, new);
        // Move the tail: relink `at..last` under `new` (O(tail) for the block fields).
        let last = self.layout.last[old];
        let prev = self.layout.prev[at];
        match prev {
            Some(p) => self.layout.next[p] = None,
            None => self.layout.first[old] = None,
        }
        self.layout.last[old] = prev;
        self.layout.prev[at] = None;
        self.layout.first[new] = Some(at);
        self.layout.last[new] = last;
        let mut cur = Some(at);
        while let Some(i) = cur {
            self.func.insts[i].block = Some(new);
            cur = self.layout.next[i];
        }
        self.touch(old);
        self.touch(new);
        // Successors of the moved terminator: their phis now come from `new`. The phi
        // edges naming `old` are uses of `old` (O(uses)).
        let succs = self.successors(new);
        let renamed: Vec<Use> = self
            .uses(Value::Block(old))
            .iter()
            .copied()
            .filter(|u| {
                let d = self.inst(u.inst);
                d.is_phi()
                    && phi_slot_edge(u.index as usize).1
                    && d.block.is_some_and(|b| succs.contains(&b))
            })
            .collect();
        for u in renamed {
            self.set_operand(u.inst, u.index as usize, Value::Block(new));
        }
        self.at(InsertPoint::End(old)).br(new);
        new
    }

    /// Points operand `slot` of `from`'s terminator (a block operand) at `to` instead.
    /// Phis stay in sync: the old target's phis drop their `from` edge unless another
    /// edge from `from` still reaches it, and unless `from` already reached `to`, each
    /// phi `p` of `to` gains the edge `(from, incoming(p))`.
    ///
    /// # Panics
    /// When `from` has no terminator or its operand `slot` is not a block.
    pub fn redirect_edge(
        &mut self,
        from: BlockId,
        slot: usize,
        to: BlockId,
        mut incoming: impl FnMut(InstId) -> Value,
    ) {
        let t = self
            .terminator(from)
            .expect("redirect_edge: block has no terminator");
        let old = self.inst(t).operands[slot]
            .as_block()
            .expect("redirect_edge: operand is not a block");
        if old == to {
            return;
        }
        let reached_to = self.successors(from).contains(&to);
        self.set_operand(t, slot, Value::Block(to));
        if !self.successors(from).contains(&old) {
            for p in self.phis(old) {
                self.remove_phi_edge(p, from);
            }
        }
        if !reached_to {
            for p in self.phis(to) {
                let v = incoming(p);
                self.add_phi_edge(p, v, from);
            }
        }
    }

    // ---- phi edges ----------------------------------------------------------------

    /// The incoming edges `(value, block)` of phi `p`, in order.
    ///
    /// # Panics
    /// When `p` is not a phi.
    pub fn phi_edges(&self, p: InstId) -> Vec<(Value, BlockId)> {
        let d = self.inst(p);
        assert!(d.is_phi(), "phi_edges: {p:?} is not a phi");
        d.phi_incoming().collect()
    }

    /// Appends the edge `(value, block)` to phi `p`.
    ///
    /// # Panics
    /// When `p` is not a phi.
    pub fn add_phi_edge(&mut self, p: InstId, value: Value, block: BlockId) {
        let d = &mut self.func.insts[p];
        assert!(d.is_phi(), "add_phi_edge: {p:?} is not a phi");
        d.phi_push(value, block);
        if d.block.is_some() {
            let k = d.operands.len() - 2;
            for (slot, v) in [(k, value), (k + 1, Value::Block(block))] {
                self.uses.push_slot(p);
                self.uses.add(p, slot, v);
            }
        }
    }

    /// Removes phi `p`'s edge from `block` and returns its value (`None` if absent).
    /// Later edges keep their order.
    pub fn remove_phi_edge(&mut self, p: InstId, block: BlockId) -> Option<Value> {
        let k = self.inst(p).phi_edge_from(block)?;
        let (vs, bs) = (phi_value_slot(k), phi_block_slot(k));
        if self.func.insts[p].block.is_some() {
            let ops = self.func.insts[p].operands.clone();
            self.uses.remove(p, bs, ops[bs]);
            self.uses.remove(p, vs, ops[vs]);
            let (v, _) = self.func.insts[p].phi_remove_edge(k);
            let ops = self.func.insts[p].operands.clone();
            self.uses.remove_slots(p, vs..bs + 1, &ops);
            Some(v)
        } else {
            Some(self.func.insts[p].phi_remove_edge(k).0)
        }
    }

    /// Sets the value phi `p` receives from `block`; false if `p` has no such edge.
    pub fn set_phi_value(&mut self, p: InstId, block: BlockId, value: Value) -> bool {
        let Some(k) = self.inst(p).phi_edge_from(block) else {
            return false;
        };
        self.set_operand(p, phi_value_slot(k), value);
        true
    }

    /// Renames incoming block `old` to `new` on every edge of phi `p`; returns how many
    /// edges changed.
    pub fn rename_phi_block(&mut self, p: InstId, old: BlockId, new: BlockId) -> usize {
        let slots: SmallVec<[usize; 2]> = (0..self.inst(p).phi_len())
            .map(phi_block_slot)
            .filter(|s| self.inst(p).operands[*s] == Value::Block(old))
            .collect();
        for &s in &slots {
            self.set_operand(p, s, Value::Block(new));
        }
        slots.len()
    }
}

impl Drop for Rewriter<'_> {
    fn drop(&mut self) {
        self.sync();
    }
}

/// Inserts at a fixed point under a [`Rewriter`]; the per-op constructors come from
/// [`InstBuilder`].
pub struct RewriteCursor<'r, 'a> {
    rw: &'r mut Rewriter<'a>,
    at: InsertPoint,
}

impl InstBuilder for RewriteCursor<'_, '_> {
    fn insert(&mut self, data: InstData) -> InstId {
        self.rw.insert(self.at, data)
    }
}

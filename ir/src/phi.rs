//! Phi incoming edges: their one representation and the API every caller uses.
//!
//! A phi's operand list holds its incoming edges interleaved, `[value₀, block₀, value₁,
//! block₁, …]`, each block as a [`Value::Block`]. An edge is therefore one unit in one
//! list: it cannot fall out of step with a second list, and the def-use index
//! ([`crate::uses::UseMap`], [`crate::edit::UseIndex`]) sees the incoming blocks as uses
//! of their blocks, so renaming a block (split, redirect) finds its phis in O(uses).
//!
//! Nothing outside this module indexes a phi's operands by position: read the edges with
//! [`InstData::phi_incoming`] (or [`InstData::phi_values`] / [`InstData::phi_blocks`]),
//! edit them with [`InstData::phi_push`], [`InstData::phi_remove_from`],
//! [`InstData::phi_retain`], [`InstData::phi_set_value`] and
//! [`InstData::phi_rename_block`]; a [`crate::edit::Rewriter`] wraps the edits that must
//! keep its use index valid. The operand-slot mapping itself ([`phi_value_slot`],
//! [`phi_slot_edge`]) is public for code that reports or rewrites operand slots.
//!
//! A malformed phi (an odd operand count, or a non-block value where a block belongs) can
//! only be built in memory; the verifier reports it, and the readers below skip such a
//! pair rather than panic.
//!
//! ```
//! use xir_ir::{BlockId, InstData, EntityRef, Value};
//! let (a, b) = (BlockId::new(1), BlockId::new(2));
//! let ty = xir_ir::types::Type::new(0);
//! let mut p = InstData::phi(ty, [(Value::Block(a), a)]);
//! p.phi_push(Value::Block(b), b);
//! assert_eq!(p.phi_len(), 2);
//! assert_eq!(p.phi_remove_from(a), Some(Value::Block(a)));
//! assert_eq!(p.phi_incoming().collect::<Vec<_>>(), vec![(Value::Block(b), b)]);
//! ```

use crate::inst::{InstData, InstKind};
use crate::types::Type;
use crate::value::{BlockId, Value};

/// The operand slot holding the value of incoming edge `k`.
#[inline]
pub const fn phi_value_slot(k: usize) -> usize {
    2 * k
}

/// The operand slot holding the block of incoming edge `k`.
#[inline]
pub const fn phi_block_slot(k: usize) -> usize {
    2 * k + 1
}

/// Which incoming edge operand `slot` of a phi belongs to, and whether it is the edge's
/// block (`true`) or value (`false`).
#[inline]
pub const fn phi_slot_edge(slot: usize) -> (usize, bool) {
    (slot / 2, slot % 2 == 1)
}

impl InstData {
    /// A detached phi of type `ty` with incoming edges `(value, block)`.
    pub fn phi(ty: Type, edges: impl IntoIterator<Item = (Value, BlockId)>) -> Self {
        let mut d = InstData::new(InstKind::Phi, Some(ty), []);
        for (v, b) in edges {
            d.phi_push(v, b);
        }
        d
    }

    /// Whether this is a phi.
    #[inline]
    pub fn is_phi(&self) -> bool {
        matches!(self.kind, InstKind::Phi)
    }

    /// The number of incoming edges.
    #[inline]
    pub fn phi_len(&self) -> usize {
        debug_assert!(self.is_phi());
        self.operands.len() / 2
    }

    /// The incoming edges `(value, block)` in order.
    pub fn phi_incoming(&self) -> impl ExactSizeIterator<Item = (Value, BlockId)> + '_ {
        debug_assert!(self.is_phi());
        self.operands.chunks_exact(2).map(|e| {
            (
                e[0],
                e[1].as_block().unwrap_or_else(|| malformed_block(e[1])),
            )
        })
    }

    /// The incoming values in order.
    pub fn phi_values(&self) -> impl ExactSizeIterator<Item = Value> + '_ {
        self.phi_incoming().map(|e| e.0)
    }

    /// The incoming blocks in order.
    pub fn phi_blocks(&self) -> impl ExactSizeIterator<Item = BlockId> + '_ {
        self.phi_incoming().map(|e| e.1)
    }

    /// Incoming edge `k` (`None` past the end).
    pub fn phi_edge(&self, k: usize) -> Option<(Value, BlockId)> {
        self.phi_incoming().nth(k)
    }

    /// The index of the (first) edge from `block`.
    pub fn phi_edge_from(&self, block: BlockId) -> Option<usize> {
        self.phi_blocks().position(|b| b == block)
    }

    /// The value received from `block` (the first edge from it).
    pub fn phi_value_from(&self, block: BlockId) -> Option<Value> {
        self.phi_incoming().find(|e| e.1 == block).map(|e| e.0)
    }

    /// Appends the edge `(value, block)`.
    pub fn phi_push(&mut self, value: Value, block: BlockId) {
        debug_assert!(self.is_phi());
        self.operands.push(value);
        self.operands.push(Value::Block(block));
    }

    /// Removes edge `k` and returns it; later edges keep their order.
    ///
    /// # Panics
    /// When `k` is out of range.
    pub fn phi_remove_edge(&mut self, k: usize) -> (Value, BlockId) {
        let e = self.phi_edge(k).expect("phi_remove_edge: no such edge");
        self.operands
            .drain(phi_value_slot(k)..phi_value_slot(k + 1));
        e
    }

    /// Removes the (first) edge from `block`; returns its value.
    pub fn phi_remove_from(&mut self, block: BlockId) -> Option<Value> {
        let k = self.phi_edge_from(block)?;
        Some(self.phi_remove_edge(k).0)
    }

    /// Keeps the edges for which `keep(value, block)` holds, in order; returns how many
    /// were removed.
    pub fn phi_retain(&mut self, mut keep: impl FnMut(Value, BlockId) -> bool) -> usize {
        let n = self.phi_len();
        let mut w = 0;
        for k in 0..n {
            let (v, b) = (
                self.operands[phi_value_slot(k)],
                self.operands[phi_block_slot(k)],
            );
            if keep(v, b.as_block().unwrap_or_else(|| malformed_block(b))) {
                self.operands[phi_value_slot(w)] = v;
                self.operands[phi_block_slot(w)] = b;
                w += 1;
            }
        }
        self.operands.truncate(phi_value_slot(w));
        n - w
    }

    /// Replaces every edge by `edges`.
    pub fn phi_set_edges(&mut self, edges: impl IntoIterator<Item = (Value, BlockId)>) {
        self.operands.clear();
        for (v, b) in edges {
            self.phi_push(v, b);
        }
    }

    /// Sets the value of edge `k`.
    ///
    /// # Panics
    /// When `k` is out of range.
    pub fn phi_set_value_at(&mut self, k: usize, value: Value) {
        assert!(k < self.phi_len(), "phi_set_value_at: no edge {k}");
        self.operands[phi_value_slot(k)] = value;
    }

    /// Sets the value received from `block` (the first edge from it); false if there
    /// is no such edge.
    pub fn phi_set_value(&mut self, block: BlockId, value: Value) -> bool {
        match self.phi_edge_from(block) {
            Some(k) => {
                self.phi_set_value_at(k, value);
                true
            }
            None => false,
        }
    }

    /// Applies `f` to every incoming value.
    pub fn phi_map_values(&mut self, mut f: impl FnMut(Value) -> Value) {
        for k in 0..self.phi_len() {
            let s = phi_value_slot(k);
            self.operands[s] = f(self.operands[s]);
        }
    }

    /// Renames incoming block `old` to `new` on every edge; returns how many edges changed.
    pub fn phi_rename_block(&mut self, old: BlockId, new: BlockId) -> usize {
        let mut n = 0;
        for k in 0..self.phi_len() {
            let s = phi_block_slot(k);
            if self.operands[s] == Value::Block(old) {
                self.operands[s] = Value::Block(new);
                n += 1;
            }
        }
        n
    }

    /// Applies `f` to every incoming block.
    pub fn phi_map_blocks(&mut self, mut f: impl FnMut(BlockId) -> BlockId) {
        for k in 0..self.phi_len() {
            let s = phi_block_slot(k);
            if let Value::Block(b) = self.operands[s] {
                self.operands[s] = Value::Block(f(b));
            }
        }
    }

    /// The operand slots other than a phi's incoming blocks, `(slot, value)`: the
    /// operands upstream's use lists, the printer's block numbering and its debug
    /// `users:` comments count (for every other kind, every operand).
    pub fn operands_except_phi_blocks(&self) -> impl Iterator<Item = (usize, Value)> + '_ {
        let step = if self.is_phi() { 2 } else { 1 };
        self.operands.iter().copied().enumerate().step_by(step)
    }

    /// Whether the operand list is a well-formed edge list (an even count, a block in
    /// every block slot).
    pub fn phi_well_formed(&self) -> bool {
        self.operands.len().is_multiple_of(2)
            && self
                .operands
                .chunks_exact(2)
                .all(|e| matches!(e[1], Value::Block(_)))
    }
}

/// The block of a malformed edge (a non-block in a block slot): a handle no function
/// owns, so a lookup fails cleanly instead of this function panicking.
#[cold]
fn malformed_block(_v: Value) -> BlockId {
    use crate::entity::EntityRef;
    BlockId::new(u32::MAX as usize - 1)
}

//! The owned block list of a function ([`BlockLayout`]): upstream's definition block list
//! in order, plus, per block handle, how many times it is listed, so that "is this block
//! in the function" ([`Function::has_block`](super::Function::has_block)) is one array
//! read instead of a scan of the list.
//!
//! The list is read as a slice (`Deref<Target = [BlockId]>`); it changes only through
//! the methods here, each of which keeps the counts equal to the list's contents. A
//! count is normally 0 or 1; a handle listed twice (invalid IR, which the verifier
//! reports) counts 2, so removing one copy keeps it listed.
//!
//! ```
//! use xir_ir::{Function, FunctionKind};
//! let mut f = Function::new(FunctionKind::Callable, None);
//! let (a, b) = (f.create_block(), f.create_block());
//! f.block_order.retain(|x| *x != a);
//! assert!(!f.has_block(a) && f.has_block(b));
//! assert_eq!(&f.block_order[..], &[b]);
//! ```

use crate::entity::EntityRef;
use crate::value::BlockId;

/// A function's owned blocks in order, with an O(1) membership query.
#[derive(Clone, Default)]
pub struct BlockLayout {
    /// The blocks, in order.
    order: Vec<BlockId>,
    /// Indexed by block handle: how many times it occurs in `order` (handles past the end
    /// occur 0 times).
    listed: Vec<u32>,
}

impl BlockLayout {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether `b` is listed (O(1); shadows the slice's linear `contains`).
    #[inline]
    pub fn contains(&self, b: &BlockId) -> bool {
        self.listed.get(b.index()).is_some_and(|n| *n != 0)
    }

    /// The count of `b`, growing the table to reach it.
    #[inline]
    fn count_mut(&mut self, b: BlockId) -> &mut u32 {
        let i = b.index();
        if i >= self.listed.len() {
            self.listed.resize(i + 1, 0);
        }
        &mut self.listed[i]
    }

    /// Appends `b`.
    pub fn push(&mut self, b: BlockId) {
        self.order.push(b);
        *self.count_mut(b) += 1;
    }

    /// Inserts `b` at position `pos` (at most the length).
    pub fn insert(&mut self, pos: usize, b: BlockId) {
        self.order.insert(pos, b);
        *self.count_mut(b) += 1;
    }

    /// Inserts `blocks` in order at position `pos` (at most the length).
    pub fn insert_all(&mut self, pos: usize, blocks: impl IntoIterator<Item = BlockId>) {
        let start = self.order.len();
        self.order.splice(pos..pos, blocks);
        for k in pos..pos + (self.order.len() - start) {
            let b = self.order[k];
            *self.count_mut(b) += 1;
        }
    }

    /// Removes and returns the block at position `pos`.
    pub fn remove(&mut self, pos: usize) -> BlockId {
        let b = self.order.remove(pos);
        *self.count_mut(b) -= 1;
        b
    }

    /// Keeps only the blocks for which `keep` holds, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&BlockId) -> bool) {
        let listed = &mut self.listed;
        self.order.retain(|b| {
            let k = keep(b);
            if !k {
                // Listed, so its slot exists.
                listed[b.index()] -= 1;
            }
            k
        });
    }

    /// Replaces the whole list.
    pub fn set(&mut self, order: Vec<BlockId>) {
        self.listed.clear();
        self.order = order;
        for i in 0..self.order.len() {
            let b = self.order[i];
            *self.count_mut(b) += 1;
        }
    }

    /// Empties the list.
    pub fn clear(&mut self) {
        self.order.clear();
        self.listed.clear();
    }

    /// Makes room for `n` more blocks.
    pub fn reserve(&mut self, n: usize) {
        self.order.reserve(n);
        self.listed.reserve(n);
    }

    /// Drops spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.order.shrink_to_fit();
        self.listed.shrink_to_fit();
    }

    /// Whether every handle's count equals the number of times it is listed (the
    /// invariant every method keeps; for tests).
    pub fn is_consistent(&self) -> bool {
        let mut fresh = vec![0u32; self.listed.len()];
        for &b in &self.order {
            match fresh.get_mut(b.index()) {
                Some(n) => *n += 1,
                None => return false,
            }
        }
        fresh == self.listed
    }
}

impl std::ops::Deref for BlockLayout {
    type Target = [BlockId];
    #[inline]
    fn deref(&self) -> &[BlockId] {
        &self.order
    }
}

impl<'a> IntoIterator for &'a BlockLayout {
    type Item = &'a BlockId;
    type IntoIter = std::slice::Iter<'a, BlockId>;
    fn into_iter(self) -> Self::IntoIter {
        self.order.iter()
    }
}

impl FromIterator<BlockId> for BlockLayout {
    fn from_iter<I: IntoIterator<Item = BlockId>>(iter: I) -> Self {
        let mut l = Self::new();
        for b in iter {
            l.push(b);
        }
        l
    }
}

impl From<Vec<BlockId>> for BlockLayout {
    fn from(order: Vec<BlockId>) -> Self {
        let mut l = Self::new();
        l.set(order);
        l
    }
}

impl PartialEq for BlockLayout {
    fn eq(&self, other: &Self) -> bool {
        self.order == other.order
    }
}

impl PartialEq<Vec<BlockId>> for BlockLayout {
    fn eq(&self, other: &Vec<BlockId>) -> bool {
        self.order == *other
    }
}

impl std::fmt::Debug for BlockLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.order.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Random edit sequences through every method keep the counts equal to the list and
    /// `contains` equal to a scan.
    #[test]
    fn counts_follow_random_edits() {
        let mut rng = Rng::new(11);
        let mut edits = 0;
        for _ in 0..200 {
            let mut l = BlockLayout::new();
            let mut model: Vec<BlockId> = Vec::new();
            for _ in 0..60 {
                let b = BlockId::new(rng.index(24));
                match rng.index(7) {
                    0 | 1 => {
                        l.push(b);
                        model.push(b);
                    }
                    2 => {
                        let pos = rng.index(model.len() + 1);
                        l.insert(pos, b);
                        model.insert(pos, b);
                    }
                    3 if !model.is_empty() => {
                        let pos = rng.index(model.len());
                        assert_eq!(l.remove(pos), model.remove(pos));
                    }
                    4 => {
                        l.retain(|x| *x != b);
                        model.retain(|x| *x != b);
                    }
                    5 if rng.chance(50) => {
                        let pos = rng.index(model.len() + 1);
                        let more = [b, BlockId::new(rng.index(24))];
                        l.insert_all(pos, more);
                        model.splice(pos..pos, more);
                    }
                    5 => {
                        let order: Vec<BlockId> = model
                            .iter()
                            .copied()
                            .filter(|x| x.index() % 3 != 0)
                            .collect();
                        l.set(order.clone());
                        model = order;
                    }
                    _ if rng.chance(10) => {
                        l.clear();
                        model.clear();
                    }
                    _ => {
                        l.shrink_to_fit();
                    }
                }
                edits += 1;
                assert!(l.is_consistent());
                assert_eq!(&l[..], &model[..]);
                for i in 0..26 {
                    let b = BlockId::new(i);
                    assert_eq!(l.contains(&b), model.contains(&b));
                }
            }
        }
        assert_eq!(edits, 200 * 60);
    }

    #[test]
    fn a_block_listed_twice_stays_listed_until_both_go() {
        let b = BlockId::new(3);
        let mut l: BlockLayout = vec![b, BlockId::new(0), b].into();
        l.remove(0);
        assert!(l.contains(&b) && l.is_consistent());
        l.remove(1);
        assert!(!l.contains(&b) && l.is_consistent());
    }
}

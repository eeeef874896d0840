//! The instruction list of a block ([`InstList`]): the block's instructions in order,
//! plus a copy of the last one kept in the block record itself, so that reading a
//! block's terminator ([`Function::terminator`](super::Function::terminator), the CFG,
//! the verifier's graph) touches the block record and the instruction, not the list's
//! own heap buffer. On a 100k-block function that buffer read was one cache miss per
//! block in every walk over the blocks' terminators (docs/passes-perf.md).
//!
//! The list is read as a slice (`Deref<Target = [InstId]>`; [`InstList::last`] shadows
//! the slice's and reads the copy); it changes only through the methods here, each of
//! which keeps the copy equal to the list's last element ([`InstList::is_consistent`]).
//!
//! ```
//! use xir_ir::function::InstList;
//! use xir_ir::inst::InstId;
//! use xir_ir::entity::EntityRef;
//! let (a, b) = (InstId::new(0), InstId::new(1));
//! let mut l: InstList = vec![a, b].into();
//! assert_eq!(l.last(), Some(&b));
//! l.pop();
//! assert_eq!((l.last(), &l[..]), (Some(&a), &[a][..]));
//! ```

use crate::inst::InstId;

/// A block's instructions in order, with its last instruction kept beside the list.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct InstList {
    /// The instructions, in order.
    list: Vec<InstId>,
    /// `list.last()`, kept by every method.
    last: Option<InstId>,
}

impl InstList {
    /// An empty list.
    pub const fn new() -> Self {
        Self {
            list: Vec::new(),
            last: None,
        }
    }

    /// An empty list with room for `n` instructions.
    pub fn with_capacity(n: usize) -> Self {
        Self {
            list: Vec::with_capacity(n),
            last: None,
        }
    }

    /// Restores the copy of the last element after a change of the list.
    #[inline]
    fn sync(&mut self) {
        self.last = self.list.last().copied();
    }

    /// The last instruction (the terminator position), read from the block record
    /// (shadows the slice's `last`).
    #[inline]
    pub fn last(&self) -> Option<&InstId> {
        self.last.as_ref()
    }

    /// The instructions as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[InstId] {
        &self.list
    }

    /// Appends `i`.
    #[inline]
    pub fn push(&mut self, i: InstId) {
        self.list.push(i);
        self.last = Some(i);
    }

    /// Removes and returns the last instruction.
    pub fn pop(&mut self) -> Option<InstId> {
        let i = self.list.pop();
        self.sync();
        i
    }

    /// Inserts `i` at position `pos` (at most the length).
    pub fn insert(&mut self, pos: usize, i: InstId) {
        self.list.insert(pos, i);
        self.sync();
    }

    /// Inserts `insts` in order at position `pos` (at most the length).
    pub fn insert_all(&mut self, pos: usize, insts: impl IntoIterator<Item = InstId>) {
        self.list.splice(pos..pos, insts);
        self.sync();
    }

    /// Removes and returns the instruction at position `pos`.
    pub fn remove(&mut self, pos: usize) -> InstId {
        let i = self.list.remove(pos);
        self.sync();
        i
    }

    /// Swaps the instructions at positions `a` and `b`.
    pub fn swap(&mut self, a: usize, b: usize) {
        self.list.swap(a, b);
        self.sync();
    }

    /// Keeps only the instructions for which `keep` holds, in order.
    pub fn retain(&mut self, keep: impl FnMut(&InstId) -> bool) {
        self.list.retain(keep);
        self.sync();
    }

    /// Keeps the first `n` instructions.
    pub fn truncate(&mut self, n: usize) {
        self.list.truncate(n);
        self.sync();
    }

    /// Empties the list.
    pub fn clear(&mut self) {
        self.list.clear();
        self.last = None;
    }

    /// Splits the list at `pos`: `self` keeps `[0, pos)`, the rest is returned.
    pub fn split_off(&mut self, pos: usize) -> InstList {
        let rest: InstList = self.list.split_off(pos).into();
        self.sync();
        rest
    }

    /// Makes room for `n` more instructions.
    pub fn reserve(&mut self, n: usize) {
        self.list.reserve(n);
    }

    /// Makes room for exactly `n` more instructions.
    pub fn reserve_exact(&mut self, n: usize) {
        self.list.reserve_exact(n);
    }

    /// Drops spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.list.shrink_to_fit();
    }

    /// The instructions as a `Vec`.
    pub fn into_vec(self) -> Vec<InstId> {
        self.list
    }

    /// Whether the kept last instruction equals the list's (the invariant every method
    /// keeps; for tests).
    pub fn is_consistent(&self) -> bool {
        self.last == self.list.last().copied()
    }
}

impl Extend<InstId> for InstList {
    fn extend<I: IntoIterator<Item = InstId>>(&mut self, iter: I) {
        self.list.extend(iter);
        self.sync();
    }
}

impl std::ops::Deref for InstList {
    type Target = [InstId];
    #[inline]
    fn deref(&self) -> &[InstId] {
        &self.list
    }
}

impl<'a> IntoIterator for &'a InstList {
    type Item = &'a InstId;
    type IntoIter = std::slice::Iter<'a, InstId>;
    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

impl IntoIterator for InstList {
    type Item = InstId;
    type IntoIter = std::vec::IntoIter<InstId>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.into_iter()
    }
}

impl FromIterator<InstId> for InstList {
    fn from_iter<I: IntoIterator<Item = InstId>>(iter: I) -> Self {
        Vec::from_iter(iter).into()
    }
}

impl From<Vec<InstId>> for InstList {
    fn from(list: Vec<InstId>) -> Self {
        let last = list.last().copied();
        Self { list, last }
    }
}

impl PartialEq<Vec<InstId>> for InstList {
    fn eq(&self, other: &Vec<InstId>) -> bool {
        self.list == *other
    }
}

impl std::fmt::Debug for InstList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.list.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entity::EntityRef;
    use crate::rng::Rng;

    /// Random edit sequences through every method keep the copy of the last element
    /// equal to the list's, and the list equal to a `Vec` given the same edits.
    #[test]
    fn last_follows_random_edits() {
        let mut rng = Rng::new(13);
        let mut edits = 0;
        for _ in 0..200 {
            let mut l = InstList::new();
            let mut model: Vec<InstId> = Vec::new();
            for _ in 0..60 {
                let i = InstId::new(rng.index(40));
                match rng.index(10) {
                    0..=2 => {
                        l.push(i);
                        model.push(i);
                    }
                    3 if rng.chance(50) => {
                        let pos = rng.index(model.len() + 1);
                        l.insert(pos, i);
                        model.insert(pos, i);
                    }
                    3 => {
                        let pos = rng.index(model.len() + 1);
                        let more = [i, InstId::new(rng.index(40))];
                        l.insert_all(pos, more);
                        model.splice(pos..pos, more);
                    }
                    4 if !model.is_empty() => {
                        let pos = rng.index(model.len());
                        assert_eq!(l.remove(pos), model.remove(pos));
                    }
                    5 => {
                        l.retain(|x| *x != i);
                        model.retain(|x| *x != i);
                    }
                    6 => assert_eq!(l.pop(), model.pop()),
                    7 if !model.is_empty() => {
                        let (a, b) = (rng.index(model.len()), rng.index(model.len()));
                        l.swap(a, b);
                        model.swap(a, b);
                    }
                    8 => {
                        let pos = rng.index(model.len() + 1);
                        let rest = l.split_off(pos);
                        assert!(rest.is_consistent());
                        assert_eq!(rest, model.split_off(pos));
                        if rng.chance(50) {
                            l.extend(rest.iter().copied());
                            model.extend(rest.iter().copied());
                        }
                    }
                    9 => {
                        let n = rng.index(model.len() + 1);
                        l.truncate(n);
                        model.truncate(n);
                    }
                    _ if rng.chance(10) => {
                        l.clear();
                        model.clear();
                    }
                    _ => {
                        let v: InstList = model.iter().copied().collect();
                        assert!(v.is_consistent());
                        l = v;
                    }
                }
                edits += 1;
                assert!(l.is_consistent());
                assert_eq!(&l[..], &model[..]);
                assert_eq!(l.last(), model.last());
            }
        }
        assert_eq!(edits, 200 * 60);
    }
}

//! The def-use index a [`Rewriter`](super::Rewriter) keeps valid: for every
//! function-local value (instruction result, block, argument) the operand slots that
//! name it, plus for every operand slot its position in that list, so adding, removing
//! and moving a use are all O(1).
//!
//! A phi's incoming blocks are operands ([`crate::phi`]) and so uses of their blocks;
//! structured side blocks (merge, loop body/update) are not uses. Lists are unordered (removal is a swap-remove); compare with
//! [`UseMap`] through [`UseIndex::check`].

use crate::entity::SecondaryMap;
use crate::function::Function;
use crate::inst::InstId;
use crate::uses::{Use, UseMap};
use crate::value::{ArgId, BlockId, Value};
use smallvec::SmallVec;

/// Marks an operand slot that names a module-level value (not indexed).
const UNTRACKED: u32 = u32::MAX;

/// Uses of every function-local value, with back-pointers from operand slots.
#[derive(Clone, Debug, Default)]
pub struct UseIndex {
    insts: SecondaryMap<InstId, Vec<Use>>,
    blocks: SecondaryMap<BlockId, Vec<Use>>,
    args: SecondaryMap<ArgId, Vec<Use>>,
    /// For each operand slot of each placed instruction, its position in the use list
    /// of the value it names (`UNTRACKED` for module-level values).
    back: SecondaryMap<InstId, SmallVec<[u32; 4]>>,
}

impl UseIndex {
    /// Indexes every operand of every placed instruction of `f`.
    pub fn compute(f: &Function) -> Self {
        let mut x = UseIndex::default();
        for i in f.placed_insts() {
            x.add_all(i, &f.insts[i].operands);
        }
        x
    }

    /// The uses of `v` (empty for module-level values), in no particular order.
    pub fn uses(&self, v: Value) -> &[Use] {
        match v {
            Value::Inst(i) => self.insts.get(i),
            Value::Block(b) => self.blocks.get(b),
            Value::Arg(a) => self.args.get(a),
            _ => &[],
        }
    }

    fn list_mut(&mut self, v: Value) -> Option<&mut Vec<Use>> {
        match v {
            Value::Inst(i) => Some(self.insts.get_mut(i)),
            Value::Block(b) => Some(self.blocks.get_mut(b)),
            Value::Arg(a) => Some(self.args.get_mut(a)),
            _ => None,
        }
    }

    /// Indexes every operand of `inst` (just placed).
    pub(super) fn add_all(&mut self, inst: InstId, operands: &[Value]) {
        self.back.get_mut(inst).clear();
        for (k, &v) in operands.iter().enumerate() {
            self.back.get_mut(inst).push(UNTRACKED);
            self.add(inst, k, v);
        }
    }

    /// Forgets every operand of `inst` (about to be removed).
    pub(super) fn remove_all(&mut self, inst: InstId, operands: &[Value]) {
        for (k, &v) in operands.iter().enumerate().rev() {
            self.remove(inst, k, v);
        }
        self.back.get_mut(inst).clear();
    }

    /// Records that slot `k` of `inst` (which exists in `back`) now names `v`.
    pub(super) fn add(&mut self, inst: InstId, k: usize, v: Value) {
        let u = Use {
            inst,
            index: k as u32,
        };
        let pos = match self.list_mut(v) {
            Some(list) => {
                list.push(u);
                (list.len() - 1) as u32
            }
            None => UNTRACKED,
        };
        self.back.get_mut(inst)[k] = pos;
    }

    /// Forgets that slot `k` of `inst` names `v` (O(1): swap-remove plus one
    /// back-pointer fix).
    pub(super) fn remove(&mut self, inst: InstId, k: usize, v: Value) {
        let pos = std::mem::replace(&mut self.back.get_mut(inst)[k], UNTRACKED);
        let Some(list) = self.list_mut(v) else {
            return;
        };
        let pos = pos as usize;
        debug_assert_eq!(
            list.get(pos),
            Some(&Use {
                inst,
                index: k as u32
            })
        );
        list.swap_remove(pos);
        if let Some(&moved) = list.get(pos) {
            self.back.get_mut(moved.inst)[moved.index as usize] = pos as u32;
        }
    }

    /// Appends an untracked slot to `inst`'s back-pointers. Call [`Self::add`] for it
    /// next.
    pub(super) fn push_slot(&mut self, inst: InstId) {
        self.back.get_mut(inst).push(UNTRACKED);
    }

    /// Drops slots `slots` of `inst` (each already removed with [`Self::remove`]),
    /// shifting later slots down. `operands` is the list after the removal.
    pub(super) fn remove_slots(
        &mut self,
        inst: InstId,
        slots: std::ops::Range<usize>,
        operands: &[Value],
    ) {
        let from = slots.start;
        self.back.get_mut(inst).drain(slots);
        self.renumber_from(inst, from, operands);
    }

    /// Rewrites the `index` of the uses of slots `from..` of `inst`.
    fn renumber_from(&mut self, inst: InstId, from: usize, operands: &[Value]) {
        for (k, &v) in operands.iter().enumerate().skip(from) {
            let pos = self.back.get(inst)[k];
            if pos == UNTRACKED {
                continue;
            }
            if let Some(list) = self.list_mut(v) {
                list[pos as usize].index = k as u32;
            }
        }
    }

    /// `Err(what differs)` unless this index lists exactly the uses a fresh
    /// [`UseMap::compute`] of `f` finds (as multisets) and every back-pointer is right.
    pub fn check(&self, f: &Function) -> Result<(), String> {
        let fresh = UseMap::compute(f);
        let sorted = |s: &[Use]| {
            let mut v = s.to_vec();
            v.sort();
            v
        };
        let mut values: Vec<Value> = Vec::new();
        values.extend(f.insts.keys().map(Value::Inst));
        values.extend(f.blocks.keys().map(Value::Block));
        values.extend(f.args.keys().map(Value::Arg));
        for v in values {
            let (a, b) = (sorted(self.uses(v)), sorted(fresh.uses(v)));
            if a != b {
                return Err(format!("uses of {v:?}: index {a:?}, fresh {b:?}"));
            }
            for (pos, u) in self.uses(v).iter().enumerate() {
                if self.back.get(u.inst).get(u.index as usize) != Some(&(pos as u32)) {
                    return Err(format!("back-pointer of {u:?} (use of {v:?})"));
                }
            }
        }
        Ok(())
    }
}

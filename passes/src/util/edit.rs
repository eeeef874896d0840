//! Batched editing: value substitution applied in one sweep, batched instruction removal,
//! and insertion helpers for block prefixes.
//!
//! Passes that replace many values (mem2reg, const-fold, phi simplification) record the
//! replacements in a [`ValueSubst`] and apply it once with [`ValueSubst::apply`], so the
//! whole rewrite costs one walk over the function instead of one walk per replacement.

use xir_ir::inst::{InstData, InstKind};
use xir_ir::{BlockId, Function, InstId, SecondaryMap, Value};

/// A pending substitution `instruction result → value`. Chains (`a → b`, `b → c`) are
/// followed when resolving, so replacements may be recorded in any order.
#[derive(Clone, Debug, Default)]
pub struct ValueSubst {
    map: SecondaryMap<InstId, Option<Value>>,
    len: usize,
}

impl ValueSubst {
    /// An empty substitution.
    pub fn new() -> Self {
        Self::default()
    }
    /// Records that every use of `inst` is to be replaced by `by`.
    pub fn replace(&mut self, inst: InstId, by: Value) {
        if self.map[inst].is_none() {
            self.len += 1;
        }
        self.map[inst] = Some(by);
    }
    /// Number of recorded replacements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The value `v` stands for after all recorded replacements.
    pub fn resolve(&self, mut v: Value) -> Value {
        // Each step follows one recorded edge; a chain longer than the number of
        // replacements would be a cycle, which callers never record.
        let mut steps = 0usize;
        while let Value::Inst(i) = v {
            match self.map[i] {
                Some(next) if steps <= self.len => {
                    v = next;
                    steps += 1;
                }
                _ => break,
            }
        }
        v
    }
    /// Rewrites every operand of every placed instruction of `f` (one sweep).
    pub fn apply(&self, f: &mut Function) {
        if self.is_empty() {
            return;
        }
        f.remap_operands(|v| self.resolve(v));
    }
}

/// Number of leading phis of `b` (the position where a new phi is appended after them).
pub fn phi_prefix_len(f: &Function, b: BlockId) -> usize {
    f.blocks[b]
        .insts
        .iter()
        .take_while(|i| f.insts[**i].is_phi())
        .count()
}

/// Number of leading allocas of `b`.
pub fn alloca_prefix_len(f: &Function, b: BlockId) -> usize {
    f.blocks[b]
        .insts
        .iter()
        .take_while(|i| matches!(f.insts[**i].kind, InstKind::Alloca(_)))
        .count()
}

/// Replaces the terminator of `b` by `br target`, moving the old terminator's metadata
/// onto the new branch. Returns the new branch.
pub fn replace_terminator_with_branch(f: &mut Function, b: BlockId, target: BlockId) -> InstId {
    let old = f.terminator(b).expect("invariant: block has a terminator");
    let metadata = std::mem::take(&mut f.insts[old].metadata);
    // The terminator is the block's last instruction.
    f.blocks[b].insts.pop();
    f.insts[old].block = None;
    let mut data = InstData::new(InstKind::Branch, None, [Value::Block(target)]);
    data.metadata = metadata;
    f.append_inst(b, data)
}

/// Live use counts of instruction results (operand slots of placed instructions that name
/// them), kept up to date by the pass while it removes and replaces instructions.
#[derive(Clone, Debug, Default)]
pub struct UseCounts {
    counts: SecondaryMap<InstId, u32>,
}

impl UseCounts {
    /// Counts the uses in `f`.
    pub fn compute(f: &Function) -> Self {
        let mut counts: SecondaryMap<InstId, u32> = SecondaryMap::default();
        for i in f.placed_insts() {
            for op in &f.insts[i].operands {
                if let Value::Inst(d) = op {
                    counts[*d] += 1;
                }
            }
        }
        Self { counts }
    }
    /// Number of live uses of `i`.
    pub fn get(&self, i: InstId) -> u32 {
        *self.counts.get(i)
    }
    /// Records that one use of `v` disappeared.
    pub fn drop_use(&mut self, v: Value) {
        if let Value::Inst(d) = v {
            let c = &mut self.counts[d];
            *c = c.saturating_sub(1);
        }
    }
    /// Records that one use of `v` appeared.
    pub fn add_use(&mut self, v: Value) {
        if let Value::Inst(d) = v {
            self.counts[d] += 1;
        }
    }
    /// Records that every use of `old` now names `new`.
    pub fn transfer(&mut self, old: InstId, new: Value) {
        let n = std::mem::take(&mut self.counts[old]);
        if let Value::Inst(d) = new {
            self.counts[d] += n;
        }
    }
}

/// Batched insertion of new (detached) instructions before and after existing ones,
/// applied with one rebuild per affected block — linear however many insertions a block
/// receives.
#[derive(Clone, Debug, Default)]
pub struct InsertionPlan {
    before: SecondaryMap<InstId, Vec<InstId>>,
    after: SecondaryMap<InstId, Vec<InstId>>,
    blocks: Vec<BlockId>,
}

impl InsertionPlan {
    /// An empty plan.
    pub fn new() -> Self {
        Self::default()
    }
    /// Creates `data` detached and schedules it just before `anchor` (after anything
    /// scheduled there earlier).
    pub fn insert_before(&mut self, f: &mut Function, anchor: InstId, data: InstData) -> InstId {
        let i = f.create_inst(data);
        self.before[anchor].push(i);
        self.blocks.extend(f.insts[anchor].block);
        i
    }
    /// Creates `data` detached and schedules it just after `anchor` (after anything
    /// scheduled there earlier).
    pub fn insert_after(&mut self, f: &mut Function, anchor: InstId, data: InstData) -> InstId {
        let i = f.create_inst(data);
        self.after[anchor].push(i);
        self.blocks.extend(f.insts[anchor].block);
        i
    }
    /// Places every scheduled instruction.
    pub fn apply(mut self, f: &mut Function) {
        self.blocks.sort();
        self.blocks.dedup();
        for b in self.blocks {
            let old = std::mem::take(&mut f.blocks[b].insts);
            let mut new = Vec::with_capacity(old.len());
            for i in old {
                new.extend(self.before[i].iter().copied());
                new.push(i);
                new.extend(self.after[i].iter().copied());
            }
            for &i in &new {
                f.insts[i].block = Some(b);
            }
            f.blocks[b].insts = new.into();
        }
    }
}

/// Places detached `insts` at position `pos` of block `b`, in order (one splice).
pub fn splice_at(f: &mut Function, b: BlockId, pos: usize, insts: &[InstId]) {
    for &i in insts {
        f.insts[i].block = Some(b);
    }
    f.blocks[b].insts.insert_all(pos, insts.iter().copied());
}

/// Removes every block in `dead` from the owned block list (one sweep) and detaches their
/// instructions; clears the body if it is among them.
pub fn remove_blocks(f: &mut Function, dead: &[BlockId]) {
    if dead.is_empty() {
        return;
    }
    let mut mark: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    for &b in dead {
        mark[b] = true;
        for i in std::mem::take(&mut f.blocks[b].insts) {
            f.insts[i].block = None;
        }
    }
    f.block_order.retain(|b| !mark[*b]);
    if f.body.is_some_and(|b| mark[b]) {
        f.body = None;
    }
}

/// The placed instructions of `func` in a def-before-use order: the reachable blocks in
/// reverse post-order (`rpo`, from [`xir_ir::analysis::Cfg`]), then the other blocks in
/// layout order.
pub fn insts_in_rpo(func: &Function, rpo: &[BlockId]) -> Vec<InstId> {
    let mut seen = SecondaryMap::<BlockId, bool>::default();
    rpo.iter()
        .chain(func.block_order.iter())
        .filter(|b| !std::mem::replace(&mut seen[**b], true))
        .flat_map(|b| func.blocks[*b].insts.iter().copied())
        .collect()
}

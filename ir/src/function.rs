//! Functions: arguments, owned basic blocks and instructions, with the editing primitives
//! passes use (append/insert/remove instructions, create/remove blocks, replace uses).

use crate::entity::{PrimaryMap, SecondaryMap};
use crate::inst::{InstData, InstId};
use crate::metadata::MetadataList;
use crate::types::Type;
use crate::value::{ArgId, BlockId, Value};

mod insts;
mod journal;
mod layout;
pub use insts::InstList;
use journal::Journal;
pub use journal::Savepoint;
pub use layout::BlockLayout;

/// The kind of a function.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// A compute kernel (void return) with its block size.
    Kernel {
        /// Threads per block (default 64×1×1).
        block_size: [u32; 3],
    },
    /// A callable.
    Callable,
    /// A declaration only.
    External,
    /// A raster vertex stage.
    RasterVertex,
    /// A raster fragment stage.
    RasterFragment,
}

impl FunctionKind {
    /// Upstream's default kernel block size.
    pub const DEFAULT_BLOCK_SIZE: [u32; 3] = [64, 1, 1];
    /// A kernel with the default block size.
    pub const fn kernel() -> Self {
        FunctionKind::Kernel {
            block_size: Self::DEFAULT_BLOCK_SIZE,
        }
    }
    /// Text keyword.
    pub const fn keyword(self) -> &'static str {
        match self {
            Self::Kernel { .. } => "kernel",
            Self::Callable => "callable",
            Self::External => "external",
            Self::RasterVertex => "raster_vertex",
            Self::RasterFragment => "raster_fragment",
        }
    }
    /// Whether functions of this kind have a body.
    pub const fn has_definition(self) -> bool {
        !matches!(self, Self::External)
    }
}

/// How an argument is passed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ArgKind {
    /// By value (rvalue; not a resource or custom type).
    Value,
    /// By reference (an lvalue; printed `&T`).
    Reference,
    /// A resource (buffer, texture, bindless array, accel).
    Resource,
}

impl ArgKind {
    /// Interchange spelling.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Value => "value",
            Self::Reference => "reference",
            Self::Resource => "resource",
        }
    }
}

/// An argument.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgData {
    /// Passing mode.
    pub kind: ArgKind,
    /// Type (the pointee type for references).
    pub ty: Type,
    /// Metadata.
    pub metadata: MetadataList,
}

/// A basic block: an ordered instruction list (the terminator, if any, is last).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BlockData {
    /// Instructions in program order (the last one also kept in the block record:
    /// [`InstList`]).
    pub insts: InstList,
    /// Metadata.
    pub metadata: MetadataList,
}

/// A function (definition or declaration).
#[derive(Clone, Debug)]
pub struct Function {
    /// Kind (and kernel block size).
    pub kind: FunctionKind,
    /// Return type (`None` = void).
    pub ret: Option<Type>,
    /// Metadata.
    pub metadata: MetadataList,
    /// Argument arena.
    pub args: PrimaryMap<ArgId, ArgData>,
    /// Arguments in signature order.
    pub arg_order: Vec<ArgId>,
    /// Block arena (includes removed blocks).
    pub blocks: PrimaryMap<BlockId, BlockData>,
    /// The owned block list, in order (upstream's definition block list), with O(1)
    /// membership ([`Function::has_block`]).
    pub block_order: BlockLayout,
    /// Instruction arena (includes removed instructions, whose `block` is `None`).
    pub insts: PrimaryMap<InstId, InstData>,
    /// The body (entry) block.
    pub body: Option<BlockId>,
    /// The undo log while one is open ([`Function::begin_journal`]).
    journal: Option<Box<Journal>>,
}

impl Function {
    /// An empty function of the given kind and return type.
    pub fn new(kind: FunctionKind, ret: Option<Type>) -> Self {
        Self {
            kind,
            ret,
            metadata: Vec::new(),
            args: PrimaryMap::new(),
            arg_order: Vec::new(),
            blocks: PrimaryMap::new(),
            block_order: BlockLayout::new(),
            insts: PrimaryMap::new(),
            body: None,
            journal: None,
        }
    }

    /// Adds an argument at the end of the signature.
    pub fn add_arg(&mut self, kind: ArgKind, ty: Type) -> ArgId {
        let a = self.args.push(ArgData {
            kind,
            ty,
            metadata: Vec::new(),
        });
        self.arg_order.push(a);
        a
    }

    /// Creates an empty block at the end of the owned block list.
    pub fn create_block(&mut self) -> BlockId {
        let b = self.blocks.push(BlockData::default());
        self.block_order.push(b);
        b
    }

    /// Creates the body block if there is none and returns it.
    pub fn ensure_body(&mut self) -> BlockId {
        if let Some(b) = self.body {
            return b;
        }
        let b = self.create_block();
        self.body = Some(b);
        b
    }

    /// Removes `b` from the owned block list (its instructions are detached too).
    pub fn remove_block(&mut self, b: BlockId) {
        self.log_order();
        self.log_block(b);
        self.block_order.retain(|x| *x != b);
        let insts = std::mem::take(&mut self.blocks[b].insts);
        for i in insts {
            self.log_inst(i);
            self.insts[i].block = None;
        }
        if self.body == Some(b) {
            self.body = None;
        }
    }

    /// Whether `b` is in the owned block list (O(1)).
    #[inline]
    pub fn has_block(&self, b: BlockId) -> bool {
        self.block_order.contains(&b)
    }

    /// The instruction data.
    #[inline]
    pub fn inst(&self, i: InstId) -> &InstData {
        &self.insts[i]
    }

    /// The instruction data, mutably.
    #[inline]
    pub fn inst_mut(&mut self, i: InstId) -> &mut InstData {
        self.log_inst(i);
        &mut self.insts[i]
    }

    /// Creates a detached instruction.
    pub fn create_inst(&mut self, data: InstData) -> InstId {
        self.insts.push(data)
    }

    /// Appends a new instruction at the end of `b`.
    pub fn append_inst(&mut self, b: BlockId, mut data: InstData) -> InstId {
        data.block = Some(b);
        self.log_block(b);
        let i = self.insts.push(data);
        self.blocks[b].insts.push(i);
        i
    }

    /// Inserts a new instruction at position `pos` of block `b`.
    pub fn insert_inst_at(&mut self, b: BlockId, pos: usize, mut data: InstData) -> InstId {
        data.block = Some(b);
        self.log_block(b);
        let i = self.insts.push(data);
        self.blocks[b].insts.insert(pos, i);
        i
    }

    /// Places the detached instruction `i` at position `pos` of block `b`.
    pub fn place_inst_at(&mut self, b: BlockId, pos: usize, i: InstId) {
        debug_assert!(
            self.insts[i].block.is_none(),
            "place_inst_at: {i:?} is placed"
        );
        self.log_inst(i);
        self.log_block(b);
        self.blocks[b].insts.insert(pos, i);
        self.insts[i].block = Some(b);
    }

    /// Inserts a new instruction just before `before` (which must be placed).
    pub fn insert_inst_before(&mut self, before: InstId, data: InstData) -> InstId {
        let b = self.insts[before]
            .block
            .expect("insert_inst_before: anchor is not placed");
        let pos = self.position(before).expect("anchor not in its block");
        self.insert_inst_at(b, pos, data)
    }

    /// Position of `i` in its block.
    pub fn position(&self, i: InstId) -> Option<usize> {
        let b = self.insts[i].block?;
        self.blocks[b].insts.iter().position(|x| *x == i)
    }

    /// Detaches `i` from its block (the arena slot stays; uses are not rewritten).
    pub fn remove_inst(&mut self, i: InstId) {
        self.log_inst(i);
        if let Some(b) = self.insts[i].block.take() {
            self.log_block(b);
            self.blocks[b].insts.retain(|x| *x != i);
        }
    }

    /// Detaches every instruction in `dead` with one sweep per affected block.
    pub fn remove_insts(&mut self, dead: &[InstId]) {
        let mut mark: SecondaryMap<InstId, bool> = SecondaryMap::with_default(false);
        let mut blocks = Vec::new();
        for &i in dead {
            self.log_inst(i);
            if let Some(b) = self.insts[i].block.take() {
                mark[i] = true;
                blocks.push(b);
            }
        }
        blocks.sort();
        blocks.dedup();
        for b in blocks {
            self.log_block(b);
            self.blocks[b].insts.retain(|x| !mark[*x]);
        }
    }

    /// The last instruction of `b` if it is a terminator (read from the block record,
    /// [`InstList::last`], and the instruction).
    #[inline]
    pub fn terminator(&self, b: BlockId) -> Option<InstId> {
        let last = *self.blocks[b].insts.last()?;
        self.insts[last].kind.is_terminator().then_some(last)
    }

    /// Executable successors: the successor blocks of `b`'s terminator (the
    /// instruction table's successor slots), in operand order, with repeats. An
    /// iterator borrowing the function: a caller that edits while it walks collects
    /// first.
    #[inline]
    pub fn successors(&self, b: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        self.terminator(b)
            .into_iter()
            .flat_map(move |t| self.insts[t].successors())
    }

    /// All placed instructions, block by block in owned order.
    pub fn placed_insts(&self) -> impl Iterator<Item = InstId> + '_ {
        self.block_order
            .iter()
            .flat_map(move |b| self.blocks[*b].insts.iter().copied())
    }

    /// Number of placed instructions.
    pub fn inst_count(&self) -> usize {
        self.block_order
            .iter()
            .map(|b| self.blocks[*b].insts.len())
            .sum()
    }

    /// Replaces every operand equal to `old` by `new` in placed instructions (operand
    /// slots only: phi incoming blocks and structured side blocks are left alone).
    /// Returns the number of slots rewritten. Scans the whole function; a pass that
    /// replaces many values uses [`crate::edit::Rewriter::replace_all_uses`] (O(uses)).
    pub fn replace_all_uses(&mut self, old: Value, new: Value) -> usize {
        let mut n = 0;
        let order = self.block_order.to_vec();
        for b in order {
            for k in 0..self.blocks[b].insts.len() {
                let i = self.blocks[b].insts[k];
                if self.insts[i].operands.contains(&old) {
                    self.log_inst(i);
                }
                let d = &mut self.insts[i];
                for op in d.operands.iter_mut() {
                    if *op == old {
                        *op = new;
                        n += 1;
                    }
                }
            }
        }
        n
    }

    /// Applies a value substitution to every operand of every placed instruction.
    pub fn remap_operands(&mut self, mut f: impl FnMut(Value) -> Value) {
        let order = self.block_order.to_vec();
        for b in order {
            for k in 0..self.blocks[b].insts.len() {
                let i = self.blocks[b].insts[k];
                if self.journal.is_some() {
                    let ops = &self.insts[i].operands;
                    let new: smallvec::SmallVec<[Value; 3]> = ops.iter().map(|v| f(*v)).collect();
                    if new != *ops {
                        self.log_inst(i);
                        self.insts[i].operands = new;
                    }
                    continue;
                }
                for op in self.insts[i].operands.iter_mut() {
                    *op = f(*op);
                }
            }
        }
    }
}

//! Instructions: [`InstKind`] (what to compute, with every non-operand field) plus a
//! uniform operand list in [`InstData`].
//!
//! Operand layouts follow upstream exactly (reference §3): e.g. `If` has operands
//! `[cond, then_block, else_block]` and its merge block as a side field; `Switch` has
//! `[selector, default, case blocks…]` with case labels in the kind; `Phi` has its incoming
//! edges interleaved as operands, `[value, block, value, block…]` (read and edit them only
//! through [`crate::phi`]). Nullable upstream operands
//! (a `return` without value, a coroutine frame) are simply absent from the list.
//!
//! Everything stated per kind (keyword, roles, successors, effects, operand shape,
//! typing rule) is a row of the instruction table in [`crate::inst_table`].

use crate::entity::EntityRef;
use crate::metadata::MetadataList;
use crate::op::*;
use crate::types::Type;
use crate::value::{BlockId, Value};
use smallvec::SmallVec;

pub use crate::inst_table::{Effects, InstTag, ResultShape, Roles, Shape, Slots, TypingRule};

crate::define_entity! {
    /// An instruction, local to its function. Owned by `Function::insts`.
    pub struct InstId; debug_prefix = "inst";
}

/// Annotation vs semantic coroutine-suspend extension.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CoroExtensionKind {
    /// `annotation`.
    Annotation,
    /// `semantic`.
    Semantic,
}

/// Value of a coroutine-extension attribute. The printed `type=` is the variant index.
#[derive(Clone, Debug, PartialEq)]
pub enum CoroAttrValue {
    /// Index 0: a string.
    String(String),
    /// Index 1: a boolean.
    Bool(bool),
    /// Index 2: a signed integer.
    Int(i64),
    /// Index 3: an unsigned integer.
    UInt(u64),
    /// Index 4: a double.
    Float(f64),
}

impl CoroAttrValue {
    /// The variant index printed as `type=`.
    pub fn variant_index(&self) -> u32 {
        match self {
            Self::String(_) => 0,
            Self::Bool(_) => 1,
            Self::Int(_) => 2,
            Self::UInt(_) => 3,
            Self::Float(_) => 4,
        }
    }
}

/// One item of a coroutine-suspend extension group.
#[derive(Clone, Debug, PartialEq)]
pub enum CoroExtensionItem {
    /// `binding "name" access=A lifetime=L value=%v` (the value is an operand).
    Binding {
        /// Name.
        name: String,
        /// Access code.
        access: u32,
        /// Lifetime code.
        lifetime: u32,
    },
    /// `attribute "name" type=I value=V`.
    Attribute {
        /// Name.
        name: String,
        /// Value.
        value: CoroAttrValue,
    },
}

/// A coroutine-suspend extension group.
#[derive(Clone, Debug, PartialEq)]
pub struct CoroExtension {
    /// Schema string.
    pub schema: String,
    /// Schema version.
    pub version: u32,
    /// Annotation or semantic.
    pub kind: CoroExtensionKind,
    /// Fallback code.
    pub fallback: u32,
    /// Items in order.
    pub items: Vec<CoroExtensionItem>,
}

/// Non-operand payload of a `coro_suspend`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CoroSuspendData {
    /// Suspend token.
    pub token: u32,
    /// Suspend-point name.
    pub name: String,
    /// Whether operand 0 is the frame.
    pub has_frame: bool,
    /// Export names; the export values follow the frame in the operand list.
    pub exports: Vec<String>,
    /// Extension groups; their binding values follow the exports in the operand list.
    pub extensions: Vec<CoroExtension>,
}

/// What an instruction is, with every field that is not an SSA operand.
#[derive(Clone, Debug, PartialEq)]
pub enum InstKind {
    /// Operands `[cond, then, else]`.
    If {
        /// Merge block.
        merge: Option<BlockId>,
    },
    /// Operands `[selector, default, case blocks…]`.
    Switch {
        /// Case labels (u64, canonicalised to the selector width).
        labels: Vec<u64>,
        /// Merge block.
        merge: Option<BlockId>,
    },
    /// Raw multi-way branch. Operands `[selector, default, case blocks…]`.
    IndexedBranch {
        /// Case labels.
        labels: Vec<u64>,
    },
    /// Operands `[prepare]`.
    Loop {
        /// Body block.
        body: Option<BlockId>,
        /// Update (continue) block.
        update: Option<BlockId>,
        /// Merge block.
        merge: Option<BlockId>,
    },
    /// Operands `[body]`.
    SimpleLoop {
        /// Merge block.
        merge: Option<BlockId>,
    },
    /// Operands `[target]`.
    Outline {
        /// Merge block.
        merge: Option<BlockId>,
    },
    /// Operands `[entry]`.
    AutodiffScope {
        /// Merge block.
        merge: Option<BlockId>,
        /// Forward-mode scope.
        forward: bool,
        /// Number of forward gradients (> 0 iff forward).
        n_forward_grads: u32,
    },
    /// Operands `[dispatch]`.
    RayQueryLoop {
        /// Merge block.
        merge: Option<BlockId>,
    },
    /// Operands `[query, exit, on_surface_candidate, on_procedural_candidate]`.
    RayQueryDispatch,
    /// Operands `[target]`.
    Branch,
    /// Operands `[cond, then, else]`.
    ConditionalBranch,
    /// No operands.
    Unreachable {
        /// Message (empty = none).
        message: String,
    },
    /// Operands `[target]`.
    Break,
    /// Operands `[target]`.
    Continue,
    /// Operands `[]` or `[value]`.
    Return,
    /// No operands.
    RasterDiscard,
    /// Operands `[frame?, exports…, extension bindings…]`.
    CoroSuspend(Box<CoroSuspendData>),
    /// Operands `[frame?]`.
    CoroResume {
        /// Token.
        token: u32,
        /// Whether operand 0 is the frame.
        has_frame: bool,
    },
    /// No operands.
    CoroTerminate,
    /// Operands: incoming edges interleaved, `[value, block, …]`; see [`crate::phi`].
    Phi,
    /// No operands; result type is the allocated type.
    Alloca(AllocaOp),
    /// Operands `[pointer]`.
    Load,
    /// Operands `[pointer, value]`.
    Store,
    /// Operands `[base, indices…]`.
    Gep,
    /// Operands `[base, indices…, value(s)]`.
    Atomic(AtomicOp),
    /// Operands per op.
    Arithmetic(ArithmeticOp),
    /// Operands per op.
    ThreadGroup(ThreadGroupOp),
    /// Operands per op.
    ResourceQuery(ResourceQueryOp, BindlessAccess),
    /// Operands per op.
    ResourceRead(ResourceReadOp, BindlessAccess),
    /// Operands per op.
    ResourceWrite(ResourceWriteOp, BindlessAccess),
    /// Operands `[query]`.
    RayQueryObjectRead(RayQueryObjectReadOp),
    /// Operands `[query]` or `[query, distance]`.
    RayQueryObjectWrite(RayQueryObjectWriteOp),
    /// Operands `[query, surface callable, procedural callable, captures…]`.
    RayQueryPipeline,
    /// Operands per op.
    AutodiffIntrinsic(AutodiffIntrinsicOp),
    /// Operands `[callee, args…]`.
    Call,
    /// Operands `[value]`.
    Cast(CastOp),
    /// Operands: values to print.
    Print {
        /// Format string.
        format: String,
    },
    /// No operands; result u64.
    Clock,
    /// Operands: values.
    DebugBreak {
        /// Opaque host callback handle (not printable upstream; `None` when absent).
        callback: Option<u64>,
    },
    /// Operands `[cond]`.
    Assert {
        /// Message (empty = none).
        message: String,
    },
    /// Operands `[cond]`.
    Assume {
        /// Message (empty = none).
        message: String,
    },
}

/// An instruction: kind, result type, operands, owning block and metadata.
#[derive(Clone, Debug, PartialEq)]
pub struct InstData {
    /// What the instruction does.
    pub kind: InstKind,
    /// Result type; `None` is `void`.
    pub ty: Option<Type>,
    /// SSA operands (values, blocks, functions) in upstream order.
    pub operands: SmallVec<[Value; 3]>,
    /// The block this instruction is placed in; `None` once removed.
    pub block: Option<BlockId>,
    /// Metadata items.
    pub metadata: MetadataList,
}

impl InstData {
    /// A detached instruction.
    pub fn new(
        kind: InstKind,
        ty: Option<Type>,
        operands: impl IntoIterator<Item = Value>,
    ) -> Self {
        Self {
            kind,
            ty,
            operands: operands.into_iter().collect(),
            block: None,
            metadata: Vec::new(),
        }
    }
    /// Operand blocks (the "executable successors" of a terminator, in operand order).
    pub fn operand_blocks(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.operands.iter().filter_map(|v| v.as_block())
    }
}

/// Index type for `InstId` in `SecondaryMap`s.
pub fn inst_index(i: InstId) -> usize {
    i.index()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every instruction of a parsed module is one `InstData`: its size is memory traffic
    /// and page faults per instruction (the text benchmarks' peak-memory budget).
    #[test]
    fn instruction_sizes() {
        assert_eq!(std::mem::size_of::<InstKind>(), 32);
        assert_eq!(std::mem::size_of::<InstData>(), 96);
        assert_eq!(std::mem::size_of::<Option<BlockId>>(), 4);
    }
}

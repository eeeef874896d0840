//! # xir-ir — the XIR data model
//!
//! A [`Module`] owns interned [`types`](types::TypeStore), module-level constants,
//! undefined values and special registers, module metadata, and [`Function`]s.
//! A function owns typed-ID arenas of arguments ([`ArgId`]), basic blocks ([`BlockId`])
//! and instructions ([`InstId`]); `block_order` is upstream's owned block list and each
//! block keeps its instructions in program order (terminator last).
//!
//! Every operand is a [`Value`] (an instruction, block, argument, constant, undefined
//! value, special register or function), so structured and plain control flow, calls
//! and phis share one uniform operand list ([`InstData::operands`]). Fields that are not
//! operands upstream (merge blocks, loop body/update, phi incoming blocks, case labels,
//! strings) live in [`InstKind`]. Every op spelling and arity comes from [`op`].
//!
//! Use-def information is computed on demand (see [`uses`]); [`edit`] holds the one
//! builder ([`edit::InstBuilder`]) and the [`edit::Rewriter`], which keeps a use index
//! valid while it edits. The builder has one constructor per instruction kind
//! (`br`, `if_`, `phi`, `load`, `arith`, `call` …), declared by the kind's row of the
//! instruction table ([`inst_table`]); a [`edit::Cursor`] builds into a function nobody
//! else edits, a [`edit::RewriteCursor`] under a rewriter, and a generator that
//! decorates what it inserts implements `InstBuilder::insert` itself.

#![warn(missing_docs)]

pub mod analysis;
pub mod constant;
pub mod diag;
pub mod edit;
pub mod entity;
pub mod function;
pub mod inst;
pub mod inst_table;
pub mod interchange;
pub mod metadata;
pub mod module;
pub mod op;
pub mod phi;
pub mod rng;
pub mod source_map;
pub mod text;
pub mod types;
pub mod typing;
pub mod uses;
pub mod value;
pub mod verify;

pub use entity::{EntityRef, PrimaryMap, SecondaryMap};
pub use function::{ArgData, ArgKind, BlockData, Function, FunctionKind};
pub use inst::{InstData, InstId, InstKind, InstTag};
pub use metadata::{Metadata, MetadataKind, MetadataList};
pub use module::{ConstData, Globals, Module, UndefData};
pub use types::{ScalarKind, Type, TypeData, TypeStore};
pub use value::{ArgId, BlockId, ConstId, FuncId, SpecialRegister, UndefId, Value};

/// The one nesting-depth limit every reader enforces (structured nesting, type nesting,
/// literal nesting). Printers, the verifier and destructors are iterative, so deeper
/// modules built programmatically still never overflow the stack.
pub const MAX_NESTING_DEPTH: usize = 10_000;

//! Values: everything an operand can name.
//!
//! XIR treats blocks, functions, arguments, constants, undefined values, special
//! registers and instructions uniformly as values. [`Value`] is an 8-byte enum of typed
//! handles. Function-local handles (`InstId`, `BlockId`, `ArgId`) are meaningful only
//! inside their function.

use crate::inst::InstId;

crate::define_entity! {
    /// A basic block, local to its function. Owned by `Function::blocks`.
    pub struct BlockId; debug_prefix = "block";
}
crate::define_entity! {
    /// A function argument, local to its function. Owned by `Function::args`.
    pub struct ArgId; debug_prefix = "arg";
}
crate::define_entity! {
    /// A module-level constant. Owned by `Module::constants`.
    pub struct ConstId; debug_prefix = "const";
}
crate::define_entity! {
    /// A module-level undefined value (one per type). Owned by `Module::undefs`.
    pub struct UndefId; debug_prefix = "undef";
}
crate::define_entity! {
    /// A function. Owned by `Module::functions`.
    pub struct FuncId; debug_prefix = "func";
}

/// Special registers (module-level values, one per tag), in upstream tag order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum SpecialRegister {
    ThreadId,
    BlockId,
    WarpLaneId,
    DispatchId,
    KernelId,
    ObjectId,
    Barycentrics,
    BlockSize,
    WarpSize,
    DispatchSize,
    FrontFacing,
    BaseInstance,
}

/// The type class of a special register.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SpecialRegisterType {
    /// `vector<u32, 3>`.
    Uint3,
    /// `u32`.
    Uint,
    /// `vector<f32, 3>`.
    Float3,
    /// `bool`.
    Bool,
}

impl SpecialRegister {
    /// Every register in tag order.
    pub const ALL: [SpecialRegister; 12] = [
        Self::ThreadId,
        Self::BlockId,
        Self::WarpLaneId,
        Self::DispatchId,
        Self::KernelId,
        Self::ObjectId,
        Self::Barycentrics,
        Self::BlockSize,
        Self::WarpSize,
        Self::DispatchSize,
        Self::FrontFacing,
        Self::BaseInstance,
    ];
    /// The text name (`%N.dispatch_id`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::ThreadId => "thread_id",
            Self::BlockId => "block_id",
            Self::WarpLaneId => "warp_lane_id",
            Self::DispatchId => "dispatch_id",
            Self::KernelId => "kernel_id",
            Self::ObjectId => "object_id",
            Self::Barycentrics => "barycentrics",
            Self::BlockSize => "block_size",
            Self::WarpSize => "warp_size",
            Self::DispatchSize => "dispatch_size",
            Self::FrontFacing => "front_facing",
            Self::BaseInstance => "base_instance",
        }
    }
    /// Looks a register up by name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == s)
    }
    /// The register's type.
    pub const fn ty(self) -> SpecialRegisterType {
        match self {
            Self::ThreadId
            | Self::BlockId
            | Self::DispatchId
            | Self::BlockSize
            | Self::DispatchSize => SpecialRegisterType::Uint3,
            Self::WarpLaneId
            | Self::KernelId
            | Self::ObjectId
            | Self::WarpSize
            | Self::BaseInstance => SpecialRegisterType::Uint,
            Self::Barycentrics => SpecialRegisterType::Float3,
            Self::FrontFacing => SpecialRegisterType::Bool,
        }
    }
    /// Whether the register is uniform across a warp.
    pub const fn is_warp_uniform(self) -> bool {
        matches!(
            self,
            Self::BlockId
                | Self::KernelId
                | Self::BlockSize
                | Self::WarpSize
                | Self::DispatchSize
                | Self::BaseInstance
        )
    }
}

/// Anything an operand can refer to.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// An instruction result (or the instruction itself, for void ones).
    Inst(InstId),
    /// A basic block of the same function.
    Block(BlockId),
    /// An argument of the same function.
    Arg(ArgId),
    /// A module constant.
    Const(ConstId),
    /// A module undefined value.
    Undef(UndefId),
    /// A special register.
    Special(SpecialRegister),
    /// A function (e.g. a callee).
    Func(FuncId),
}

impl Value {
    /// The block, if this is a block.
    #[inline]
    pub fn as_block(self) -> Option<BlockId> {
        match self {
            Value::Block(b) => Some(b),
            _ => None,
        }
    }
    /// The instruction, if this is an instruction.
    #[inline]
    pub fn as_inst(self) -> Option<InstId> {
        match self {
            Value::Inst(i) => Some(i),
            _ => None,
        }
    }
    /// The constant, if this is a constant.
    #[inline]
    pub fn as_const(self) -> Option<ConstId> {
        match self {
            Value::Const(c) => Some(c),
            _ => None,
        }
    }
    /// The function, if this is a function.
    #[inline]
    pub fn as_func(self) -> Option<FuncId> {
        match self {
            Value::Func(f) => Some(f),
            _ => None,
        }
    }
    /// The argument, if this is an argument.
    #[inline]
    pub fn as_arg(self) -> Option<ArgId> {
        match self {
            Value::Arg(a) => Some(a),
            _ => None,
        }
    }
}

impl From<InstId> for Value {
    fn from(i: InstId) -> Self {
        Value::Inst(i)
    }
}
impl From<BlockId> for Value {
    fn from(b: BlockId) -> Self {
        Value::Block(b)
    }
}
impl From<ArgId> for Value {
    fn from(a: ArgId) -> Self {
        Value::Arg(a)
    }
}
impl From<ConstId> for Value {
    fn from(c: ConstId) -> Self {
        Value::Const(c)
    }
}
impl From<FuncId> for Value {
    fn from(f: FuncId) -> Self {
        Value::Func(f)
    }
}

//! The instruction table: one row per instruction kind, stating once its text keyword,
//! interchange name, roles, successor slots, side-block fields, effects, operand shape
//! and operand typing rule.
//!
//! Everything that used to spell the kinds out by hand is derived from the rows below:
//! [`InstTag`] and its keyword / interchange-name / role queries, [`InstKind::tag`],
//! merge and side-block access, successors ([`InstData::successors`], used by
//! `Function::successors`, the verifier's CFG and the printer's numbering), effects
//! ([`InstKind::effects`], read by `InstKind::is_pure` and the passes' DCE rule), the
//! lexer's instruction keywords and suggestions ([`InstTag::from_keyword`]), the fast
//! reader's and the printer's dispatch, the verifier's operand counts ([`Shape`]) and
//! the typing rules of [`crate::typing`] ([`TypingRule`]), and the per-kind constructors
//! of [`InstBuilder`](crate::edit::InstBuilder) (`build`). The lalrpop grammar keeps its
//! own productions; a test checks it names exactly the table's keywords.
//!
//! The table is a declarative macro rather than a build-time generator: the rows are
//! ordinary Rust tokens (checked by the compiler, visible to rust-analyzer and rustdoc),
//! the derived functions are plain `match`es the optimiser folds as before, and nothing
//! runs at build time. Every generated `match` over [`InstKind`] is exhaustive, so a new
//! `InstKind` variant without a row fails to compile.
//!
//! Row order is upstream's frozen `DerivedInstructionTag` numbering (interchange
//! formats).

use crate::inst::{InstData, InstKind};
use crate::op::{AutodiffIntrinsicOp, ResourceQueryOp, ResourceReadOp};
use crate::value::{BlockId, Value};
use smallvec::SmallVec;

bitflags::bitflags! {
    /// Structural roles of an instruction kind.
    #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
    pub struct Roles: u8 {
        /// Ends its block.
        const TERMINATOR = 1;
        /// The text printer writes its successor blocks inline (nested form).
        const NESTS = 2;
        /// Its result is an lvalue (a pointer into local or shared memory).
        const LVALUE = 4;
    }
}

bitflags::bitflags! {
    /// What executing an instruction may do besides computing its result. The empty
    /// set is "pure": same operands, same result, nothing else observable.
    #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
    pub struct Effects: u8 {
        /// Reads memory (or other state that may change: a clock, a resource).
        const READS = 1;
        /// Writes memory or other observable state (output, gradients, a ray query).
        const WRITES = 2;
        /// Orders or synchronises with other invocations, or is volatile: may not be
        /// removed, duplicated or moved across another effect.
        const BARRIER = 4;
        /// May stop the invocation (assertion, assumption, break point, unreachable).
        const MAY_TRAP = 8;
        /// Creates a fresh object: removable when unused, but two are never equal.
        const ALLOCATES = 16;
    }
}

impl Effects {
    /// Whether an instruction with these effects may be deleted when its result is
    /// unused (it writes nothing, synchronises with nothing and cannot trap).
    pub const fn removable_if_unused(self) -> bool {
        !self.intersects(
            Effects::WRITES
                .union(Effects::BARRIER)
                .union(Effects::MAY_TRAP),
        )
    }
}

/// The operand indices holding successor blocks (upstream's `add_successor`
/// positions), clamped to the operand count: `from..to`, `to = None` meaning "to the end".
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Slots {
    /// First successor operand.
    pub from: u8,
    /// One past the last successor operand; `None`: every operand from `from` on.
    pub to: Option<u8>,
}

impl Slots {
    /// No successors.
    pub const NONE: Slots = Slots {
        from: 0,
        to: Some(0),
    };
    /// Operands `from..to`.
    pub const fn range(from: u8, to: u8) -> Slots {
        Slots { from, to: Some(to) }
    }
    /// Operands `from..`.
    pub const fn from(from: u8) -> Slots {
        Slots { from, to: None }
    }
    /// Whether the kind has successors at all.
    pub const fn is_some(self) -> bool {
        !matches!(self.to, Some(0))
    }
    /// The successor operand range for an instruction with `n` operands.
    #[inline]
    pub fn range_for(self, n: usize) -> std::ops::Range<usize> {
        let to = self.to.map_or(n, |t| (t as usize).min(n));
        (self.from as usize).min(to)..to
    }
}

/// How many operands a kind takes (the verifier's operand-count rule).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Exactly `n`.
    Exact(u8),
    /// At least `n`.
    AtLeast(u8),
    /// None or one (`return`).
    AtMostOne,
    /// Any number (`print`, `debug_break`).
    Any,
    /// As the op table's arity for the instruction's op says.
    OpArity,
    /// A base, at least one index, then the atomic op's value operands.
    Atomic,
    /// Selector, default, one block per case label.
    CaseLabels,
    /// Incoming edges, each a value then a block ([`crate::phi`]).
    PhiBlocks,
    /// The frame if present (`coro_resume`).
    CoroFrame,
    /// The frame if present, the exports, the extension bindings (`coro_suspend`).
    CoroSuspend,
}

/// Whether an instruction kind produces a value (checked by the verifier).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ResultShape {
    /// Never has a result (`ty` is void).
    Void,
    /// Always has a result of some type.
    Value,
    /// Always has a `u64` result (`clock`).
    U64,
    /// Has a result or not, depending on its op or callee.
    Any,
}

/// Which operand types follow from the instruction alone (resolved by
/// [`crate::typing::operand_type`]; checked by the verifier, used by the parser to type
/// undefined operands).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TypingRule {
    /// None.
    Free,
    /// Every operand has the result type (phi incoming values).
    AllResult,
    /// `(lvalue, value)`: each has the other's (pointee) type (store).
    StorePair,
    /// Operand 0 has the enclosing function's return type.
    ReturnValue,
    /// Operand 0 is `bool` (a condition).
    BoolCondition,
    /// Operand `k >= 1` has the type of the callee's parameter `k - 1`.
    CalleeParams,
    /// The operands the op's [`ArithSignature`](crate::op::ArithSignature) names have
    /// the result type.
    ArithSignature,
}

/// Effects of a `resource_read`: volatile buffer reads are barriers.
fn resource_read_effects(k: &InstKind) -> Effects {
    match k {
        InstKind::ResourceRead(
            ResourceReadOp::BufferVolatileRead | ResourceReadOp::ByteBufferVolatileRead,
            _,
        ) => Effects::READS.union(Effects::BARRIER),
        _ => Effects::READS,
    }
}

/// Effects of a `resource_query`: sizes and device addresses cannot change during a
/// dispatch (pure, as upstream's memory info says of stable queries); samples, traces and
/// ray-tracing instance reads see state that writes may change, so they read.
fn resource_query_effects(k: &InstKind) -> Effects {
    match k {
        InstKind::ResourceQuery(
            ResourceQueryOp::BufferSize
            | ResourceQueryOp::ByteBufferSize
            | ResourceQueryOp::Texture2dSize
            | ResourceQueryOp::Texture3dSize
            | ResourceQueryOp::BindlessBufferSize
            | ResourceQueryOp::BindlessByteBufferSize
            | ResourceQueryOp::BindlessTexture2dSize
            | ResourceQueryOp::BindlessTexture3dSize
            | ResourceQueryOp::BindlessTexture2dSizeLevel
            | ResourceQueryOp::BindlessTexture3dSizeLevel
            | ResourceQueryOp::BufferDeviceAddress
            | ResourceQueryOp::BindlessBufferDeviceAddress,
            _,
        ) => Effects::empty(),
        _ => Effects::READS,
    }
}

/// Effects of an autodiff intrinsic: reading a gradient is a read, every other
/// intrinsic records into the tape.
fn autodiff_intrinsic_effects(k: &InstKind) -> Effects {
    match k {
        InstKind::AutodiffIntrinsic(AutodiffIntrinsicOp::Gradient) => Effects::READS,
        _ => Effects::READS.union(Effects::WRITES),
    }
}

/// Declares [`InstTag`] and every per-kind query from the rows of the table. Row:
/// `Variant = "keyword" [/ "interchange name"] { roles: [..], succ: SLOTS, side: [fields],
/// [merge: field,] effects: [..] | by FN, shape: SHAPE, typing: RULE, result: RESULT,
/// build: fn NAME(PARAMS) -> Value | InstId = INSTDATA }`.
///
/// `build` is the kind's constructor on [`InstBuilder`](crate::edit::InstBuilder): its
/// name, parameters (payload, result type, operands, successor and side blocks) and the
/// detached [`InstData`] it makes; `-> Value` for kinds that always have a result. This
/// macro skips it; `edit/build.rs` feeds the same rows ([`inst_rows`]) to its
/// `inst_builder!`, which declares the trait, so the `build` expressions resolve names
/// in `edit/build.rs`. A row without `build` matches neither macro: a new kind cannot
/// lack its constructor.
macro_rules! inst_table {
    ($(
        $v:ident = $kw:literal $(/ $iname:literal)? {
            roles: [$($role:ident),*],
            succ: $succ:expr,
            side: [$($side:ident),*],
            $(merge: $merge:ident,)?
            effects: $([$($fx:ident),*])? $(by $fxf:path)?,
            shape: $shape:expr,
            typing: $typing:ident,
            result: $result:ident,
            build: $($build:tt)*
        }
    ),* $(,)?) => {

        /// Upstream's `DerivedInstructionTag`, in its frozen numeric order.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)]
        pub enum InstTag { $($v),* }

        impl InstTag {
            /// Every tag in frozen numeric order.
            pub const ALL: &'static [InstTag] = &[$(InstTag::$v),*];

            /// The xir2text keyword that starts the instruction body (`@` for an autodiff
            /// intrinsic, whose body starts with `@op`).
            pub const fn text_keyword(self) -> &'static str {
                match self { $(InstTag::$v => $kw),* }
            }

            /// The interchange (`xir.text 1`) tag name.
            pub const fn interchange_name(self) -> &'static str {
                match self { $(InstTag::$v => inst_table!(@first $($iname,)? $kw)),* }
            }

            /// Structural roles.
            #[inline]
            pub const fn roles(self) -> Roles {
                match self { $(InstTag::$v => Roles::empty()$(.union(Roles::$role))*),* }
            }

            /// Whether the kind is a structured construct (it carries a merge block).
            #[inline]
            pub const fn is_structured(self) -> bool {
                match self { $(InstTag::$v => false $(|| !stringify!($merge).is_empty())?),* }
            }

            /// Which operands are successor blocks.
            #[inline]
            pub const fn successor_slots(self) -> Slots {
                match self { $(InstTag::$v => $succ),* }
            }

            /// How many operands the kind takes.
            pub const fn shape(self) -> Shape {
                match self { $(InstTag::$v => $shape),* }
            }

            /// Which operand types follow from the instruction alone.
            #[inline(always)]
            pub const fn typing(self) -> TypingRule {
                match self { $(InstTag::$v => TypingRule::$typing),* }
            }

            /// Whether the kind produces a value.
            #[inline]
            pub const fn result(self) -> ResultShape {
                match self { $(InstTag::$v => ResultShape::$result),* }
            }
        }

        impl InstKind {
            /// The upstream tag.
            #[inline]
            pub const fn tag(&self) -> InstTag {
                match self { $(InstKind::$v { .. } => InstTag::$v),* }
            }

            /// The merge block of a structured construct.
            #[allow(unused_variables)]
            pub fn merge(&self) -> Option<BlockId> {
                match self {
                    $(InstKind::$v { $($merge,)? .. } => {
                        let m: Option<BlockId> = None;
                        $(let m = *$merge;)?
                        m
                    })*
                }
            }

            /// Mutable merge slot of a structured construct.
            #[allow(unused_variables)]
            pub fn merge_mut(&mut self) -> Option<&mut Option<BlockId>> {
                match self {
                    $(InstKind::$v { $($merge,)? .. } => {
                        let m: Option<&mut Option<BlockId>> = None;
                        $(let m = Some($merge);)?
                        m
                    })*
                }
            }

            /// Every block referenced outside the operand list (merge, loop body/update),
            /// in field order.
            pub fn side_blocks(&self) -> SmallVec<[BlockId; 3]> {
                let mut out = SmallVec::new();
                match self {
                    $(InstKind::$v { $($side,)* .. } => {
                        $(out.extend($side.iter().copied());)*
                    })*
                }
                out
            }

            /// Applies `f` to every side block slot (for remapping when cloning or
            /// inlining).
            #[allow(unused_mut)]
            pub fn map_side_blocks(&mut self, mut f: impl FnMut(BlockId) -> BlockId) {
                match self {
                    $(InstKind::$v { $($side,)* .. } => {
                        $(for b in $side.iter_mut() { *b = f(*b); })*
                    })*
                }
            }

            /// What executing the instruction may do besides computing its result.
            #[inline]
            pub fn effects(&self) -> Effects {
                match self {
                    $(InstKind::$v { .. } => {
                        Effects::empty() $($(.union(Effects::$fx))*)? $(.union($fxf(self)))?
                    })*
                }
            }
        }
    };
    (@first $x:literal, $($rest:literal)?) => { $x };
    (@first $x:literal) => { $x };
}

/// The rows of the instruction table, handed to the macro `$callback` (`inst_table!`
/// here, `inst_builder!` in `edit/build.rs`). Row order is upstream's frozen tag order.
macro_rules! inst_rows {
    ($callback:ident) => {
$callback! {
    If = "if" {
        roles: [TERMINATOR, NESTS], succ: Slots::range(1, 3), side: [merge], merge: merge,
        effects: [], shape: Shape::Exact(3), typing: BoolCondition,
        result: Void,
        build: fn if_(cond: Value, then: BlockId, els: BlockId, merge: impl Into<Option<BlockId>>)
            -> InstId = InstData::new(
                InstKind::If { merge: merge.into() }, None, [cond, then.into(), els.into()]),
    },
    Switch = "switch" {
        roles: [TERMINATOR, NESTS], succ: Slots::from(1), side: [merge], merge: merge,
        effects: [], shape: Shape::CaseLabels, typing: Free,
        result: Void,
        build: fn switch(
            selector: Value, default: BlockId, cases: &[(u64, BlockId)],
            merge: impl Into<Option<BlockId>>,
        ) -> InstId = InstData::new(
            InstKind::Switch { labels: case_labels(cases), merge: merge.into() },
            None, case_operands(selector, default, cases)),
    },
    Loop = "loop" {
        roles: [TERMINATOR, NESTS], succ: Slots::range(0, 1), side: [body, update, merge],
        merge: merge, effects: [], shape: Shape::Exact(1), typing: Free,
        result: Void,
        build: fn loop_(
            prepare: BlockId, body: impl Into<Option<BlockId>>,
            update: impl Into<Option<BlockId>>, merge: impl Into<Option<BlockId>>,
        ) -> InstId = InstData::new(
            InstKind::Loop { body: body.into(), update: update.into(), merge: merge.into() },
            None, [prepare.into()]),
    },
    SimpleLoop = "simple_loop" {
        roles: [TERMINATOR, NESTS], succ: Slots::range(0, 1), side: [merge], merge: merge,
        effects: [], shape: Shape::Exact(1), typing: Free,
        result: Void,
        build: fn simple_loop(body: BlockId, merge: impl Into<Option<BlockId>>) -> InstId
            = InstData::new(InstKind::SimpleLoop { merge: merge.into() }, None, [body.into()]),
    },
    Branch = "br" / "branch" {
        roles: [TERMINATOR], succ: Slots::range(0, 1), side: [],
        effects: [], shape: Shape::Exact(1), typing: Free,
        result: Void,
        build: fn br(target: BlockId) -> InstId
            = InstData::new(InstKind::Branch, None, [target.into()]),
    },
    ConditionalBranch = "cond_br" / "conditional_branch" {
        roles: [TERMINATOR], succ: Slots::range(1, 3), side: [],
        effects: [], shape: Shape::Exact(3), typing: BoolCondition,
        result: Void,
        build: fn cond_br(cond: Value, then: BlockId, els: BlockId) -> InstId
            = InstData::new(InstKind::ConditionalBranch, None, [cond, then.into(), els.into()]),
    },
    Unreachable = "unreachable" {
        roles: [TERMINATOR], succ: Slots::NONE, side: [],
        effects: [MAY_TRAP], shape: Shape::Exact(0), typing: Free,
        result: Void,
        build: fn unreachable(message: impl Into<String>) -> InstId
            = InstData::new(InstKind::Unreachable { message: message.into() }, None, []),
    },
    Break = "break" {
        roles: [TERMINATOR], succ: Slots::range(0, 1), side: [],
        effects: [], shape: Shape::Exact(1), typing: Free,
        result: Void,
        build: fn break_(target: BlockId) -> InstId
            = InstData::new(InstKind::Break, None, [target.into()]),
    },
    Continue = "continue" {
        roles: [TERMINATOR], succ: Slots::range(0, 1), side: [],
        effects: [], shape: Shape::Exact(1), typing: Free,
        result: Void,
        build: fn continue_(target: BlockId) -> InstId
            = InstData::new(InstKind::Continue, None, [target.into()]),
    },
    Return = "return" {
        roles: [TERMINATOR], succ: Slots::NONE, side: [],
        effects: [], shape: Shape::AtMostOne, typing: ReturnValue,
        result: Void,
        build: fn ret(value: Option<Value>) -> InstId
            = InstData::new(InstKind::Return, None, value),
    },
    RasterDiscard = "raster_discard" {
        roles: [TERMINATOR], succ: Slots::NONE, side: [],
        effects: [WRITES, BARRIER], shape: Shape::Exact(0), typing: Free,
        result: Void,
        build: fn raster_discard() -> InstId = InstData::new(InstKind::RasterDiscard, None, []),
    },
    CoroSuspend = "coro_suspend" {
        roles: [TERMINATOR], succ: Slots::NONE, side: [],
        effects: [READS, WRITES, BARRIER], shape: Shape::CoroSuspend, typing: Free,
        result: Void,
        build: fn coro_suspend(
            data: CoroSuspendData, frame: Option<Value>, exports: &[Value], bindings: &[Value],
        ) -> InstId = InstData::new(
            InstKind::CoroSuspend(Box::new(CoroSuspendData { has_frame: frame.is_some(), ..data })),
            None, frame.into_iter().chain(exports.iter().copied()).chain(bindings.iter().copied())),
    },
    CoroResume = "coro_resume" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [READS, WRITES, BARRIER], shape: Shape::CoroFrame, typing: Free,
        result: Void,
        build: fn coro_resume(token: u32, frame: Option<Value>) -> InstId = InstData::new(
            InstKind::CoroResume { token, has_frame: frame.is_some() }, None, frame),
    },
    CoroTerminate = "coro_terminate" {
        roles: [TERMINATOR], succ: Slots::NONE, side: [],
        effects: [BARRIER], shape: Shape::Exact(0), typing: Free,
        result: Void,
        build: fn coro_terminate() -> InstId = InstData::new(InstKind::CoroTerminate, None, []),
    },
    Phi = "phi" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [], shape: Shape::PhiBlocks, typing: AllResult,
        result: Value,
        build: fn phi(ty: Type, edges: &[(Value, BlockId)]) -> Value
            = InstData::phi(ty, edges.iter().copied()),
    },
    Alloca = "alloca" {
        roles: [LVALUE], succ: Slots::NONE, side: [],
        effects: [ALLOCATES], shape: Shape::Exact(0), typing: Free,
        result: Value,
        build: fn alloca(space: AllocaOp, ty: Type) -> Value
            = InstData::new(InstKind::Alloca(space), Some(ty), []),
    },
    Load = "load" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [READS], shape: Shape::Exact(1), typing: Free,
        result: Value,
        build: fn load(ty: Type, ptr: Value) -> Value
            = InstData::new(InstKind::Load, Some(ty), [ptr]),
    },
    Store = "store" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [WRITES], shape: Shape::Exact(2), typing: StorePair,
        result: Void,
        build: fn store(ptr: Value, value: Value) -> InstId
            = InstData::new(InstKind::Store, None, [ptr, value]),
    },
    Gep = "getelementptr" / "gep" {
        roles: [LVALUE], succ: Slots::NONE, side: [],
        effects: [], shape: Shape::AtLeast(2), typing: Free,
        result: Value,
        build: fn gep(ty: Type, base: Value, indices: &[Value]) -> Value = InstData::new(
            InstKind::Gep, Some(ty), std::iter::once(base).chain(indices.iter().copied())),
    },
    Atomic = "atomic" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [READS, WRITES], shape: Shape::Atomic, typing: Free,
        result: Value,
        build: fn atomic(op: AtomicOp, ty: Type, base: Value, indices: &[Value], values: &[Value])
            -> Value = InstData::new(InstKind::Atomic(op), Some(ty), std::iter::once(base)
                .chain(indices.iter().copied()).chain(values.iter().copied())),
    },
    Arithmetic = "arithmetic" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [], shape: Shape::OpArity, typing: ArithSignature,
        result: Value,
        build: fn arith(op: ArithmeticOp, ty: Type, operands: &[Value]) -> Value
            = InstData::new(InstKind::Arithmetic(op), Some(ty), operands.iter().copied()),
    },
    ThreadGroup = "thread_group" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [READS, BARRIER], shape: Shape::OpArity, typing: Free,
        result: Any,
        build: fn thread_group(op: ThreadGroupOp, ty: Option<Type>, operands: &[Value]) -> InstId
            = InstData::new(InstKind::ThreadGroup(op), ty, operands.iter().copied()),
    },
    ResourceQuery = "resource_query" {
        roles: [], succ: Slots::NONE, side: [],
        effects: by resource_query_effects, shape: Shape::OpArity, typing: Free,
        result: Value,
        build: fn resource_query(
            op: ResourceQueryOp, access: BindlessAccess, ty: Type, operands: &[Value],
        ) -> Value = InstData::new(
            InstKind::ResourceQuery(op, access), Some(ty), operands.iter().copied()),
    },
    ResourceRead = "resource_read" {
        roles: [], succ: Slots::NONE, side: [],
        effects: by resource_read_effects, shape: Shape::OpArity, typing: Free,
        result: Value,
        build: fn resource_read(
            op: ResourceReadOp, access: BindlessAccess, ty: Type, operands: &[Value],
        ) -> Value = InstData::new(
            InstKind::ResourceRead(op, access), Some(ty), operands.iter().copied()),
    },
    ResourceWrite = "resource_write" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [WRITES], shape: Shape::OpArity, typing: Free,
        result: Void,
        build: fn resource_write(op: ResourceWriteOp, access: BindlessAccess, operands: &[Value])
            -> InstId = InstData::new(
                InstKind::ResourceWrite(op, access), None, operands.iter().copied()),
    },
    RayQueryLoop = "ray_query_loop" {
        roles: [TERMINATOR, NESTS], succ: Slots::range(0, 1), side: [merge], merge: merge,
        effects: [], shape: Shape::Exact(1), typing: Free,
        result: Void,
        build: fn ray_query_loop(dispatch: BlockId, merge: impl Into<Option<BlockId>>) -> InstId
            = InstData::new(
                InstKind::RayQueryLoop { merge: merge.into() }, None, [dispatch.into()]),
    },
    RayQueryDispatch = "ray_query_dispatch" {
        roles: [TERMINATOR, NESTS], succ: Slots::range(1, 4), side: [],
        effects: [READS, WRITES], shape: Shape::Exact(4), typing: Free,
        result: Void,
        build: fn ray_query_dispatch(
            query: Value, exit: BlockId, on_surface: BlockId, on_procedural: BlockId,
        ) -> InstId = InstData::new(
            InstKind::RayQueryDispatch, None,
            [query, exit.into(), on_surface.into(), on_procedural.into()]),
    },
    RayQueryObjectRead = "ray_query_object_read" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [READS], shape: Shape::Exact(1), typing: Free,
        result: Value,
        build: fn ray_query_object_read(op: RayQueryObjectReadOp, ty: Type, query: Value) -> Value
            = InstData::new(InstKind::RayQueryObjectRead(op), Some(ty), [query]),
    },
    RayQueryObjectWrite = "ray_query_object_write" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [WRITES], shape: Shape::OpArity, typing: Free,
        result: Void,
        build: fn ray_query_object_write(
            op: RayQueryObjectWriteOp, query: Value, distance: Option<Value>,
        ) -> InstId = InstData::new(
            InstKind::RayQueryObjectWrite(op), None, std::iter::once(query).chain(distance)),
    },
    RayQueryPipeline = "ray_query_pipeline" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [READS, WRITES, BARRIER], shape: Shape::AtLeast(3), typing: Free,
        result: Void,
        build: fn ray_query_pipeline(
            query: Value, on_surface: FuncId, on_procedural: FuncId, captures: &[Value],
        ) -> InstId = InstData::new(
            InstKind::RayQueryPipeline, None,
            [query, on_surface.into(), on_procedural.into()].into_iter()
                .chain(captures.iter().copied())),
    },
    AutodiffScope = "autodiff" / "autodiff_scope" {
        roles: [TERMINATOR, NESTS], succ: Slots::range(0, 1), side: [merge], merge: merge,
        effects: [], shape: Shape::Exact(1), typing: Free,
        result: Void,
        build: fn autodiff_scope(
            entry: BlockId, merge: impl Into<Option<BlockId>>, forward: bool, n_forward_grads: u32,
        ) -> InstId = InstData::new(
            InstKind::AutodiffScope { merge: merge.into(), forward, n_forward_grads },
            None, [entry.into()]),
    },
    AutodiffIntrinsic = "@" / "autodiff_intrinsic" {
        roles: [], succ: Slots::NONE, side: [],
        effects: by autodiff_intrinsic_effects, shape: Shape::OpArity, typing: Free,
        result: Any,
        build: fn autodiff_intrinsic(
            op: AutodiffIntrinsicOp, ty: Option<Type>, operands: &[Value],
        ) -> InstId = InstData::new(
            InstKind::AutodiffIntrinsic(op), ty, operands.iter().copied()),
    },
    Call = "call" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [READS, WRITES, BARRIER, MAY_TRAP], shape: Shape::AtLeast(1),
        typing: CalleeParams,
        result: Any,
        build: fn call(ret: Option<Type>, callee: FuncId, args: &[Value]) -> InstId = InstData::new(
            InstKind::Call, ret, std::iter::once(callee.into()).chain(args.iter().copied())),
    },
    Cast = "cast" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [], shape: Shape::Exact(1), typing: Free,
        result: Value,
        build: fn cast(op: CastOp, ty: Type, value: Value) -> Value
            = InstData::new(InstKind::Cast(op), Some(ty), [value]),
    },
    Print = "print" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [WRITES], shape: Shape::Any, typing: Free,
        result: Void,
        build: fn print(format: impl Into<String>, values: &[Value]) -> InstId = InstData::new(
            InstKind::Print { format: format.into() }, None, values.iter().copied()),
    },
    Clock = "clock" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [READS], shape: Shape::Exact(0), typing: Free,
        result: U64,
        build: fn clock(ty: Type) -> Value = InstData::new(InstKind::Clock, Some(ty), []),
    },
    DebugBreak = "debug_break" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [BARRIER, MAY_TRAP], shape: Shape::Any, typing: Free,
        result: Void,
        build: fn debug_break(callback: Option<u64>, values: &[Value]) -> InstId = InstData::new(
            InstKind::DebugBreak { callback }, None, values.iter().copied()),
    },
    Assert = "assert" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [MAY_TRAP], shape: Shape::Exact(1), typing: BoolCondition,
        result: Void,
        build: fn assert(cond: Value, message: impl Into<String>) -> InstId = InstData::new(
            InstKind::Assert { message: message.into() }, None, [cond]),
    },
    Assume = "assume" {
        roles: [], succ: Slots::NONE, side: [],
        effects: [MAY_TRAP], shape: Shape::Exact(1), typing: BoolCondition,
        result: Void,
        build: fn assume(cond: Value, message: impl Into<String>) -> InstId = InstData::new(
            InstKind::Assume { message: message.into() }, None, [cond]),
    },
    Outline = "outline" {
        roles: [TERMINATOR, NESTS], succ: Slots::range(0, 1), side: [merge], merge: merge,
        effects: [], shape: Shape::Exact(1), typing: Free,
        result: Void,
        build: fn outline(target: BlockId, merge: impl Into<Option<BlockId>>) -> InstId
            = InstData::new(InstKind::Outline { merge: merge.into() }, None, [target.into()]),
    },
    IndexedBranch = "indexed_branch" {
        roles: [TERMINATOR, NESTS], succ: Slots::from(1), side: [],
        effects: [], shape: Shape::CaseLabels, typing: Free,
        result: Void,
        build: fn indexed_branch(selector: Value, default: BlockId, cases: &[(u64, BlockId)])
            -> InstId = InstData::new(
                InstKind::IndexedBranch { labels: case_labels(cases) },
                None, case_operands(selector, default, cases)),
    },
}
    };
}
pub(crate) use inst_rows;

inst_rows!(inst_table);

/// The slot of a word keyword in [`KEYWORD_SLOTS`]: a hash of its length and first and
/// last bytes, collision-free over the table's keywords (checked at compile time: a new
/// keyword that collides is a compile error, and then wants new constants here).
const fn keyword_slot(len: usize, first: u8, last: u8) -> usize {
    (len.wrapping_mul(27) + first as usize + last as usize) % 128
}

/// [`InstTag::ALL`] indices of the word keywords by [`keyword_slot`] (`u8::MAX`: none),
/// for [`InstTag::from_keyword`]: one hash and one comparison per lookup.
const KEYWORD_SLOTS: [u8; 128] = {
    let mut t = [u8::MAX; 128];
    let mut i = 0;
    while i < InstTag::ALL.len() {
        let k = InstTag::ALL[i].text_keyword().as_bytes();
        if k[0] != b'@' {
            let slot = keyword_slot(k.len(), k[0], k[k.len() - 1]);
            assert!(
                t[slot] == u8::MAX,
                "instruction keywords collide in KEYWORD_SLOTS"
            );
            t[slot] = i as u8;
        }
        i += 1;
    }
    t
};

impl InstTag {
    /// Whether instructions of this tag end a block.
    #[inline]
    pub const fn is_terminator(self) -> bool {
        self.roles().contains(Roles::TERMINATOR)
    }

    /// Whether the text printer writes the successors inline (nested form).
    #[inline]
    pub const fn nests_blocks(self) -> bool {
        self.roles().contains(Roles::NESTS)
    }

    /// Whether the result is an lvalue.
    #[inline]
    pub const fn is_lvalue(self) -> bool {
        self.roles().contains(Roles::LVALUE)
    }

    /// Whether the instruction body names successor blocks.
    #[inline]
    pub const fn has_successors(self) -> bool {
        self.successor_slots().is_some()
    }

    /// Looks a tag up by interchange name.
    pub fn from_interchange_name(s: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|t| t.interchange_name() == s)
    }

    /// The tag whose text keyword is the word `s` (never the autodiff intrinsic, whose
    /// body starts with an `@op` token rather than a word).
    #[inline]
    pub fn from_keyword(s: &str) -> Option<Self> {
        let b = s.as_bytes();
        let (&first, &last) = (b.first()?, b.last()?);
        let i = KEYWORD_SLOTS[keyword_slot(b.len(), first, last)];
        let t = *Self::ALL.get(i as usize)?;
        (t.text_keyword() == s).then_some(t)
    }

    /// Every word keyword (for "did you mean" suggestions).
    pub fn keywords() -> impl Iterator<Item = &'static str> {
        Self::ALL
            .iter()
            .map(|t| t.text_keyword())
            .filter(|k| Self::from_keyword(k).is_some())
    }
}

impl InstKind {
    /// Whether this instruction ends its block.
    #[inline]
    pub const fn is_terminator(&self) -> bool {
        self.tag().is_terminator()
    }

    /// True for instructions without effects that are not terminators: the result
    /// depends on the operands alone, and may be dropped if unused or shared with an
    /// equal instruction.
    pub fn is_pure(&self) -> bool {
        !self.is_terminator() && self.effects().is_empty()
    }

    /// Whether the instruction may be deleted when its result is unused: not a
    /// terminator, and its [`Effects`] allow it.
    pub fn is_removable_if_unused(&self) -> bool {
        !self.is_terminator() && self.effects().removable_if_unused()
    }
}

impl InstData {
    /// The successor operands of the instruction (empty unless it is a terminator with
    /// successors): a slice of [`InstData::operands`], which may hold non-block values
    /// in an invalid module.
    #[inline]
    pub fn successor_operands(&self) -> &[Value] {
        &self.operands[self
            .kind
            .tag()
            .successor_slots()
            .range_for(self.operands.len())]
    }

    /// Successor blocks in operand order (with repeats).
    #[inline]
    pub fn successors(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.successor_operands()
            .iter()
            .filter_map(|v| v.as_block())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lalrpop grammar keeps its own productions; it must name exactly the table's
    /// word keywords, each as its `Tok::Inst` terminal, as the start of at least one
    /// instruction body, and in the rule that lets a keyword be a name.
    /// The text of the grammar rule opened by `head`, up to its closing `};`.
    fn rule<'g>(g: &'g str, head: &str) -> &'g str {
        let start = g.find(head).expect("rule");
        let len = g[start..].find("\n};").expect("rule end");
        &g[start..start + len]
    }

    #[test]
    fn grammar_matches_the_table() {
        let g = include_str!("text/grammar.lalrpop");
        let terminals: Vec<&str> = g
            .lines()
            .map(str::trim)
            .filter(|l| l.contains("=> Tok::Inst("))
            .collect();
        let mut words = 0;
        for &t in InstTag::ALL {
            let kw = t.text_keyword();
            if InstTag::from_keyword(kw).is_none() {
                assert_eq!(t, InstTag::AutodiffIntrinsic, "only `@` is not a word");
                assert!(g.contains("<w:Sp<At>>"), "the grammar reads `@op`");
                continue;
            }
            words += 1;
            let terminal = format!("\"{kw}\" => Tok::Inst(crate::inst::InstTag::{t:?}),");
            assert!(
                terminals.contains(&terminal.as_str()),
                "no terminal {terminal}"
            );
            let starts_body = [rule(g, "BodyV: Body = {"), rule(g, "ResKw: u8 = {")]
                .iter()
                .flat_map(|r| r.lines())
                .any(|l| l.trim().starts_with(&format!("\"{kw}\" ")));
            assert!(starts_body, "no instruction body starts with \"{kw}\"");
            assert!(
                g.contains(&format!("\"{kw}\" => \"{kw}\",")),
                "\"{kw}\" cannot be used as a name"
            );
        }
        assert_eq!(
            terminals.len(),
            words,
            "the grammar has extra instruction terminals"
        );
    }

    #[test]
    fn keyword_lookup_round_trips() {
        for &t in InstTag::ALL {
            if t != InstTag::AutodiffIntrinsic {
                assert_eq!(InstTag::from_keyword(t.text_keyword()), Some(t));
            }
            assert_eq!(
                InstTag::from_interchange_name(t.interchange_name()),
                Some(t)
            );
        }
        assert_eq!(InstTag::from_keyword("@"), None);
        assert_eq!(InstTag::from_keyword("iff"), None);
        assert_eq!(InstTag::from_keyword(""), None);
        assert_eq!(InstTag::ALL.len(), 41);
    }
}

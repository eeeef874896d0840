//! The lowered form: per function, a flat list of register-machine ops over `u64` lanes.
//!
//! Every SSA value of a function owns a fixed range of lanes in its frame ("registers",
//! indexed from the frame base); constants and undefined values are preloaded into the
//! frame image, special registers are filled when the frame is made. Control flow is
//! jumps to op indices; a phi is a move on the edge that enters its block (edges are a
//! side table, so straight-line ops carry no phi cost). See `lower.rs` for the mapping.

use crate::scalar::{F1, F2, F3};
use std::sync::Arc;
use xir_ir::ScalarKind;
use xir_ir::diag::Span;
use xir_ir::op::{AtomicOp, ThreadGroupOp};
use xir_ir::{FuncId, InstId, SpecialRegister};

/// A pure op too rare to deserve its own variant: reads and writes the frame's lanes.
pub type PureFn = Box<dyn Fn(&mut [u64]) -> Result<(), &'static str> + Send + Sync>;

/// Per lane of a value: byte offset in its native image and scalar kind.
pub type Plan = Arc<[(u32, ScalarKind)]>;

/// A lane range: first lane, count.
pub type Range = (u32, u32);

/// A target: op index and the edge (phi moves) taken to get there; edge 0 moves nothing.
pub type Target = (u32, u32);

/// One step of an address computation (GEP, extract/insert, atomics on memory).
#[derive(Clone, Debug)]
pub enum Step {
    /// A constant lane offset (struct member).
    Const(u32),
    /// `index × stride`, the index register (of `kind`) checked against `count`.
    Dyn {
        /// Index register.
        reg: u32,
        /// Index kind.
        kind: ScalarKind,
        /// Lanes per element.
        stride: u32,
        /// Element count.
        count: u64,
    },
}

/// An atomic's operand target.
#[derive(Clone, Debug)]
pub enum AtomicBase {
    /// A buffer: binding register, element-index register and kind, then byte steps
    /// (`Step::Const` byte offsets and `Step::Dyn` byte strides), the element size.
    Buffer {
        /// Register holding the binding.
        buf: u32,
        /// Element index register and kind.
        idx: (u32, ScalarKind),
        /// Byte steps inside the element.
        steps: Box<[Step]>,
        /// Element size in bytes.
        esize: u64,
    },
    /// Local or shared memory: pointer register and lane steps.
    Memory {
        /// Pointer register.
        ptr: u32,
        /// Lane steps.
        steps: Box<[Step]>,
    },
}

/// One op (fields: `dst` result register, `a`/`b`/`c` operand registers, `n` lanes,
/// `s*` operand strides, `f` the lane function).
#[allow(missing_docs)]
pub enum Op {
    /// `dst[i] = f(a[i])`.
    Un { f: F1, dst: u32, a: u32, n: u32 },
    /// `dst[i] = f(a[i·sa], b[i·sb])` (a stride of 0 broadcasts a scalar).
    Bin {
        f: F2,
        dst: u32,
        a: u32,
        b: u32,
        n: u32,
        sa: u32,
        sb: u32,
    },
    /// `dst[i] = f(a[i·sa], b[i·sb], c[i·sc])`.
    Tern {
        f: F3,
        dst: u32,
        a: u32,
        b: u32,
        c: u32,
        n: u32,
        sa: u32,
        sb: u32,
        sc: u32,
    },
    /// `dst[i] = c[i·sc] ? t[i] : f[i]`.
    Select {
        dst: u32,
        f: u32,
        t: u32,
        c: u32,
        n: u32,
        sc: u32,
    },
    /// Lane-by-lane static cast.
    Cast {
        dst: u32,
        a: u32,
        n: u32,
        from: ScalarKind,
        to: ScalarKind,
    },
    /// `dst[0..n] = src[0..n]`.
    Mov { dst: u32, src: u32, n: u32 },
    /// Single-lane moves `(dst, src)` (aggregate, shuffle, constant-index insert).
    Moves { pairs: Box<[(u32, u32)]> },
    /// `dst = src[offset(steps) .. +n]`.
    Extract {
        dst: u32,
        src: u32,
        n: u32,
        steps: Box<[Step]>,
    },
    /// `dst = agg; dst[offset(steps) .. +n] = elem`.
    Insert {
        dst: u32,
        agg: Range,
        elem: u32,
        n: u32,
        steps: Box<[Step]>,
    },
    /// `dst[k] = src[idx_k]` with each index checked against `count`.
    Shuffle {
        dst: u32,
        src: u32,
        idx: Box<[(u32, ScalarKind)]>,
        count: u64,
    },
    /// A long-tail pure op; `inputs` and `out` serve undefined-value tracking.
    Pure {
        f: PureFn,
        inputs: Box<[Range]>,
        out: Range,
    },
    /// Unconditional jump.
    Jump { to: Target },
    /// Two-way jump on a bool register.
    CondJump { c: u32, t: Target, f: Target },
    /// Multi-way jump on the raw lane of `sel`.
    Switch {
        sel: u32,
        cases: Box<[(u64, Target)]>,
        default: Target,
    },
    /// Return `n` lanes from `src` (n = 0: void).
    Return { src: u32, n: u32 },
    /// `unreachable` reached.
    Unreachable { message: Box<str> },
    /// A local variable: `dst` = pointer to frame-local lane `off`; its `n` lanes become
    /// unwritten.
    Alloca { dst: u32, off: u32, n: u32 },
    /// A shared variable: `dst` = pointer to block-shared lane `off`.
    SharedAlloca { dst: u32, off: u32 },
    /// `dst = base + offset(steps)`.
    Gep {
        dst: u32,
        base: u32,
        steps: Box<[Step]>,
    },
    /// `dst[0..n] = *ptr`.
    Load { dst: u32, ptr: u32, n: u32 },
    /// `*ptr = src[0..n]`.
    Store { ptr: u32, src: u32, n: u32 },
    /// Element or byte-offset read from a buffer.
    BufRead {
        dst: u32,
        buf: u32,
        idx: (u32, ScalarKind),
        plan: Arc<[(u32, ScalarKind)]>,
        esize: u64,
        byte: bool,
    },
    /// Element or byte-offset write to a buffer.
    BufWrite {
        buf: u32,
        idx: (u32, ScalarKind),
        src: u32,
        plan: Arc<[(u32, ScalarKind)]>,
        esize: u64,
        byte: bool,
    },
    /// Element count (`esize` > 0) or byte size (`esize` = 0) of a buffer.
    BufSize {
        dst: u32,
        buf: u32,
        esize: u64,
        out: ScalarKind,
    },
    /// Atomic read-modify-write; `dst` gets the old value.
    Atomic {
        op: AtomicOp,
        kind: ScalarKind,
        dst: u32,
        base: AtomicBase,
        vals: (u32, u32),
    },
    /// Call a lowered function: copy `args` to its parameters, result to `dst`.
    Call {
        callee: u32,
        args: Box<[Range]>,
        dst: u32,
        n: u32,
    },
    /// Reinterpret bytes: lanes of `from` plan → image of `size` bytes → lanes of `to`.
    Bitcast {
        dst: u32,
        a: u32,
        from: Arc<[(u32, ScalarKind)]>,
        to: Arc<[(u32, ScalarKind)]>,
        size: u32,
    },
    /// `print`: format and values (register, lane kinds).
    Print {
        format: Box<str>,
        args: Box<[(u32, Plan)]>,
    },
    /// `assert` / `assume` of a bool register (`assume`: a false condition is undefined).
    Assert {
        c: u32,
        message: Box<str>,
        assume: bool,
    },
    /// `synchronize_block`.
    Barrier,
    /// A warp op; `a` (and `b` for `warp_read_lane`) operands, `n` lanes of `kind`.
    Warp {
        op: ThreadGroupOp,
        dst: u32,
        a: u32,
        b: u32,
        n: u32,
        kind: ScalarKind,
        b_kind: ScalarKind,
    },
}

/// One lowered function.
pub struct Code {
    /// The IR function.
    pub func: FuncId,
    /// Ops.
    pub ops: Vec<Op>,
    /// Per op: the instruction it came from.
    pub insts: Vec<InstId>,
    /// Phi moves per edge: `(dst, src, lanes)`; edge 0 is empty.
    pub edges: Vec<Box<[(u32, u32, u32)]>>,
    /// Per edge: no move reads a register another move of the edge writes, so the moves
    /// can be done in place (otherwise they go through a scratch copy).
    pub edge_direct: Vec<bool>,
    /// First op.
    pub entry: u32,
    /// The frame image (constants preloaded) and its undefined-lane marks.
    pub init: Vec<u64>,
    /// Undefined-lane marks of the frame image.
    pub init_undef: Vec<u8>,
    /// Parameter registers, in argument order.
    pub params: Vec<Range>,
    /// Special registers to fill when a frame is made.
    pub specials: Vec<(SpecialRegister, u32)>,
    /// Local-memory lanes of one frame.
    pub local_lanes: u32,
    /// Spans of instructions, for diagnostics.
    pub spans: Vec<Option<Span>>,
}

/// What a kernel argument is.
#[derive(Clone, Debug)]
pub enum KernelArg {
    /// A value argument: its register range and lane plan.
    Value {
        /// Registers.
        regs: Range,
        /// Lane plan.
        plan: Arc<[(u32, ScalarKind)]>,
    },
    /// A buffer: element layout (`None`: a byte buffer).
    Buffer {
        /// Register holding the binding.
        reg: u32,
        /// Element plan and size.
        elem: Option<(Plan, u64)>,
    },
}

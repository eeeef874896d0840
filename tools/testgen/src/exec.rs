//! The executable mode of the generator: random compute kernels that a reference
//! interpreter can run without undefined behaviour, for differential testing of passes
//! (`xir-opt --check-semantics`, the pass property test).
//!
//! [`generate_exec_kernel`] builds one kernel (plus the callables it calls) from a seed.
//! Defined-ness holds *by construction*, for every input of the buffer sizes the
//! kernel's dispatch implies ([`ExecKernel::dispatch`], an even number of threads: two
//! blocks):
//!
//! * buffers are indexed with the dispatch id `i` or `i ^ 1` (in bounds for an even
//!   dispatch), atomics with `i & 3`, shared arrays with the thread id or `t ^ 1`, local
//!   arrays with `x & (len - 1)`;
//! * integer divisors are `(d & 255) | 1` (non-zero, positive: no `INT_MIN / -1`),
//!   shift amounts are masked to `width - 1`; floats use only ops defined on every input
//!   (`+ - * /`, negation, `abs`, `floor`, `ceil`, comparisons, `select`: NaN and ∞
//!   propagate, nothing is undefined) and are never converted to integers; a float
//!   divisor outside the range where Vulkan defines `OpFDiv` (magnitude in
//!   [2^-126, 2^126]) is replaced by 1.0, so the kernels also compare with Vulkan;
//! * every local is stored right after its `alloca`; loops count a local from 0 to a
//!   bound below 8 and `continue` goes through the increment; no value is undefined;
//! * each thread writes only its own output element; atomics use one commutative op per
//!   kernel and their old values are not used; shared memory is written once, read after
//!   `synchronize_block` at the top level (uniform control flow), never written again.
//!
//! Bodies mix integer (`i32`, `u32`) and `f32` arithmetic, casts, locals, local arrays
//! and structs, calls with value and reference arguments, and nested structured `if`,
//! `switch`, `loop` and `simple_loop` with `break`/`continue`. `more` adds vectors, 16/64-bit
//! types, warp ops and plain-CFG callables; `shapes` the inputs of particular passes
//! (div-rem pairs, adjacent element stores, GEP chains into nested locals, byte-buffer
//! runs, scaled and dead loop counters).

mod more;
mod shapes;

use super::Rng;
use xir_ir::edit::{Cursor, InsertPoint, InstBuilder};
use xir_ir::function::{ArgKind, Function, FunctionKind};
use xir_ir::inst::{InstData, InstId};
use xir_ir::module::Module;
use xir_ir::op::{
    AllocaOp, ArithmeticOp as A, AtomicOp, BindlessAccess, CastOp, ResourceReadOp, ResourceWriteOp,
    ThreadGroupOp,
};
use xir_ir::types::{ScalarKind as K, Type, TypeData};
use xir_ir::value::{BlockId, FuncId, SpecialRegister, Value};

/// Knobs for [`generate_exec_kernel`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecConfig {
    /// Maximum nesting depth of control-flow constructs.
    pub max_depth: u32,
    /// Maximum statements per region.
    pub max_stmts: u32,
    /// Maximum number of callables.
    pub max_callables: u32,
}

impl Default for ExecConfig {
    fn default() -> Self {
        Self {
            max_depth: 3,
            max_stmts: 6,
            max_callables: 2,
        }
    }
}

/// A generated kernel and the dispatch its defined-ness argument assumes.
#[derive(Clone, Debug)]
pub struct ExecKernel {
    /// The module (one kernel, maybe callables).
    pub module: Module,
    /// Threads per axis (two blocks along x).
    pub dispatch: [u32; 3],
}

/// The kernel's buffer arguments, in signature order: three inputs, three outputs, the
/// atomic target.
const IN_I: usize = 0;
const IN_U: usize = 1;
const IN_F: usize = 2;
const OUT_I: usize = 3;
const OUT_U: usize = 4;
const OUT_F: usize = 5;
const ATOM: usize = 6;

/// Generates an executable, UB-free kernel from `seed` (deterministic).
pub fn generate_exec_kernel(seed: u64, cfg: &ExecConfig) -> ExecKernel {
    let mut rng = Rng::new(seed ^ 0x5eed_e8ec);
    let mut m = Module::new();
    let mut callees = Vec::new();
    for _ in 0..rng.below(cfg.max_callables as u64 + 1) {
        let id = if rng.chance(30) {
            more::plain_callable(&mut m, &mut rng, &callees)
        } else {
            callable(&mut m, &mut rng, cfg, &callees)
        };
        callees.push(id);
    }
    let bs = rng.pick(&[32u32, 64]);
    let mut f = Function::new(
        FunctionKind::Kernel {
            block_size: [bs, 1, 1],
        },
        None,
    );
    let (i32t, u32t, f32t) = (m.types.i32(), m.types.u32(), m.types.f32());
    for e in [i32t, u32t, f32t, i32t, u32t, f32t, u32t] {
        let t = m.types.intern(TypeData::Buffer { elem: Some(e) });
        f.add_arg(ArgKind::Resource, t);
    }
    // Sometimes a byte buffer (`fuse-consecutive-buffer-reads`' input, `exec/shapes.rs`).
    let bytes = rng.chance(30).then(|| {
        let t = m.types.intern(TypeData::Buffer { elem: None });
        Value::Arg(f.add_arg(ArgKind::Resource, t))
    });
    let entry = f.ensure_body();
    let mut g = Gen::new(&mut m, &mut rng, cfg, f, entry, callees.clone());
    g.bytes = bytes;
    g.kernel_body(bs);
    let f = g.f;
    m.add_function(f);
    ExecKernel {
        module: m,
        dispatch: [2 * bs, 1, 1],
    }
}

/// `callable %f: i32 (%a: i32; %r: i32 reference; …)`: a region over its arguments that
/// updates the reference and returns a value.
fn callable(m: &mut Module, rng: &mut Rng, cfg: &ExecConfig, callees: &[FuncId]) -> FuncId {
    let (i32t, u32t, f32t) = (m.types.i32(), m.types.u32(), m.types.f32());
    let ret = rng.pick(&[i32t, u32t, f32t]);
    let mut f = Function::new(FunctionKind::Callable, Some(ret));
    let a = f.add_arg(ArgKind::Value, i32t);
    let rt = rng.pick(&[i32t, u32t, f32t]);
    let r = f.add_arg(ArgKind::Reference, rt);
    let b = f.add_arg(ArgKind::Value, f32t);
    let entry = f.ensure_body();
    let sub = ExecConfig {
        max_depth: cfg.max_depth.min(1),
        max_stmts: cfg.max_stmts.min(4),
        max_callables: 0,
    };
    // A read-only reference (only loaded) makes the callable `promote-ref-arg`'s input.
    let read_only = rng.chance(35);
    let mut g = Gen::new(m, rng, &sub, f, entry, callees.to_vec());
    g.vals = vec![(Value::Arg(a), K::I32), (Value::Arg(b), K::F32)];
    if !read_only {
        g.locals = vec![(Value::Arg(r), rt)];
    }
    let rk = g.kind_of(ret);
    g.ret = Some(rk);
    let k = g.kind_of(rt);
    let x = g.load(rt, Value::Arg(r));
    g.vals.push((x, k));
    g.region();
    if !read_only {
        let v = g.pick_val(k);
        g.store(Value::Arg(r), v);
    }
    let out = g.pick_val(rk);
    g.ret(Some(out));
    let f = g.f;
    m.add_function(f)
}

/// A `break`/`continue` scope: `(break target, continue target)`.
type Scope = (BlockId, Option<BlockId>);

struct Gen<'g> {
    m: &'g mut Module,
    rng: &'g mut Rng,
    cfg: &'g ExecConfig,
    f: Function,
    entry: BlockId,
    cur: BlockId,
    /// Defined values dominating the insertion point, with their scalar kind.
    vals: Vec<(Value, K)>,
    /// Initialised locals (lvalues) and their types.
    locals: Vec<(Value, Type)>,
    /// Initialised nested locals (arrays of arrays or structs, structs with an array),
    /// created at the kernel's top level, addressed through GEP chains.
    nested: Vec<(Value, Type)>,
    /// The kernel's byte buffer, if it has one.
    bytes: Option<Value>,
    loops: Vec<Scope>,
    depth: u32,
    callees: Vec<FuncId>,
    /// The kind a `return` returns (`None`: a kernel, `return` without a value).
    ret: Option<K>,
    /// Whether nested regions may end in an early `return` (structured functions).
    early_return: bool,
}

/// Instructions go at the end of the current block.
impl InstBuilder for Gen<'_> {
    fn insert(&mut self, d: InstData) -> InstId {
        Cursor::at_end(&mut self.f, self.cur).insert(d)
    }
}

impl<'g> Gen<'g> {
    fn new(
        m: &'g mut Module,
        rng: &'g mut Rng,
        cfg: &'g ExecConfig,
        f: Function,
        entry: BlockId,
        callees: Vec<FuncId>,
    ) -> Self {
        Gen {
            m,
            rng,
            cfg,
            f,
            entry,
            cur: entry,
            vals: Vec::new(),
            locals: Vec::new(),
            nested: Vec::new(),
            bytes: None,
            loops: Vec::new(),
            depth: 0,
            callees,
            ret: None,
            early_return: true,
        }
    }

    // ---- emission ----

    /// `arith` with a result of scalar kind `k`.
    fn arith_k(&mut self, op: A, k: K, ops: Vec<Value>) -> Value {
        let t = self.m.types.scalar(k);
        self.arith(op, t, &ops)
    }

    fn kind_of(&self, t: Type) -> K {
        self.m.types.scalar_kind(t).unwrap_or(K::I32)
    }

    fn konst(&mut self, k: K, bits: u64) -> Value {
        let t = self.m.types.scalar(k);
        let bytes = bits.to_le_bytes();
        Value::Const(self.m.constant(t, &bytes[..k.size() as usize]))
    }

    fn random_const(&mut self, k: K) -> Value {
        let bits = match k {
            K::F16 | K::F32 | K::F64 => self.float_const_bits(k),
            K::Bool => self.rng.below(2),
            _ => {
                let small = self.rng.below(20) as i64 - 4;
                let v = if self.rng.chance(15) {
                    self.rng.next_u64() as i64
                } else {
                    small
                };
                v as u64 & 0xffff_ffff
            }
        };
        self.konst(k, bits)
    }

    /// An alloca placed at the start of the entry block (so it dominates every use).
    fn entry_alloca(&mut self, space: AllocaOp, t: Type) -> Value {
        let at = match self.f.blocks[self.entry].insts.first() {
            Some(&i) => InsertPoint::Before(i),
            None => InsertPoint::End(self.entry),
        };
        Cursor {
            func: &mut self.f,
            at,
        }
        .alloca(space, t)
    }

    /// A defined value of kind `k` (pooled, or a constant).
    fn pick_val(&mut self, k: K) -> Value {
        if self.rng.chance(80) {
            let n = self.vals.len();
            let start = self.rng.index(n.max(1));
            for j in 0..n {
                let (v, x) = self.vals[(start + j) % n];
                if x == k {
                    return v;
                }
            }
        }
        self.random_const(k)
    }

    fn any_kind(&mut self) -> K {
        self.rng.pick(&[K::I32, K::U32, K::F32])
    }

    fn int_kind(&mut self) -> K {
        self.rng.pick(&[K::I32, K::U32])
    }

    fn push(&mut self, v: Value, k: K) {
        self.vals.push((v, k));
    }

    // ---- the kernel ----

    fn kernel_body(&mut self, bs: u32) {
        let zero = self.konst(K::U32, 0);
        let (did, vt) = self.special(SpecialRegister::DispatchId);
        let _ = vt;
        let i = self.arith_k(A::Extract, K::U32, vec![did, zero]);
        let one = self.konst(K::U32, 1);
        let j = self.arith_k(A::BinaryBitXor, K::U32, vec![i, one]);
        self.push(i, K::U32);
        for (arg, k) in [(IN_I, K::I32), (IN_U, K::U32), (IN_F, K::F32)] {
            for idx in [i, j] {
                if idx == j && self.rng.chance(50) {
                    continue;
                }
                let b = self.arg(arg);
                let v = {
                    let kt = self.m.types.scalar(k);
                    self.resource_read(
                        ResourceReadOp::BufferRead,
                        BindlessAccess::default(),
                        kt,
                        &[b, idx],
                    )
                };
                self.push(v, k);
            }
        }
        if self.rng.chance(35) {
            self.shared_phase(bs);
        }
        if self.rng.chance(30) {
            self.warp_phase();
        }
        for _ in 0..1 + self.rng.below(3) {
            let k = self.any_kind();
            self.new_local(k);
        }
        if self.rng.chance(40) {
            self.composite_local();
        }
        if self.rng.chance(30) {
            self.nested_local();
        }
        if self.bytes.is_some() {
            self.byte_read_stmt();
        }
        self.region();
        let atomic = self.rng.chance(40).then(|| {
            self.rng.pick(&[
                AtomicOp::FetchAdd,
                AtomicOp::FetchXor,
                AtomicOp::FetchMax,
                AtomicOp::FetchMin,
                AtomicOp::FetchOr,
            ])
        });
        if let Some(op) = atomic {
            let three = self.konst(K::U32, 3);
            let slot = self.arith_k(A::BinaryBitAnd, K::U32, vec![i, three]);
            let v = self.pick_val(K::U32);
            let b = self.arg(ATOM);
            let u = self.m.types.u32();
            self.atomic(op, u, b, &[slot], &[v]);
        }
        if self.rng.chance(50) {
            self.byte_write_phase(i);
        }
        for (arg, k) in [(OUT_I, K::I32), (OUT_U, K::U32), (OUT_F, K::F32)] {
            let v = self.result_val(k);
            let b = self.arg(arg);
            self.resource_write(
                ResourceWriteOp::BufferWrite,
                BindlessAccess::default(),
                &[b, i, v],
            );
        }
        self.ret(None);
    }

    /// The value an output gets: a combination of recent values, or a local.
    fn result_val(&mut self, k: K) -> Value {
        let cands: Vec<Value> = self
            .locals
            .iter()
            .filter(|(_, t)| self.m.types.scalar_kind(*t) == Some(k))
            .map(|(v, _)| *v)
            .collect();
        if !cands.is_empty() && self.rng.chance(60) {
            let p = cands[self.rng.index(cands.len())];
            let t = self.m.types.scalar(k);
            let x = self.load(t, p);
            let y = self.pick_val(k);
            let op = if k == K::F32 {
                A::BinaryAdd
            } else {
                A::BinaryBitXor
            };
            return self.arith_k(op, k, vec![x, y]);
        }
        // The latest value of this kind (the most computation behind it).
        match self.vals.iter().rev().find(|(_, x)| *x == k) {
            Some(&(v, _)) => v,
            None => self.random_const(k),
        }
    }

    fn arg(&self, k: usize) -> Value {
        Value::Arg(self.f.arg_order[k])
    }

    fn special(&mut self, r: SpecialRegister) -> (Value, Type) {
        let t = self.m.special_register_type(r);
        (self.m.special(r), t)
    }

    /// `sh[t] = v; synchronize_block; w = sh[t ^ 1]` at the top level.
    fn shared_phase(&mut self, bs: u32) {
        let u = self.m.types.u32();
        let at = self.m.types.intern(TypeData::Array {
            elem: u,
            len: bs as u64,
        });
        let sh = self.entry_alloca(AllocaOp::Shared, at);
        let zero = self.konst(K::U32, 0);
        let (tid, _) = self.special(SpecialRegister::ThreadId);
        let t = self.arith_k(A::Extract, K::U32, vec![tid, zero]);
        let slot = self.gep(u, sh, &[t]);
        let v = self.pick_val(K::U32);
        self.store(slot, v);
        self.thread_group(ThreadGroupOp::SynchronizeBlock, None, &[]);
        let one = self.konst(K::U32, 1);
        let o = self.arith_k(A::BinaryBitXor, K::U32, vec![t, one]);
        let oslot = self.gep(u, sh, &[o]);
        let w = self.load(u, oslot);
        self.push(w, K::U32);
    }

    fn new_local(&mut self, k: K) -> Value {
        let t = self.m.types.scalar(k);
        let p = self.entry_alloca(AllocaOp::Local, t);
        let v = self.pick_val(k);
        self.store(p, v);
        self.locals.push((p, t));
        p
    }

    /// A local `array<i32, 4>` or `struct { u32, f32 }`, every element stored; later
    /// statements address it with in-bounds indices.
    fn composite_local(&mut self) {
        let (i32t, u32t, f32t) = (self.m.types.i32(), self.m.types.u32(), self.m.types.f32());
        if self.rng.chance(50) {
            let at = self.m.types.intern(TypeData::Array { elem: i32t, len: 4 });
            let p = self.entry_alloca(AllocaOp::Local, at);
            for e in 0..4 {
                let idx = self.konst(K::U32, e);
                let slot = self.gep(i32t, p, &[idx]);
                let v = self.pick_val(K::I32);
                self.store(slot, v);
            }
            self.locals.push((p, at));
        } else {
            let st = self.m.types.intern(TypeData::Struct {
                align: 4,
                members: vec![u32t, f32t],
            });
            let p = self.entry_alloca(AllocaOp::Local, st);
            for (e, (t, k)) in [(u32t, K::U32), (f32t, K::F32)].into_iter().enumerate() {
                let idx = self.konst(K::U32, e as u64);
                let slot = self.gep(t, p, &[idx]);
                let v = self.pick_val(k);
                self.store(slot, v);
            }
            self.locals.push((p, st));
        }
    }

    // ---- statements ----

    fn region(&mut self) {
        let n = 1 + self.rng.below(self.cfg.max_stmts as u64);
        for _ in 0..n {
            if self.depth < self.cfg.max_depth && self.rng.chance(30) {
                match self.rng.below(4) {
                    0 => self.c_if(),
                    1 => self.c_switch(),
                    2 => self.c_loop(),
                    _ => self.c_simple_loop(),
                }
            } else {
                self.statement();
            }
        }
    }

    fn statement(&mut self) {
        // The pass-input shapes of `exec/shapes.rs`, one statement in ten.
        if self.rng.chance(10) {
            return self.shape_stmt();
        }
        match self.rng.below(14) {
            0..=4 => self.arith_stmt(),
            5 => self.cast_stmt(),
            6 | 7 => self.local_stmt(),
            8 => self.call_stmt(),
            9 | 10 => self.wide_stmt(),
            11 | 12 => self.vector_stmt(),
            _ => self.select_stmt(),
        }
    }

    fn arith_stmt(&mut self) {
        let k = self.any_kind();
        if k == K::F32 {
            let a = self.pick_val(k);
            let b = self.pick_val(k);
            let v = self.float_op(k, a, b);
            self.push(v, k);
            return;
        }
        let a = self.pick_val(k);
        let b = self.pick_val(k);
        let op = self.rng.pick(&[
            A::BinaryAdd,
            A::BinarySub,
            A::BinaryMul,
            A::BinaryBitAnd,
            A::BinaryBitOr,
            A::BinaryBitXor,
            A::BinaryShiftLeft,
            A::BinaryShiftRight,
            A::BinaryDiv,
            A::BinaryMod,
            A::Min,
            A::Max,
            A::UnaryMinus,
            A::UnaryBitNot,
            A::BinaryMul,
            A::BinaryAdd,
        ]);
        let v = match op {
            A::UnaryMinus | A::UnaryBitNot => self.arith_k(op, k, vec![a]),
            A::BinaryShiftLeft | A::BinaryShiftRight => {
                let mask = self.konst(k, 31);
                let s = self.arith_k(A::BinaryBitAnd, k, vec![b, mask]);
                self.arith_k(op, k, vec![a, s])
            }
            A::BinaryDiv | A::BinaryMod => {
                let d = if self.rng.chance(30) {
                    // A constant divisor (1..=9), a shape peephole passes rewrite.
                    let c = 1 + self.rng.below(9);
                    self.konst(k, c)
                } else {
                    let m = self.konst(k, 255);
                    let one = self.konst(k, 1);
                    let lo = self.arith_k(A::BinaryBitAnd, k, vec![b, m]);
                    self.arith_k(A::BinaryBitOr, k, vec![lo, one])
                };
                self.arith_k(op, k, vec![a, d])
            }
            _ => self.arith_k(op, k, vec![a, b]),
        };
        self.push(v, k);
    }

    /// One float op defined on every input (`+ - * /`, negation, `abs`, `floor`, `ceil`)
    /// of `a` (and `b`).
    fn float_op(&mut self, k: K, a: Value, b: Value) -> Value {
        let op = self.rng.pick(&[
            A::BinaryAdd,
            A::BinarySub,
            A::BinaryMul,
            A::BinaryDiv,
            A::UnaryMinus,
            A::Abs,
            A::Floor,
            A::Ceil,
        ]);
        let ops = if matches!(op, A::UnaryMinus | A::Abs | A::Floor | A::Ceil) {
            vec![a]
        } else if op == A::BinaryDiv {
            vec![a, self.vulkan_divisor(k, b)]
        } else {
            vec![a, b]
        };
        self.arith_k(op, k, ops)
    }

    /// `b` where Vulkan defines a float division by it, else 1.0: Vulkan's precision
    /// table defines `OpFDiv` only for a divisor of magnitude in [2^-126, 2^126]
    /// ([2^-14, 2^14] for 16-bit floats), so `0 / 0`, `x / ±0`, `x / ±inf`, `x / NaN`
    /// and divisions by tiny or huge values never reach the differential.
    /// `select(1.0, select(1.0, b, |b| <= hi), |b| >= lo)`: comparisons with NaN are false.
    fn vulkan_divisor(&mut self, k: K, b: Value) -> Value {
        let (lo, hi, one) = match k {
            K::F16 => (0x0400, 0x7400, 0x3c00),
            K::F64 => (897 << 52, 1149 << 52, 0x3ff0_0000_0000_0000),
            _ => (0x0080_0000, 0x7e80_0000, 0x3f80_0000),
        };
        let (lo, hi, one) = (self.konst(k, lo), self.konst(k, hi), self.konst(k, one));
        let mag = self.arith_k(A::Abs, k, vec![b]);
        let below_hi = self.arith_k(A::BinaryLessEqual, K::Bool, vec![mag, hi]);
        let above_lo = self.arith_k(A::BinaryGreaterEqual, K::Bool, vec![mag, lo]);
        let d = self.arith_k(A::Select, k, vec![one, b, below_hi]);
        self.arith_k(A::Select, k, vec![one, d, above_lo])
    }

    fn cast_stmt(&mut self) {
        let from = self.int_kind();
        let to = self.rng.pick(&[K::I32, K::U32, K::F32]);
        let v = self.pick_val(from);
        let t = self.m.types.scalar(to);
        let op = if to != K::F32 && self.rng.chance(40) {
            CastOp::BitwiseCast
        } else {
            CastOp::StaticCast
        };
        let r = self.cast(op, t, v);
        self.push(r, to);
    }

    fn cond(&mut self) -> Value {
        let k = self.any_kind();
        let a = self.pick_val(k);
        let b = self.pick_val(k);
        let op = self.rng.pick(&[
            A::BinaryLess,
            A::BinaryGreater,
            A::BinaryLessEqual,
            A::BinaryEqual,
            A::BinaryNotEqual,
        ]);
        self.arith_k(op, K::Bool, vec![a, b])
    }

    fn select_stmt(&mut self) {
        let c = self.cond();
        let k = self.any_kind();
        let a = self.pick_val(k);
        let b = self.pick_val(k);
        let v = self.arith_k(A::Select, k, vec![a, b, c]);
        self.push(v, k);
    }

    fn local_stmt(&mut self) {
        if self.locals.is_empty() {
            let k = self.any_kind();
            self.new_local(k);
            return;
        }
        let (p, t) = self.locals[self.rng.index(self.locals.len())];
        let (slot, et) = match self.m.types.get(t).clone() {
            TypeData::Array { elem, len } => {
                let x = self.pick_val(K::U32);
                let m = self.konst(K::U32, len - 1);
                let idx = self.arith_k(A::BinaryBitAnd, K::U32, vec![x, m]);
                (self.gep(elem, p, &[idx]), elem)
            }
            TypeData::Struct { members, .. } => {
                let e = self.rng.index(members.len());
                let idx = self.konst(K::U32, e as u64);
                let et = members[e];
                (self.gep(et, p, &[idx]), et)
            }
            _ => (p, t),
        };
        let k = self.kind_of(et);
        if self.rng.chance(50) {
            let v = self.load(et, slot);
            self.push(v, k);
        } else {
            let v = self.pick_val(k);
            self.store(slot, v);
        }
    }

    fn call_stmt(&mut self) {
        if self.callees.is_empty() {
            return self.arith_stmt();
        }
        let callee = self.callees[self.rng.index(self.callees.len())];
        let (ret, rt) = {
            let f = self.m.func(callee);
            (f.ret, f.args[f.arg_order[1]].ty)
        };
        let rk = self.kind_of(rt);
        // The reference argument: an existing scalar local of that type, or a new one.
        let existing: Vec<Value> = self
            .locals
            .iter()
            .filter(|(_, t)| *t == rt)
            .map(|(v, _)| *v)
            .collect();
        // Or an element of a local aggregate: a `getelementptr` actual, which
        // `inline-spirv-pointer-args` must inline (SPIR-V passes only whole variables).
        let elements: Vec<(Value, u64, bool)> = self
            .locals
            .iter()
            .filter_map(|(v, t)| match self.m.types.get(*t) {
                TypeData::Array { elem, len } if *elem == rt => Some((*v, *len, true)),
                TypeData::Struct { members, .. } => members
                    .iter()
                    .position(|m| *m == rt)
                    .map(|e| (*v, e as u64, false)),
                _ => None,
            })
            .collect();
        let r = if !elements.is_empty() && self.rng.chance(30) {
            let (p, n, dynamic) = elements[self.rng.index(elements.len())];
            let idx = if dynamic {
                let x = self.pick_val(K::U32);
                let m = self.konst(K::U32, n - 1);
                self.arith_k(A::BinaryBitAnd, K::U32, vec![x, m])
            } else {
                self.konst(K::U32, n)
            };
            self.gep(rt, p, &[idx])
        } else if !existing.is_empty() && self.rng.chance(70) {
            existing[self.rng.index(existing.len())]
        } else {
            self.new_local(rk)
        };
        let a = self.pick_val(K::I32);
        let b = self.pick_val(K::F32);
        let v = Value::Inst(self.call(ret, callee, &[a, r, b]));
        if let Some(t) = ret {
            let k = self.kind_of(t);
            self.push(v, k);
        }
    }

    // ---- constructs ----

    fn mark(&self) -> (usize, usize) {
        (self.vals.len(), self.locals.len())
    }

    fn reset(&mut self, m: (usize, usize)) {
        self.vals.truncate(m.0);
        // Locals stay valid (their allocas are at entry) but may be uninitialised on
        // paths that skipped their store: forget them too.
        self.locals.truncate(m.1);
    }

    fn nested(&mut self) {
        self.depth += 1;
        self.region();
        self.depth -= 1;
    }

    /// Ends the current block with `br to`, or inside a loop sometimes `break`/`continue`.
    fn leave(&mut self, to: BlockId) {
        // An early return inside a construct (`early-return-elimination`'s input).
        if self.early_return && self.rng.chance(5) {
            let v = self.ret.map(|k| self.pick_val(k));
            self.ret(v);
            return;
        }
        if let Some(&(brk, cont)) = self.loops.last() {
            if self.rng.chance(12) {
                self.break_(brk);
                return;
            }
            if let Some(c) = cont
                && self.rng.chance(10)
            {
                self.continue_(c);
                return;
            }
        }
        self.br(to);
    }

    fn c_if(&mut self) {
        let c = self.cond();
        let t = self.f.create_block();
        let m = self.f.create_block();
        let e = if self.rng.chance(30) {
            m
        } else {
            self.f.create_block()
        };
        self.if_(c, t, e, m);
        let mk = self.mark();
        for arm in [t, e] {
            if arm == m {
                continue;
            }
            self.cur = arm;
            self.nested();
            self.leave(m);
            self.reset(mk);
        }
        self.cur = m;
    }

    fn c_switch(&mut self) {
        let k = self.int_kind();
        let x = self.pick_val(k);
        let three = self.konst(k, 3);
        let sel = self.arith_k(A::BinaryBitAnd, k, vec![x, three]);
        let n = 1 + self.rng.below(3);
        let labels: Vec<u64> = (0..n).collect();
        let m = self.f.create_block();
        let d = self.f.create_block();
        let cases: Vec<BlockId> = (0..n).map(|_| self.f.create_block()).collect();
        let arms: Vec<(u64, BlockId)> = labels.into_iter().zip(cases.iter().copied()).collect();
        self.switch(sel, d, &arms, m);
        let mk = self.mark();
        // `break` in a switch leaves the switch; `continue` still targets the loop.
        let cont = self.loops.last().and_then(|s| s.1);
        self.loops.push((m, cont));
        for b in std::iter::once(d).chain(cases) {
            self.cur = b;
            self.nested();
            self.leave(m);
            self.reset(mk);
        }
        self.loops.pop();
        self.cur = m;
    }

    /// A fresh loop counter (stored 0 here) and its bound (`x & 7` or a constant < 8).
    fn counter(&mut self) -> (Value, Value) {
        let u = self.m.types.u32();
        let k = self.entry_alloca(AllocaOp::Local, u);
        let zero = self.konst(K::U32, 0);
        self.store(k, zero);
        let bound = if self.rng.chance(40) {
            let c = self.rng.below(6);
            self.konst(K::U32, c)
        } else {
            let x = self.pick_val(K::U32);
            let seven = self.konst(K::U32, 7);
            self.arith_k(A::BinaryBitAnd, K::U32, vec![x, seven])
        };
        (k, bound)
    }

    fn increment(&mut self, k: Value) -> Value {
        let u = self.m.types.u32();
        let kv = self.load(u, k);
        let one = self.konst(K::U32, 1);
        let k1 = self.arith_k(A::BinaryAdd, K::U32, vec![kv, one]);
        self.store(k, k1);
        k1
    }

    /// `loop prepare %p, body %b, update %u, merge %m` counting `k` from 0 to the bound.
    fn c_loop(&mut self) {
        let (k, bound) = self.counter();
        let (p, body, u, m) = (
            self.f.create_block(),
            self.f.create_block(),
            self.f.create_block(),
            self.f.create_block(),
        );
        let pre = self.cur;
        self.loop_(p, body, u, Some(m));
        let mk = self.mark();
        self.cur = p;
        let ut = self.m.types.u32();
        // A prepare-block phi recurrence nothing reads (`indvar-simplify` removes it).
        let dead_iv = self.rng.chance(25).then(|| {
            let x = self.pick_val(K::U32);
            self.phi(ut, &[(x, pre)])
        });
        let kv = self.load(ut, k);
        let more = self.arith_k(A::BinaryLess, K::Bool, vec![kv, bound]);
        self.cond_br(more, body, m);
        self.cur = body;
        self.push(kv, K::U32);
        if self.rng.chance(40) {
            self.scaled_counter(kv);
        }
        self.loops.push((m, Some(u)));
        self.nested();
        self.leave(u);
        self.loops.pop();
        self.reset(mk);
        self.cur = u;
        self.increment(k);
        if let Some(d) = dead_iv {
            let s = 1 + self.rng.below(4);
            let s = self.konst(K::U32, s);
            let d1 = self.arith_k(A::BinaryAdd, K::U32, vec![d, s]);
            let d = d.as_inst().expect("a phi");
            self.f.insts[d].phi_push(d1, u);
        }
        self.br(p);
        self.cur = m;
    }

    /// `simple_loop`: body; `k += 1`; `if k >= bound { break } else { continue }`.
    fn c_simple_loop(&mut self) {
        let (k, bound) = self.counter();
        let (body, m) = (self.f.create_block(), self.f.create_block());
        self.simple_loop(body, m);
        let mk = self.mark();
        self.cur = body;
        // No `continue` inside: it would skip the increment at the end of the body.
        self.loops.push((m, None));
        self.nested();
        self.loops.pop();
        let k1 = self.increment(k);
        let done = self.arith_k(A::BinaryGreaterEqual, K::Bool, vec![k1, bound]);
        let (t, x) = (self.f.create_block(), self.f.create_block());
        self.if_(done, t, x, x);
        self.cur = t;
        self.break_(m);
        self.cur = x;
        self.continue_(body);
        self.reset(mk);
        self.cur = m;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xir_ir::verify::{VerifyOptions, verify_module};

    #[test]
    fn generated_kernels_verify_and_round_trip() {
        let mut shapes = [0usize; 4];
        for seed in 0..300 {
            let k = generate_exec_kernel(seed, &ExecConfig::default());
            let diags = verify_module(&k.module, &VerifyOptions::default(), None);
            let text = xir_ir::text::print_module(&k.module, &Default::default());
            assert!(diags.is_empty(), "seed {seed}: {diags:?}\n{text}");
            let (back, _) = xir_ir::text::parse_module(&text).expect("reparses");
            assert_eq!(
                xir_ir::text::print_module(&back, &Default::default()),
                text,
                "seed {seed}"
            );
            for (n, word) in ["switch", " loop ", "simple_loop", "call "]
                .iter()
                .enumerate()
            {
                shapes[n] += text.contains(word) as usize;
            }
        }
        assert!(
            shapes.iter().all(|&n| n > 20),
            "construct counts {shapes:?}"
        );
    }
}

//! More statement kinds of the executable generator (`super`): vectors, 16- and 64-bit
//! types, warp ops in uniform control flow, and callables written as a plain CFG.
//! Each keeps the defined-ness argument of `super`'s header:
//!
//! * vectors are built with `aggregate` from defined scalars, combined lane-wise with
//!   `+ - *` (and bitwise/`min`/`max` for integers: float `min`/`max` of NaN would be
//!   undefined), rearranged with `shuffle`, `insert` and read back with `extract`, all
//!   with constant in-range lane indices;
//! * 16/64-bit values come from `static_cast`s of 32-bit ones (int → int truncates or
//!   extends, int → float and float → float round: all defined), compute with the same
//!   masked divisors and shift amounts as 32-bit ones, and go back to 32 bits the same way
//!   (never float → int);
//! * warp ops run at the top level of the kernel, before any construct (every lane of a
//!   warp is there: the dispatch is two full blocks); lanes read by `warp_read_lane` are
//!   masked to `& (warp_size - 1)` (any power-of-two warp size);
//! * a plain-CFG callable (`cond_br` diamond joined by a `phi`, an `indexed_branch` on
//!   `x & 3` joined by a `phi`, a counted loop with induction phis bounded by `b & 7`)
//!   holds straight-line statements only.

use super::{Gen, Rng};
use xir_ir::edit::InstBuilder;
use xir_ir::function::{ArgKind, Function, FunctionKind};
use xir_ir::module::Module;
use xir_ir::op::{ArithmeticOp as A, CastOp, ThreadGroupOp as W};
use xir_ir::types::ScalarKind as K;
use xir_ir::value::{BlockId, FuncId, SpecialRegister, Value};

/// The wide (16- and 64-bit) kinds.
pub(super) const WIDE: &[K] = &[K::I16, K::U16, K::I64, K::U64, K::F16, K::F64];

impl Gen<'_> {
    /// Constant bits of a float kind: one of a few values (0, ±1, ½, 2, −3.25, 100, 10⁻³).
    pub(super) fn float_const_bits(&mut self, k: K) -> u64 {
        let i = self.rng.index(8);
        match k {
            K::F16 => [
                0x0000u64, 0x3c00, 0xbc00, 0x3800, 0x4000, 0xc280, 0x5640, 0x1419,
            ][i],
            K::F64 => [0.0f64, 1.0, -1.0, 0.5, 2.0, -3.25, 100.0, 1e-3][i].to_bits(),
            _ => [0.0f32, 1.0, -1.0, 0.5, 2.0, -3.25, 100.0, 1e-3][i].to_bits() as u64,
        }
    }

    fn is_float(k: K) -> bool {
        matches!(k, K::F16 | K::F32 | K::F64)
    }

    fn cast_to(&mut self, v: Value, to: K) -> Value {
        let t = self.m.types.scalar(to);
        self.cast(CastOp::StaticCast, t, v)
    }

    /// One defined binary or unary op of kind `k` on `a`, `b` (divisors and shift amounts
    /// masked as in `arith_stmt`).
    fn safe_op(&mut self, k: K, a: Value, b: Value) -> Value {
        if Self::is_float(k) {
            return self.float_op(k, a, b);
        }
        let op = self.rng.pick(&[
            A::BinaryAdd,
            A::BinarySub,
            A::BinaryMul,
            A::BinaryBitXor,
            A::BinaryBitAnd,
            A::BinaryShiftLeft,
            A::BinaryShiftRight,
            A::BinaryDiv,
            A::BinaryMod,
            A::Max,
        ]);
        match op {
            A::BinaryShiftLeft | A::BinaryShiftRight => {
                let mask = self.konst(k, k.size() * 8 - 1);
                let s = self.arith_k(A::BinaryBitAnd, k, vec![b, mask]);
                self.arith_k(op, k, vec![a, s])
            }
            A::BinaryDiv | A::BinaryMod => {
                let m = self.konst(k, 255);
                let one = self.konst(k, 1);
                let lo = self.arith_k(A::BinaryBitAnd, k, vec![b, m]);
                let d = self.arith_k(A::BinaryBitOr, k, vec![lo, one]);
                self.arith_k(op, k, vec![a, d])
            }
            _ => self.arith_k(op, k, vec![a, b]),
        }
    }

    /// A 16- or 64-bit computation: a wide value (pooled, or cast from a 32-bit one), one
    /// or two ops, and sometimes a cast back to 32 bits.
    pub(super) fn wide_stmt(&mut self) {
        let k = self.rng.pick(WIDE);
        let narrow = if Self::is_float(k) {
            K::F32
        } else {
            self.int_kind()
        };
        let operand = |g: &mut Self| {
            if g.rng.chance(50) && g.vals.iter().any(|(_, x)| *x == k) {
                g.pick_val(k)
            } else {
                let from = if g.rng.chance(30) {
                    g.int_kind()
                } else {
                    narrow
                };
                let v = g.pick_val(from);
                g.cast_to(v, k)
            }
        };
        let a = operand(self);
        let b = operand(self);
        let mut r = self.safe_op(k, a, b);
        if self.rng.chance(40) {
            r = self.safe_op(k, r, a);
        }
        self.push(r, k);
        if self.rng.chance(60) {
            let back = self.cast_to(r, narrow);
            self.push(back, narrow);
        }
    }

    /// A vector computation over `i32`, `u32` or `f32` lanes read back as scalars.
    pub(super) fn vector_stmt(&mut self) {
        let k = self.any_kind();
        let n = 2 + self.rng.below(3) as u8;
        let et = self.m.types.scalar(k);
        let vt = self.m.types.vector(et, n);
        let build = |g: &mut Self| {
            let lanes: Vec<Value> = (0..n).map(|_| g.pick_val(k)).collect();
            g.arith(A::Aggregate, vt, &lanes)
        };
        let x = build(self);
        let y = build(self);
        let ops: &[A] = if k == K::F32 {
            &[A::BinaryAdd, A::BinarySub, A::BinaryMul]
        } else {
            &[
                A::BinaryAdd,
                A::BinarySub,
                A::BinaryMul,
                A::BinaryBitXor,
                A::Min,
                A::Max,
            ]
        };
        let op = self.rng.pick(ops);
        let mut v = self.arith(op, vt, &[x, y]);
        match self.rng.below(4) {
            0 => {
                // Lane-wise negation (scalarized like the binary op).
                let neg = if k == K::U32 {
                    A::UnaryBitNot
                } else {
                    A::UnaryMinus
                };
                v = self.arith(neg, vt, &[v]);
            }
            1 => {
                let e = self.pick_val(k);
                let lane = self.rng.below(n as u64);
                let idx = self.konst(K::U32, lane);
                v = self.arith(A::Insert, vt, &[v, e, idx]);
            }
            2 => {
                // A swizzle to another length (`v.zyx`, `v.xx`, …).
                let m = 2 + self.rng.below(3) as u8;
                let st = self.m.types.vector(et, m);
                let mut ops = vec![v];
                for _ in 0..m {
                    let lane = self.rng.below(n as u64);
                    ops.push(self.konst(K::U32, lane));
                }
                let s = self.arith(A::Shuffle, st, &ops);
                let lane = self.rng.below(m as u64);
                let idx = self.konst(K::U32, lane);
                let e = self.arith_k(A::Extract, k, vec![s, idx]);
                self.push(e, k);
            }
            _ => {}
        }
        for _ in 0..1 + self.rng.below(2) {
            let lane = self.rng.below(n as u64);
            let idx = self.konst(K::U32, lane);
            let e = self.arith_k(A::Extract, k, vec![v, idx]);
            self.push(e, k);
        }
    }

    /// Warp ops at the top level of the kernel (uniform control flow).
    pub(super) fn warp_phase(&mut self) {
        for _ in 0..1 + self.rng.below(3) {
            let k = self.int_kind();
            let x = self.pick_val(k);
            match self.rng.below(5) {
                0 => {
                    let op = self.rng.pick(&[
                        W::WarpActiveSum,
                        W::WarpPrefixSum,
                        W::WarpActiveMax,
                        W::WarpActiveMin,
                        W::WarpActiveBitXor,
                        W::WarpActiveBitOr,
                        W::WarpReadFirstActiveLane,
                    ]);
                    let v = {
                        let kt = self.m.types.scalar(k);
                        Value::Inst(self.thread_group(op, Some(kt), &[x]))
                    };
                    self.push(v, k);
                }
                1 | 2 => {
                    // lane = l & (warp_size - 1): in range for any power-of-two warp
                    // (subgroup) size, so the kernel is defined on every device.
                    let l = self.pick_val(K::U32);
                    let (ws, _) = self.special(SpecialRegister::WarpSize);
                    let one = self.konst(K::U32, 1);
                    let m = self.arith_k(A::BinarySub, K::U32, vec![ws, one]);
                    let lane = self.arith_k(A::BinaryBitAnd, K::U32, vec![l, m]);
                    let v = {
                        let kt = self.m.types.scalar(k);
                        Value::Inst(self.thread_group(W::WarpReadLane, Some(kt), &[x, lane]))
                    };
                    self.push(v, k);
                }
                3 => {
                    let c = self.cond();
                    let op = self
                        .rng
                        .pick(&[W::WarpActiveCountBits, W::WarpPrefixCountBits]);
                    let v = {
                        let kt = self.m.types.scalar(K::U32);
                        Value::Inst(self.thread_group(op, Some(kt), &[c]))
                    };
                    self.push(v, K::U32);
                }
                _ => {
                    let c = self.cond();
                    let op = self.rng.pick(&[W::WarpActiveAll, W::WarpActiveAny]);
                    let b = {
                        let kt = self.m.types.scalar(K::Bool);
                        Value::Inst(self.thread_group(op, Some(kt), &[c]))
                    };
                    let a = self.pick_val(k);
                    let d = self.pick_val(k);
                    let v = self.arith_k(A::Select, k, vec![a, d, b]);
                    self.push(v, k);
                }
            }
        }
    }

    /// The body of a callable `(%a: i32; %r: T reference; %b: f32) -> R` as a plain CFG:
    /// a `cond_br` diamond, an `indexed_branch` and a counted loop, joined by phis, each
    /// block holding straight-line statements. Ends with `return`.
    pub(super) fn plain_body(&mut self, ret: K) {
        let rt = self.m.types.scalar(ret);
        // The diamond.
        self.region();
        let c = self.cond();
        let (t, f, j) = (
            self.f.create_block(),
            self.f.create_block(),
            self.f.create_block(),
        );
        self.cond_br(c, t, f);
        self.join_arms(&[t, f], j, ret);
        // The indexed branch on `x & 3` (labels 0..n, the rest to the default).
        let x = self.pick_val(K::U32);
        let three = self.konst(K::U32, 3);
        let sel = self.arith_k(A::BinaryBitAnd, K::U32, vec![x, three]);
        let n = 1 + self.rng.below(3);
        let d = self.f.create_block();
        let cases: Vec<_> = (0..n).map(|_| self.f.create_block()).collect();
        let j2 = self.f.create_block();
        let labelled: Vec<(u64, BlockId)> = (0..n).zip(cases.iter().copied()).collect();
        self.indexed_branch(sel, d, &labelled);
        let arms: Vec<_> = std::iter::once(d).chain(cases).collect();
        let q = self.join_arms(&arms, j2, ret);
        // The loop: `k` from 0 to `y & 7`, an accumulator carried by a phi.
        let y = self.pick_val(K::U32);
        let seven = self.konst(K::U32, 7);
        let bound = self.arith_k(A::BinaryBitAnd, K::U32, vec![y, seven]);
        let zero = self.konst(K::U32, 0);
        let pre = self.cur;
        let (h, body, exit) = (
            self.f.create_block(),
            self.f.create_block(),
            self.f.create_block(),
        );
        self.br(h);
        self.cur = h;
        let u = self.m.types.u32();
        let kphi = self.phi(u, &[(zero, pre)]);
        let aphi = self.phi(rt, &[(q, pre)]);
        let more = self.arith_k(A::BinaryLess, K::Bool, vec![kphi, bound]);
        self.cond_br(more, body, exit);
        let mk = self.mark();
        self.cur = body;
        self.push(kphi, K::U32);
        self.push(aphi, ret);
        if self.rng.chance(50) {
            self.scaled_counter(kphi);
        }
        self.region();
        let one = self.konst(K::U32, 1);
        let k1 = self.arith_k(A::BinaryAdd, K::U32, vec![kphi, one]);
        let e = self.pick_val(ret);
        let acc = self.safe_op(ret, aphi, e);
        let end = self.cur;
        self.br(h);
        self.reset(mk);
        for (phi, v) in [(kphi, k1), (aphi, acc)] {
            let phi = phi.as_inst().expect("a phi");
            self.f.insts[phi].phi_push(v, end);
        }
        self.cur = exit;
        self.push(aphi, ret);
        self.region();
    }

    /// Fills each of `arms` with statements ending in `br join`, and starts `join` with
    /// a phi of one value of kind `k` per arm (pushed and returned).
    fn join_arms(&mut self, arms: &[BlockId], join: BlockId, k: K) -> Value {
        let mk = self.mark();
        let mut edges = Vec::new();
        for &arm in arms {
            self.cur = arm;
            self.region();
            edges.push((self.pick_val(k), self.cur));
            self.br(join);
            self.reset(mk);
        }
        self.cur = join;
        let t = self.m.types.scalar(k);
        let p = self.phi(t, &edges);
        self.push(p, k);
        p
    }
}

/// A callable `(%a: i32; %r: u32 reference; %b: f32) -> u32 | i32` whose body is a
/// plain CFG ([`Gen::plain_body`]); the reference is read at the top and written at
/// the end.
pub(super) fn plain_callable(m: &mut Module, rng: &mut Rng, callees: &[FuncId]) -> FuncId {
    let (i32t, u32t, f32t) = (m.types.i32(), m.types.u32(), m.types.f32());
    let ret = rng.pick(&[K::I32, K::U32]);
    let mut f = Function::new(FunctionKind::Callable, Some(m.types.scalar(ret)));
    let a = f.add_arg(ArgKind::Value, i32t);
    let r = f.add_arg(ArgKind::Reference, u32t);
    let b = f.add_arg(ArgKind::Value, f32t);
    let entry = f.ensure_body();
    // Straight-line statements only (no structured construct in a plain function).
    let cfg = super::ExecConfig {
        max_depth: 0,
        max_stmts: 3,
        max_callables: 0,
    };
    let mut g = Gen::new(m, rng, &cfg, f, entry, callees.to_vec());
    g.vals = vec![(Value::Arg(a), K::I32), (Value::Arg(b), K::F32)];
    g.ret = Some(ret);
    g.early_return = false;
    let x = g.load(u32t, Value::Arg(r));
    g.push(x, K::U32);
    g.plain_body(ret);
    let v = g.pick_val(K::U32);
    g.store(Value::Arg(r), v);
    let out = g.pick_val(ret);
    g.ret(Some(out));
    let f = g.f;
    m.add_function(f)
}

//! Statement shapes of the executable generator (`super`) that are the inputs of
//! particular passes, each drawn with its own probability and defined by the same
//! argument as `super`'s header:
//!
//! * **div-rem pairs** (`div-rem-pairs`): `x / d` and `x % d` of the same operands
//!   (`i32`/`u32`, sometimes 16/64-bit), `d` a masked odd divisor `(y & 255) | 1` or a
//!   constant 1..9 as in `arith_stmt`;
//! * **adjacent element stores** (`slp-vectorization`): 2–4 results of one lane-wise op
//!   (`+ - *`, integer `^ & | min max`) or one cast (never float → int), each used only by
//!   its store, stored side by side into constant elements `k, k+1, …` of a local
//!   `array<T, 4>` (every element stored when the array is created);
//! * **nested locals** (`trace-gep`): `array<array<i32, 2>, 2>`, `struct { array<u32, 2>,
//!   f32 }` or `array<struct { u32, f32 }, 2>`, every scalar stored right after the
//!   `alloca`, read and written through `getelementptr` chains (a GEP of a GEP; never an
//!   index-less GEP, which the verifier rejects); array indices are constants or
//!   `x & (len - 1)`;
//! * **byte-buffer runs** (`fuse-consecutive-buffer-reads`): a kernel may take a byte
//!   buffer (`buffer<void>`, 4 bytes per thread, so at least 256 bytes); every thread
//!   reads 2–4 integers at consecutive constant offsets below 64 (shared reads race with
//!   nothing), and at the end the thread with dispatch id 0 alone may write a run at
//!   offsets 64.. (which nobody reads);
//! * **counted-loop shapes** (`indvar-simplify`): a loop counter scaled by a constant
//!   (`k * C` or `k << C`, then combined, so used inside the loop), and in a structured
//!   `loop` a prepare-block phi recurrence nothing reads (`d = phi(x, d + s)`).

use super::{Gen, K};
use xir_ir::edit::InstBuilder;
use xir_ir::op::ResourceWriteOp;
use xir_ir::op::{AllocaOp, ArithmeticOp as A, BindlessAccess, CastOp, ResourceReadOp};
use xir_ir::types::{Type, TypeData};
use xir_ir::value::{BlockId, Value};

/// Byte offsets below this are read by every thread; thread 0 writes from here on.
const BYTE_WRITE_BASE: u64 = 64;

impl Gen<'_> {
    /// One of the pass-input shapes that fits here (kernel-only ones in kernels).
    pub(super) fn shape_stmt(&mut self) {
        let mut choices: Vec<fn(&mut Self)> = vec![Self::div_rem_stmt, Self::slp_stmt];
        if !self.nested.is_empty() {
            choices.push(Self::nested_stmt);
        }
        if self.bytes.is_some() {
            choices.push(Self::byte_read_stmt);
        }
        let f = choices[self.rng.index(choices.len())];
        f(self);
    }

    /// A value of integer kind `k`: pooled, or cast from a 32-bit one.
    fn int_operand(&mut self, k: K) -> Value {
        if matches!(k, K::I32 | K::U32) || self.vals.iter().any(|(_, x)| *x == k) {
            return self.pick_val(k);
        }
        let from = self.int_kind();
        let v = self.pick_val(from);
        let t = self.m.types.scalar(k);
        self.cast(CastOp::StaticCast, t, v)
    }

    /// `q = x / d; r = x % d` with the same `x` and `d` (sometimes a statement between).
    pub(super) fn div_rem_stmt(&mut self) {
        let k = if self.rng.chance(25) {
            self.rng.pick(&[K::I16, K::U16, K::I64, K::U64])
        } else {
            self.int_kind()
        };
        let x = self.int_operand(k);
        let d = if self.rng.chance(30) {
            let c = 1 + self.rng.below(9);
            self.konst(k, c)
        } else {
            let y = self.int_operand(k);
            let m = self.konst(k, 255);
            let one = self.konst(k, 1);
            let lo = self.arith_k(A::BinaryBitAnd, k, vec![y, m]);
            self.arith_k(A::BinaryBitOr, k, vec![lo, one])
        };
        let (first, second) = if self.rng.chance(80) {
            (A::BinaryDiv, A::BinaryMod)
        } else {
            (A::BinaryMod, A::BinaryDiv)
        };
        let q = self.arith_k(first, k, vec![x, d]);
        self.push(q, k);
        if self.rng.chance(30) {
            self.arith_stmt();
        }
        let r = self.arith_k(second, k, vec![x, d]);
        self.push(r, k);
        if !matches!(k, K::I32 | K::U32) {
            let narrow = self.int_kind();
            let t = self.m.types.scalar(narrow);
            let back = self.cast(CastOp::StaticCast, t, r);
            self.push(back, narrow);
        }
    }

    /// 2–4 results of one lane-wise op (or cast) stored into adjacent constant elements
    /// of a local `array<T, 4>`: the address computations first, then the stores in a row.
    pub(super) fn slp_stmt(&mut self) {
        let k = self.any_kind();
        let et = self.m.types.scalar(k);
        let at = self.m.types.intern(TypeData::Array { elem: et, len: 4 });
        let existing: Vec<Value> = self
            .locals
            .iter()
            .filter(|(_, t)| *t == at)
            .map(|(v, _)| *v)
            .collect();
        let arr = if !existing.is_empty() && self.rng.chance(70) {
            existing[self.rng.index(existing.len())]
        } else {
            let p = self.entry_alloca(AllocaOp::Local, at);
            for e in 0..4 {
                let idx = self.konst(K::U32, e);
                let slot = self.gep(et, p, &[idx]);
                let v = self.pick_val(k);
                self.store(slot, v);
            }
            self.locals.push((p, at));
            p
        };
        let n = 2 + self.rng.below(3);
        let first = self.rng.below(5 - n);
        let lanes: Vec<Value> = if self.rng.chance(20) {
            // One cast per lane, never float → int.
            let (from, op) = match k {
                K::F32 => (self.int_kind(), CastOp::StaticCast),
                _ => (
                    self.int_kind(),
                    self.rng.pick(&[CastOp::StaticCast, CastOp::BitwiseCast]),
                ),
            };
            (0..n)
                .map(|_| {
                    let v = self.pick_val(from);
                    self.cast(op, et, v)
                })
                .collect()
        } else {
            let ops: &[A] = if k == K::F32 {
                &[A::BinaryAdd, A::BinarySub, A::BinaryMul]
            } else {
                &[
                    A::BinaryAdd,
                    A::BinarySub,
                    A::BinaryMul,
                    A::BinaryBitXor,
                    A::BinaryBitAnd,
                    A::BinaryBitOr,
                    A::Min,
                    A::Max,
                ]
            };
            let op = self.rng.pick(ops);
            (0..n)
                .map(|_| {
                    let a = self.pick_val(k);
                    let b = self.pick_val(k);
                    self.arith_k(op, k, vec![a, b])
                })
                .collect()
        };
        let slots: Vec<Value> = (0..n)
            .map(|l| {
                let idx = self.konst(K::U32, first + l);
                self.gep(et, arr, &[idx])
            })
            .collect();
        for (s, v) in slots.into_iter().zip(lanes) {
            self.store(s, v);
        }
    }

    /// A nested local (kernel top level), every scalar stored through a GEP chain.
    pub(super) fn nested_local(&mut self) {
        let (i32t, u32t, f32t) = (self.m.types.i32(), self.m.types.u32(), self.m.types.f32());
        let t = match self.rng.below(3) {
            0 => {
                let inner = self.m.types.intern(TypeData::Array { elem: i32t, len: 2 });
                self.m.types.intern(TypeData::Array {
                    elem: inner,
                    len: 2,
                })
            }
            1 => {
                let inner = self.m.types.intern(TypeData::Array { elem: u32t, len: 2 });
                self.m.types.intern(TypeData::Struct {
                    align: 4,
                    members: vec![inner, f32t],
                })
            }
            _ => {
                let inner = self.m.types.intern(TypeData::Struct {
                    align: 4,
                    members: vec![u32t, f32t],
                });
                self.m.types.intern(TypeData::Array {
                    elem: inner,
                    len: 2,
                })
            }
        };
        let p = self.entry_alloca(AllocaOp::Local, t);
        for path in self.leaf_paths(t) {
            let mut cur = t;
            let idx: Vec<(Value, Type)> = path
                .iter()
                .map(|&e| {
                    cur = self.step_type(cur, e);
                    (self.konst(K::U32, e), cur)
                })
                .collect();
            let (slot, leaf) = self.gep_chain(p, t, &idx);
            let k = self.kind_of(leaf);
            let v = self.pick_val(k);
            self.store(slot, v);
        }
        self.nested.push((p, t));
    }

    /// Every scalar leaf of `t` as constant indices.
    fn leaf_paths(&self, t: Type) -> Vec<Vec<u64>> {
        let children: Vec<Type> = match self.m.types.get(t) {
            TypeData::Array { elem, len } => vec![*elem; *len as usize],
            TypeData::Struct { members, .. } => members.clone(),
            _ => return vec![Vec::new()],
        };
        let mut out = Vec::new();
        for (e, c) in children.into_iter().enumerate() {
            for mut rest in self.leaf_paths(c) {
                rest.insert(0, e as u64);
                out.push(rest);
            }
        }
        out
    }

    /// The type index `e` into `t` reaches (member `e` of a struct, else the element).
    fn step_type(&self, t: Type, e: u64) -> Type {
        match self.m.types.get(t) {
            TypeData::Array { elem, .. } => *elem,
            TypeData::Struct { members, .. } => members[e as usize],
            _ => t,
        }
    }

    /// Addresses `indices` into `base` (of type `t`) as a chain of GEPs split at random
    /// points (at least two links when there are two indices). Each index comes with the
    /// type it reaches. Returns the address and the type it points to. (No index-less
    /// GEP: the verifier requires an index.)
    fn gep_chain(&mut self, base: Value, t: Type, indices: &[(Value, Type)]) -> (Value, Type) {
        let mut p = base;
        let mut cur = t;
        let mut k = 0;
        while k < indices.len() {
            // The first link stops before the last index; later ones take 1.. indices.
            let left = indices.len() - k;
            let take = if k == 0 && left > 1 {
                1 + self.rng.below(left as u64 - 1) as usize
            } else {
                1 + self.rng.below(left as u64) as usize
            };
            let seg: Vec<Value> = indices[k..k + take].iter().map(|x| x.0).collect();
            cur = indices[k + take - 1].1;
            p = self.gep(cur, p, &seg);
            k += take;
        }
        (p, cur)
    }

    /// A load or store of one scalar of a nested local through a GEP chain; array
    /// levels take a constant or a masked dynamic index.
    pub(super) fn nested_stmt(&mut self) {
        let (p, t) = self.nested[self.rng.index(self.nested.len())];
        let mut idx = Vec::new();
        let mut cur = t;
        loop {
            match self.m.types.get(cur).clone() {
                TypeData::Array { elem, len } => {
                    let i = if self.rng.chance(50) {
                        let x = self.pick_val(K::U32);
                        let m = self.konst(K::U32, len - 1);
                        self.arith_k(A::BinaryBitAnd, K::U32, vec![x, m])
                    } else {
                        let e = self.rng.below(len);
                        self.konst(K::U32, e)
                    };
                    idx.push((i, elem));
                    cur = elem;
                }
                TypeData::Struct { members, .. } => {
                    let e = self.rng.index(members.len());
                    let i = self.konst(K::U32, e as u64);
                    idx.push((i, members[e]));
                    cur = members[e];
                }
                _ => break,
            }
        }
        let (slot, leaf) = self.gep_chain(p, t, &idx);
        let k = self.kind_of(leaf);
        if self.rng.chance(60) {
            let v = self.load(leaf, slot);
            self.push(v, k);
        } else {
            let v = self.pick_val(k);
            self.store(slot, v);
        }
    }

    /// 2–4 integer reads of the byte buffer at consecutive constant offsets below
    /// [`BYTE_WRITE_BASE`] (4-byte lanes; two 8-byte lanes a quarter of the time);
    /// the start is usually aligned for the fused vector, sometimes not.
    pub(super) fn byte_read_stmt(&mut self) {
        let Some(b) = self.bytes else { return };
        let (k, size, n) = if self.rng.chance(25) {
            (self.rng.pick(&[K::I64, K::U64]), 8, 2)
        } else {
            (self.int_kind(), 4, 2 + self.rng.below(3))
        };
        let mut start = 16 * self.rng.below(3);
        if self.rng.chance(15) {
            start += size;
        }
        let t = self.m.types.scalar(k);
        for l in 0..n {
            let off = self.konst(K::U32, start + l * size);
            let v = self.resource_read(
                ResourceReadOp::ByteBufferRead,
                BindlessAccess::default(),
                t,
                &[b, off],
            );
            self.push(v, k);
            if size == 8 {
                let narrow = self.int_kind();
                let nt = self.m.types.scalar(narrow);
                let back = self.cast(CastOp::StaticCast, nt, v);
                self.push(back, narrow);
            }
        }
    }

    /// At the kernel's end: `if (i == 0) { 2–4 adjacent byte-buffer writes }` at offsets
    /// from [`BYTE_WRITE_BASE`] (one thread writes, nobody reads there).
    pub(super) fn byte_write_phase(&mut self, i: Value) {
        let Some(b) = self.bytes else { return };
        let zero = self.konst(K::U32, 0);
        let c = self.arith_k(A::BinaryEqual, K::Bool, vec![i, zero]);
        let (t, m): (BlockId, BlockId) = (self.f.create_block(), self.f.create_block());
        self.if_(c, t, m, m);
        self.cur = t;
        let k = self.int_kind();
        let n = 2 + self.rng.below(3);
        let vals: Vec<Value> = (0..n).map(|_| self.pick_val(k)).collect();
        for (l, v) in vals.into_iter().enumerate() {
            let off = self.konst(K::U32, BYTE_WRITE_BASE + 4 * l as u64);
            self.resource_write(
                ResourceWriteOp::ByteBufferWrite,
                BindlessAccess::default(),
                &[b, off, v],
            );
        }
        self.br(m);
        self.cur = m;
    }

    /// In a counted loop's body: `s = k * C` or `k << C`, combined with another value
    /// (so `s` is used inside the loop); both pooled.
    pub(super) fn scaled_counter(&mut self, k: Value) {
        let s = if self.rng.chance(30) {
            let c = 1 + self.rng.below(4);
            let c = self.konst(K::U32, c);
            self.arith_k(A::BinaryShiftLeft, K::U32, vec![k, c])
        } else {
            let c = 2 + self.rng.below(8);
            let c = self.konst(K::U32, c);
            self.arith_k(A::BinaryMul, K::U32, vec![k, c])
        };
        self.push(s, K::U32);
        let other = self.pick_val(K::U32);
        let op = self.rng.pick(&[A::BinaryAdd, A::BinaryBitXor]);
        let t = self.arith_k(op, K::U32, vec![s, other]);
        self.push(t, K::U32);
    }
}

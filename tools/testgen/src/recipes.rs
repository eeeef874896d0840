//! Straight-line "recipes": one per op of every op enum (plus a few kinds without ops),
//! each emitting a well-typed instruction with operands from the pools.
//!
//! Recipe numbering: arithmetic ops, thread-group ops, casts (the "simple" recipes any
//! function can use), then misc instructions, atomics, autodiff intrinsics, ray-query
//! object ops, resource queries, reads and writes (kernel only).

use super::arith_recipes::{arith, step_into, vals};
use super::fb::Fb;
use super::resources;
use xir_ir::edit::InstBuilder;
use xir_ir::function::ArgKind;

use xir_ir::op::{
    AllocaOp, ArithmeticOp as A, AtomicOp, AutodiffIntrinsicOp as D, CastOp, ResourceQueryOp,
    ResourceReadOp, ResourceWriteOp, ThreadGroupOp as G,
};
use xir_ir::types::{ScalarKind as K, Type, TypeData};
use xir_ir::value::Value;

const N_ARITH: usize = 93;
const N_TG: usize = 26;
const N_CAST: usize = 2;
const N_MISC: usize = 8;
/// Recipes any function can use.
pub(crate) const SIMPLE_COUNT: usize = N_ARITH + N_TG + N_CAST + N_MISC;
/// Ray-query object reads (the first `RQ_READS` of the ray-query recipes).
pub(crate) const RQ_READS: usize = 8;
/// Ray-query object recipes (reads, then writes).
pub(crate) const RQ_COUNT: usize = 12;
const N_ATOMIC: usize = 9;
const N_AD: usize = 8;
const N_PIPE: usize = 1;
/// Every recipe.
pub(crate) const ALL_COUNT: usize = SIMPLE_COUNT
    + N_ATOMIC
    + N_AD
    + RQ_COUNT
    + N_PIPE
    + ResourceQueryOp::ALL.len()
    + ResourceReadOp::ALL.len()
    + ResourceWriteOp::ALL.len();

pub(crate) const NUM: [K; 11] = [
    K::I8,
    K::U8,
    K::I16,
    K::U16,
    K::I32,
    K::U32,
    K::I64,
    K::U64,
    K::F16,
    K::F32,
    K::F64,
];
pub(crate) const INT: [K; 8] = [K::I8, K::U8, K::I16, K::U16, K::I32, K::U32, K::I64, K::U64];
pub(crate) const FLT: [K; 3] = [K::F16, K::F32, K::F64];

/// Emits recipe `r` of the full list (kernel context).
pub(crate) fn emit(fb: &mut Fb<'_>, r: usize) {
    let mut r = r % ALL_COUNT;
    if r < SIMPLE_COUNT {
        return emit_simple(fb, r);
    }
    r -= SIMPLE_COUNT;
    if r < N_ATOMIC {
        return resources::atomic(fb, AtomicOp::ALL[r]);
    }
    r -= N_ATOMIC;
    if r < N_AD {
        return autodiff_intrinsic(fb, D::ALL[r]);
    }
    r -= N_AD;
    if r < RQ_COUNT {
        return emit_rq(fb, r);
    }
    r -= RQ_COUNT;
    if r < N_PIPE {
        return resources::pipeline(fb);
    }
    r -= N_PIPE;
    if r < ResourceQueryOp::ALL.len() {
        return resources::query(fb, ResourceQueryOp::ALL[r]);
    }
    r -= ResourceQueryOp::ALL.len();
    if r < ResourceReadOp::ALL.len() {
        return resources::read(fb, ResourceReadOp::ALL[r]);
    }
    r -= ResourceReadOp::ALL.len();
    resources::write(fb, ResourceWriteOp::ALL[r % ResourceWriteOp::ALL.len()]);
}

/// Emits simple recipe `r` (no resources needed).
pub(crate) fn emit_simple(fb: &mut Fb<'_>, r: usize) {
    let r = r % SIMPLE_COUNT;
    if r < N_ARITH {
        arith(fb, A::ALL[r]);
    } else if r < N_ARITH + N_TG {
        thread_group(fb, G::ALL[r - N_ARITH]);
    } else if r < N_ARITH + N_TG + N_CAST {
        cast(fb, CastOp::ALL[r - N_ARITH - N_TG]);
    } else {
        misc(fb, r - N_ARITH - N_TG - N_CAST);
    }
}

/// Emits ray-query recipe `r` (needs `fb.rq`).
pub(crate) fn emit_rq(fb: &mut Fb<'_>, r: usize) {
    if fb.rq.is_none() {
        return arith(fb, A::BinaryAdd);
    }
    if r < RQ_READS {
        resources::rq_read(fb, xir_ir::op::RayQueryObjectReadOp::ALL[r]);
    } else {
        resources::rq_write(
            fb,
            xir_ir::op::RayQueryObjectWriteOp::ALL[(r - RQ_READS) % 4],
        );
    }
}

/// `k` scalar or `vector<k, n>` (n = 1 is the scalar).
pub(crate) fn sv(fb: &mut Fb<'_>, k: K, n: u8) -> Type {
    let e = fb.m.types.scalar(k);
    if n == 1 { e } else { fb.m.types.vector(e, n) }
}

pub(crate) fn dim(fb: &mut Fb<'_>) -> u8 {
    fb.rng.pick(&[1, 1, 2, 3, 4])
}

pub(crate) fn vdim(fb: &mut Fb<'_>) -> u8 {
    fb.rng.pick(&[2, 3, 4])
}

/// `matrix<f32, n>`.
pub(crate) fn mat(fb: &mut Fb<'_>, n: u8) -> Type {
    let f = fb.m.types.f32();
    fb.m.types.vector(f, n); // the column type must exist too
    fb.m.types.intern(TypeData::Matrix { elem: f, n })
}

/// A type for phis: a scalar or small vector.
pub(crate) fn phi_type(fb: &mut Fb<'_>) -> Type {
    let k = fb.rng.pick(&[K::F32, K::I32, K::U32, K::Bool, K::F16]);
    let n = dim(fb);
    sv(fb, k, n)
}

/// A random composite: struct (every alignment), array, matrix or vector.
pub(crate) fn random_composite(fb: &mut Fb<'_>) -> Type {
    let u = fb.m.types.u32();
    let f = fb.m.types.f32();
    match fb.rng.below(6) {
        0 => {
            let b = fb.m.types.bool();
            fb.m.types.intern(TypeData::Struct {
                align: 1,
                members: vec![b, b],
            })
        }
        1 => fb.m.types.intern(TypeData::Struct {
            align: 4,
            members: vec![u, f],
        }),
        2 => {
            let d = fb.m.types.scalar(K::F64);
            fb.m.types.intern(TypeData::Struct {
                align: 8,
                members: vec![u, d],
            })
        }
        3 => {
            let v = fb.m.types.vector(f, 4);
            let a = fb.m.types.intern(TypeData::Array { elem: u, len: 3 });
            fb.m.types.intern(TypeData::Struct {
                align: 16,
                members: vec![v, a, f],
            })
        }
        4 => {
            let n = 2 + fb.rng.below(3) as u8;
            mat(fb, n)
        }
        _ => fb.m.types.intern(TypeData::Array {
            elem: f,
            len: 1 + fb.rng.below(5),
        }),
    }
}

/// A well-typed instance of thread-group op `op`.
pub(crate) fn thread_group(fb: &mut Fb<'_>, op: G) {
    let n = dim(fb);
    let u = fb.m.types.u32();
    let b = fb.m.types.bool();
    let (ty, ops): (Option<Type>, Vec<Value>) = match op {
        G::ShaderExecutionReorder => {
            if fb.rng.chance(50) {
                (None, vec![])
            } else {
                (None, vals(fb, &[u, u]))
            }
        }
        G::SynchronizeBlock => (None, vec![]),
        G::RasterQuadDdx | G::RasterQuadDdy => {
            let t = {
                let a_ = fb.rng.pick(&FLT);
                sv(fb, a_, n)
            };
            (Some(t), vals(fb, &[t]))
        }
        G::RasterSetZDepth | G::RasterSetZDepthGreaterEqual | G::RasterSetZDepthLessEqual => {
            let f = fb.m.types.f32();
            (None, vals(fb, &[f]))
        }
        G::WarpIsFirstActiveLane => (Some(b), vec![]),
        G::WarpFirstActiveLane => (Some(u), vec![]),
        G::WarpActiveAllEqual => {
            let t = {
                let a_ = fb.rng.pick(&NUM);
                sv(fb, a_, n)
            };
            (Some(sv(fb, K::Bool, n)), vals(fb, &[t]))
        }
        G::WarpActiveBitAnd | G::WarpActiveBitOr | G::WarpActiveBitXor => {
            let t = {
                let a_ = fb.rng.pick(&INT);
                sv(fb, a_, n)
            };
            (Some(t), vals(fb, &[t]))
        }
        G::WarpActiveCountBits | G::WarpPrefixCountBits => (Some(u), vals(fb, &[b])),
        G::WarpActiveMax
        | G::WarpActiveMin
        | G::WarpActiveProduct
        | G::WarpActiveSum
        | G::WarpPrefixSum
        | G::WarpPrefixProduct => {
            let t = {
                let a_ = fb.rng.pick(&NUM);
                sv(fb, a_, n)
            };
            (Some(t), vals(fb, &[t]))
        }
        G::WarpActiveAll | G::WarpActiveAny => (Some(b), vals(fb, &[b])),
        G::WarpActiveBitMask => (Some(sv(fb, K::U32, 4)), vals(fb, &[b])),
        G::WarpReadLane => {
            let t = {
                let a_ = fb.rng.pick(&NUM);
                sv(fb, a_, n)
            };
            (Some(t), vals(fb, &[t, u]))
        }
        G::WarpReadFirstActiveLane => {
            let t = {
                let a_ = fb.rng.pick(&NUM);
                sv(fb, a_, n)
            };
            (Some(t), vals(fb, &[t]))
        }
    };
    match ty {
        Some(t) => {
            let v = Value::Inst(fb.thread_group(op, Some(t), &ops));
            fb.keep(v, t);
        }
        None => {
            fb.thread_group(op, None, &ops);
        }
    }
}

fn cast(fb: &mut Fb<'_>, op: CastOp) {
    let (from, to) = match op {
        CastOp::StaticCast => {
            let n = dim(fb);
            let a = fb.rng.pick(&[
                K::Bool,
                K::I32,
                K::U32,
                K::F32,
                K::F16,
                K::I64,
                K::U8,
                K::F64,
            ]);
            let b = fb.rng.pick(&[
                K::Bool,
                K::I32,
                K::U32,
                K::F32,
                K::F16,
                K::I64,
                K::U8,
                K::F64,
            ]);
            (sv(fb, a, n), sv(fb, b, n))
        }
        CastOp::BitwiseCast => match fb.rng.below(4) {
            0 => {
                let n = dim(fb);
                let a = fb.rng.pick(&[K::F32, K::I32, K::U32]);
                let b = fb.rng.pick(&[K::F32, K::I32, K::U32]);
                (sv(fb, a, n), sv(fb, b, n))
            }
            1 => (sv(fb, K::F64, 1), sv(fb, K::U64, 1)),
            2 => (sv(fb, K::F16, 2), sv(fb, K::U32, 1)),
            _ => {
                let u = fb.m.types.u32();
                let s = fb.m.types.intern(TypeData::Struct {
                    align: 4,
                    members: vec![u, u],
                });
                let a = fb.m.types.intern(TypeData::Array { elem: u, len: 2 });
                if fb.rng.chance(50) { (s, a) } else { (a, s) }
            }
        },
    };
    let v = fb.val(from);
    let v = fb.cast(op, to, v);
    fb.keep(v, to);
}

fn misc(fb: &mut Fb<'_>, k: usize) {
    match k {
        0 => memory(fb),
        1 => {
            let n = fb.rng.below(3);
            let mut ops = Vec::new();
            for _ in 0..n {
                let t = phi_type(fb);
                ops.push(fb.val(t));
            }
            let format = if n == 0 {
                "hello".to_string()
            } else {
                "x = {}".to_string()
            };
            fb.print(format, &ops);
        }
        2 => {
            let t = fb.m.types.u64();
            let v = fb.clock(t);
            fb.keep(v, t);
        }
        3 => {
            let c = fb.sval(K::Bool);
            let message = if fb.rng.chance(50) {
                "must hold".to_string()
            } else {
                String::new()
            };
            if fb.rng.chance(50) {
                fb.assert(c, message);
            } else {
                fb.assume(c, message);
            }
        }
        4 => {
            let callback = fb.rng.chance(30).then_some(0xdead_beef);
            let ops = if fb.rng.chance(50) {
                vec![fb.sval(K::U32)]
            } else {
                vec![]
            };
            fb.debug_break(callback, &ops);
        }
        5 => call_some(fb),
        6 => exotic_alloca(fb),
        _ => {
            // A special register through a component extract.
            let r = fb.rng.pick(&xir_ir::value::SpecialRegister::ALL);
            let (v, t) = fb.special(r);
            if let TypeData::Vector { elem, .. } = fb.m.types.get(t).clone() {
                let c = fb.rng.below(3);
                let i = fb.int_const(K::U32, c);
                let v = fb.arith(A::Extract, elem, &[v, i]);
                fb.keep(v, elem);
            } else {
                let o = fb.val(t);
                let b = fb.m.types.bool();
                let v = fb.arith(A::BinaryEqual, b, &[v, o]);
                fb.keep(v, b);
            }
        }
    }
}

/// Load/store/GEP on a pooled lvalue (or a fresh alloca).
fn memory(fb: &mut Fb<'_>) {
    let (mut ptr, mut t) = if fb.lvals.is_empty() || fb.rng.chance(30) {
        let t = random_composite(fb);
        (fb.alloca_with_store(t), t)
    } else {
        let k = fb.rng.index(fb.lvals.len());
        fb.lvals[k]
    };
    for _ in 0..fb.rng.below(3) {
        let Some((e, i)) = step_into(fb, t) else {
            break;
        };
        ptr = fb.gep(e, ptr, &[i]);
        t = e;
        fb.lvals.push((ptr, t));
    }
    if fb.rng.chance(50) {
        let v = fb.load(t, ptr);
        fb.keep(v, t);
    } else {
        let v = fb.val(t);
        fb.store(ptr, v);
    }
}

/// Allocas of the cooperative and custom types (which have no constants).
fn exotic_alloca(fb: &mut Fb<'_>) {
    let f = fb.m.types.scalar(K::F16);
    let t = match fb.rng.below(4) {
        0 => {
            fb.m.types
                .intern(TypeData::CoopVectorRef { len: 16, elem: f })
        }
        1 => fb.m.types.intern(TypeData::CoopMatrixRef {
            rows: 16,
            cols: 16,
            elem: f,
        }),
        2 => fb.m.types.intern(TypeData::CoopVector { elem: f, len: 8 }),
        _ => super::custom(fb.m, "LC_RayQueryAny"),
    };
    fb.alloca(AllocaOp::Local, t);
}

/// Calls a random callee whose arguments can be supplied here.
pub(crate) fn call_some(fb: &mut Fb<'_>) {
    if fb.env.callees.is_empty() {
        return;
    }
    let g = fb.rng.pick(&fb.env.callees);
    let callee = &fb.m.functions[g];
    let ret = callee.ret;
    let formals: Vec<(ArgKind, Type)> = callee
        .arg_order
        .iter()
        .map(|a| (callee.args[*a].kind, callee.args[*a].ty))
        .collect();
    let mut args = Vec::new();
    for (kind, t) in formals {
        let v = match kind {
            ArgKind::Value => fb.val(t),
            ArgKind::Reference => {
                let have: Vec<Value> = fb
                    .lvals
                    .iter()
                    .filter(|(_, x)| *x == t)
                    .map(|(v, _)| *v)
                    .collect();
                if have.is_empty() || fb.rng.chance(30) {
                    fb.alloca_with_store(t)
                } else {
                    fb.rng.pick(&have)
                }
            }
            ArgKind::Resource => match fb.res.iter().find(|(_, x)| *x == t) {
                Some((v, _)) => *v,
                None => return,
            },
        };
        args.push(v);
    }
    let i = fb.call(ret, g, &args);
    if let Some(t) = ret {
        fb.keep(Value::Inst(i), t);
    }
}

/// A well-typed autodiff intrinsic.
pub(crate) fn autodiff_intrinsic(fb: &mut Fb<'_>, op: D) {
    let f = fb.m.types.f32();
    let x = fb.val(f);
    let (ty, ops) = match op {
        D::RequiresGradient => (None, vec![x]),
        D::Gradient | D::Detach => (Some(f), vec![x]),
        D::GradientMarker | D::AccumulateGradient => (None, vec![x, fb.val(f)]),
        D::Backward => (None, vec![]),
        D::PropagateGradient => (None, vec![x, fb.val(f), fb.val(f)]),
        D::OutputGradient => (Some(f), vec![x, fb.sval(K::U32)]),
    };
    match ty {
        Some(t) => {
            let v = Value::Inst(fb.autodiff_intrinsic(op, Some(t), &ops));
            fb.keep(v, t);
        }
        None => {
            fb.autodiff_intrinsic(op, None, &ops);
        }
    }
}

/// The raster-only ops a fragment stage exercises.
pub(crate) fn raster_fragment_ops(fb: &mut Fb<'_>) {
    thread_group(fb, G::RasterQuadDdx);
    thread_group(fb, G::RasterSetZDepth);
}

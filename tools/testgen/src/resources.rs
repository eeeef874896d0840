//! Resource, atomic and ray-query recipes. They run in the kernel, whose signature holds
//! one resource argument per entry of [`resource_types`] (in that order), a reference to
//! an `LC_IndirectDispatchBuffer` and a ray-query object created at entry.

use super::fb::Fb;
use super::recipes::{mat, sv};
use super::{custom, vec_ty};
use xir_ir::edit::InstBuilder;
use xir_ir::function::{ArgKind, Function};

use xir_ir::metadata::{CurveBasis, CurveBasisSet, Metadata};
use xir_ir::module::Module;
use xir_ir::op::{
    AllocaOp, AtomicOp, BindlessAccess, RayQueryObjectReadOp as O, RayQueryObjectWriteOp as OW,
    ResourceQueryOp as Q, ResourceReadOp as R, ResourceWriteOp as W,
};
use xir_ir::types::{ScalarKind as K, TextureDim, Type, TypeData};
use xir_ir::value::Value;

const BUF_F32: usize = 0;
const BUF_U32: usize = 1;
const BYTE_BUF: usize = 2;
const TEX2D: usize = 3;
const TEX3D: usize = 4;
const BINDLESS: usize = 5;
const ACCEL: usize = 6;
const BUF_STRUCT: usize = 11;

/// The kernel's resource argument types, in signature order.
pub(crate) fn resource_types(m: &mut Module) -> Vec<(Type, &'static str)> {
    let f = m.types.f32();
    let u = m.types.u32();
    let i = m.types.i32();
    let u64t = m.types.u64();
    let i64t = m.types.scalar(K::I64);
    let s = m.types.intern(TypeData::Struct {
        align: 4,
        members: vec![u, f],
    });
    let buf = |m: &mut Module, e: Option<Type>| m.types.intern(TypeData::Buffer { elem: e });
    let tex = |m: &mut Module, dim, elem| m.types.intern(TypeData::Texture { dim, elem });
    vec![
        (buf(m, Some(f)), "buffer<f32>"),
        (buf(m, Some(u)), "buffer<u32>"),
        (buf(m, None), "buffer<void>"),
        (tex(m, TextureDim::D2, f), "texture2d<f32>"),
        (tex(m, TextureDim::D3, u), "texture3d<u32>"),
        (m.types.intern(TypeData::BindlessArray), "bindless_array"),
        (m.types.intern(TypeData::Accel), "accel"),
        (buf(m, Some(i)), "buffer<i32>"),
        (buf(m, Some(u64t)), "buffer<u64>"),
        (buf(m, Some(i64t)), "buffer<i64>"),
        (tex(m, TextureDim::D2, i), "texture2d<i32>"),
        (buf(m, Some(s)), "buffer<struct>"),
    ]
}

/// Adds the kernel's arguments.
pub(crate) fn add_kernel_resources(m: &mut Module, f: &mut Function) {
    for (t, _) in resource_types(m) {
        f.add_arg(ArgKind::Resource, t);
    }
    let idb = custom(m, "LC_IndirectDispatchBuffer");
    f.add_arg(ArgKind::Reference, idb);
    let u = m.types.u32();
    f.add_arg(ArgKind::Value, u);
}

fn res(fb: &Fb<'_>, k: usize) -> Option<Value> {
    fb.res.get(k).map(|(v, _)| *v)
}

/// `struct<16: array<f32,3>, f32, array<f32,3>, f32>`.
fn ray_t(m: &mut Module) -> Type {
    let f = m.types.f32();
    let a = m.types.intern(TypeData::Array { elem: f, len: 3 });
    m.types.intern(TypeData::Struct {
        align: 16,
        members: vec![a, f, a, f],
    })
}

fn hit_t(m: &mut Module, committed: bool) -> Type {
    let u = m.types.u32();
    let f = m.types.f32();
    let f2 = vec_ty(m, K::F32, 2);
    let members = if committed {
        vec![u, u, f2, u, f]
    } else {
        vec![u, u, f2, f]
    };
    m.types.intern(TypeData::Struct { align: 8, members })
}

fn srt_t(m: &mut Module) -> Type {
    let f = m.types.f32();
    let a3 = m.types.intern(TypeData::Array { elem: f, len: 3 });
    let a4 = m.types.intern(TypeData::Array { elem: f, len: 4 });
    m.types.intern(TypeData::Struct {
        align: 16,
        members: vec![a3, a4, a3, a3, a3],
    })
}

/// Creates the kernel's ray-query object: `alloca` + `store` of a `ray_tracing_query_all`.
pub(crate) fn make_ray_query(fb: &mut Fb<'_>) {
    let Some(accel) = res(fb, ACCEL) else { return };
    let q = custom(fb.m, "LC_RayQueryAll");
    let rt = ray_t(fb.m);
    let ray = fb.val(rt);
    let mask = fb.sval(K::U32);
    let r = fb.resource_query(
        Q::RayTracingQueryAll,
        BindlessAccess::default(),
        q,
        &[accel, ray, mask],
    );
    if fb.rng.chance(30) {
        let mut s = CurveBasisSet::default();
        s.insert(CurveBasis::CubicBspline);
        let i = r.as_inst().expect("an instruction");
        fb.f.insts[i].metadata.push(Metadata::CurveBasis(s));
    }
    let a = fb.alloca(AllocaOp::Local, q);
    fb.store(a, r);
    fb.rq = Some(a);
}

fn int(fb: &mut Fb<'_>) -> Value {
    let k = fb.rng.pick(&[K::U32, K::I32, K::U64, K::I64, K::U16]);
    fb.sval(k)
}

fn idx32(fb: &mut Fb<'_>) -> Value {
    let k = fb.rng.pick(&[K::U32, K::I32]);
    fb.sval(k)
}

fn data_value(fb: &mut Fb<'_>) -> (Type, Value) {
    let t = match fb.rng.below(3) {
        0 => fb.m.types.f32(),
        1 => vec_ty(fb.m, K::F32, 4),
        _ => super::recipes::random_composite(fb),
    };
    (t, fb.val(t))
}

fn coopvec(fb: &mut Fb<'_>, k: K, len: u32) -> Type {
    let e = fb.m.types.scalar(k);
    fb.m.types.intern(TypeData::CoopVector { elem: e, len })
}

fn access(fb: &mut Fb<'_>, bindless: bool) -> BindlessAccess {
    if bindless && fb.rng.chance(40) {
        BindlessAccess {
            typed: fb.rng.chance(50),
            uniform: fb.rng.chance(50),
        }
    } else {
        BindlessAccess::default()
    }
}

/// A well-typed `resource_query op`.
pub(crate) fn query(fb: &mut Fb<'_>, op: Q) {
    if fb.res.len() <= ACCEL {
        return super::arith_recipes::arith(fb, xir_ir::op::ArithmeticOp::BinaryAdd);
    }
    let name = op.name();
    let d3 = name.contains("texture3d");
    let n: u8 = if d3 { 3 } else { 2 };
    let u = fb.m.types.u32();
    let size_t = if fb.rng.chance(50) {
        u
    } else {
        fb.m.types.u64()
    };
    let (ty, ops): (Type, Vec<Value>) = match op {
        Q::BufferSize => (
            size_t,
            vec![res(fb, BUF_F32).unwrap_or(Value::Block(fb.cur))],
        ),
        Q::ByteBufferSize => (
            size_t,
            vec![res(fb, BYTE_BUF).unwrap_or(Value::Block(fb.cur))],
        ),
        Q::BufferDeviceAddress => {
            let b = {
                let a_ = fb.rng.pick(&[BUF_F32, BYTE_BUF, BUF_U32]);
                res(fb, a_)
            }
            .unwrap_or(Value::Block(fb.cur));
            (fb.m.types.u64(), vec![b])
        }
        Q::Texture2dSize | Q::Texture3dSize => {
            let t = res(fb, if d3 { TEX3D } else { TEX2D }).unwrap_or(Value::Block(fb.cur));
            (sv(fb, K::U32, n), vec![t])
        }
        Q::BindlessBufferSize => {
            let (a, i, s) = (res(fb, BINDLESS), idx32(fb), fb.sval(K::U32));
            (size_t, vec![a.unwrap_or(s), i, s])
        }
        Q::BindlessByteBufferSize => (
            size_t,
            vec![res(fb, BINDLESS).unwrap_or(Value::Block(fb.cur)), idx32(fb)],
        ),
        Q::BindlessBufferDeviceAddress => (
            fb.m.types.u64(),
            vec![res(fb, BINDLESS).unwrap_or(Value::Block(fb.cur)), idx32(fb)],
        ),
        Q::BindlessTexture2dSize | Q::BindlessTexture3dSize => (
            sv(fb, K::U32, n),
            vec![res(fb, BINDLESS).unwrap_or(Value::Block(fb.cur)), idx32(fb)],
        ),
        Q::BindlessTexture2dSizeLevel | Q::BindlessTexture3dSizeLevel => {
            let a = res(fb, BINDLESS).unwrap_or(Value::Block(fb.cur));
            (sv(fb, K::U32, n), vec![a, idx32(fb), int(fb)])
        }
        Q::RayTracingInstanceTransform => (
            mat(fb, 4),
            vec![res(fb, ACCEL).unwrap_or(Value::Block(fb.cur)), idx32(fb)],
        ),
        Q::RayTracingInstanceUserId | Q::RayTracingInstanceVisibilityMask => (
            u,
            vec![res(fb, ACCEL).unwrap_or(Value::Block(fb.cur)), idx32(fb)],
        ),
        Q::RayTracingInstanceMotionMatrix | Q::RayTracingInstanceMotionSrt => {
            let t = if op == Q::RayTracingInstanceMotionMatrix {
                mat(fb, 4)
            } else {
                srt_t(fb.m)
            };
            let a = res(fb, ACCEL).unwrap_or(Value::Block(fb.cur));
            (t, vec![a, idx32(fb), idx32(fb)])
        }
        _ if name.starts_with("ray_tracing_") => {
            let t = if name.contains("closest") {
                hit_t(fb.m, false)
            } else if name.contains("trace_any") {
                fb.m.types.bool()
            } else if name.contains("query_all") {
                custom(fb.m, "LC_RayQueryAll")
            } else {
                custom(fb.m, "LC_RayQueryAny")
            };
            let rt = ray_t(fb.m);
            let mut ops = vec![res(fb, ACCEL).unwrap_or(Value::Block(fb.cur)), fb.val(rt)];
            if name.ends_with("_motion_blur") {
                ops.push(fb.sval(K::F32));
            }
            ops.push(fb.sval(K::U32));
            (t, ops)
        }
        _ => {
            // Every sample op.
            let f4 = sv(fb, K::F32, 4);
            let fv = sv(fb, K::F32, n);
            let f = fb.m.types.f32();
            let bindless = op.is_bindless();
            let mut ops = if bindless {
                vec![res(fb, BINDLESS).unwrap_or(Value::Block(fb.cur)), idx32(fb)]
            } else {
                vec![res(fb, if d3 { TEX3D } else { TEX2D }).unwrap_or(Value::Block(fb.cur))]
            };
            ops.push(fb.val(fv));
            if name.contains("_grad") {
                ops.push(fb.val(fv));
                ops.push(fb.val(fv));
                if name.contains("_level") {
                    ops.push(fb.val(f));
                }
            } else if name.contains("_level") {
                ops.push(fb.val(f));
            }
            if !bindless || name.ends_with("_sampler") {
                ops.push(fb.sval(K::U32));
                ops.push(fb.sval(K::U32));
            }
            (f4, ops)
        }
    };
    let acc = access(fb, op.is_bindless());
    let v = fb.resource_query(op, acc, ty, &ops);
    fb.keep(v, ty);
}

/// A well-typed `resource_read op`.
pub(crate) fn read(fb: &mut Fb<'_>, op: R) {
    if fb.res.len() <= BUF_STRUCT {
        return super::arith_recipes::arith(fb, xir_ir::op::ArithmeticOp::BinaryAdd);
    }
    let r = |fb: &Fb<'_>, k| res(fb, k).unwrap_or(Value::Block(fb.cur));
    let cv = coopvec(fb, K::F16, 16);
    let (ty, ops): (Type, Vec<Value>) = match op {
        R::BufferRead | R::BufferVolatileRead => {
            let (k, t) = match fb.rng.below(3) {
                0 => (BUF_F32, fb.m.types.f32()),
                1 => (BUF_U32, fb.m.types.u32()),
                _ => (BUF_STRUCT, fb.res[BUF_STRUCT].1),
            };
            let t = match fb.m.types.get(t) {
                TypeData::Buffer { elem: Some(e) } => *e,
                _ => t,
            };
            (t, vec![r(fb, k), int(fb)])
        }
        R::ByteBufferRead | R::ByteBufferVolatileRead => {
            let (t, _) = data_value(fb);
            (t, vec![r(fb, BYTE_BUF), int(fb)])
        }
        R::Texture2dRead | R::Texture3dRead => {
            let d3 = op == R::Texture3dRead;
            let (k, e) = if d3 {
                (TEX3D, K::U32)
            } else if fb.rng.chance(50) {
                (TEX2D, K::F32)
            } else {
                (10, K::I32)
            };
            let c = sv(fb, K::U32, if d3 { 3 } else { 2 });
            (sv(fb, e, 4), vec![r(fb, k), fb.val(c)])
        }
        R::BindlessBufferRead | R::BindlessByteBufferRead => {
            let (t, _) = data_value(fb);
            (t, vec![r(fb, BINDLESS), idx32(fb), int(fb)])
        }
        R::BindlessTexture2dRead
        | R::BindlessTexture3dRead
        | R::BindlessTexture2dReadLevel
        | R::BindlessTexture3dReadLevel => {
            let n = if op.name().contains("3d") { 3 } else { 2 };
            let c = sv(fb, K::U32, n);
            let mut ops = vec![r(fb, BINDLESS), idx32(fb), fb.val(c)];
            if op.name().ends_with("_level") {
                ops.push(int(fb));
            }
            (sv(fb, K::F32, 4), ops)
        }
        R::DeviceAddressRead => {
            let (t, _) = data_value(fb);
            (t, vec![fb.sval(K::U64)])
        }
        R::CooperativeMulAdd => (
            cv,
            vec![
                r(fb, BUF_F32),
                int(fb),
                fb.val(cv),
                int(fb),
                fb.val(cv),
                int(fb),
                int(fb),
            ],
        ),
        R::BindlessCooperativeMulAdd => (
            cv,
            vec![
                r(fb, BINDLESS),
                idx32(fb),
                int(fb),
                idx32(fb),
                int(fb),
                fb.val(cv),
                int(fb),
                int(fb),
            ],
        ),
        R::CooperativeMul => (cv, vec![r(fb, BUF_F32), int(fb), fb.val(cv), int(fb)]),
        R::BindlessCooperativeMul => (
            cv,
            vec![r(fb, BINDLESS), idx32(fb), int(fb), fb.val(cv), int(fb)],
        ),
        R::CooperativeVectorLoad => (cv, vec![r(fb, BUF_F32), int(fb)]),
        R::BindlessCooperativeVectorLoad => (cv, vec![r(fb, BINDLESS), idx32(fb), int(fb)]),
        R::CooperativeVectorSplat => (cv, vec![fb.sval(K::F16)]),
        R::CooperativeVectorCast => (coopvec(fb, K::F32, 16), vec![fb.val(cv)]),
        R::CooperativeVectorWorkgroupLoad => (cv, vec![shared_array(fb, K::F16, 64), int(fb)]),
        // The element-wise math reads are not valid under the default verifier
        // options (upstream has no typing rule for them): emit a load instead.
        _ => return read(fb, R::CooperativeVectorLoad),
    };
    let acc = access(fb, op.is_bindless());
    let v = fb.resource_read(op, acc, ty, &ops);
    fb.keep(v, ty);
}

/// A shared `array<k, len>` alloca (an lvalue).
fn shared_array(fb: &mut Fb<'_>, k: K, len: u64) -> Value {
    let e = fb.m.types.scalar(k);
    let t = fb.m.types.intern(TypeData::Array { elem: e, len });
    fb.alloca(AllocaOp::Shared, t)
}

/// A well-typed `resource_write op`.
pub(crate) fn write(fb: &mut Fb<'_>, op: W) {
    if fb.res.len() <= BUF_STRUCT {
        return super::arith_recipes::arith(fb, xir_ir::op::ArithmeticOp::BinaryAdd);
    }
    let r = |fb: &Fb<'_>, k| res(fb, k).unwrap_or(Value::Block(fb.cur));
    let cv = coopvec(fb, K::F16, 16);
    let u3 = sv(fb, K::U32, 3);
    let ops: Vec<Value> = match op {
        W::BufferWrite | W::BufferVolatileWrite => vec![r(fb, BUF_F32), int(fb), fb.sval(K::F32)],
        W::ByteBufferWrite | W::ByteBufferVolatileWrite => {
            let (_, v) = data_value(fb);
            vec![r(fb, BYTE_BUF), int(fb), v]
        }
        W::Texture2dWrite => {
            let (c, v) = (sv(fb, K::U32, 2), sv(fb, K::F32, 4));
            vec![r(fb, TEX2D), fb.val(c), fb.val(v)]
        }
        W::Texture3dWrite => {
            let (c, v) = (sv(fb, K::U32, 3), sv(fb, K::U32, 4));
            vec![r(fb, TEX3D), fb.val(c), fb.val(v)]
        }
        W::BindlessBufferWrite | W::BindlessByteBufferWrite => {
            let (_, v) = data_value(fb);
            vec![r(fb, BINDLESS), idx32(fb), int(fb), v]
        }
        W::DeviceAddressWrite => {
            let (_, v) = data_value(fb);
            vec![fb.sval(K::U64), v]
        }
        W::RayTracingSetInstanceTransform => {
            let m4 = mat(fb, 4);
            vec![r(fb, ACCEL), idx32(fb), fb.val(m4)]
        }
        W::RayTracingSetInstanceVisibilityMask | W::RayTracingSetInstanceUserId => {
            vec![r(fb, ACCEL), idx32(fb), fb.sval(K::U32)]
        }
        W::RayTracingSetInstanceOpacity => vec![r(fb, ACCEL), idx32(fb), fb.sval(K::Bool)],
        W::RayTracingSetInstanceMotionMatrix | W::RayTracingSetInstanceMotionSrt => {
            let t = if op == W::RayTracingSetInstanceMotionMatrix {
                mat(fb, 4)
            } else {
                srt_t(fb.m)
            };
            vec![r(fb, ACCEL), idx32(fb), idx32(fb), fb.val(t)]
        }
        W::IndirectDispatchSetKernel | W::IndirectDispatchSetCount => {
            let base = if fb.rng.chance(50) {
                r(fb, BUF_U32)
            } else {
                // The kernel's `&LC_IndirectDispatchBuffer` argument follows the resources.
                Value::Arg(fb.f.arg_order[fb.res.len()])
            };
            if op == W::IndirectDispatchSetCount {
                vec![base, fb.sval(K::U32)]
            } else {
                vec![
                    base,
                    fb.sval(K::U32),
                    fb.val(u3),
                    fb.val(u3),
                    fb.sval(K::U32),
                ]
            }
        }
        W::CooperativeOuterProductAccumulate => {
            vec![r(fb, BUF_F32), int(fb), fb.val(cv), fb.val(cv), int(fb)]
        }
        W::CooperativeVectorAccumulate | W::CooperativeVectorStore => {
            vec![r(fb, BUF_F32), int(fb), fb.val(cv)]
        }
        W::BindlessCooperativeVectorStore => vec![r(fb, BINDLESS), idx32(fb), int(fb), fb.val(cv)],
        W::CooperativeVectorWorkgroupStore => {
            vec![shared_array(fb, K::F16, 64), int(fb), fb.val(cv)]
        }
    };
    let acc = access(fb, op.is_bindless());
    fb.resource_write(op, acc, &ops);
}

/// A well-typed atomic on a buffer element, a struct member in a buffer, or a shared array.
pub(crate) fn atomic(fb: &mut Fb<'_>, op: AtomicOp) {
    if fb.res.len() <= BUF_STRUCT {
        return super::arith_recipes::arith(fb, xir_ir::op::ArithmeticOp::BinaryAdd);
    }
    let bitwise = matches!(
        op,
        AtomicOp::FetchAnd | AtomicOp::FetchOr | AtomicOp::FetchXor
    );
    let choice = fb.rng.below(if bitwise { 4 } else { 6 });
    let (base, mut idx, t) = match choice {
        0 => (res(fb, BUF_U32), vec![], fb.m.types.u32()),
        1 => (res(fb, 7), vec![], fb.m.types.i32()),
        2 => (res(fb, 8), vec![], fb.m.types.u64()),
        3 => {
            let e = fb.m.types.u32();
            let a = shared_array(fb, K::U32, 32);
            (Some(a), vec![], e)
        }
        4 => (res(fb, BUF_F32), vec![], fb.m.types.f32()),
        _ => {
            // buffer<struct{u32, f32}>: element, then member 1 (f32).
            let m = fb.int_const(K::U32, 1);
            (res(fb, BUF_STRUCT), vec![m], fb.m.types.f32())
        }
    };
    let Some(base) = base else { return };
    idx.insert(0, int(fb));
    let mut values = vec![fb.val(t)];
    if op == AtomicOp::CompareExchange {
        values.push(fb.val(t));
    }
    let v = fb.atomic(op, t, base, &idx, &values);
    fb.keep(v, t);
}

/// A well-typed `ray_query_object_read`.
pub(crate) fn rq_read(fb: &mut Fb<'_>, op: O) {
    let Some(q) = fb.rq else { return };
    let t = match op {
        O::WorldSpaceRay | O::CandidateObjectSpaceRay => ray_t(fb.m),
        O::ProceduralCandidateHit => {
            let u = fb.m.types.u32();
            fb.m.types.intern(TypeData::Struct {
                align: 8,
                members: vec![u, u],
            })
        }
        O::TriangleCandidateHit => hit_t(fb.m, false),
        O::CommittedHit => hit_t(fb.m, true),
        _ => fb.m.types.bool(),
    };
    let v = fb.ray_query_object_read(op, t, q);
    fb.keep(v, t);
}

/// A well-typed `ray_query_object_write`.
pub(crate) fn rq_write(fb: &mut Fb<'_>, op: OW) {
    let Some(q) = fb.rq else { return };
    let distance = (op == OW::CommitProcedural).then(|| fb.sval(K::F32));
    fb.ray_query_object_write(op, q, distance);
}

/// `ray_query_pipeline %q, %surface, %procedural, captures…`.
pub(crate) fn pipeline(fb: &mut Fb<'_>) {
    let (Some(q), Some((s, p, caps))) = (fb.rq, fb.env.rq_handlers.clone()) else {
        return;
    };
    let captures: Vec<Value> = caps.into_iter().map(|t| fb.val(t)).collect();
    fb.ray_query_pipeline(q, s, p, &captures);
}

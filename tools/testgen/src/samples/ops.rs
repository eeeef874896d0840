//! Sample modules for memory, arithmetic, thread-group, resource, ray-query and autodiff
//! instructions, and for type descriptions and constant encodings.

use super::{Fb, T, cf32, cst};
use xir_ir::function::{ArgKind, FunctionKind};
use xir_ir::inst::InstKind;
use xir_ir::module::Module;
use xir_ir::op::{ArithmeticOp as A, *};
use xir_ir::types::{ScalarKind as K, TextureDim, Type, TypeData};
use xir_ir::value::Value;

/// `alloca` (local and shared), `gep`, `load`, `store`, `atomic`.
pub fn memory() -> Module {
    let mut m = Module::new();
    let f = m.types.f32();
    let i = m.types.i32();
    let u = m.types.u32();
    let v3 = T::v(&mut m, K::F32, 3);
    let s = T::st(&mut m, 16, &[f, v3]);
    let arr = T::arr(&mut m, f, 64);
    let bi = T::buf(&mut m, Some(i));
    let one = cst(&mut m, K::I32, 1);
    let zero_u = cst(&mut m, K::U32, 0);
    let two = cf32(&mut m, 2.0);
    let undef = Value::Undef(m.undef(v3));
    let mut b = Fb::new(
        &mut m,
        FunctionKind::Kernel {
            block_size: [8, 8, 1],
        },
        None,
    );
    let buf = b.arg(ArgKind::Resource, bi);
    let e = b.body();
    let var = b.ins(e, InstKind::Alloca(AllocaOp::Local), Some(s), []);
    let field = b.ins(e, InstKind::Gep, Some(v3), [var, one]);
    b.ins(e, InstKind::Store, None, [field, undef]);
    let l = b.ins(e, InstKind::Load, Some(v3), [field]);
    let _ = l;
    let sh = b.ins(e, InstKind::Alloca(AllocaOp::Shared), Some(arr), []);
    b.ins(
        e,
        InstKind::Atomic(AtomicOp::FetchAdd),
        Some(f),
        [sh, zero_u, two],
    );
    b.ins(
        e,
        InstKind::Atomic(AtomicOp::CompareExchange),
        Some(i),
        [buf, zero_u, one, one],
    );
    b.ins(
        e,
        InstKind::Atomic(AtomicOp::FetchXor),
        Some(i),
        [buf, zero_u, one],
    );
    let _ = u;
    b.ret(e, None);
    m
}

/// Scalar arithmetic: unary, binary, comparisons, select, clamp, fma, pow_int, casts.
pub fn arith_scalar() -> Module {
    let mut m = Module::new();
    let f = m.types.f32();
    let i = m.types.i32();
    let u = m.types.u32();
    let bo = m.types.bool();
    let mut b = Fb::new(&mut m, FunctionKind::Callable, Some(f));
    let x = b.arg(ArgKind::Value, f);
    let n = b.arg(ArgKind::Value, i);
    let k = b.arg(ArgKind::Value, u);
    let e = b.body();
    let neg = b.ar(e, A::UnaryMinus, f, &[x]);
    let s = b.ar(e, A::Sin, f, &[neg]);
    let p = b.ar(e, A::PowInt, f, &[s, n]);
    let c = b.ar(e, A::BinaryGreaterEqual, bo, &[p, x]);
    let sel = b.ar(e, A::Select, f, &[x, p, c]);
    let cl = b.ar(e, A::Clamp, f, &[sel, x, p]);
    let fm = b.ar(e, A::Fma, f, &[cl, x, p]);
    let _ = b.ar(e, A::Popcount, u, &[k]);
    let _ = b.ar(e, A::BinaryShiftLeft, i, &[n, n]);
    let _ = b.ar(e, A::UnaryBitNot, i, &[n]);
    let _ = b.ar(e, A::Isnan, bo, &[fm]);
    b.ret(e, Some(fm));
    m
}

/// Vector and matrix arithmetic, aggregates, shuffles, extract/insert.
pub fn arith_vector() -> Module {
    let mut m = Module::new();
    let f = m.types.f32();
    let u = m.types.u32();
    let bo = m.types.bool();
    let v3 = T::v(&mut m, K::F32, 3);
    let v2 = T::v(&mut m, K::F32, 2);
    let b3 = T::v(&mut m, K::Bool, 3);
    let m3 = T::mat(&mut m, 3);
    let s = T::st(&mut m, 16, &[f, v3]);
    let idx0 = cst(&mut m, K::U32, 0);
    let idx1 = cst(&mut m, K::U32, 1);
    let mut b = Fb::new(&mut m, FunctionKind::Callable, Some(f));
    let v = b.arg(ArgKind::Value, v3);
    let x = b.arg(ArgKind::Value, f);
    let e = b.body();
    let c = b.ar(e, A::Cross, v3, &[v, v]);
    let d = b.ar(e, A::Dot, f, &[c, v]);
    let nrm = b.ar(e, A::Normalize, v3, &[c]);
    let _ = b.ar(e, A::Length, f, &[nrm]);
    let agg = b.ar(e, A::Aggregate, v3, &[x, d, x]);
    let lt = b.ar(e, A::BinaryLess, b3, &[agg, v]);
    let _ = b.ar(e, A::Any, bo, &[lt]);
    let sh = b.ar(e, A::Shuffle, v2, &[agg, idx1, idx0]);
    let _ = b.ar(e, A::ReduceSum, f, &[sh]);
    let mat = b.ar(e, A::OuterProduct, m3, &[v, agg]);
    let mt = b.ar(e, A::MatrixTranspose, m3, &[mat]);
    let mv = b.ar(e, A::MatrixLinalgMul, v3, &[mt, v]);
    let _ = b.ar(e, A::MatrixDeterminant, f, &[mt]);
    let _ = b.ar(e, A::MatrixCompMul, m3, &[mt, x]);
    let st = b.ar(e, A::Aggregate, s, &[x, mv]);
    let st2 = b.ar(e, A::Insert, s, &[st, d, idx0]);
    let ex = b.ar(e, A::Extract, f, &[st2, idx1, idx0]);
    let _ = u;
    b.ret(e, Some(ex));
    m
}

/// Thread-group ops.
pub fn thread_group() -> Module {
    let mut m = Module::new();
    let f = m.types.f32();
    let u = m.types.u32();
    let bo = m.types.bool();
    let u4 = T::v(&mut m, K::U32, 4);
    let lane = cst(&mut m, K::U32, 3);
    let mut b = Fb::new(&mut m, FunctionKind::kernel(), None);
    let e = b.body();
    b.ins(
        e,
        InstKind::ThreadGroup(ThreadGroupOp::SynchronizeBlock),
        None,
        [],
    );
    let first = b.ins(
        e,
        InstKind::ThreadGroup(ThreadGroupOp::WarpIsFirstActiveLane),
        Some(bo),
        [],
    );
    let _ = b.ins(
        e,
        InstKind::ThreadGroup(ThreadGroupOp::WarpActiveBitMask),
        Some(u4),
        [first],
    );
    let l = b.ins(
        e,
        InstKind::ThreadGroup(ThreadGroupOp::WarpFirstActiveLane),
        Some(u),
        [],
    );
    let one = cf32(b.m, 1.0);
    let s = b.ins(
        e,
        InstKind::ThreadGroup(ThreadGroupOp::WarpActiveSum),
        Some(f),
        [one],
    );
    let _ = b.ins(
        e,
        InstKind::ThreadGroup(ThreadGroupOp::WarpReadLane),
        Some(f),
        [s, lane],
    );
    let _ = l;
    b.ins(
        e,
        InstKind::ThreadGroup(ThreadGroupOp::ShaderExecutionReorder),
        None,
        [lane, lane],
    );
    b.ret(e, None);
    m
}

/// Buffer, texture and bindless resource queries, reads and writes (with bindless
/// access attributes).
pub fn resources() -> Module {
    let mut m = Module::new();
    let f = m.types.f32();
    let u = m.types.u32();
    let f4 = T::v(&mut m, K::F32, 4);
    let f2 = T::v(&mut m, K::F32, 2);
    let u2 = T::v(&mut m, K::U32, 2);
    let bf = T::buf(&mut m, Some(f));
    let bb = T::buf(&mut m, None);
    let t2 = T::tex(&mut m, TextureDim::D2, K::F32);
    let ba = m.types.intern(TypeData::BindlessArray);
    let zero = cst(&mut m, K::U32, 0);
    let one = cf32(&mut m, 1.0);
    let coord = Value::Undef(m.undef(u2));
    let uv = Value::Undef(m.undef(f2));
    let mut b = Fb::new(&mut m, FunctionKind::kernel(), None);
    let buf = b.arg(ArgKind::Resource, bf);
    let bytes = b.arg(ArgKind::Resource, bb);
    let tex = b.arg(ArgKind::Resource, t2);
    let arr = b.arg(ArgKind::Resource, ba);
    let e = b.body();
    let q = |o| InstKind::ResourceQuery(o, BindlessAccess::default());
    let r = |o| InstKind::ResourceRead(o, BindlessAccess::default());
    let w = |o| InstKind::ResourceWrite(o, BindlessAccess::default());
    let n = b.ins(e, q(ResourceQueryOp::BufferSize), Some(u), [buf]);
    let _ = b.ins(e, q(ResourceQueryOp::ByteBufferSize), Some(u), [bytes]);
    let _ = b.ins(e, q(ResourceQueryOp::Texture2dSize), Some(u2), [tex]);
    let x = b.ins(e, r(ResourceReadOp::BufferRead), Some(f), [buf, n]);
    b.ins(e, w(ResourceWriteOp::BufferWrite), None, [buf, zero, x]);
    let _ = b.ins(e, r(ResourceReadOp::ByteBufferRead), Some(f), [bytes, zero]);
    b.ins(
        e,
        w(ResourceWriteOp::ByteBufferWrite),
        None,
        [bytes, zero, one],
    );
    let t = b.ins(e, r(ResourceReadOp::Texture2dRead), Some(f4), [tex, coord]);
    b.ins(e, w(ResourceWriteOp::Texture2dWrite), None, [tex, coord, t]);
    let typed = BindlessAccess {
        typed: true,
        uniform: false,
    };
    let both = BindlessAccess {
        typed: true,
        uniform: true,
    };
    let uni = BindlessAccess {
        typed: false,
        uniform: true,
    };
    let _ = b.ins(
        e,
        InstKind::ResourceRead(ResourceReadOp::BindlessBufferRead, both),
        Some(f),
        [arr, zero, zero],
    );
    let _ = b.ins(
        e,
        InstKind::ResourceQuery(ResourceQueryOp::BindlessTexture2dSample, typed),
        Some(f4),
        [arr, zero, uv],
    );
    b.ins(
        e,
        InstKind::ResourceWrite(ResourceWriteOp::BindlessBufferWrite, uni),
        None,
        [arr, zero, zero, one],
    );
    let u64t = b.m.types.u64();
    let _ = b.ins(
        e,
        q(ResourceQueryOp::BufferDeviceAddress),
        Some(u64t),
        [buf],
    );
    b.ret(e, None);
    m
}

/// Ray tracing: trace, ray-query loop/dispatch/object reads and writes, pipeline.
pub fn ray_query() -> Module {
    let mut m = Module::new();
    let f = m.types.f32();
    let bo = m.types.bool();
    let acc_t = m.types.intern(TypeData::Accel);
    let ray_t = T::ray(&mut m);
    let rq = T::custom(&mut m, "LC_RayQueryAll");
    let ray = Value::Undef(m.undef(ray_t));
    let mask = cst(&mut m, K::U32, 0xff);
    let dist = cf32(&mut m, 1.5);
    let committed = {
        let u = m.types.u32();
        let f2 = T::v(&mut m, K::F32, 2);
        T::st(&mut m, 8, &[u, u, f2, u, f])
    };
    // Handlers for the pipeline: void(&LC_RayQueryAll).
    let mut handlers = Vec::new();
    for _ in 0..2 {
        let mut h = Fb::new(&mut m, FunctionKind::Callable, None);
        h.arg(ArgKind::Reference, rq);
        let hb = h.body();
        h.ret(hb, None);
        handlers.push(Value::Func(h.f));
    }
    let mut b = Fb::new(&mut m, FunctionKind::kernel(), None);
    let acc = b.arg(ArgKind::Resource, acc_t);
    let e = b.body();
    let q = |o| InstKind::ResourceQuery(o, BindlessAccess::default());
    let _ = b.ins(
        e,
        q(ResourceQueryOp::RayTracingTraceAny),
        Some(bo),
        [acc, ray, mask],
    );
    let qv = b.ins(
        e,
        q(ResourceQueryOp::RayTracingQueryAll),
        Some(rq),
        [acc, ray, mask],
    );
    let var = b.ins(e, InstKind::Alloca(AllocaOp::Local), Some(rq), []);
    b.ins(e, InstKind::Store, None, [var, qv]);
    let (disp, surf, proc_, mg) = (b.block(), b.block(), b.block(), b.block());
    b.ins(
        e,
        InstKind::RayQueryLoop { merge: Some(mg) },
        None,
        [disp.into()],
    );
    b.ins(
        disp,
        InstKind::RayQueryDispatch,
        None,
        [var, mg.into(), surf.into(), proc_.into()],
    );
    let _ = b.ins(
        surf,
        InstKind::RayQueryObjectRead(RayQueryObjectReadOp::IsTriangleCandidate),
        Some(bo),
        [var],
    );
    b.ins(
        surf,
        InstKind::RayQueryObjectWrite(RayQueryObjectWriteOp::CommitTriangle),
        None,
        [var],
    );
    b.br(surf, disp);
    b.ins(
        proc_,
        InstKind::RayQueryObjectWrite(RayQueryObjectWriteOp::CommitProcedural),
        None,
        [var, dist],
    );
    b.br(proc_, disp);
    let _ = b.ins(
        mg,
        InstKind::RayQueryObjectRead(RayQueryObjectReadOp::CommittedHit),
        Some(committed),
        [var],
    );
    b.ins(
        mg,
        InstKind::RayQueryPipeline,
        None,
        [var, handlers[0], handlers[1]],
    );
    b.ret(mg, None);
    m
}

/// `autodiff_scope` (backward and forward) and autodiff intrinsics.
pub fn autodiff() -> Module {
    let mut m = Module::new();
    let f = m.types.f32();
    let mut b = Fb::new(&mut m, FunctionKind::Callable, Some(f));
    let x = b.arg(ArgKind::Value, f);
    let e = b.body();
    let (s, mg, s2, mg2) = (b.block(), b.block(), b.block(), b.block());
    let scope = |merge, forward, n| InstKind::AutodiffScope {
        merge: Some(merge),
        forward,
        n_forward_grads: n,
    };
    b.ins(e, scope(mg, false, 0), None, [s.into()]);
    let d = |o| InstKind::AutodiffIntrinsic(o);
    b.ins(s, d(AutodiffIntrinsicOp::RequiresGradient), None, [x]);
    let y = b.ar(s, A::Exp, f, &[x]);
    b.ins(s, d(AutodiffIntrinsicOp::Backward), None, []);
    let g = b.ins(s, d(AutodiffIntrinsicOp::Gradient), Some(f), [x]);
    let _ = b.ins(s, d(AutodiffIntrinsicOp::Detach), Some(f), [y]);
    b.br(s, mg);
    b.ins(mg, scope(mg2, true, 2), None, [s2.into()]);
    b.br(s2, mg2);
    b.ret(mg2, Some(g));
    m
}

/// Constants of every scalar kind and of vector, matrix, array and struct types
/// (exercising the canonical encoding: no padding, one-byte bools, column-major
/// matrices).
pub fn constants() -> Module {
    let mut m = Module::new();
    for (k, v) in [
        (K::Bool, 1u64),
        (K::I8, (-5i8) as u8 as u64),
        (K::U8, 200),
        (K::I16, (-300i16) as u16 as u64),
        (K::U16, 60000),
        (K::I32, (-7i32) as u32 as u64),
        (K::U32, 0xdead_beef),
        (K::I64, (-9i64) as u64),
        (K::U64, u64::MAX - 1),
        (K::F16, 0x3c00),
        (K::F32, u64::from(1.25f32.to_bits())),
        (K::F64, 2.5f64.to_bits()),
        (K::F8E4M3, 0x38),
        (K::F8E5M2, 0x3c),
    ] {
        cst(&mut m, k, v);
    }
    let add = |m: &mut Module, t: Type| {
        // Canonical bytes 0,1,0,1,… are valid for every type (bools included); decoding
        // them gives native bytes with zeroed padding.
        let canon = xir_ir::interchange::canonical::canonical_size(&m.types, t).unwrap_or(0);
        let c: Vec<u8> = (0..canon).map(|i| (i % 2) as u8).collect();
        let native =
            xir_ir::interchange::canonical::from_canonical(&m.types, t, &c).unwrap_or_default();
        m.constant(t, &native);
    };
    let f = m.types.f32();
    let bo = m.types.bool();
    let ub = m.types.scalar(K::U8);
    let l = m.types.scalar(K::I64);
    let tys = [
        T::v(&mut m, K::Bool, 3),
        T::v(&mut m, K::F32, 3),
        T::v(&mut m, K::F16, 2),
        T::v(&mut m, K::F64, 4),
        T::mat(&mut m, 2),
        T::mat(&mut m, 3),
        T::mat(&mut m, 4),
        T::arr(&mut m, f, 4),
    ];
    for t in tys {
        add(&mut m, t);
    }
    let v3 = T::v(&mut m, K::F32, 3);
    let a = T::arr(&mut m, v3, 2);
    add(&mut m, a);
    let s1 = T::st(&mut m, 4, &[f, bo]);
    add(&mut m, s1);
    let s2 = T::st(&mut m, 16, &[bo, v3, ub]);
    add(&mut m, s2);
    let s3 = T::st(&mut m, 8, &[ub, l, s1]);
    add(&mut m, s3);
    let empty = T::st(&mut m, 1, &[]);
    add(&mut m, empty);
    let a0 = T::arr(&mut m, f, 0);
    add(&mut m, a0);
    m
}

/// Arguments and undefined values of every other type description: resources,
/// custom types, cooperative vectors and references, references to aggregates.
pub fn type_descriptions() -> Module {
    let mut m = Module::new();
    let f = m.types.f32();
    let i = m.types.i32();
    let cv = m.types.intern(TypeData::CoopVector { elem: f, len: 16 });
    let h = m.types.scalar(K::F16);
    let cvr = m.types.intern(TypeData::CoopVectorRef { len: 16, elem: h });
    let cmr = m.types.intern(TypeData::CoopMatrixRef {
        rows: 16,
        cols: 8,
        elem: f,
    });
    let custom = T::custom(&mut m, "LC_IndirectDispatchBuffer");
    for t in [cv, cvr, cmr, custom] {
        m.undef(t);
    }
    let v3 = T::v(&mut m, K::F32, 3);
    let s = T::st(&mut m, 16, &[f, v3]);
    let resources = [
        T::buf(&mut m, Some(f)),
        T::buf(&mut m, None),
        T::buf(&mut m, Some(s)),
        T::buf(&mut m, Some(custom)),
        T::tex(&mut m, TextureDim::D2, K::F32),
        T::tex(&mut m, TextureDim::D3, K::I32),
        T::tex(&mut m, TextureDim::D2, K::U32),
        m.types.intern(TypeData::BindlessArray),
        m.types.intern(TypeData::Accel),
    ];
    let arr = T::arr(&mut m, s, 8);
    let mut k = Fb::new(&mut m, FunctionKind::kernel(), None);
    for t in resources {
        k.arg(ArgKind::Resource, t);
    }
    k.arg(ArgKind::Value, i);
    let e = k.body();
    k.ret(e, None);
    let mut c = Fb::new(&mut m, FunctionKind::Callable, None);
    c.arg(ArgKind::Reference, arr);
    c.arg(ArgKind::Reference, custom);
    c.arg(ArgKind::Value, s);
    let e = c.body();
    c.ret(e, None);
    let mut x = Fb::new(&mut m, FunctionKind::External, Some(f));
    x.arg(ArgKind::Value, f);
    let mut v = Fb::new(&mut m, FunctionKind::RasterVertex, Some(f));
    let e = v.body();
    let one = cf32(v.m, 1.0);
    v.ret(e, Some(one));
    m
}

/// A kernel storing one constant of scalar kind `k` into a local.
pub fn scalar_constant(k: K, bits: u64) -> Module {
    let mut m = Module::new();
    let c = cst(&mut m, k, bits);
    let t = m.types.scalar(k);
    let mut b = Fb::new(&mut m, FunctionKind::kernel(), None);
    let e = b.body();
    let v = b.ins(e, InstKind::Alloca(AllocaOp::Local), Some(t), []);
    b.ins(e, InstKind::Store, None, [v, c]);
    b.ret(e, None);
    m
}

/// A kernel applying atomic `op` to a shared array (of `int`, or `float` where allowed).
pub fn atomic(op: AtomicOp) -> Module {
    let mut m = Module::new();
    let int_only = matches!(
        op,
        AtomicOp::FetchAnd | AtomicOp::FetchOr | AtomicOp::FetchXor
    );
    let (t, one) = if int_only || op == AtomicOp::CompareExchange {
        (m.types.i32(), cst(&mut m, K::I32, 1))
    } else {
        (m.types.f32(), cf32(&mut m, 1.0))
    };
    let arr = T::arr(&mut m, t, 32);
    let idx = cst(&mut m, K::U32, 5);
    let mut b = Fb::new(&mut m, FunctionKind::kernel(), None);
    let e = b.body();
    let sh = b.ins(e, InstKind::Alloca(AllocaOp::Shared), Some(arr), []);
    let mut ops = vec![sh, idx, one];
    if op == AtomicOp::CompareExchange {
        ops.push(one);
    }
    b.ins(e, InstKind::Atomic(op), Some(t), ops);
    b.ret(e, None);
    m
}

/// All samples of this file.
pub fn all() -> Vec<(&'static str, Module)> {
    let mut v = vec![
        ("memory", memory()),
        ("arith-scalar", arith_scalar()),
        ("arith-vector", arith_vector()),
        ("thread-group", thread_group()),
        ("resources", resources()),
        ("ray-query", ray_query()),
        ("autodiff", autodiff()),
        ("constants", constants()),
        ("type-descriptions", type_descriptions()),
    ];
    let scalars: [(&'static str, K, u64); 14] = [
        ("scalar-bool", K::Bool, 1),
        ("scalar-byte", K::I8, 0x80),
        ("scalar-ubyte", K::U8, 0xff),
        ("scalar-short", K::I16, 0x8001),
        ("scalar-ushort", K::U16, 0xfffe),
        ("scalar-int", K::I32, 0xffff_fff0),
        ("scalar-uint", K::U32, 7),
        ("scalar-long", K::I64, 1 << 63),
        ("scalar-ulong", K::U64, 0x0123_4567_89ab_cdef),
        ("scalar-half", K::F16, 0xc000),
        ("scalar-float", K::F32, u64::from((-0.0f32).to_bits())),
        ("scalar-double", K::F64, f64::NAN.to_bits()),
        ("scalar-float8e4m3", K::F8E4M3, 0x7e),
        ("scalar-float8e5m2", K::F8E5M2, 0x7b),
    ];
    for (name, k, bits) in scalars {
        v.push((name, scalar_constant(k, bits)));
    }
    let atomics: [(&'static str, AtomicOp); 9] = [
        ("atomic-exchange", AtomicOp::Exchange),
        ("atomic-compare-exchange", AtomicOp::CompareExchange),
        ("atomic-fetch-add", AtomicOp::FetchAdd),
        ("atomic-fetch-sub", AtomicOp::FetchSub),
        ("atomic-fetch-and", AtomicOp::FetchAnd),
        ("atomic-fetch-or", AtomicOp::FetchOr),
        ("atomic-fetch-xor", AtomicOp::FetchXor),
        ("atomic-fetch-min", AtomicOp::FetchMin),
        ("atomic-fetch-max", AtomicOp::FetchMax),
    ];
    for (name, op) in atomics {
        v.push((name, atomic(op)));
    }
    v
}

//! Sample modules for memory, arithmetic, thread-group, resource, ray-query and autodiff
//! instructions, and for type descriptions and constant encodings.

use super::{Fb, T, cf32, cst};
use xir_ir::edit::InstBuilder;
use xir_ir::function::{ArgKind, FunctionKind};

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
    let var = b.at(e).alloca(AllocaOp::Local, s);
    let field = b.at(e).gep(v3, var, &[one]);
    b.at(e).store(field, undef);
    let l = b.at(e).load(v3, field);
    let _ = l;
    let sh = b.at(e).alloca(AllocaOp::Shared, arr);
    b.at(e).atomic(AtomicOp::FetchAdd, f, sh, &[zero_u], &[two]);
    b.at(e)
        .atomic(AtomicOp::CompareExchange, i, buf, &[zero_u], &[one, one]);
    b.at(e)
        .atomic(AtomicOp::FetchXor, i, buf, &[zero_u], &[one]);
    let _ = u;
    b.at(e).ret(None);
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
    let neg = b.at(e).arith(A::UnaryMinus, f, &[x]);
    let s = b.at(e).arith(A::Sin, f, &[neg]);
    let p = b.at(e).arith(A::PowInt, f, &[s, n]);
    let c = b.at(e).arith(A::BinaryGreaterEqual, bo, &[p, x]);
    let sel = b.at(e).arith(A::Select, f, &[x, p, c]);
    let cl = b.at(e).arith(A::Clamp, f, &[sel, x, p]);
    let fm = b.at(e).arith(A::Fma, f, &[cl, x, p]);
    let _ = b.at(e).arith(A::Popcount, u, &[k]);
    let _ = b.at(e).arith(A::BinaryShiftLeft, i, &[n, n]);
    let _ = b.at(e).arith(A::UnaryBitNot, i, &[n]);
    let _ = b.at(e).arith(A::Isnan, bo, &[fm]);
    b.at(e).ret(Some(fm));
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
    let c = b.at(e).arith(A::Cross, v3, &[v, v]);
    let d = b.at(e).arith(A::Dot, f, &[c, v]);
    let nrm = b.at(e).arith(A::Normalize, v3, &[c]);
    let _ = b.at(e).arith(A::Length, f, &[nrm]);
    let agg = b.at(e).arith(A::Aggregate, v3, &[x, d, x]);
    let lt = b.at(e).arith(A::BinaryLess, b3, &[agg, v]);
    let _ = b.at(e).arith(A::Any, bo, &[lt]);
    let sh = b.at(e).arith(A::Shuffle, v2, &[agg, idx1, idx0]);
    let _ = b.at(e).arith(A::ReduceSum, f, &[sh]);
    let mat = b.at(e).arith(A::OuterProduct, m3, &[v, agg]);
    let mt = b.at(e).arith(A::MatrixTranspose, m3, &[mat]);
    let mv = b.at(e).arith(A::MatrixLinalgMul, v3, &[mt, v]);
    let _ = b.at(e).arith(A::MatrixDeterminant, f, &[mt]);
    let _ = b.at(e).arith(A::MatrixCompMul, m3, &[mt, x]);
    let st = b.at(e).arith(A::Aggregate, s, &[x, mv]);
    let st2 = b.at(e).arith(A::Insert, s, &[st, d, idx0]);
    let ex = b.at(e).arith(A::Extract, f, &[st2, idx1, idx0]);
    let _ = u;
    b.at(e).ret(Some(ex));
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
    b.at(e)
        .thread_group(ThreadGroupOp::SynchronizeBlock, None, &[]);
    let first = Value::Inst(b.at(e).thread_group(
        ThreadGroupOp::WarpIsFirstActiveLane,
        Some(bo),
        &[],
    ));
    let _ = b
        .at(e)
        .thread_group(ThreadGroupOp::WarpActiveBitMask, Some(u4), &[first]);
    let l = b
        .at(e)
        .thread_group(ThreadGroupOp::WarpFirstActiveLane, Some(u), &[]);
    let one = cf32(b.m, 1.0);
    let s = Value::Inst(
        b.at(e)
            .thread_group(ThreadGroupOp::WarpActiveSum, Some(f), &[one]),
    );
    let _ = b
        .at(e)
        .thread_group(ThreadGroupOp::WarpReadLane, Some(f), &[s, lane]);
    let _ = l;
    b.at(e)
        .thread_group(ThreadGroupOp::ShaderExecutionReorder, None, &[lane, lane]);
    b.at(e).ret(None);
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
    let n = b.at(e).resource_query(
        ResourceQueryOp::BufferSize,
        BindlessAccess::default(),
        u,
        &[buf],
    );
    let _ = b.at(e).resource_query(
        ResourceQueryOp::ByteBufferSize,
        BindlessAccess::default(),
        u,
        &[bytes],
    );
    let _ = b.at(e).resource_query(
        ResourceQueryOp::Texture2dSize,
        BindlessAccess::default(),
        u2,
        &[tex],
    );
    let x = b.at(e).resource_read(
        ResourceReadOp::BufferRead,
        BindlessAccess::default(),
        f,
        &[buf, n],
    );
    b.at(e).resource_write(
        ResourceWriteOp::BufferWrite,
        BindlessAccess::default(),
        &[buf, zero, x],
    );
    let _ = b.at(e).resource_read(
        ResourceReadOp::ByteBufferRead,
        BindlessAccess::default(),
        f,
        &[bytes, zero],
    );
    b.at(e).resource_write(
        ResourceWriteOp::ByteBufferWrite,
        BindlessAccess::default(),
        &[bytes, zero, one],
    );
    let t = b.at(e).resource_read(
        ResourceReadOp::Texture2dRead,
        BindlessAccess::default(),
        f4,
        &[tex, coord],
    );
    b.at(e).resource_write(
        ResourceWriteOp::Texture2dWrite,
        BindlessAccess::default(),
        &[tex, coord, t],
    );
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
    let _ = b.at(e).resource_read(
        ResourceReadOp::BindlessBufferRead,
        both,
        f,
        &[arr, zero, zero],
    );
    let _ = b.at(e).resource_query(
        ResourceQueryOp::BindlessTexture2dSample,
        typed,
        f4,
        &[arr, zero, uv],
    );
    b.at(e).resource_write(
        ResourceWriteOp::BindlessBufferWrite,
        uni,
        &[arr, zero, zero, one],
    );
    let u64t = b.m.types.u64();
    let _ = b.at(e).resource_query(
        ResourceQueryOp::BufferDeviceAddress,
        BindlessAccess::default(),
        u64t,
        &[buf],
    );
    b.at(e).ret(None);
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
        h.at(hb).ret(None);
        handlers.push(h.f);
    }
    let mut b = Fb::new(&mut m, FunctionKind::kernel(), None);
    let acc = b.arg(ArgKind::Resource, acc_t);
    let e = b.body();
    let _ = b.at(e).resource_query(
        ResourceQueryOp::RayTracingTraceAny,
        BindlessAccess::default(),
        bo,
        &[acc, ray, mask],
    );
    let qv = b.at(e).resource_query(
        ResourceQueryOp::RayTracingQueryAll,
        BindlessAccess::default(),
        rq,
        &[acc, ray, mask],
    );
    let var = b.at(e).alloca(AllocaOp::Local, rq);
    b.at(e).store(var, qv);
    let (disp, surf, proc_, mg) = (b.block(), b.block(), b.block(), b.block());
    b.at(e).ray_query_loop(disp, mg);
    b.at(disp).ray_query_dispatch(var, mg, surf, proc_);
    let _ = b
        .at(surf)
        .ray_query_object_read(RayQueryObjectReadOp::IsTriangleCandidate, bo, var);
    b.at(surf)
        .ray_query_object_write(RayQueryObjectWriteOp::CommitTriangle, var, None);
    b.at(surf).br(disp);
    b.at(proc_)
        .ray_query_object_write(RayQueryObjectWriteOp::CommitProcedural, var, Some(dist));
    b.at(proc_).br(disp);
    let _ = b
        .at(mg)
        .ray_query_object_read(RayQueryObjectReadOp::CommittedHit, committed, var);
    b.at(mg)
        .ray_query_pipeline(var, handlers[0], handlers[1], &[]);
    b.at(mg).ret(None);
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
    b.at(e).autodiff_scope(s, mg, false, 0);
    b.at(s)
        .autodiff_intrinsic(AutodiffIntrinsicOp::RequiresGradient, None, &[x]);
    let y = b.at(s).arith(A::Exp, f, &[x]);
    b.at(s)
        .autodiff_intrinsic(AutodiffIntrinsicOp::Backward, None, &[]);
    let g = Value::Inst(
        b.at(s)
            .autodiff_intrinsic(AutodiffIntrinsicOp::Gradient, Some(f), &[x]),
    );
    let _ = b
        .at(s)
        .autodiff_intrinsic(AutodiffIntrinsicOp::Detach, Some(f), &[y]);
    b.at(s).br(mg);
    b.at(mg).autodiff_scope(s2, mg2, true, 2);
    b.at(s2).br(mg2);
    b.at(mg2).ret(Some(g));
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
    k.at(e).ret(None);
    let mut c = Fb::new(&mut m, FunctionKind::Callable, None);
    c.arg(ArgKind::Reference, arr);
    c.arg(ArgKind::Reference, custom);
    c.arg(ArgKind::Value, s);
    let e = c.body();
    c.at(e).ret(None);
    let mut x = Fb::new(&mut m, FunctionKind::External, Some(f));
    x.arg(ArgKind::Value, f);
    let mut v = Fb::new(&mut m, FunctionKind::RasterVertex, Some(f));
    let e = v.body();
    let one = cf32(v.m, 1.0);
    v.at(e).ret(Some(one));
    m
}

/// A kernel storing one constant of scalar kind `k` into a local.
pub fn scalar_constant(k: K, bits: u64) -> Module {
    let mut m = Module::new();
    let c = cst(&mut m, k, bits);
    let t = m.types.scalar(k);
    let mut b = Fb::new(&mut m, FunctionKind::kernel(), None);
    let e = b.body();
    let v = b.at(e).alloca(AllocaOp::Local, t);
    b.at(e).store(v, c);
    b.at(e).ret(None);
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
    let sh = b.at(e).alloca(AllocaOp::Shared, arr);
    let values: &[Value] = if op == AtomicOp::CompareExchange {
        &[one, one]
    } else {
        &[one]
    };
    b.at(e).atomic(op, t, sh, &[idx], values);
    b.at(e).ret(None);
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

//! Typing of resource queries/reads/writes and ray-query object instructions
//! (reference §4.3–§4.5, §4.1), following upstream's `instruction_semantics_valid`.
//!
//! Upstream's verifier has no typing case for the element-wise cooperative-vector math
//! reads (`cooperative_vector_dot` … `cooperative_vector_not_equal`) and therefore rejects
//! every use of them; so does xir by default. The opt-in extension
//! `allow-cooperative-vector-math` accepts them with the natural typing (cooperative-vector
//! operands of one type; comparisons and `isinf`/`isnan` give a bool cooperative vector,
//! `dot` gives the element type).

use super::Fx;
use super::types::argument_matches;
use super::tyutil::{COMMITTED_HIT, MOTION_SRT, PROCEDURAL_HIT, RAY, SURFACE_HIT, Shape};
use crate::function::{ArgKind, FunctionKind};
use crate::inst::InstData;
use crate::op::{
    BindlessAccess, RayQueryObjectReadOp, ResourceQueryOp as Q, ResourceReadOp as R,
    ResourceWriteOp as W,
};
use crate::types::{ScalarKind, TextureDim, Type, TypeData};
use crate::value::Value;

/// Operand-type helpers over one instruction.
struct Ops<'f, 'a, 'o> {
    fx: &'f Fx<'a, 'o>,
    d: &'f InstData,
}

impl Ops<'_, '_, '_> {
    fn t(&self, k: usize) -> Option<Type> {
        self.d.operands.get(k).and_then(|v| self.fx.vty(*v))
    }
    fn kind(&self, k: usize, s: ScalarKind) -> bool {
        self.t(k).is_some_and(|t| self.fx.tys.is_kind(t, s))
    }
    fn u32(&self, k: usize) -> bool {
        self.kind(k, ScalarKind::U32)
    }
    fn f32(&self, k: usize) -> bool {
        self.kind(k, ScalarKind::F32)
    }
    fn index32(&self, k: usize) -> bool {
        self.t(k).is_some_and(|t| self.fx.tys.index32(t))
    }
    fn integer(&self, k: usize) -> bool {
        self.t(k).is_some_and(|t| self.fx.tys.integer_scalar(t))
    }
    fn vec(&self, k: usize, s: ScalarKind, n: u64) -> bool {
        self.t(k)
            .is_some_and(|t| self.fx.tys.is_vec_of(t, s, Some(n)))
    }
    fn fvec(&self, k: usize, n: u64) -> bool {
        self.vec(k, ScalarKind::F32, n)
    }
    fn uvec(&self, k: usize, n: u64) -> bool {
        self.vec(k, ScalarKind::U32, n)
    }
    fn shape(&self, k: usize, s: &Shape) -> bool {
        self.t(k).is_some_and(|t| self.fx.tys.matches(t, s))
    }
    fn mat4(&self, k: usize) -> bool {
        self.t(k)
            .is_some_and(|t| self.fx.tys.is_mat_f32(t, Some(4)))
    }
    fn base(&self) -> Option<&TypeData> {
        self.fx.vdata(*self.d.operands.first()?)
    }
    fn base_resource(&self) -> Option<&TypeData> {
        let v = *self.d.operands.first()?;
        if self.fx.resource_arg(v) {
            self.fx.vdata(v)
        } else {
            None
        }
    }
    fn base_buffer(&self, typed: Option<bool>) -> bool {
        match self.base_resource() {
            Some(TypeData::Buffer { elem }) => typed.is_none_or(|t| t == elem.is_some()),
            _ => false,
        }
    }
    fn base_texture(&self, dim: TextureDim) -> bool {
        matches!(self.base_resource(), Some(TypeData::Texture { dim: d, .. }) if *d == dim)
    }
    fn base_bindless(&self) -> bool {
        matches!(self.base_resource(), Some(TypeData::BindlessArray))
    }
    fn base_accel(&self) -> bool {
        matches!(self.base_resource(), Some(TypeData::Accel))
    }
    fn base_lvalue(&self) -> bool {
        let v = self.d.operands[0];
        self.fx.typed(v) && self.fx.is_lvalue(v)
    }
    fn data_from(&self, start: usize) -> Result<(), String> {
        for (k, &v) in self.d.operands.iter().enumerate().skip(start) {
            if !self.fx.data(v) {
                return Err(format!(
                    "operand {k} must be a data rvalue, found {}{}",
                    self.fx.vty_name(v),
                    if self.fx.is_lvalue(v) {
                        " (an lvalue)"
                    } else {
                        ""
                    }
                ));
            }
        }
        Ok(())
    }
    fn describe(&self) -> String {
        let ops: Vec<String> = self
            .d
            .operands
            .iter()
            .map(|v| self.fx.vty_name(*v))
            .collect();
        format!(
            "operands are ({}) and the result is {}",
            ops.join(", "),
            self.fx.tname(self.d.ty)
        )
    }
    fn fail(&self, what: &str) -> Result<(), String> {
        Err(format!("{what}; {}", self.describe()))
    }
}

fn bindless_attr(acc: BindlessAccess, bindless: bool) -> Result<(), String> {
    if !acc.is_default() && !bindless {
        return Err("the `[typed]`/`[uniform]` attributes are only allowed on bindless ops".into());
    }
    Ok(())
}

fn is_2d(op: Q) -> bool {
    op.name().contains("texture2d")
}

/// Checks a `resource_query`.
pub(super) fn check_query(
    fx: &Fx<'_, '_>,
    op: Q,
    acc: BindlessAccess,
    d: &InstData,
) -> Result<(), String> {
    let o = Ops { fx, d };
    o.data_from(1)?;
    bindless_attr(acc, op.is_bindless())?;
    let dim = if is_2d(op) {
        TextureDim::D2
    } else {
        TextureDim::D3
    };
    let base_ok = match op {
        Q::BufferSize => o.base_buffer(Some(true)),
        Q::ByteBufferSize => o.base_buffer(Some(false)),
        Q::BufferDeviceAddress => o.base_buffer(None),
        Q::Texture2dSize
        | Q::Texture2dSample
        | Q::Texture2dSampleLevel
        | Q::Texture2dSampleGrad
        | Q::Texture2dSampleGradLevel
        | Q::Texture3dSize
        | Q::Texture3dSample
        | Q::Texture3dSampleLevel
        | Q::Texture3dSampleGrad
        | Q::Texture3dSampleGradLevel => o.base_texture(dim),
        _ if op.is_bindless() => o.base_bindless(),
        _ => o.base_accel(),
    };
    if !base_ok {
        return o.fail("the resource operand has the wrong kind for this op");
    }
    let r = d.ty;
    let tys = fx.tys;
    let rk = |k: ScalarKind| r.is_some_and(|r| tys.is_kind(r, k));
    let rvec = |k: ScalarKind, n: u64| r.is_some_and(|r| tys.is_vec_of(r, k, Some(n)));
    let rshape = |s: &Shape| r.is_some_and(|r| tys.matches(r, s));
    let result_ok = match op {
        Q::BufferSize | Q::ByteBufferSize | Q::BindlessBufferSize | Q::BindlessByteBufferSize => {
            rk(ScalarKind::U32) || rk(ScalarKind::U64)
        }
        Q::BufferDeviceAddress | Q::BindlessBufferDeviceAddress => rk(ScalarKind::U64),
        Q::Texture2dSize | Q::BindlessTexture2dSize | Q::BindlessTexture2dSizeLevel => {
            rvec(ScalarKind::U32, 2)
        }
        Q::Texture3dSize | Q::BindlessTexture3dSize | Q::BindlessTexture3dSizeLevel => {
            rvec(ScalarKind::U32, 3)
        }
        Q::RayTracingInstanceUserId | Q::RayTracingInstanceVisibilityMask => rk(ScalarKind::U32),
        Q::RayTracingInstanceTransform | Q::RayTracingInstanceMotionMatrix => {
            r.is_some_and(|r| tys.is_mat_f32(r, Some(4)))
        }
        Q::RayTracingInstanceMotionSrt => rshape(&MOTION_SRT),
        Q::RayTracingTraceClosest | Q::RayTracingTraceClosestMotionBlur => rshape(&SURFACE_HIT),
        Q::RayTracingTraceAny | Q::RayTracingTraceAnyMotionBlur => rk(ScalarKind::Bool),
        Q::RayTracingQueryAll | Q::RayTracingQueryAllMotionBlur => {
            r.is_some_and(|r| tys.is_custom_named(r, "LC_RayQueryAll"))
        }
        Q::RayTracingQueryAny | Q::RayTracingQueryAnyMotionBlur => {
            r.is_some_and(|r| tys.is_custom_named(r, "LC_RayQueryAny"))
        }
        _ => rvec(ScalarKind::F32, 4), // every sample op
    };
    if !result_ok {
        return o.fail("the result type does not match the op");
    }
    let n = if is_2d(op) { 2 } else { 3 };
    let operands_ok = match op {
        Q::BufferSize
        | Q::ByteBufferSize
        | Q::Texture2dSize
        | Q::Texture3dSize
        | Q::BufferDeviceAddress => true,
        Q::BindlessBufferSize => o.index32(1) && o.u32(2),
        Q::BindlessByteBufferSize
        | Q::BindlessTexture2dSize
        | Q::BindlessTexture3dSize
        | Q::BindlessBufferDeviceAddress
        | Q::RayTracingInstanceTransform
        | Q::RayTracingInstanceUserId
        | Q::RayTracingInstanceVisibilityMask => o.index32(1),
        Q::BindlessTexture2dSizeLevel | Q::BindlessTexture3dSizeLevel => {
            o.index32(1) && o.integer(2)
        }
        Q::Texture2dSample | Q::Texture3dSample => o.fvec(1, n) && o.u32(2) && o.u32(3),
        Q::Texture2dSampleLevel | Q::Texture3dSampleLevel => {
            o.fvec(1, n) && o.f32(2) && o.u32(3) && o.u32(4)
        }
        Q::Texture2dSampleGrad | Q::Texture3dSampleGrad => {
            o.fvec(1, n) && o.fvec(2, n) && o.fvec(3, n) && o.u32(4) && o.u32(5)
        }
        Q::Texture2dSampleGradLevel | Q::Texture3dSampleGradLevel => {
            o.fvec(1, n) && o.fvec(2, n) && o.fvec(3, n) && o.f32(4) && o.u32(5) && o.u32(6)
        }
        Q::RayTracingTraceClosest
        | Q::RayTracingTraceAny
        | Q::RayTracingQueryAll
        | Q::RayTracingQueryAny => o.shape(1, &RAY) && o.u32(2),
        Q::RayTracingInstanceMotionMatrix | Q::RayTracingInstanceMotionSrt => {
            o.index32(1) && o.index32(2)
        }
        Q::RayTracingTraceClosestMotionBlur
        | Q::RayTracingTraceAnyMotionBlur
        | Q::RayTracingQueryAllMotionBlur
        | Q::RayTracingQueryAnyMotionBlur => o.shape(1, &RAY) && o.f32(2) && o.u32(3),
        _ => bindless_sample_ok(&o, op, n),
    };
    if !operands_ok {
        return o.fail("the operand types do not match the op");
    }
    Ok(())
}

/// `(array, index32, uv, [level] | [grad, grad, [level]], [filter, address])`.
fn bindless_sample_ok(o: &Ops<'_, '_, '_>, op: Q, n: u64) -> bool {
    let name = op.name();
    let sampler = name.ends_with("_sampler");
    let grad = name.contains("_grad");
    let level = name.contains("_level");
    if !o.index32(1) || !o.fvec(2, n) {
        return false;
    }
    let mut next = 3;
    if grad {
        if !o.fvec(next, n) || !o.fvec(next + 1, n) {
            return false;
        }
        next += 2;
        if level {
            if !o.f32(next) {
                return false;
            }
            next += 1;
        }
    } else if level {
        if !o.f32(next) {
            return false;
        }
        next += 1;
    }
    !sampler || (o.u32(next) && o.u32(next + 1))
}

/// Checks a `resource_read`.
pub(super) fn check_read(
    fx: &Fx<'_, '_>,
    op: R,
    acc: BindlessAccess,
    d: &InstData,
) -> Result<(), String> {
    let o = Ops { fx, d };
    o.data_from(1)?;
    bindless_attr(acc, op.is_bindless())?;
    let Some(r) = d.ty else {
        return Err("resource reads produce a value".into());
    };
    if op.is_cooperative_vector_math() {
        if !fx.opts.allow_cooperative_vector_math {
            return Err(format!(
                "`{}` has no typing rule (upstream's verifier rejects every use); \
                 `--verify-options=allow-cooperative-vector-math` accepts it as an xir extension",
                op.name()
            ));
        }
        return check_coop_math(&o, op, r);
    }
    let base_ok = match op {
        R::BufferRead | R::BufferVolatileRead => o.base_buffer(Some(true)),
        R::ByteBufferRead | R::ByteBufferVolatileRead => o.base_buffer(Some(false)),
        R::Texture2dRead => o.base_texture(TextureDim::D2),
        R::Texture3dRead => o.base_texture(TextureDim::D3),
        R::DeviceAddressRead => {
            fx.data(d.operands[0]) && o.t(0).is_some_and(|t| fx.tys.is_kind(t, ScalarKind::U64))
        }
        R::CooperativeMulAdd | R::CooperativeMul | R::CooperativeVectorLoad => o.base_buffer(None),
        R::CooperativeVectorWorkgroupLoad => o.base_lvalue(),
        R::CooperativeVectorSplat | R::CooperativeVectorCast => fx.data(d.operands[0]),
        _ => o.base_bindless(),
    };
    if !base_ok {
        return o.fail("the resource operand has the wrong kind for this op");
    }
    let operands_ok = match op {
        R::BufferRead | R::BufferVolatileRead | R::ByteBufferRead | R::ByteBufferVolatileRead => {
            o.integer(1)
        }
        R::Texture2dRead => o.uvec(1, 2),
        R::Texture3dRead => o.uvec(1, 3),
        R::BindlessBufferRead | R::BindlessByteBufferRead => o.index32(1) && o.integer(2),
        R::BindlessTexture2dRead => o.index32(1) && o.uvec(2, 2),
        R::BindlessTexture3dRead => o.index32(1) && o.uvec(2, 3),
        R::BindlessTexture2dReadLevel => o.index32(1) && o.uvec(2, 2) && o.integer(3),
        R::BindlessTexture3dReadLevel => o.index32(1) && o.uvec(2, 3) && o.integer(3),
        R::CooperativeMulAdd => o.integer(1) && o.integer(3) && o.integer(5) && o.integer(6),
        R::BindlessCooperativeMulAdd => {
            o.index32(1)
                && o.integer(2)
                && o.index32(3)
                && o.integer(4)
                && o.integer(6)
                && o.integer(7)
        }
        R::CooperativeMul => o.integer(1) && o.integer(3),
        R::BindlessCooperativeMul => o.index32(1) && o.integer(2) && o.integer(4),
        R::CooperativeVectorLoad | R::CooperativeVectorWorkgroupLoad => o.integer(1),
        R::BindlessCooperativeVectorLoad => o.index32(1) && o.integer(2),
        _ => true,
    };
    if !operands_ok {
        return o.fail("the operand types do not match the op");
    }
    let tys = fx.tys;
    let result_ok = match op {
        R::BufferRead | R::BufferVolatileRead => {
            matches!(o.base(), Some(TypeData::Buffer { elem: Some(e) }) if *e == r)
        }
        R::ByteBufferRead
        | R::ByteBufferVolatileRead
        | R::BindlessBufferRead
        | R::BindlessByteBufferRead
        | R::DeviceAddressRead => !tys.is_resource(r) && !tys.is_custom(r),
        R::Texture2dRead | R::Texture3dRead => {
            matches!(o.base(), Some(TypeData::Texture { elem, .. }) if tys.is_vec_with(r, Some(*elem), 4))
        }
        R::BindlessTexture2dRead
        | R::BindlessTexture3dRead
        | R::BindlessTexture2dReadLevel
        | R::BindlessTexture3dReadLevel => tys.is_vec_of(r, ScalarKind::F32, Some(4)),
        _ => true,
    };
    if !result_ok {
        return o.fail("the result type does not match the op");
    }
    Ok(())
}

/// The xir extension for element-wise cooperative-vector math (see the module docs).
fn check_coop_math(o: &Ops<'_, '_, '_>, op: R, r: Type) -> Result<(), String> {
    let tys = o.fx.tys;
    if !o.fx.data(o.d.operands[0]) {
        return o.fail("operand 0 must be a data rvalue");
    }
    let t0 = o.t(0);
    let Some(TypeData::CoopVector { elem, len }) = t0.and_then(|t| tys.data(t)) else {
        return o.fail("expects cooperative-vector operands");
    };
    let same = o.d.operands.iter().all(|v| o.fx.vty(*v) == t0);
    let bool_result = || matches!(tys.data(r), Some(TypeData::CoopVector { elem: e, len: l }) if tys.is_bool(*e) && l == len);
    let ok = match op {
        R::CooperativeVectorDot => same && r == *elem,
        R::CooperativeVectorIsinf | R::CooperativeVectorIsnan => same && bool_result(),
        R::CooperativeVectorLess
        | R::CooperativeVectorLessEqual
        | R::CooperativeVectorGreater
        | R::CooperativeVectorGreaterEqual
        | R::CooperativeVectorEqual
        | R::CooperativeVectorNotEqual => same && bool_result(),
        _ => same && Some(r) == t0,
    };
    if ok {
        Ok(())
    } else {
        o.fail("expects cooperative-vector operands of one type and the op's result type")
    }
}

/// Checks a `resource_write`.
pub(super) fn check_write(
    fx: &Fx<'_, '_>,
    op: W,
    acc: BindlessAccess,
    d: &InstData,
) -> Result<(), String> {
    let o = Ops { fx, d };
    o.data_from(1)?;
    bindless_attr(acc, op.is_bindless())?;
    let operands_ok = match op {
        W::BufferWrite
        | W::BufferVolatileWrite
        | W::ByteBufferWrite
        | W::ByteBufferVolatileWrite => o.integer(1),
        W::Texture2dWrite => o.uvec(1, 2),
        W::Texture3dWrite => o.uvec(1, 3),
        W::BindlessBufferWrite | W::BindlessByteBufferWrite => o.index32(1) && o.integer(2),
        W::DeviceAddressWrite => true,
        W::RayTracingSetInstanceTransform => o.index32(1) && o.mat4(2),
        W::RayTracingSetInstanceVisibilityMask | W::RayTracingSetInstanceUserId => {
            o.index32(1) && o.u32(2)
        }
        W::RayTracingSetInstanceOpacity => o.index32(1) && o.kind(2, ScalarKind::Bool),
        W::RayTracingSetInstanceMotionMatrix => o.index32(1) && o.index32(2) && o.mat4(3),
        W::RayTracingSetInstanceMotionSrt => {
            o.index32(1) && o.index32(2) && o.shape(3, &MOTION_SRT)
        }
        W::IndirectDispatchSetKernel => o.u32(1) && o.uvec(2, 3) && o.uvec(3, 3) && o.u32(4),
        W::IndirectDispatchSetCount => o.u32(1),
        W::CooperativeOuterProductAccumulate => o.integer(1) && o.integer(4),
        W::CooperativeVectorAccumulate
        | W::CooperativeVectorStore
        | W::CooperativeVectorWorkgroupStore => o.integer(1),
        W::BindlessCooperativeVectorStore => o.index32(1) && o.integer(2),
    };
    if !operands_ok {
        return o.fail("the operand types do not match the op");
    }
    let base_ok = match op {
        W::BufferWrite | W::BufferVolatileWrite => {
            o.base_buffer(Some(true))
                && matches!(o.base(), Some(TypeData::Buffer { elem: Some(e) }) if Some(*e) == o.t(2))
        }
        W::ByteBufferWrite | W::ByteBufferVolatileWrite => o.base_buffer(Some(false)),
        W::Texture2dWrite | W::Texture3dWrite => {
            let dim = if op == W::Texture2dWrite {
                TextureDim::D2
            } else {
                TextureDim::D3
            };
            o.base_texture(dim)
                && matches!(o.base(), Some(TypeData::Texture { elem, .. })
                    if o.t(2).is_some_and(|t| fx.tys.is_vec_with(t, Some(*elem), 4)))
        }
        W::BindlessBufferWrite | W::BindlessByteBufferWrite | W::BindlessCooperativeVectorStore => {
            o.base_bindless()
        }
        W::DeviceAddressWrite => {
            fx.data(d.operands[0]) && o.t(0).is_some_and(|t| fx.tys.is_kind(t, ScalarKind::U64))
        }
        W::IndirectDispatchSetKernel | W::IndirectDispatchSetCount => {
            o.base_buffer(None)
                || (o.base_lvalue()
                    && o.t(0)
                        .is_some_and(|t| fx.tys.is_custom_named(t, "LC_IndirectDispatchBuffer")))
        }
        W::CooperativeOuterProductAccumulate
        | W::CooperativeVectorAccumulate
        | W::CooperativeVectorStore => o.base_buffer(None),
        W::CooperativeVectorWorkgroupStore => o.base_lvalue(),
        _ => o.base_accel(),
    };
    if !base_ok {
        return o.fail("the resource operand or written value does not match the op");
    }
    Ok(())
}

/// Checks a `ray_query_object_read`.
pub(super) fn check_rq_read(
    fx: &Fx<'_, '_>,
    op: RayQueryObjectReadOp,
    d: &InstData,
) -> Result<(), String> {
    let o = Ops { fx, d };
    if !fx.ray_query_object(d.operands[0]) {
        return o.fail(
            "operand 0 must be a ray-query object (an lvalue of `LC_RayQueryAll`/`LC_RayQueryAny`)",
        );
    }
    let tys = fx.tys;
    let Some(r) = d.ty else {
        return Err("ray-query reads produce a value".into());
    };
    use RayQueryObjectReadOp as O;
    let ok = match op {
        O::WorldSpaceRay | O::CandidateObjectSpaceRay => tys.matches(r, &RAY),
        O::ProceduralCandidateHit => tys.matches(r, &PROCEDURAL_HIT),
        O::TriangleCandidateHit => tys.matches(r, &SURFACE_HIT),
        O::CommittedHit => tys.matches(r, &COMMITTED_HIT),
        O::IsTriangleCandidate | O::IsProceduralCandidate | O::IsTerminated => tys.is_bool(r),
    };
    if ok {
        Ok(())
    } else {
        o.fail("the result type does not match the op")
    }
}

/// Checks a `ray_query_object_write`.
pub(super) fn check_rq_write(fx: &Fx<'_, '_>, d: &InstData) -> Result<(), String> {
    let o = Ops { fx, d };
    if !fx.ray_query_object(d.operands[0]) {
        return o.fail(
            "operand 0 must be a ray-query object (an lvalue of `LC_RayQueryAll`/`LC_RayQueryAny`)",
        );
    }
    if d.operands.len() == 2 && !(fx.data(d.operands[1]) && o.f32(1)) {
        return o.fail("the distance operand must be an `f32` rvalue");
    }
    Ok(())
}

/// Checks a `ray_query_pipeline`.
pub(super) fn check_rq_pipeline(fx: &Fx<'_, '_>, d: &InstData) -> Result<(), String> {
    let o = Ops { fx, d };
    let q = d.operands[0];
    if !fx.ray_query_object(q) {
        return o.fail(
            "operand 0 must be a ray-query object (an lvalue of `LC_RayQueryAll`/`LC_RayQueryAny`)",
        );
    }
    let captures = &d.operands[3..];
    for k in [1, 2] {
        let Value::Func(g) = d.operands[k] else {
            return Err(format!("operand {k} must be a callable"));
        };
        let Some(cf) =
            fx.m.functions
                .get(g)
                .filter(|c| c.kind == FunctionKind::Callable)
        else {
            return Err(format!("operand {k} must be a callable"));
        };
        if cf.ret.is_some() || cf.arg_order.len() != captures.len() + 1 {
            return Err(format!(
                "handler {k} must return void and take the query plus {} captures",
                captures.len()
            ));
        }
        let first = cf.arg_order.first().and_then(|a| cf.args.get(*a));
        if !first.is_some_and(|a| a.kind == ArgKind::Reference && Some(a.ty) == fx.vty(q)) {
            return Err(format!(
                "handler {k}'s first parameter must be a reference of the query type"
            ));
        }
        for (c, (&a, &v)) in cf.arg_order[1..].iter().zip(captures).enumerate() {
            let Some(formal) = cf.args.get(a) else {
                return Err(format!("handler {k}'s parameter {} does not exist", c + 1));
            };
            if !argument_matches(fx, formal.kind, formal.ty, v) {
                return Err(format!(
                    "capture {c} does not match parameter {} of handler {k}",
                    c + 1
                ));
            }
        }
    }
    Ok(())
}

//! Operand counts, result-type shapes and operand/result typing of every instruction
//! kind except arithmetic, thread-group, resource, ray-query and autodiff ops (see
//! [`super::arith`] and [`super::resource`]).
//!
//! Rules follow upstream's `instruction_semantics_valid`: "typed" values are non-resource
//! values with a type, "rvalues" are typed non-lvalues and "data" rvalues are rvalues of
//! non-custom type; lvalues are allocas, GEPs and reference arguments.

use super::{Fx, arith, resource};
use crate::function::ArgKind;
use crate::inst::{InstData, InstId, InstKind, ResultShape, Shape};
use crate::op::{AtomicOp, CastOp};
use crate::types::{ScalarKind, Type, TypeData};
use crate::typing::{TypingContext, operand_type_ok};
use crate::value::{BlockId, FuncId, Value};

/// Checks count, result shape and typing of instruction `i` in block `b`. Returns
/// whether the operand count matches the kind.
pub(super) fn check_inst(fx: &mut Fx<'_, '_>, b: BlockId, i: InstId, handles_ok: bool) -> bool {
    let Some(d) = fx.inst(i) else { return false };
    let count_ok = match expected_count(d) {
        Ok(()) => true,
        Err(want) => {
            fx.err_inst(
                b,
                i,
                format!("expects {want} operands but has {}", d.operands.len()),
            );
            false
        }
    };
    check_result_shape(fx, b, i, d);
    if !handles_ok || !count_ok {
        return count_ok;
    }
    let r = match &d.kind {
        InstKind::Arithmetic(op) => arith::check_arith(fx, *op, d),
        InstKind::ThreadGroup(op) => arith::check_thread_group(fx, *op, d),
        InstKind::AutodiffIntrinsic(op) => arith::check_autodiff(fx, *op, d),
        InstKind::ResourceQuery(op, acc) => resource::check_query(fx, *op, *acc, d),
        InstKind::ResourceRead(op, acc) => resource::check_read(fx, *op, *acc, d),
        InstKind::ResourceWrite(op, acc) => resource::check_write(fx, *op, *acc, d),
        InstKind::RayQueryObjectRead(op) => resource::check_rq_read(fx, *op, d),
        InstKind::RayQueryObjectWrite(_) => resource::check_rq_write(fx, d),
        InstKind::RayQueryPipeline => resource::check_rq_pipeline(fx, d),
        _ => check_generic(fx, d),
    };
    if let Err(msg) = r {
        fx.err_inst(b, i, msg);
    }
    count_ok
}

/// An expected operand count, spelled for messages only when it is not met.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Want {
    Exact(usize),
    AtLeast(usize),
    ZeroOrOne,
    Arity(crate::op::Arity),
    /// A phi's `(value, block)` pairs.
    PhiPairs,
}

impl std::fmt::Display for Want {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Want::Exact(k) => write!(f, "{k}"),
            Want::AtLeast(k) => write!(f, "at least {k}"),
            Want::ZeroOrOne => f.write_str("0 or 1"),
            Want::Arity(a) => write!(f, "{a}"),
            Want::PhiPairs => f.write_str("(value, block) pairs of"),
        }
    }
}

/// Operand-count rule per kind (`Err` carries the expected count).
#[inline]
pub(crate) fn expected_count(d: &InstData) -> Result<(), Want> {
    let n = d.operands.len();
    let exact = |k: usize| if n == k { Ok(()) } else { Err(Want::Exact(k)) };
    let at_least = |k: usize| {
        if n >= k {
            Ok(())
        } else {
            Err(Want::AtLeast(k))
        }
    };
    // The instruction table's operand shape; the payload-dependent shapes read the
    // kind's payload.
    match (d.kind.tag().shape(), &d.kind) {
        (Shape::Exact(k), _) => exact(k as usize),
        (Shape::AtLeast(k), _) => at_least(k as usize),
        (Shape::AtMostOne, _) if n <= 1 => Ok(()),
        (Shape::AtMostOne, _) => Err(Want::ZeroOrOne),
        (Shape::Any, _) => Ok(()),
        (
            Shape::CaseLabels,
            InstKind::Switch { labels, .. } | InstKind::IndexedBranch { labels },
        ) => exact(labels.len().saturating_add(2)),
        (Shape::PhiBlocks, InstKind::Phi) if d.phi_well_formed() => Ok(()),
        (Shape::PhiBlocks, InstKind::Phi) => Err(Want::PhiPairs),
        (Shape::CoroFrame, InstKind::CoroResume { has_frame, .. }) => exact(*has_frame as usize),
        (Shape::CoroSuspend, InstKind::CoroSuspend(s)) => exact(
            s.has_frame as usize
                + s.exports.len()
                + s.extensions
                    .iter()
                    .flat_map(|e| &e.items)
                    .filter(|it| matches!(it, crate::inst::CoroExtensionItem::Binding { .. }))
                    .count(),
        ),
        (Shape::Atomic, InstKind::Atomic(op)) => at_least(1 + atomic_value_count(*op)),
        (Shape::OpArity, InstKind::Arithmetic(op)) => arity(op.arity(), n),
        (Shape::OpArity, InstKind::ThreadGroup(op)) => arity(op.arity(), n),
        (Shape::OpArity, InstKind::ResourceQuery(op, _)) => arity(op.arity(), n),
        (Shape::OpArity, InstKind::ResourceRead(op, _)) => arity(op.arity(), n),
        (Shape::OpArity, InstKind::ResourceWrite(op, _)) => arity(op.arity(), n),
        (Shape::OpArity, InstKind::RayQueryObjectWrite(op)) => arity(op.arity(), n),
        (Shape::OpArity, InstKind::AutodiffIntrinsic(op)) => arity(op.arity(), n),
        // A payload shape on a kind without that payload: a table row that cannot be.
        (shape, kind) => unreachable!("shape {shape:?} stated for {:?}", kind.tag()),
    }
}

fn arity(a: crate::op::Arity, n: usize) -> Result<(), Want> {
    if a.accepts(n) {
        Ok(())
    } else {
        Err(Want::Arity(a))
    }
}

/// Number of value operands of an atomic op (after base and indices).
pub(super) fn atomic_value_count(op: AtomicOp) -> usize {
    match op.arity() {
        crate::op::Arity::Exact(k) => k as usize,
        _ => 1,
    }
}

/// Void/non-void result rules (upstream's construction invariants).
#[inline]
fn check_result_shape(fx: &mut Fx<'_, '_>, b: BlockId, i: InstId, d: &InstData) {
    let want = d.kind.tag().result();
    match (want, d.ty) {
        (ResultShape::Void, Some(t)) => {
            let t = fx.tname(Some(t));
            fx.err_inst(b, i, format!("must not produce a value, but has type {t}"));
        }
        (ResultShape::Value, None) => {
            fx.err_inst(b, i, "must produce a value, but its type is void")
        }
        (ResultShape::U64, t) if !t.is_some_and(|t| fx.tys.is_kind(t, ScalarKind::U64)) => {
            let t = fx.tname(t);
            fx.err_inst(b, i, format!("must produce `u64`, but has type {t}"));
        }
        _ => {}
    }
}

fn is_block(v: Value) -> bool {
    matches!(v, Value::Block(_))
}

fn blocks_from(d: &InstData, start: usize) -> Result<(), String> {
    for (k, v) in d.operands.iter().enumerate().skip(start) {
        if !is_block(*v) {
            return Err(format!("operand {k} must be a block"));
        }
    }
    Ok(())
}

/// An element type reached by indexing: an interned type, or a matrix column vector
/// (which the store may not have interned; upstream constructs it on demand).
#[derive(Copy, Clone, Debug)]
pub(super) enum Elem {
    /// An interned type.
    Ty(Type),
    /// `vector<elem, n>`, the column of a matrix.
    Column(Type, u8),
}

impl Elem {
    /// Whether this element type is `t`.
    pub fn is(self, fx: &Fx<'_, '_>, t: Option<Type>) -> bool {
        match self {
            Elem::Ty(x) => Some(x) == t,
            Elem::Column(e, n) => t.is_some_and(|t| fx.tys.is_vec_with(t, Some(e), n as u64)),
        }
    }
    /// Spelling for messages.
    pub fn name(self, fx: &Fx<'_, '_>) -> String {
        match self {
            Elem::Ty(x) => fx.tname(Some(x)),
            Elem::Column(e, n) => format!("`vector<{}, {n}>`", fx.tys.name(Some(e))),
        }
    }
}

/// Upstream's aggregate index walk (GEP, atomics and extract/insert): arrays, vectors and
/// cooperative vectors index dynamically, matrices yield their column vector, struct
/// member indices must be non-negative integer constants in range.
pub(super) fn indexed_type(
    fx: &Fx<'_, '_>,
    base: Option<Type>,
    indices: &[Value],
) -> Result<Elem, String> {
    let mut cur = Elem::Ty(base.ok_or("the aggregate is untyped")?);
    for (k, &idx) in indices.iter().enumerate() {
        if !fx.data(idx) || !fx.vty(idx).is_some_and(|t| fx.tys.integer_scalar(t)) {
            return Err(format!(
                "index {k} must be an integer scalar rvalue, found {}",
                fx.vty_name(idx)
            ));
        }
        let t = match cur {
            Elem::Column(e, _) => {
                cur = Elem::Ty(e);
                continue;
            }
            Elem::Ty(t) => t,
        };
        cur = match fx.tys.data(t) {
            Some(TypeData::Array { elem, .. })
            | Some(TypeData::Vector { elem, .. })
            | Some(TypeData::CoopVector { elem, .. }) => Elem::Ty(*elem),
            Some(TypeData::Matrix { elem, n }) => Elem::Column(*elem, *n),
            Some(TypeData::Struct { members, .. }) => {
                let Some(m) = fx.const_nonneg(idx) else {
                    return Err(format!(
                        "index {k} selects a structure member and must be a non-negative integer constant"
                    ));
                };
                match usize::try_from(m).ok().and_then(|m| members.get(m)) {
                    Some(t) => Elem::Ty(*t),
                    None => {
                        return Err(format!(
                            "index {k} selects member {m} of a structure with {} members",
                            members.len()
                        ));
                    }
                }
            }
            _ => {
                return Err(format!("index {k} cannot index into {}", fx.tname(Some(t))));
            }
        };
    }
    Ok(cur)
}

fn check_generic(fx: &Fx<'_, '_>, d: &InstData) -> Result<(), String> {
    let ops = &d.operands;
    match &d.kind {
        InstKind::If { .. } | InstKind::ConditionalBranch => {
            if !fx.data(ops[0]) || !operand_type_ok(fx, d, 0) {
                return Err(format!(
                    "condition must be a `bool` rvalue, found {}",
                    fx.vty_name(ops[0])
                ));
            }
            blocks_from(d, 1)
        }
        InstKind::Branch
        | InstKind::Break
        | InstKind::Continue
        | InstKind::Loop { .. }
        | InstKind::SimpleLoop { .. }
        | InstKind::RayQueryLoop { .. }
        | InstKind::AutodiffScope { .. }
        | InstKind::Outline { .. } => blocks_from(d, 0),
        InstKind::Switch { .. } | InstKind::IndexedBranch { .. } => {
            let sel = ops[0];
            let t = fx.vty(sel);
            if !fx.data(sel) || !t.is_some_and(|t| fx.tys.integer_scalar(t) || fx.tys.is_bool(t)) {
                return Err(format!(
                    "selector must be an integer or `bool` scalar rvalue, found {}",
                    fx.vty_name(sel)
                ));
            }
            blocks_from(d, 1)
        }
        InstKind::RayQueryDispatch => {
            if !fx.ray_query_object(ops[0]) {
                return Err(format!(
                    "operand 0 must be a ray-query object (an lvalue of `LC_RayQueryAll`/`LC_RayQueryAny`), found {}",
                    fx.vty_name(ops[0])
                ));
            }
            blocks_from(d, 1)
        }
        InstKind::Return => check_return(fx, d),
        InstKind::Phi => {
            for (k, v) in d.phi_values().enumerate() {
                if !fx.rvalue(v) || !operand_type_ok(fx, d, crate::phi::phi_value_slot(k)) {
                    return Err(format!(
                        "incoming value {k} must be an rvalue of the phi's type {}, found {}",
                        fx.tname(d.ty),
                        fx.vty_name(v)
                    ));
                }
            }
            Ok(())
        }
        InstKind::CoroSuspend(s) => {
            let mut k = 0;
            if s.has_frame {
                if !fx.typed(ops[0]) {
                    return Err("the coroutine frame must be a typed non-resource value".into());
                }
                k = 1;
            }
            let mut names = rustc_hash::FxHashSet::default();
            for (e, name) in s.exports.iter().enumerate() {
                let v = ops[k + e];
                if name.is_empty() || !names.insert(name.as_str()) {
                    return Err(format!("export {e} needs a unique non-empty name"));
                }
                if !fx.data(v) || !fx.vty(v).is_some_and(|t| fx.tys.is_basic(t)) {
                    return Err(format!(
                        "export {name:?} must be a scalar, vector or matrix rvalue, found {}",
                        fx.vty_name(v)
                    ));
                }
            }
            for (e, &v) in ops.iter().enumerate().skip(k + s.exports.len()) {
                if !fx.data(v) {
                    return Err(format!(
                        "extension binding operand {e} must be a data rvalue, found {}",
                        fx.vty_name(v)
                    ));
                }
            }
            Ok(())
        }
        InstKind::CoroResume { .. } => match ops.first() {
            Some(&v) if !fx.typed(v) => {
                Err("the coroutine frame must be a typed non-resource value".into())
            }
            _ => Ok(()),
        },
        InstKind::Load => {
            if !fx.typed(ops[0]) || !fx.is_lvalue(ops[0]) {
                return Err(format!(
                    "operand must be an lvalue (alloca, getelementptr or reference argument), found {}",
                    fx.vty_name(ops[0])
                ));
            }
            if fx.vty(ops[0]) != d.ty {
                return Err(format!(
                    "result type {} differs from the pointee type {}",
                    fx.tname(d.ty),
                    fx.vty_name(ops[0])
                ));
            }
            Ok(())
        }
        InstKind::Store => {
            if !fx.typed(ops[0]) || !fx.is_lvalue(ops[0]) {
                return Err(format!(
                    "the stored-to operand must be an lvalue (alloca, getelementptr or reference argument), found {}",
                    fx.vty_name(ops[0])
                ));
            }
            if !fx.rvalue(ops[1]) {
                return Err(format!(
                    "the stored value must be a typed rvalue, found {}",
                    fx.vty_name(ops[1])
                ));
            }
            if !operand_type_ok(fx, d, 1) {
                return Err(format!(
                    "stored value type {} differs from the pointee type {}",
                    fx.vty_name(ops[1]),
                    fx.vty_name(ops[0])
                ));
            }
            Ok(())
        }
        InstKind::Gep => {
            if !fx.typed(ops[0]) || !fx.is_lvalue(ops[0]) {
                return Err(format!(
                    "the base must be an lvalue (alloca, getelementptr or reference argument), found {}",
                    fx.vty_name(ops[0])
                ));
            }
            let t = indexed_type(fx, fx.vty(ops[0]), &ops[1..])?;
            if !t.is(fx, d.ty) {
                return Err(format!(
                    "result type {} differs from the indexed element type {}",
                    fx.tname(d.ty),
                    t.name(fx)
                ));
            }
            Ok(())
        }
        InstKind::Atomic(op) => check_atomic(fx, *op, d),
        InstKind::Cast(op) => check_cast(fx, *op, d),
        InstKind::Call => check_call(fx, d),
        InstKind::Print { .. } | InstKind::DebugBreak { .. } => {
            for (k, &v) in ops.iter().enumerate() {
                if !fx.data(v) {
                    return Err(format!(
                        "operand {k} must be a data rvalue, found {}",
                        fx.vty_name(v)
                    ));
                }
            }
            Ok(())
        }
        InstKind::Assert { .. } | InstKind::Assume { .. } => {
            if !fx.data(ops[0]) || !operand_type_ok(fx, d, 0) {
                return Err(format!(
                    "condition must be a `bool` rvalue, found {}",
                    fx.vty_name(ops[0])
                ));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn check_return(fx: &Fx<'_, '_>, d: &InstData) -> Result<(), String> {
    match (fx.f.ret, d.operands.first()) {
        (None, None) => Ok(()),
        (None, Some(v)) => Err(format!(
            "returns a value of type {} from a function returning void",
            fx.vty_name(*v)
        )),
        (Some(r), None) => Err(format!(
            "returns no value from a function returning {}",
            fx.tname(Some(r))
        )),
        (Some(r), Some(&v)) => {
            if !fx.rvalue(v) || !operand_type_ok(fx, d, 0) {
                Err(format!(
                    "returned value {} does not match the return type {}",
                    fx.vty_name(v),
                    fx.tname(Some(r))
                ))
            } else {
                Ok(())
            }
        }
    }
}

fn check_atomic(fx: &Fx<'_, '_>, op: AtomicOp, d: &InstData) -> Result<(), String> {
    let ops = &d.operands;
    let vc = atomic_value_count(op);
    let t = d.ty.ok_or("atomics produce a value")?;
    let tys = fx.tys;
    let ok_ty = matches!(
        tys.scalar(t),
        Some(
            ScalarKind::I32 | ScalarKind::U32 | ScalarKind::I64 | ScalarKind::U64 | ScalarKind::F32
        )
    );
    if !ok_ty {
        return Err(format!(
            "atomic result type must be i32, u32, i64, u64 or f32, found {}",
            fx.tname(Some(t))
        ));
    }
    let base = ops[0];
    let indices = &ops[1..ops.len() - vc];
    let buffer_elem = match fx.vdata(base) {
        Some(TypeData::Buffer { elem: Some(e) })
            if fx.resource_arg(base) && !indices.is_empty() =>
        {
            Some(*e)
        }
        _ => None,
    };
    let shared_array = match base {
        Value::Inst(x) => fx.inst(x).is_some_and(|d| {
            matches!(d.kind, InstKind::Alloca(crate::op::AllocaOp::Shared))
                && d.ty.is_some_and(|t| tys.is_array(t))
        }),
        _ => false,
    };
    let start = if let Some(e) = buffer_elem {
        let i0 = indices[0];
        if !fx.data(i0) || !fx.vty(i0).is_some_and(|t| tys.integer_scalar(t)) {
            return Err(format!(
                "index 0 must be an integer scalar rvalue, found {}",
                fx.vty_name(i0)
            ));
        }
        indexed_type(fx, Some(e), &indices[1..])?
    } else if shared_array {
        indexed_type(fx, fx.vty(base), indices)?
    } else {
        return Err(
            "the base must be a typed buffer resource argument (with at least one index) or a shared array alloca"
                .into(),
        );
    };
    if !start.is(fx, Some(t)) {
        return Err(format!(
            "addressed element type {} differs from the result type {}",
            start.name(fx),
            fx.tname(Some(t))
        ));
    }
    for (k, &v) in ops.iter().enumerate().skip(ops.len() - vc) {
        if !fx.data(v) || fx.vty(v) != Some(t) {
            return Err(format!(
                "value operand {k} must be a {} rvalue, found {}",
                fx.tname(Some(t)),
                fx.vty_name(v)
            ));
        }
    }
    if matches!(
        op,
        AtomicOp::FetchAnd | AtomicOp::FetchOr | AtomicOp::FetchXor
    ) && !tys.integer_scalar(t)
    {
        return Err("bitwise atomics need an integer type".into());
    }
    Ok(())
}

fn check_cast(fx: &Fx<'_, '_>, op: CastOp, d: &InstData) -> Result<(), String> {
    let tys = fx.tys;
    let Some(target) = d.ty else {
        return Err("casts produce a value".into());
    };
    if tys.is_resource(target) || tys.is_custom(target) {
        return Err(format!("cannot cast to {}", fx.tname(Some(target))));
    }
    let v = d.operands[0];
    if !fx.data(v) {
        return Err(format!(
            "operand must be a data rvalue, found {}",
            fx.vty_name(v)
        ));
    }
    let Some(src) = fx.vty(v) else {
        return Err("operand is untyped".into());
    };
    let ok = match op {
        CastOp::StaticCast => {
            tys.is_sv(src) && tys.is_sv(target) && tys.dim(src) == tys.dim(target)
        }
        CastOp::BitwiseCast => {
            let width = |t: Type| -> Option<u64> {
                if tys.is_vector(t) {
                    Some(tys.size(tys.element(t)?)? * tys.dim(t)?)
                } else if tys.is_scalar(t) {
                    tys.size(t)
                } else {
                    None
                }
            };
            let reg = tys.is_sv(src)
                && tys.is_sv(target)
                && !tys.bool_sv(src)
                && !tys.bool_sv(target)
                && width(src) == width(target);
            let storage = |t: Type| tys.is_struct(t) || tys.is_array(t);
            reg || (storage(src) && storage(target) && tys.size(src) == tys.size(target))
        }
    };
    if ok {
        return Ok(());
    }
    Err(match op {
        CastOp::StaticCast => format!(
            "static_cast needs scalar or vector types of the same dimension, found {} to {}",
            fx.tname(Some(src)),
            fx.tname(Some(target))
        ),
        CastOp::BitwiseCast => format!(
            "bitwise_cast needs non-bool scalars/vectors of equal width or structs/arrays of equal size, found {} to {}",
            fx.tname(Some(src)),
            fx.tname(Some(target))
        ),
    })
}

/// Upstream `argument_matches`: exact type, and the value category the formal needs.
pub(super) fn argument_matches(fx: &Fx<'_, '_>, kind: ArgKind, ty: Type, actual: Value) -> bool {
    fx.vty(actual) == Some(ty) && argument_category_ok(fx, kind, actual)
}

/// The value category a formal of kind `kind` needs.
fn argument_category_ok(fx: &Fx<'_, '_>, kind: ArgKind, actual: Value) -> bool {
    match kind {
        ArgKind::Resource => {
            matches!(actual, Value::Arg(a) if fx.f.args.get(a).is_some_and(|x| x.kind == ArgKind::Resource))
        }
        ArgKind::Reference => fx.typed(actual) && fx.is_lvalue(actual),
        ArgKind::Value => fx.rvalue(actual),
    }
}

fn check_call(fx: &Fx<'_, '_>, d: &InstData) -> Result<(), String> {
    let Value::Func(g) = d.operands[0] else {
        return Err("operand 0 must be the callee function".into());
    };
    let Some(callee) = fx.m.functions.get(g) else {
        return Err("the callee does not exist".into());
    };
    if d.ty != callee.ret {
        return Err(format!(
            "result type {} differs from the callee's return type {}",
            fx.tname(d.ty),
            fx.tname(callee.ret)
        ));
    }
    let nargs = d.operands.len() - 1;
    if nargs != callee.arg_order.len() {
        return Err(format!(
            "passes {nargs} arguments but {} takes {}",
            fx.vname(crate::value::Value::Func(g)),
            callee.arg_order.len()
        ));
    }
    for (k, (&a, &v)) in callee.arg_order.iter().zip(&d.operands[1..]).enumerate() {
        let Some(formal) = callee.args.get(a) else {
            return Err(format!("the callee's parameter {k} does not exist"));
        };
        if !operand_type_ok(fx, d, k + 1) || !argument_category_ok(fx, formal.kind, v) {
            let need = match formal.kind {
                ArgKind::Value => "an rvalue",
                ArgKind::Reference => "an lvalue",
                ArgKind::Resource => "a resource argument",
            };
            return Err(format!(
                "argument {k} must be {need} of type {}, found {}{}",
                fx.tname(Some(formal.ty)),
                fx.vty_name(v),
                if fx.is_lvalue(v) { " (an lvalue)" } else { "" }
            ));
        }
    }
    Ok(())
}

/// The typing rules of [`crate::typing`] resolved against the function being verified.
impl TypingContext for Fx<'_, '_> {
    #[inline]
    fn value_type(&self, v: Value) -> Option<Type> {
        self.vty(v)
    }
    #[inline]
    fn return_type(&self) -> Option<Type> {
        self.f.ret
    }
    #[inline]
    fn bool_type(&self) -> Option<Type> {
        self.m.types.find(&TypeData::Scalar(ScalarKind::Bool))
    }
    #[inline]
    fn is_bool(&self, t: Type) -> bool {
        self.tys.is_bool(t)
    }
    #[inline]
    fn param_type(&self, g: FuncId, p: usize) -> Option<Type> {
        let callee = self.m.functions.get(g)?;
        Some(callee.args.get(*callee.arg_order.get(p)?)?.ty)
    }
}

//! Type inference for `%N.undefined` operands.
//!
//! Upstream's printer never declares undefined values, so their types are not in the
//! text. xir's printer and parser share this one rule set: the *default* type of an
//! undefined value is what [`infer_operand_type`] says about its first use in print order.
//! The printer emits an explicit `undef %N: T;` prelude declaration only when that default
//! is missing or differs from the real type, so ordinary modules print exactly as
//! upstream and xir's own output stays lossless.

use crate::inst::{InstData, InstKind};
use crate::module::Module;
use crate::op::{ArithSignature as S, Arity, AutodiffIntrinsicOp, ResourceWriteOp, ThreadGroupOp};
use crate::types::{ScalarKind, Type, TypeData};
use crate::typing::{TypingContext, expected_operand_type};
use crate::value::{FuncId, Value};

/// The typing rules of [`crate::typing`] resolved against a module under construction.
struct ModuleContext<'a> {
    module: &'a Module,
    f: FuncId,
}

impl TypingContext for ModuleContext<'_> {
    fn value_type(&self, v: Value) -> Option<Type> {
        self.module.value_type(self.f, v)
    }
    fn return_type(&self) -> Option<Type> {
        self.module.func(self.f).ret
    }
    fn bool_type(&self) -> Option<Type> {
        self.module.types.find(&TypeData::Scalar(ScalarKind::Bool))
    }
    fn param_type(&self, g: FuncId, p: usize) -> Option<Type> {
        let callee = self.module.func(g);
        Some(callee.args[*callee.arg_order.get(p)?].ty)
    }
}

/// The type operand `index` of `inst` (in function `f`) must have, when it follows from
/// the instruction alone (its result type, the pointee type of its pointer operand, the
/// callee signature, or the function's return type): the rules of [`crate::typing`], the
/// ones the verifier checks; otherwise [`default_operand_type`]. Operand types other than
/// the one at `index` are read from `module`, so every other operand must already be
/// resolved.
pub fn infer_operand_type(
    module: &Module,
    f: FuncId,
    inst: &InstData,
    index: usize,
) -> Option<Type> {
    expected_operand_type(&ModuleContext { module, f }, inst, index)
        .or_else(|| default_operand_type(module, f, inst, index))
}

/// The remaining positions where the verifier's typing rules determine an operand's type
/// (exactly, or as one of two valid types), for undefined operands only; the verifier
/// checks these positions with its own per-signature rules. `R` is the result type.
///
/// | instruction, operand | inferred type | also valid |
/// | --- | --- | --- |
/// | `select` condition (2) | `bool` | `vector<bool, N>` for a vector `R` |
/// | comparisons (`binary_less` … `binary_not_equal`), `dot`: either operand | the other operand's type | — |
/// | `lerp` `t` (2), `smoothstep` edges (0, 1), `step` edge (0) | `R` | `R`'s element |
/// | matrix componentwise ops (`matrix_comp_add` …): either operand | `R` | the element, if the other operand is `R` |
/// | `matrix_linalg_mul` (`R` a matrix): either | `R` | — |
/// | `matrix_linalg_mul` (`R` a vector): either | `R` if the other is a matrix, else `matrix<f32, N>` | — |
/// | `outer_product` (`R` a matrix): either | the other operand's type if it is a vector, else `R` | — |
/// | `aggregate` operand k | `R`'s element, column vector or member k | — |
/// | `insert` value (1) | the type `R` indexed by operands 2… (struct indices constant) | — |
/// | atomic value operands (the last 1 or 2) | `R` | — |
/// | `buffer_write`/`buffer_volatile_write` value (2) | the buffer's element type | — |
/// | `texture2d_write`/`texture3d_write` value (2) | `vector<E, 4>` of the texture's element | — |
/// | thread-group ops returning their operand's type (`warp_active_sum`, `warp_read_lane`, `raster_quad_ddx`, …): operand 0 | `R` | — |
/// | `warp_read_lane` lane (1), `shader_execution_reorder` operands | `u32` | — |
/// | `warp_active_all`/`_any`/`_count_bits`/`_bit_mask`, `warp_prefix_count_bits` | `bool` | — |
/// | `raster_set_z_depth*` | `f32` | — |
/// | `autodiff_gradient`/`_detach`/`_output_gradient` value (0) | `R` | — |
/// | `autodiff_gradient_marker`/`_accumulate_gradient`: either | the other operand's type | — |
/// | `autodiff_propagate_gradient` gradients (1…) | operand 0's type | — |
///
/// Where a rule reads another operand's type, that operand must be resolved (an
/// undefined value met earlier in the text, or any defined value). This function only
/// finds types the module has; the parser ([`infer_operand_type_interning`]) interns a
/// constructed one (a `matrix<f32, N>`, a column vector, `vector<E, 4>`, a scalar).
pub fn default_operand_type(
    module: &Module,
    f: FuncId,
    inst: &InstData,
    index: usize,
) -> Option<Type> {
    match default_want(module, f, inst, index)? {
        Want::Have(t) => Some(t),
        Want::Make(d) => module.types.find(&d),
    }
}

/// [`infer_operand_type`] for a reader building `module`: a default type the text has not
/// mentioned yet (a `matrix<f32, N>`, a column vector, `vector<E, 4>`, `bool`) is
/// interned. The printer's [`infer_operand_type`] finds it in the printed module exactly
/// when it is the undefined value's own type, so a reader interning it agrees with the
/// printer's decision to leave the declaration out.
pub fn infer_operand_type_interning(
    module: &mut Module,
    f: FuncId,
    inst: &InstData,
    index: usize,
) -> Option<Type> {
    if let Some(t) = expected_operand_type(&ModuleContext { module, f }, inst, index) {
        return Some(t);
    }
    // A `bool` position (a `cond_br`/`if` condition, an `assert`): the printer leaves the
    // declaration out because its module has `bool`, which the text may never mention.
    let bool_data = TypeData::Scalar(ScalarKind::Bool);
    if module.types.find(&bool_data).is_none() {
        module.types.intern(bool_data);
        if let Some(t) = expected_operand_type(&ModuleContext { module, f }, inst, index) {
            return Some(t);
        }
    }
    match default_want(module, f, inst, index)? {
        Want::Have(t) => Some(t),
        Want::Make(d) => Some(module.types.intern(d)),
    }
}

/// A default type: one the module has, or a structure to find or intern.
enum Want {
    Have(Type),
    Make(TypeData),
}

fn default_want(module: &Module, f: FuncId, inst: &InstData, index: usize) -> Option<Want> {
    let ts = &module.types;
    let ty_of = |k: usize| module.value_type(f, *inst.operands.get(k)?);
    let other = || ty_of(1 - index.min(1));
    let have = |t: Option<Type>| t.map(Want::Have);
    let scalar = |k| Some(Want::Make(TypeData::Scalar(k)));
    match &inst.kind {
        InstKind::Arithmetic(op) => {
            let r = inst.ty?;
            match op.signature() {
                S::Select if index == 2 => scalar(ScalarKind::Bool),
                S::Ordering | S::Equality | S::Dot if index < 2 => have(other()),
                S::Lerp if index == 2 => have(Some(r)),
                S::Smoothstep if index < 2 => have(Some(r)),
                S::Step if index == 0 => have(Some(r)),
                S::MatrixComponentwise if index < 2 => have(Some(r)),
                S::MatrixLinalgMul if index < 2 => match ts.get(r) {
                    TypeData::Matrix { .. } => have(Some(r)),
                    TypeData::Vector { elem, len } => match other().map(|t| ts.get(t)) {
                        Some(TypeData::Matrix { .. }) => have(Some(r)),
                        _ => Some(Want::Make(TypeData::Matrix {
                            elem: *elem,
                            n: *len,
                        })),
                    },
                    _ => None,
                },
                S::OuterProduct if index < 2 => match other() {
                    Some(t) if matches!(ts.get(t), TypeData::Vector { .. }) => have(Some(t)),
                    _ => have(matches!(ts.get(r), TypeData::Matrix { .. }).then_some(r)),
                },
                S::Aggregate => match ts.get(r) {
                    TypeData::Vector { elem, .. }
                    | TypeData::Array { elem, .. }
                    | TypeData::CoopVector { elem, .. } => have(Some(*elem)),
                    TypeData::Matrix { elem, n } => Some(Want::Make(TypeData::Vector {
                        elem: *elem,
                        len: *n,
                    })),
                    TypeData::Struct { members, .. } => have(members.get(index).copied()),
                    _ => None,
                },
                S::Insert if index == 1 => indexed_type(module, r, inst.operands.get(2..)?),
                _ => None,
            }
        }
        InstKind::Atomic(op) => {
            let values = match op.arity() {
                Arity::Exact(k) => k as usize,
                _ => 1,
            };
            have((index >= 1 && index + values >= inst.operands.len()).then_some(inst.ty)?)
        }
        InstKind::ThreadGroup(op) => {
            use ThreadGroupOp as T;
            match op {
                T::RasterQuadDdx
                | T::RasterQuadDdy
                | T::WarpActiveBitAnd
                | T::WarpActiveBitOr
                | T::WarpActiveBitXor
                | T::WarpActiveMax
                | T::WarpActiveMin
                | T::WarpActiveProduct
                | T::WarpActiveSum
                | T::WarpPrefixSum
                | T::WarpPrefixProduct
                | T::WarpReadFirstActiveLane
                | T::WarpReadLane
                    if index == 0 =>
                {
                    have(inst.ty)
                }
                T::WarpReadLane | T::ShaderExecutionReorder => scalar(ScalarKind::U32),
                T::WarpActiveCountBits
                | T::WarpPrefixCountBits
                | T::WarpActiveAll
                | T::WarpActiveAny
                | T::WarpActiveBitMask => scalar(ScalarKind::Bool),
                T::RasterSetZDepth
                | T::RasterSetZDepthGreaterEqual
                | T::RasterSetZDepthLessEqual => scalar(ScalarKind::F32),
                _ => None,
            }
        }
        InstKind::AutodiffIntrinsic(op) => match op {
            AutodiffIntrinsicOp::Gradient
            | AutodiffIntrinsicOp::Detach
            | AutodiffIntrinsicOp::OutputGradient
                if index == 0 =>
            {
                have(inst.ty)
            }
            AutodiffIntrinsicOp::GradientMarker | AutodiffIntrinsicOp::AccumulateGradient
                if index < 2 =>
            {
                have(other())
            }
            AutodiffIntrinsicOp::PropagateGradient if index >= 1 => have(ty_of(0)),
            _ => None,
        },
        InstKind::ResourceWrite(op, _) if index == 2 => {
            let base = ts.get(ty_of(0)?);
            match (op, base) {
                (
                    ResourceWriteOp::BufferWrite | ResourceWriteOp::BufferVolatileWrite,
                    TypeData::Buffer { elem },
                ) => have(*elem),
                (
                    ResourceWriteOp::Texture2dWrite | ResourceWriteOp::Texture3dWrite,
                    TypeData::Texture { elem, .. },
                ) => Some(Want::Make(TypeData::Vector {
                    elem: *elem,
                    len: 4,
                })),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `t` indexed by `indices` as `extract`/`insert` index it (struct indices must be
/// integer constants).
fn indexed_type(module: &Module, t: Type, indices: &[Value]) -> Option<Want> {
    let ts = &module.types;
    let mut cur = Want::Have(t);
    for &i in indices {
        let t = match cur {
            Want::Have(t) => t,
            // A matrix column: indexing it gives its element.
            Want::Make(TypeData::Vector { elem, .. }) => {
                cur = Want::Have(elem);
                continue;
            }
            Want::Make(_) => return None,
        };
        cur = match ts.get(t) {
            TypeData::Vector { elem, .. }
            | TypeData::Array { elem, .. }
            | TypeData::CoopVector { elem, .. } => Want::Have(*elem),
            TypeData::Matrix { elem, n } => Want::Make(TypeData::Vector {
                elem: *elem,
                len: *n,
            }),
            TypeData::Struct { members, .. } => {
                let Value::Const(c) = i else { return None };
                let bytes = &module.constants.get(c)?.bytes;
                let signed = ts
                    .scalar_kind(module.constants[c].ty)
                    .is_some_and(|k| k.is_signed_int());
                let mut le = [0u8; 8];
                let n = bytes.len().min(8);
                le[..n].copy_from_slice(&bytes[..n]);
                let v = u64::from_le_bytes(le);
                if signed && n > 0 && bytes[n - 1] & 0x80 != 0 {
                    return None;
                }
                Want::Have(*members.get(usize::try_from(v).ok()?)?)
            }
            _ => return None,
        };
    }
    Some(cur)
}

/// Convenience: whether `v` is an undefined value.
pub fn is_undef(v: Value) -> bool {
    matches!(v, Value::Undef(_))
}

//! `algebraic-simplify` — peephole identities on `arithmetic` instructions.
//!
//! **What:** replaces an `arithmetic` instruction by an operand, a constant or a cheaper
//! instruction where an algebraic identity proves them equal (upstream
//! `src/xir/passes/algebraic_simplify.cpp`, LuisaGroup/LuisaCompute commit `2fb43a2`,
//! the version that retains annotated instructions):
//!
//! | op | rewrite | when |
//! |---|---|---|
//! | `binary_add` | `x + 0`, `0 + x` → `x` | not float (`-0 + 0 = +0`) |
//! | `binary_sub` | `x - 0` → `x` | integer zero, or float `+0` (not `-0`: `+0 - -0 = +0`) |
//! | `binary_sub` | `x - x` → `0` | not float, or `enable-fast-math` (`NaN - NaN`, `inf - inf`) |
//! | `binary_mul` | `x * 1`, `1 * x` → `x` | any numeric type |
//! | `binary_mul` | `x * 0`, `0 * x` → `0` | not float (`NaN·0`, `-1·0`), even under fast math |
//! | `binary_div` | `x / 1` → `x` | any numeric type |
//! | `binary_div` | `0 / C` → `0` | integer `C` with every lane non-zero |
//! | `binary_div` | `x / 2^k` → `x >> k` | unsigned, uniform power-of-two divisor (signed: `-3/2 ≠ -3>>1`) |
//! | `binary_mod` | `x % 2^k` → `x & (2^k - 1)` | unsigned, uniform power-of-two divisor |
//! | `binary_bit_and` | `x & 0`, `0 & x` → `0` | |
//! | `binary_bit_or/xor` | `x | 0`, `0 ^ x` … → `x` | |
//! | `binary_shift_left/right` | `x << 0`, `x >> 0` → `x` | |
//! | `unary_minus` | `-0` → `0` | not float (`-(+0) = -0`) |
//! | `select` | `select(f, t, true/false)` → `t`/`f`; `select(x, x, c)` → `x` | constant scalar `bool` condition |
//! | `extract` | of an `aggregate` → the element; through `insert`s at provably different indices; of an `insert` at the same indices → the inserted value | constant indices (or the same index value) |
//! | `aggregate` | of `extract`s of one vector at constant in-range indices → that vector (identity order) or a `shuffle` | vector result of the same element type |
//! | `insert` | into an `aggregate` → a new `aggregate`; over an `insert` at the same indices → skips it; a full chain of single-index inserts into an undefined value → an `aggregate` | constant indices |
//!
//! Integer arithmetic wraps (docs/semantics.md), so the integer identities hold for
//! every input; division by zero and `MIN / -1` are never introduced or removed (the
//! divisor of every rewritten division is a non-zero constant). Floats keep NaN, infinity
//! and signed zero exactly: `enable-fast-math` unlocks only float `x - x → 0`, as
//! upstream's unit tests assert (`x * 0` and `x + 0` stay).
//!
//! **Algorithm:** one walk over the arithmetic instructions, reachable blocks in reverse
//! post-order first (definitions before uses, so `(x * 1) + 0` simplifies completely),
//! then unreachable ones; every replacement reroutes all uses through the
//! [`Rewriter`](xir_ir::edit::Rewriter) at once and removes the instruction. Phis are not
//! arithmetic and are never touched.
//!
//! **Metadata:** an instruction carrying metadata is retained unchanged (a shared operand
//! or constant cannot own it; upstream does the same).
//!
//! **Differences from upstream:** upstream recognises the constants `0` and `1` only in
//! 32-bit (`i32`/`u32`/`f32`) scalars and vectors, and power-of-two divisors only in
//! `u32`/`u64`; here every integer width, `f16`/`f64`, and `bool` zero (`x | false`) are
//! recognised, since each identity holds at every width. Upstream's `extract` walk
//! accepts an `aggregate` operand list of any length; here an `extract` of a vector
//! `aggregate` needs a single index, as upstream's.
//!
//! **Preconditions:** none (structured or plain CFG). **Refusals:** none; instructions no
//! identity matches stay.
//!
//! **Report keys:** `simplified_inst` (instructions replaced or rewritten in place).
//!
//! **Example:**
//! ```text
//! %a: u32 = arithmetic binary_mul %x, %one;       // gone: uses of %a read %x
//! %b: u32 = arithmetic binary_div %a, %eight;     // %b: u32 = arithmetic binary_shift_right %x, %three
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::registry::{PassOptionInfo, PassOptions};
use crate::util::constant::{const_lanes, splat_bytes};
use crate::util::edit::insts_in_rpo;
use smallvec::SmallVec;
use xir_ir::analysis::Cfg;
use xir_ir::constant::ScalarValue;
use xir_ir::edit::{InsertPoint, InstBuilder, Rewriter};
use xir_ir::op::ArithmeticOp as A;
use xir_ir::{FuncId, InstId, InstKind, Module, ScalarKind, Type, TypeData, Value};

/// The `algebraic-simplify` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct AlgebraicSimplify {
    /// Also rewrite float `x - x` to `0` (upstream `AlgebraicSimplifyOptions`).
    pub enable_fast_math: bool,
}

crate::declare_pass! {
    AlgebraicSimplify: function pass "algebraic-simplify" {
        summary: "Peephole identities on arithmetic (x*1, x+0, x-x, unsigned x/2^k, select, extract/insert folds); NaN, infinity and signed zero kept.",
        form: Either,
        options: [
            PassOptionInfo {
                name: "enable-fast-math",
                default: "false",
                help: "also rewrite float x - x to 0 (NaN and infinity inputs then differ)",
            },
        ],
        create: |o: &PassOptions| Ok::<_, String>(AlgebraicSimplify {
            enable_fast_math: o.get_bool("enable-fast-math", false)?,
        }),
        counters: AlgebraicSimplifyCounters {
            /// Instructions replaced (by an operand, a constant or a new instruction) or
            /// rewritten in place.
            simplified_inst: Instructions,
        }
    }
}

/// Longest insert chain turned into one `aggregate`.
const MAX_CHAIN: u64 = 64;

/// What one identity does to an instruction.
enum Outcome {
    /// Nothing matched.
    Keep,
    /// Every use now reads this value; the instruction goes.
    Replace(Value),
    /// An operand was changed in place.
    Rewritten,
}

impl FunctionPass for AlgebraicSimplify {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        cx: &mut PassContext,
        counters: &mut AlgebraicSimplifyCounters,
    ) -> Result<(), PassError> {
        let order = arithmetic_in_rpo(module, f, cx);
        let mut rw = Rewriter::for_module(module, f);
        for i in order {
            match simplify(&mut rw, i, self.enable_fast_math) {
                Outcome::Keep => continue,
                Outcome::Replace(v) => {
                    rw.replace_all_uses(Value::Inst(i), v);
                    rw.remove(i);
                }
                Outcome::Rewritten => {}
            }
            counters.simplified_inst += 1;
        }
        Ok(())
    }
}

/// The unannotated `arithmetic` instructions of `f` with a result, definitions first.
fn arithmetic_in_rpo(module: &Module, f: FuncId, cx: &mut PassContext) -> Vec<InstId> {
    let cfg = cx.analyses.get::<Cfg>(module, f);
    let func = module.func(f);
    insts_in_rpo(func, &cfg.rpo)
        .into_iter()
        .filter(|i| {
            let d = &func.insts[*i];
            matches!(d.kind, InstKind::Arithmetic(_)) && d.metadata.is_empty() && d.ty.is_some()
        })
        .collect()
}

/// Lanes of constant `v`, if it is a scalar or vector constant.
fn lanes(rw: &mut Rewriter, v: Value) -> Option<(ScalarKind, SmallVec<[ScalarValue; 4]>)> {
    let g = rw.globals();
    const_lanes(g.types, g.constants, v)
}

/// Whether `v` is a scalar or vector constant every lane of which satisfies `p`.
fn every_lane(rw: &mut Rewriter, v: Value, p: impl Fn(ScalarValue) -> bool) -> bool {
    lanes(rw, v).is_some_and(|(_, l)| l.iter().all(|x| p(*x)))
}

fn is_zero(x: ScalarValue) -> bool {
    match x {
        ScalarValue::Bool(b) => !b,
        ScalarValue::Int(n) => n == 0,
        ScalarValue::UInt(n) => n == 0,
        ScalarValue::Float(f) => f == 0.0,
    }
}

fn is_one(x: ScalarValue) -> bool {
    match x {
        ScalarValue::Bool(_) => false,
        ScalarValue::Int(n) => n == 1,
        ScalarValue::UInt(n) => n == 1,
        ScalarValue::Float(f) => f == 1.0,
    }
}

fn is_positive_float_zero(x: ScalarValue) -> bool {
    matches!(x, ScalarValue::Float(f) if f == 0.0 && f.is_sign_positive())
}

fn is_nonzero_int(x: ScalarValue) -> bool {
    matches!(x, ScalarValue::Int(n) if n != 0) || matches!(x, ScalarValue::UInt(n) if n != 0)
}

/// A constant non-negative integer index.
fn const_index(rw: &mut Rewriter, v: Value) -> Option<u64> {
    let (_, l) = lanes(rw, v)?;
    match l.as_slice() {
        [ScalarValue::UInt(n)] => Some(*n),
        [ScalarValue::Int(n)] => u64::try_from(*n).ok(),
        _ => None,
    }
}

/// Two index operands that are certainly equal: the same value, or equal constants.
fn indices_equal(rw: &mut Rewriter, a: Value, b: Value) -> bool {
    if a == b && a.as_const().is_none() {
        return true;
    }
    matches!((const_index(rw, a), const_index(rw, b)), (Some(x), Some(y)) if x == y)
}

/// Two index operands that are certainly different (different constants).
fn indices_differ(rw: &mut Rewriter, a: Value, b: Value) -> bool {
    matches!((const_index(rw, a), const_index(rw, b)), (Some(x), Some(y)) if x != y)
}

/// Whether `t` has float lanes (scalar, vector or matrix of floats).
fn is_float_like(rw: &mut Rewriter, t: Type) -> bool {
    let types = &*rw.globals().types;
    match types.get(t) {
        TypeData::Matrix { .. } => true,
        _ => types.scalar_or_vector_elem(t).is_some_and(|k| k.is_float()),
    }
}

fn is_unsigned(rw: &mut Rewriter, t: Type) -> bool {
    rw.globals()
        .types
        .scalar_or_vector_elem(t)
        .is_some_and(|k| k.is_unsigned_int())
}

/// The all-zero constant of `t`.
fn zero(rw: &mut Rewriter, t: Type) -> Value {
    let g = rw.globals();
    let size = g.types.size_of(t) as usize;
    Value::Const(g.constant(t, &vec![0; size]))
}

/// The constant of scalar or vector type `t` with every lane `n`.
fn splat(rw: &mut Rewriter, t: Type, n: u64) -> Option<Value> {
    let g = rw.globals();
    let bytes = splat_bytes(g.types, t, ScalarValue::UInt(n))?;
    Some(Value::Const(g.constant(t, &bytes)))
}

/// The arithmetic instruction defining `v`, if any: its op and operands.
fn def_of(rw: &Rewriter, v: Value) -> Option<(A, SmallVec<[Value; 3]>)> {
    let Value::Inst(i) = v else { return None };
    let d = rw.inst(i);
    match d.kind {
        InstKind::Arithmetic(op) => Some((op, d.operands.clone())),
        _ => None,
    }
}

/// Applies the first identity that matches instruction `i`.
fn simplify(rw: &mut Rewriter, i: InstId, fast_math: bool) -> Outcome {
    let d = rw.inst(i);
    let (&InstKind::Arithmetic(op), Some(ty)) = (&d.kind, d.ty) else {
        return Outcome::Keep;
    };
    let ops: SmallVec<[Value; 3]> = d.operands.clone();
    let float = is_float_like(rw, ty);
    let keep = Outcome::Keep;
    let replace = |v: Value| Outcome::Replace(v);
    match (op, ops.as_slice()) {
        (A::BinaryAdd, &[x, y]) if !float => {
            if every_lane(rw, y, is_zero) {
                return replace(x);
            }
            if every_lane(rw, x, is_zero) {
                return replace(y);
            }
            keep
        }
        (A::BinarySub, &[x, y]) => {
            let zero_rhs = if float {
                every_lane(rw, y, is_positive_float_zero)
            } else {
                every_lane(rw, y, is_zero)
            };
            if zero_rhs {
                return replace(x);
            }
            if x == y && (!float || fast_math) {
                return replace(zero(rw, ty));
            }
            keep
        }
        (A::BinaryMul, &[x, y]) => {
            if every_lane(rw, y, is_one) {
                return replace(x);
            }
            if every_lane(rw, x, is_one) {
                return replace(y);
            }
            if !float && (every_lane(rw, x, is_zero) || every_lane(rw, y, is_zero)) {
                return replace(zero(rw, ty));
            }
            keep
        }
        (A::BinaryDiv, &[x, y]) => {
            if every_lane(rw, y, is_one) {
                return replace(x);
            }
            if !float && every_lane(rw, x, is_zero) && every_lane(rw, y, is_nonzero_int) {
                return replace(zero(rw, ty));
            }
            power_of_two_rewrite(rw, i, ty, x, y, A::BinaryShiftRight, |d| {
                u64::from(d.trailing_zeros())
            })
        }
        (A::BinaryMod, &[x, y]) => {
            power_of_two_rewrite(rw, i, ty, x, y, A::BinaryBitAnd, |d| d - 1)
        }
        (A::BinaryBitAnd, &[x, y]) => {
            if every_lane(rw, x, is_zero) || every_lane(rw, y, is_zero) {
                return replace(zero(rw, ty));
            }
            keep
        }
        (A::BinaryBitOr | A::BinaryBitXor, &[x, y]) => {
            if every_lane(rw, y, is_zero) {
                return replace(x);
            }
            if every_lane(rw, x, is_zero) {
                return replace(y);
            }
            keep
        }
        (A::BinaryShiftLeft | A::BinaryShiftRight, &[x, s]) => {
            if every_lane(rw, s, is_zero) {
                return replace(x);
            }
            keep
        }
        (A::UnaryMinus, &[x]) if !float && every_lane(rw, x, is_zero) => replace(x),
        (A::Select, &[f, t, c]) => {
            if let Some((ScalarKind::Bool, l)) = lanes(rw, c)
                && let [ScalarValue::Bool(b)] = l.as_slice()
            {
                return replace(if *b { t } else { f });
            }
            if f == t {
                return replace(f);
            }
            keep
        }
        (A::Extract, [..]) if ops.len() >= 2 => simplify_extract(rw, i, &ops),
        (A::Aggregate, [..]) if !ops.is_empty() => simplify_aggregate(rw, i, ty, &ops),
        (A::Insert, &[base, value, idx]) => simplify_insert(rw, i, ty, base, value, idx),
        (A::Insert, [..]) if ops.len() > 3 && const_index(rw, ops[2]).is_some() => {
            // Multi-index insert over an insert at the same indices: skip the inner one.
            skip_shadowed_insert(rw, i, &ops)
        }
        _ => keep,
    }
}

/// Unsigned `x op 2^k` → `x new_op operand(2^k)` (`>> k` for division, `& (2^k-1)` for
/// remainder), for a divisor whose lanes are all the same power of two.
fn power_of_two_rewrite(
    rw: &mut Rewriter,
    i: InstId,
    ty: Type,
    x: Value,
    y: Value,
    new_op: A,
    operand: impl Fn(u64) -> u64,
) -> Outcome {
    if !is_unsigned(rw, ty) {
        return Outcome::Keep;
    }
    let Some((_, l)) = lanes(rw, y) else {
        return Outcome::Keep;
    };
    let Some(ScalarValue::UInt(d)) = l.first().copied() else {
        return Outcome::Keep;
    };
    if !d.is_power_of_two() || l.iter().any(|x| *x != ScalarValue::UInt(d)) {
        return Outcome::Keep;
    }
    let Some(c) = splat(rw, ty, operand(d)) else {
        return Outcome::Keep;
    };
    Outcome::Replace(rw.at(InsertPoint::Before(i)).arith(new_op, ty, &[x, c]))
}

/// `extract`: of an `aggregate` at a constant index → the element; of an `insert` at the
/// same indices → the inserted value; through inserts at provably different indices →
/// the same extract from the older aggregate (in place).
fn simplify_extract(rw: &mut Rewriter, i: InstId, ops: &[Value]) -> Outcome {
    let indices = &ops[1..];
    if const_index(rw, indices[0]).is_none() {
        return Outcome::Keep;
    }
    let mut src = ops[0];
    while let Some((op, sops)) = def_of(rw, src) {
        match op {
            A::Aggregate => {
                if let [only] = indices
                    && let Some(k) = const_index(rw, *only)
                    && let Some(e) = sops.get(k as usize)
                {
                    return Outcome::Replace(*e);
                }
                break;
            }
            A::Insert if sops.len() >= 3 => {
                let inner = &sops[2..];
                let mut all_equal = inner.len() == indices.len();
                let mut differ = false;
                for (a, b) in indices.iter().zip(inner) {
                    all_equal &= indices_equal(rw, *a, *b);
                    if indices_differ(rw, *a, *b) {
                        differ = true;
                        break;
                    }
                }
                if all_equal {
                    return Outcome::Replace(sops[1]);
                }
                if !differ {
                    break;
                }
                src = sops[0];
            }
            _ => break,
        }
    }
    if src != ops[0] {
        rw.set_operand(i, 0, src);
        return Outcome::Rewritten;
    }
    Outcome::Keep
}

/// `aggregate` of `extract`s of one vector at constant in-range indices: the vector
/// itself (same type, indices `0, 1, …`) or a `shuffle`.
fn simplify_aggregate(rw: &mut Rewriter, i: InstId, ty: Type, ops: &[Value]) -> Outcome {
    let Some(elem) = vector_elem(rw, ty) else {
        return Outcome::Keep;
    };
    let mut src = None;
    let mut shuffle: SmallVec<[Value; 5]> = SmallVec::new();
    let mut identity = true;
    for (k, v) in ops.iter().enumerate() {
        let Some((A::Extract, eops)) = def_of(rw, *v) else {
            return Outcome::Keep;
        };
        let [s, idx] = eops[..] else {
            return Outcome::Keep;
        };
        if *src.get_or_insert(s) != s {
            return Outcome::Keep;
        }
        let Some(st) = rw.value_type(s) else {
            return Outcome::Keep;
        };
        let (Some(se), Some(dim)) = (vector_elem(rw, st), rw.globals().types.dimension(st))
        else {
            return Outcome::Keep;
        };
        let Some(n) = const_index(rw, idx) else {
            return Outcome::Keep;
        };
        if se != elem || n >= u64::from(dim) {
            return Outcome::Keep;
        }
        identity &= n == k as u64 && st == ty;
        if shuffle.is_empty() {
            shuffle.push(s);
        }
        shuffle.push(idx);
    }
    if identity {
        return Outcome::Replace(shuffle[0]);
    }
    Outcome::Replace(rw.at(InsertPoint::Before(i)).arith(A::Shuffle, ty, &shuffle))
}

/// The element type of vector type `t`.
fn vector_elem(rw: &mut Rewriter, t: Type) -> Option<Type> {
    match rw.globals().types.get(t) {
        TypeData::Vector { elem, .. } => Some(*elem),
        _ => None,
    }
}

/// Single-index `insert`: into an `aggregate` → a new `aggregate`; over an insert at the
/// same index → skip it (in place); the last slot of a chain of inserts filling every slot
/// of a vector or array from an undefined value → an `aggregate`.
fn simplify_insert(
    rw: &mut Rewriter,
    i: InstId,
    ty: Type,
    base: Value,
    value: Value,
    idx: Value,
) -> Outcome {
    let Some(k) = const_index(rw, idx) else {
        return Outcome::Keep;
    };
    match def_of(rw, base) {
        Some((A::Aggregate, elems)) if (k as usize) < elems.len() => {
            let mut elems = elems;
            elems[k as usize] = value;
            return Outcome::Replace(rw.at(InsertPoint::Before(i)).arith(A::Aggregate, ty, &elems));
        }
        Some((A::Insert, _)) => {
            if let Outcome::Rewritten = skip_shadowed_insert(rw, i, &[base, value, idx]) {
                return Outcome::Rewritten;
            }
        }
        _ => {}
    }
    let dim = match rw.globals().types.get(ty) {
        TypeData::Vector { len, .. } => u64::from(*len),
        TypeData::Array { len, .. } => *len,
        _ => return Outcome::Keep,
    };
    // The bound keeps the element list small for huge arrays (a chain that long is not
    // built by hand, and upstream's builder never emits one).
    if dim == 0 || k != dim - 1 || dim > MAX_CHAIN {
        return Outcome::Keep;
    }
    let mut elems = vec![value; dim as usize];
    let mut cur = base;
    for slot in (0..dim - 1).rev() {
        let Some((A::Insert, cops)) = def_of(rw, cur) else {
            return Outcome::Keep;
        };
        let [cbase, cval, cidx] = cops[..] else {
            return Outcome::Keep;
        };
        if const_index(rw, cidx) != Some(slot) {
            return Outcome::Keep;
        }
        elems[slot as usize] = cval;
        cur = cbase;
    }
    if !matches!(cur, Value::Undef(_)) {
        return Outcome::Keep;
    }
    Outcome::Replace(rw.at(InsertPoint::Before(i)).arith(A::Aggregate, ty, &elems))
}

/// `insert(insert(a, v1, I), v2, I)` → `insert(a, v2, I)` (in place) when the index
/// lists are certainly equal.
fn skip_shadowed_insert(rw: &mut Rewriter, i: InstId, ops: &[Value]) -> Outcome {
    let Some((A::Insert, inner)) = def_of(rw, ops[0]) else {
        return Outcome::Keep;
    };
    if inner.len() != ops.len() {
        return Outcome::Keep;
    }
    for (a, b) in ops[2..].iter().zip(&inner[2..]) {
        if !indices_equal(rw, *a, *b) {
            return Outcome::Keep;
        }
    }
    rw.set_operand(i, 0, inner[0]);
    Outcome::Rewritten
}

//! What the opt-in plain-CFG loop passes (`loop-rotation`, `loop-unswitch`,
//! `loop-fusion`, `loop-vectorization`) share: the module-wide structured-control-flow
//! refusal, the natural loops of a function in upstream's visiting order, and the
//! counted-loop analysis (upstream's `analyze_loop_bounds` in `natural_loop.cpp`, read at
//! LuisaCompute `16ba40f5`; facts only).
//!
//! A *counted loop* has a preheader, one latch, one exit edge and it leaves from the
//! header, whose `cond_br` tests an integer comparison (`<`, `<=`, `>`, `>=`, `==`, `!=`)
//! between an induction phi `iv` and a bound. `iv` is the first integer header phi with
//! exactly two incomings, `start` from the preheader and `iv + stride` (a `binary_add`
//! of `iv`'s type) from the latch, whose stride is not the constant 0. The trip count is
//! known when start, bound and stride are integer constants, the stride is positive, the
//! continuation predicate is equivalent to `iv < bound` (operand order and branch polarity
//! both counted), and `iv` reaches its last value without wrapping its type:
//! `ceil((bound - start) / stride)`, or 0 when `bound <= start`.

use xir_ir::analysis::{Cfg, DomTree, LoopData, LoopForest};
use xir_ir::constant::{ScalarValue, read_scalar};
use xir_ir::inst::InstKind;
use xir_ir::op::ArithmeticOp;
use xir_ir::types::ScalarKind;
use xir_ir::{BlockId, FuncId, Function, InstId, Module, Value};

/// `Some((functions, message))` when a function of `module` holds structured control
/// flow: upstream's loop passes then leave the whole module untouched and count each
/// such function in `structured_cfg_error_count`.
pub fn structured_refusal(module: &Module, pass: &str) -> Option<(u64, String)> {
    let structured: Vec<FuncId> = module
        .func_order
        .iter()
        .copied()
        .filter(|f| crate::form::has_structured_control_flow(module.func(*f), false))
        .collect();
    let first = *structured.first()?;
    Some((
        structured.len() as u64,
        format!(
            "{pass} needs plain control flow: {} (and {} function(s) in all) has structured \
             control flow; run destructure-cfg first",
            crate::form::describe_function(module, first),
            structured.len()
        ),
    ))
}

/// The natural loops of `func` in upstream's order: ascending number of blocks (inner
/// loops before the loops around them), ties in header reverse post-order.
pub fn natural_loops(func: &Function) -> Vec<LoopData> {
    loops_and_dom(func).0
}

/// [`natural_loops`] and the dominator tree they were found with.
pub fn loops_and_dom(func: &Function) -> (Vec<LoopData>, DomTree) {
    let cfg = Cfg::compute(func);
    let dom = DomTree::compute(func, &cfg);
    if func.body.is_none() {
        return (Vec::new(), dom);
    }
    let forest = LoopForest::compute(&cfg, &dom);
    let mut loops: Vec<LoopData> = forest.loops().map(|(_, l)| l.clone()).collect();
    loops.sort_by_key(|l| l.blocks.len());
    (loops, dom)
}

/// Whether `b` is a block of loop `l`.
pub fn in_loop(l: &LoopData, b: BlockId) -> bool {
    l.blocks.contains(&b)
}

/// Whether loop `l` holds the header of another loop of `all` (is not innermost).
pub fn has_nested_loop(l: &LoopData, all: &[LoopData]) -> bool {
    all.iter()
        .any(|o| o.header != l.header && in_loop(l, o.header))
}

/// The block of the instruction defining `v` inside `func`, if `v` is a placed
/// instruction.
pub fn def_block(func: &Function, v: Value) -> Option<BlockId> {
    match v {
        Value::Inst(i) => func.insts[i].block,
        _ => None,
    }
}

/// A counted loop (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct LoopBounds {
    /// The induction phi.
    pub iv: InstId,
    /// Its incoming from the preheader.
    pub start: Value,
    /// Its incoming from the latch: `iv + stride`.
    pub recurrence: InstId,
    /// The comparison's other operand.
    pub bound: Value,
    /// The header's comparison.
    pub cmp: InstId,
    /// Its op.
    pub cmp_op: ArithmeticOp,
    /// The header's successor inside the loop.
    pub body_entry: BlockId,
    /// The header's successor outside the loop.
    pub exit: BlockId,
    /// Whether the loop continues when the comparison is true.
    pub continue_on_true: bool,
    /// Whether `iv` is the comparison's first operand.
    pub iv_is_lhs: bool,
    /// Whether continuing is equivalent to `iv < bound`.
    pub strict_less: bool,
    /// The stride, when it is an integer constant.
    pub stride: Option<i64>,
    /// The number of iterations, when known.
    pub trip_count: Option<u64>,
}

/// An integer constant as `i64` (`None` for other values and for `u64` above `i64::MAX`).
pub fn int_constant(module: &Module, v: Value) -> Option<i64> {
    let Value::Const(c) = v else { return None };
    let d = &module.constants[c];
    let k = module.types.scalar_kind(d.ty)?;
    if !is_int(k) {
        return None;
    }
    match read_scalar(k, &d.bytes)? {
        ScalarValue::Int(x) => Some(x),
        ScalarValue::UInt(x) => i64::try_from(x).ok(),
        _ => None,
    }
}

/// Whether `k` is an integer kind the loop analyses handle (8 to 64 bits).
pub fn is_int(k: ScalarKind) -> bool {
    use ScalarKind as S;
    matches!(
        k,
        S::I8 | S::U8 | S::I16 | S::U16 | S::I32 | S::U32 | S::I64 | S::U64
    )
}

/// Whether `k` is signed.
fn is_signed(k: ScalarKind) -> bool {
    matches!(
        k,
        ScalarKind::I8 | ScalarKind::I16 | ScalarKind::I32 | ScalarKind::I64
    )
}

/// Whether `start + trip * stride` stays within the range of `k` (the recurrence does
/// not wrap before the last, failing test).
fn stays_in_range(k: ScalarKind, start: i64, trip: u64, stride: u64) -> bool {
    if trip == 0 {
        return true;
    }
    let bits = (k.size() * 8) as u32;
    let max: u64 = match (is_signed(k), bits) {
        (true, 64) => i64::MAX as u64,
        (true, b) => (1u64 << (b - 1)) - 1,
        (false, 64) => u64::MAX,
        (false, b) => {
            if start < 0 {
                return false;
            }
            (1u64 << b) - 1
        }
    };
    let room = max.wrapping_sub(start as u64);
    stride != 0 && trip <= room / stride
}

/// The counted-loop facts of `l` in function `f`, if it is one.
pub fn analyze_bounds(module: &Module, f: FuncId, l: &LoopData) -> Option<LoopBounds> {
    let func = module.func(f);
    let preheader = l.preheader?;
    let [latch] = l.latches[..] else { return None };
    let [(from, _)] = l.exiting_edges[..] else {
        return None;
    };
    if from != l.header {
        return None;
    }
    // The induction phi: the first integer phi `(start, preheader), (iv + s, latch)`.
    let mut found = None;
    for &p in &func.blocks[l.header].insts {
        let d = &func.insts[p];
        if !d.is_phi() {
            break;
        }
        let Some(k) = d.ty.and_then(|t| module.types.scalar_kind(t)) else {
            continue;
        };
        if !is_int(k) || d.phi_len() != 2 {
            continue;
        }
        let (mut start, mut rec) = (None, None);
        for (v, b) in d.phi_incoming() {
            if b == preheader {
                start = Some(v);
            } else if b == latch {
                rec = Some(v);
            }
        }
        let (Some(start), Some(Value::Inst(rec))) = (start, rec) else {
            continue;
        };
        let r = &func.insts[rec];
        if !matches!(r.kind, InstKind::Arithmetic(ArithmeticOp::BinaryAdd))
            || r.operands.len() != 2
            || r.ty != d.ty
        {
            continue;
        }
        let step = if r.operands[0] == Value::Inst(p) {
            r.operands[1]
        } else if r.operands[1] == Value::Inst(p) {
            r.operands[0]
        } else {
            continue;
        };
        let stride = int_constant(module, step);
        if stride == Some(0) {
            continue;
        }
        found = Some((p, k, start, rec, stride));
        break;
    }
    let (iv, kind, start, recurrence, stride) = found?;
    let t = func.terminator(l.header)?;
    let td = &func.insts[t];
    if !matches!(td.kind, InstKind::ConditionalBranch) {
        return None;
    }
    let Value::Inst(cmp) = td.operands[0] else {
        return None;
    };
    let cd = &func.insts[cmp];
    let InstKind::Arithmetic(cmp_op) = cd.kind else {
        return None;
    };
    use ArithmeticOp as A;
    if !matches!(
        cmp_op,
        A::BinaryLess
            | A::BinaryLessEqual
            | A::BinaryGreater
            | A::BinaryGreaterEqual
            | A::BinaryEqual
            | A::BinaryNotEqual
    ) || cd.operands.len() != 2
    {
        return None;
    }
    let (bound, iv_is_lhs) = if cd.operands[0] == Value::Inst(iv) {
        (cd.operands[1], true)
    } else if cd.operands[1] == Value::Inst(iv) {
        (cd.operands[0], false)
    } else {
        return None;
    };
    let (tt, ft) = (td.operands[1].as_block()?, td.operands[2].as_block()?);
    let (t_in, f_in) = (in_loop(l, tt), in_loop(l, ft));
    if t_in == f_in {
        return None;
    }
    let (body_entry, exit) = if t_in { (tt, ft) } else { (ft, tt) };
    if exit != l.exiting_edges[0].1 {
        return None;
    }
    let strict_less = if iv_is_lhs {
        (t_in && cmp_op == A::BinaryLess) || (!t_in && cmp_op == A::BinaryGreaterEqual)
    } else {
        (t_in && cmp_op == A::BinaryGreater) || (!t_in && cmp_op == A::BinaryLessEqual)
    };
    let mut trip_count = None;
    if let (Some(s), Some(st), Some(b)) = (
        int_constant(module, start),
        stride,
        int_constant(module, bound),
    ) && strict_less
        && st > 0
    {
        if b <= s {
            trip_count = Some(0);
        } else {
            let span = (b as u64).wrapping_sub(s as u64);
            let st = st as u64;
            let trip = span / st + u64::from(span % st != 0);
            if stays_in_range(kind, s, trip, st) {
                trip_count = Some(trip);
            }
        }
    }
    Some(LoopBounds {
        iv,
        start,
        recurrence,
        bound,
        cmp,
        cmp_op,
        body_entry,
        exit,
        continue_on_true: t_in,
        iv_is_lhs,
        strict_less,
        stride,
        trip_count,
    })
}

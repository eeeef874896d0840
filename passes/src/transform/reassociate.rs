//! `reassociate` — rebuild integer add and multiply trees in a canonical operand order.
//!
//! **What:** an integer `binary_add` or `binary_mul` whose operands are (through
//! single-use instructions of the same op) a tree of more than two leaves is rebuilt as
//! a left-associated chain of its leaves sorted by rank: constants first, then arguments
//! and other function-invariant values, then instructions in layout order. An integer
//! `x - y` becomes `x' + (-y)` over the leaves of `x`'s add tree. Constants end up
//! adjacent at the start of the chain (`(c1 + c2) + a + …`), where `const-fold` (next in
//! spirv-structured-opt after `simplify-libcalls`) folds them, and equal trees get one
//! shape for `gvn`. Upstream `src/xir/passes/reassociate.cpp`, LuisaGroup/LuisaCompute
//! commit `446a87f` (the version restricted to integer types).
//!
//! **Why it is exact:** only scalar and vector integer types are touched. Integer `+`
//! and `*` wrap at the width (docs/semantics.md), so they are associative and
//! commutative for every input, signed overflow included, and `x - y = x + (-y)`
//! modulo 2^width (`-INT_MIN = INT_MIN`). Floats are never reassociated (rounding).
//!
//! **Algorithm:** ranks are instruction positions over the reachable blocks in reverse
//! post-order, then the rest. The worklist is every unannotated integer add, mul and
//! sub, in that order; each is processed once: linearize (follow operands that are
//! unannotated single-use instructions of the same op, in the same block, left to
//! right), sort the leaves by `(rank, value)`, and rebuild the chain just before the
//! root, then reroute the root's uses and remove the root and the interior nodes it
//! consumed (their only use was inside the tree).
//!
//! **Differences from upstream:** (1) a tree already in canonical form is left alone
//! (upstream rebuilds every tree of three or more leaves on every run, and every `sub`,
//! so a second run reports changes again); here a run is idempotent: a `sub` is
//! rewritten once, and a `unary_minus` made by the pass ranks just before the root it
//! replaced, which is where it stays in the next run. (2) Ties are broken by the value
//! (its kind and index) instead of by pointer, so the output is deterministic.
//! (3) Annotated instructions are neither roots nor interior nodes (a rebuilt chain has
//! no unique owner for their metadata), as every other pass here keeps them; upstream
//! does not check. (4) The consumed interior nodes are removed instead of being left for
//! DCE (spirv-structured-opt deliberately has no DCE). (5) Interior nodes must be in the
//! root's block, so the rebuilt chain never moves a computation into a block where an
//! operand of it might not be available.
//!
//! **Preconditions:** none (structured or plain CFG). **Refusals:** none.
//!
//! **Report keys:** `reassociated_inst` (roots rebuilt).
//!
//! **Example:**
//! ```text
//! %s: i32 = arithmetic binary_add %x, %c1;  // single use
//! %t: i32 = arithmetic binary_add %s, %c2;  // %u: i32 = arithmetic binary_add %c1, %c2;
//!                                           // %t: i32 = arithmetic binary_add %u, %x;
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::edit::insts_in_rpo;
use xir_ir::analysis::Cfg;
use xir_ir::edit::{InsertPoint, InstBuilder, Rewriter};
use xir_ir::op::ArithmeticOp as A;
use xir_ir::{FuncId, InstId, InstKind, Module, SecondaryMap, Type, Value};

/// The `reassociate` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct Reassociate;

crate::declare_pass! {
    Reassociate: function pass "reassociate" {
        summary: "Rebuilds integer add/mul trees as chains sorted by rank (constants first); x - y becomes x + (-y).",
        form: Either,
        counters: ReassociateCounters {
            /// Tree roots rebuilt.
            reassociated_inst: Instructions,
        }
    }
}

/// Sort key of a leaf: constants, then other non-instruction values, then instructions
/// by layout position (a pass-made negation just before its root's position).
type Rank = (u64, Value);

/// What one run knows about the function.
struct State {
    /// `2 * position + 3` for instructions present when the run began.
    position: SecondaryMap<InstId, u64>,
    /// Negations made by this run: the rank they take.
    made: SecondaryMap<InstId, u64>,
}

impl State {
    fn rank(&self, v: Value) -> Rank {
        let r = match v {
            Value::Const(_) => 0,
            Value::Inst(i) if self.position[i] != 0 => self.position[i],
            Value::Inst(i) if self.made[i] != 0 => self.made[i],
            _ => 1,
        };
        (r, v)
    }
}

impl FunctionPass for Reassociate {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        cx: &mut PassContext,
        counters: &mut ReassociateCounters,
    ) -> Result<(), PassError> {
        let cfg = cx.analyses.get::<Cfg>(module, f);
        let order = insts_in_rpo(module.func(f), &cfg.rpo);
        let mut state = State {
            position: SecondaryMap::default(),
            made: SecondaryMap::default(),
        };
        for (k, &i) in order.iter().enumerate() {
            state.position[i] = 2 * k as u64 + 3;
        }
        let worklist: Vec<InstId> = {
            let func = module.func(f);
            order
                .into_iter()
                .filter(|&i| {
                    let d = &func.insts[i];
                    matches!(
                        d.kind,
                        InstKind::Arithmetic(A::BinaryAdd | A::BinaryMul | A::BinarySub)
                    ) && d.operands.len() == 2
                        && d.metadata.is_empty()
                        && d.ty
                            .and_then(|t| module.types.scalar_or_vector_elem(t))
                            .is_some_and(|k| k.is_int())
                })
                .collect()
        };
        let mut rw = Rewriter::for_module(module, f);
        for root in worklist {
            if rw.inst(root).block.is_some() && rebuild(&mut rw, &mut state, root) {
                counters.reassociated_inst += 1;
            }
        }
        Ok(())
    }
}

/// Whether `v` is an interior node of a tree of `op` rooted in `block`: an unannotated
/// instruction of that op, in that block, whose result has exactly one use.
fn interior(rw: &Rewriter, v: Value, op: A, block: Option<xir_ir::BlockId>) -> Option<InstId> {
    let Value::Inst(i) = v else { return None };
    let d = rw.inst(i);
    let same_op = matches!(d.kind, InstKind::Arithmetic(o) if o == op);
    (same_op
        && d.operands.len() == 2
        && d.metadata.is_empty()
        && d.block == block
        && rw.uses(v).len() == 1)
        .then_some(i)
}

/// Appends the leaves of the tree under `v` to `leaves` and its interior nodes to
/// `nodes` (pre-order).
fn linearize(
    rw: &Rewriter,
    v: Value,
    op: A,
    block: Option<xir_ir::BlockId>,
    leaves: &mut Vec<Value>,
    nodes: &mut Vec<InstId>,
) {
    // Iterative (a long chain must not exhaust the stack): a stack of values to visit,
    // right operand pushed first so the left subtree is visited first.
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match interior(rw, v, op, block) {
            Some(i) => {
                nodes.push(i);
                let ops = &rw.inst(i).operands;
                stack.push(ops[1]);
                stack.push(ops[0]);
            }
            None => leaves.push(v),
        }
    }
}

/// Whether the tree under `v` is already the left-associated chain of `leaves`.
fn is_chain(rw: &Rewriter, mut v: Value, op: A, block: Option<xir_ir::BlockId>, leaves: &[Value]) -> bool {
    for k in (1..leaves.len()).rev() {
        let Value::Inst(i) = v else { return false };
        let ops = &rw.inst(i).operands;
        if ops[1] != leaves[k] {
            return false;
        }
        if k == 1 {
            return ops[0] == leaves[0];
        }
        if interior(rw, ops[0], op, block).is_none() {
            return false;
        }
        v = ops[0];
    }
    false
}

/// Rebuilds the tree rooted at `root` if it is not canonical. Returns whether it did.
fn rebuild(rw: &mut Rewriter, state: &mut State, root: InstId) -> bool {
    let d = rw.inst(root);
    let (InstKind::Arithmetic(op), Some(ty)) = (&d.kind, d.ty) else {
        return false;
    };
    let (op, block, ops) = (*op, d.block, [d.operands[0], d.operands[1]]);
    let chain_op = if op == A::BinarySub { A::BinaryAdd } else { op };
    let mut leaves = Vec::new();
    let mut nodes = Vec::new();
    linearize(rw, ops[0], chain_op, block, &mut leaves, &mut nodes);
    if op == A::BinarySub {
        let neg = rw
            .at(InsertPoint::Before(root))
            .arith(A::UnaryMinus, ty, &[ops[1]]);
        let Value::Inst(n) = neg else { unreachable!() };
        state.made[n] = state.position[root] - 1;
        leaves.push(neg);
    } else {
        linearize(rw, ops[1], op, block, &mut leaves, &mut nodes);
        if leaves.len() == 2 {
            // Two leaves and no interior node: nothing to reassociate (upstream does
            // not reorder a lone pair either).
            return false;
        }
    }
    leaves.sort_by_key(|v| state.rank(*v));
    if op != A::BinarySub && is_chain(rw, Value::Inst(root), op, block, &leaves) {
        return false;
    }
    let chain = build_chain(rw, root, chain_op, ty, &leaves);
    rw.replace_all_uses(Value::Inst(root), chain);
    rw.remove(root);
    for n in nodes {
        rw.remove(n);
    }
    true
}

/// `((l0 op l1) op l2) …` just before `at`.
fn build_chain(rw: &mut Rewriter, at: InstId, op: A, ty: Type, leaves: &[Value]) -> Value {
    let mut acc = leaves[0];
    for &l in &leaves[1..] {
        acc = rw.at(InsertPoint::Before(at)).arith(op, ty, &[acc, l]);
    }
    acc
}

//! `fix-self-referential` — repair `insert` instructions that name their own result as
//! the aggregate they update (the one sanctioned repair of the SPIR-V pipeline).
//!
//! **What:** upstream's aggregate-store rewrites (in `restructure-cfg` and `reg2mem`
//! around it) can leave `%x = arithmetic insert %x, %elem, %index…`: the aggregate
//! operand is the instruction itself. When every store of `%x` writes one and the same
//! lvalue of `%x`'s type, and that lvalue is defined before `%x` (earlier in its block,
//! or in a dominating block), the repair loads the lvalue just before `%x` and makes the
//! load the aggregate operand. The pipelines mark the entry before it
//! `verify=deferred`, because the IR is invalid until this pass ran.
//!
//! **Algorithm:** one scan of every definition collects the repairs (with each
//! function's dominator tree); only when nothing is unresolved are they applied. A phi
//! naming itself (a loop-carried value kept on a back edge) is valid SSA and skipped.
//!
//! **Preconditions:** none. **Refusals** (module byte-identical, counted in
//! `unresolved_inst`): any other self-reference — an instruction other than `insert`,
//! an `insert` naming itself in its element or index operands or more than once, no
//! store of the result, stores to different lvalues or of another type, or a target
//! that does not dominate the instruction. The pipelines mark it `abort-on-refusal`.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/fix_self_referential.cpp` (rules,
//! whole-module transaction, report keys).
//!
//! **Report keys:** `fixed_inst` (operands repaired), `unresolved_inst`.
//! **Changed:** instructions (a load added, one operand rewritten).
//!
//! **Example:**
//! ```text
//! %v: vector<f32, 2> = alloca local;
//! %x: vector<f32, 2> = arithmetic insert %x, %e, %i;   store %v, %x;
//!   →
//! %l: vector<f32, 2> = load %v;
//! %x: vector<f32, 2> = arithmetic insert %l, %e, %i;   store %v, %x;
//! ```

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::edit::{Cursor, InstBuilder, UseIndex};
use xir_ir::inst::InstKind;
use xir_ir::op::ArithmeticOp;
use xir_ir::{FuncId, InstId, Module, Value};

/// The `fix-self-referential` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct FixSelfReferential;

crate::declare_pass! {
    FixSelfReferential: module pass "fix-self-referential" {
        summary: "Repairs `insert` instructions whose aggregate operand is their own result.",
        form: Either,
        counters: FixSelfReferentialCounters {
            /// Self-referencing aggregate operands replaced by a load of their storage.
            fixed_inst: Instructions,
            /// Self-references that cannot be repaired (refusal).
            unresolved_inst: Nothing,
        }
    }
}

struct Fix {
    func: FuncId,
    inst: InstId,
    target: Value,
}

impl Pass for FixSelfReferential {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = FixSelfReferentialCounters::default();
        let mut fixes = Vec::new();
        let mut first_unresolved: Option<String> = None;
        for &f in &module.func_order {
            collect(module, f, &mut fixes, &mut c, &mut first_unresolved);
        }
        if let Some(why) = first_unresolved {
            return Ok(PassRun::refused(why, c.report()));
        }
        for fix in fixes {
            let func = module.func_mut(fix.func);
            let ty = func.inst(fix.inst).ty.expect("an `insert` has a result");
            let load = Cursor::before(func, fix.inst).load(ty, fix.target);
            func.inst_mut(fix.inst).operands[0] = load;
            c.fixed_inst += 1;
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}

fn collect(
    m: &Module,
    f: FuncId,
    fixes: &mut Vec<Fix>,
    c: &mut FixSelfReferentialCounters,
    first: &mut Option<String>,
) {
    let func = m.func(f);
    if func.body.is_none() {
        return;
    }
    let mut dom: Option<DomTree> = None;
    let mut uses: Option<UseIndex> = None;
    let name = crate::form::describe_function(m, f);
    for i in func.placed_insts() {
        let d = func.inst(i);
        let selfs: Vec<usize> = (0..d.operands.len())
            .filter(|k| d.operands[*k] == Value::Inst(i))
            .collect();
        if selfs.is_empty() || matches!(d.kind, InstKind::Phi) {
            continue;
        }
        let mut unresolved = |c: &mut FixSelfReferentialCounters, why: &str| {
            c.unresolved_inst += selfs.len() as u64;
            if first.is_none() {
                *first = Some(format!(
                    "{name}: an instruction uses its own result and cannot be repaired: {why}"
                ));
            }
        };
        if !matches!(d.kind, InstKind::Arithmetic(ArithmeticOp::Insert)) {
            unresolved(c, "only `insert` aggregates are repaired");
            continue;
        }
        if selfs != [0] {
            unresolved(c, "the `insert` names itself outside its aggregate operand");
            continue;
        }
        let uses = uses.get_or_insert_with(|| UseIndex::compute(func));
        let mut target = None;
        let mut ambiguous = false;
        for u in uses.uses(Value::Inst(i)) {
            let s = func.inst(u.inst);
            if !matches!(s.kind, InstKind::Store) || u.index != 1 {
                continue;
            }
            let p = s.operands[0];
            let lvalue = match p {
                Value::Inst(x) => func.inst(x).kind.tag().is_lvalue(),
                Value::Arg(a) => func.args[a].kind == xir_ir::function::ArgKind::Reference,
                _ => false,
            };
            if !lvalue || m.value_type(f, p) != d.ty || target.is_some_and(|t| t != p) {
                ambiguous = true;
                break;
            }
            target = Some(p);
        }
        let Some(target) = target.filter(|_| !ambiguous) else {
            unresolved(c, "its result is not stored to exactly one lvalue of its type");
            continue;
        };
        if let Value::Inst(t) = target {
            let (tb, ib) = (func.inst(t).block, d.block);
            let ok = match (tb, ib) {
                (Some(tb), Some(ib)) if tb == ib => {
                    let list = &func.blocks[ib].insts;
                    let pt = list.iter().position(|x| *x == t);
                    let pi = list.iter().position(|x| *x == i);
                    matches!((pt, pi), (Some(a), Some(b)) if a < b)
                }
                (Some(tb), Some(ib)) => {
                    let dom = dom.get_or_insert_with(|| DomTree::compute(func, &Cfg::compute(func)));
                    dom.contains(tb) && dom.contains(ib) && dom.dominates(tb, ib)
                }
                _ => false,
            };
            if !ok {
                unresolved(c, "the lvalue it is stored to does not dominate it");
                continue;
            }
        }
        fixes.push(Fix {
            func: f,
            inst: i,
            target,
        });
    }
}

//! The optional contracts of [`VerifyOptions`](super::VerifyOptions) other than
//! `require_terminated_blocks` (which lives with the block layout checks):
//! reachability, no phis, no unstructured branches, unique merge blocks and canonical
//! `break`/`continue` targets.

use super::Fx;
use super::graph::Graph;
use crate::analysis::form::{self, Form, ViolationKind};
use crate::entity::SecondaryMap;
use crate::inst::{InstId, InstKind};
use crate::value::{BlockId, Value};

/// Per-instruction option checks.
#[inline]
pub(super) fn check_inst(fx: &mut Fx<'_, '_>, b: BlockId, i: InstId) {
    if !fx.opts.require_no_phi {
        return;
    }
    let Some(d) = fx.inst(i) else { return };
    if matches!(d.kind, InstKind::Phi) {
        fx.err_inst(
            b,
            i,
            "phi instructions are not allowed here (require-no-phi)",
        );
    }
}

/// `require-no-unstructured-control-flow`: the function is in structured form as
/// [`form`] defines it (the one definition the passes and the backend use too).
fn check_structured_form(fx: &mut Fx<'_, '_>) {
    const OPT: &str = "require-no-unstructured-control-flow";
    for v in form::violations(fx.f, Form::Structured) {
        if fx.place(v.inst).map(|p| p.0) != Some(v.block) {
            continue;
        }
        // Reported once, by the option that names it, when both are on.
        if v.kind == ViolationKind::SharedMerge && fx.opts.require_unique_merge_blocks {
            continue;
        }
        let target = v.target.map(|t| fx.bname(t)).unwrap_or_default();
        let msg = match v.kind {
            ViolationKind::BadLoopPrepare => {
                format!(
                    "a loop's prepare block must end in `br body` or `cond_br c, body, merge` ({OPT})"
                )
            }
            ViolationKind::StructuredConstruct | ViolationKind::UnstructuredBranch => {
                format!("unstructured control flow is not allowed here ({OPT})")
            }
            ViolationKind::BadExit => {
                let c = v.construct.expect("an exit violation names its construct");
                format!(
                    "`{}` to {target} leaves the `{}` construct of {} by a branch that is not a structured exit: {} ({OPT})",
                    v.keyword(),
                    c.keyword,
                    fx.iname(c.inst),
                    c.exit_rule()
                )
            }
            ViolationKind::BadBackEdge => format!(
                "`{}` to {target} is a back edge that is not a loop's: only update → prepare, or back to a `simple_loop` body from inside it ({OPT})",
                v.keyword()
            ),
            ViolationKind::MergeNotDominated => format!(
                "{target} is reachable without passing through this `{}`'s header: a construct's header must dominate its merge and update blocks ({OPT})",
                v.keyword()
            ),
            ViolationKind::SharedMerge => {
                let other = v.construct.map(|c| fx.iname(c.inst)).unwrap_or_default();
                format!(
                    "{target} is also the merge or continue target of {other}: a block merges at most one construct ({OPT})"
                )
            }
        };
        fx.err_inst(v.block, v.inst, msg);
    }
}

/// A structured construct `break`/`continue` may target.
#[derive(Clone, Copy)]
struct Scope {
    merge: Option<BlockId>,
    continue_target: Option<BlockId>,
}

/// Whole-function option checks that need the CFG.
pub(super) fn check_graph(fx: &mut Fx<'_, '_>, g: &Graph) {
    if fx.opts.require_no_unstructured_control_flow {
        check_structured_form(fx);
    }
    let f = fx.f;
    let order = std::mem::take(&mut fx.order);
    if fx.opts.require_reachable_blocks {
        for &b in &order {
            if !g.is_reachable(b) {
                fx.err_block(
                    b,
                    "block is unreachable from the body block (require-reachable-blocks)",
                );
            }
        }
    }
    if fx.opts.require_unique_merge_blocks {
        let mut owner: SecondaryMap<BlockId, Option<InstId>> = SecondaryMap::with_default(None);
        for &b in &order {
            for &i in &f.blocks[b].insts {
                if fx.place(i).map(|p| p.0) != Some(b) || !fx.shape_ok(i) {
                    continue;
                }
                let Some(m) = fx.inst(i).and_then(|d| d.kind.merge()) else {
                    continue;
                };
                if !fx.is_owned(m) {
                    continue;
                }
                match owner[m] {
                    Some(o) if o != i => {
                        let (mn, on) = (fx.bname(m), fx.iname(o));
                        fx.err_inst(
                            b,
                            i,
                            format!(
                                "merge block {mn} is also the merge block of {on} (require-unique-merge-blocks)"
                            ),
                        )
                    }
                    _ => owner[m] = Some(i),
                }
            }
        }
    }
    if fx.opts.require_canonical_break_continue_targets {
        check_break_continue(fx, g, &order);
    }
    fx.order = order;
}

fn check_break_continue(fx: &mut Fx<'_, '_>, g: &Graph, order: &[BlockId]) {
    // Scopes keyed by their parent block (one terminator per block).
    let mut scopes: SecondaryMap<BlockId, Option<Scope>> = SecondaryMap::default();
    let scope_of = |fx: &Fx<'_, '_>, b: BlockId| -> Option<Scope> {
        let t = g.term(b)?;
        let d = fx.inst(t)?;
        match &d.kind {
            InstKind::Loop { update, merge, .. } => Some(Scope {
                merge: *merge,
                continue_target: *update,
            }),
            InstKind::SimpleLoop { merge } => Some(Scope {
                merge: *merge,
                continue_target: d.operands.first().and_then(|v| v.as_block()),
            }),
            InstKind::Switch { merge, .. } => Some(Scope {
                merge: *merge,
                continue_target: None,
            }),
            _ => None,
        }
    };
    for &b in order {
        scopes[b] = scope_of(fx, b);
    }
    let (brk, cont) = enclosing_scopes(g, &scopes);
    for &b in order {
        if !g.is_reachable(b) {
            continue;
        }
        let Some(t) = g.term(b) else { continue };
        let Some(d) = fx.inst(t) else { continue };
        let is_continue = match d.kind {
            InstKind::Break => false,
            InstKind::Continue => true,
            _ => continue,
        };
        let target = d.operands.first().and_then(|v| match v {
            Value::Block(x) => Some(*x),
            _ => None,
        });
        let parent = if is_continue { cont[b] } else { brk[b] };
        let found = parent.is_some();
        let expected = parent.and_then(|p| {
            let s = scopes[p]?;
            if is_continue {
                s.continue_target
            } else {
                s.merge
            }
        });
        if !found || expected != target {
            let what = if is_continue {
                "continue target is not the continue block of the nearest enclosing loop"
            } else {
                "break target is not the merge block of the nearest enclosing loop or switch"
            };
            let exp = match (found, expected) {
                (true, Some(e)) => format!("expected {}", fx.bname(e)),
                _ => "there is no enclosing construct".to_string(),
            };
            fx.err_inst(
                b,
                t,
                format!("{what} ({exp}) (require-canonical-break-continue-targets)"),
            );
        }
    }
}

/// For every reachable block `b`, the parent block of the deepest construct enclosing it
/// for `break` (first result) and for `continue` (second; only constructs with a
/// continue target count): the deepest strict dominator `p` of `b` that parents a
/// construct whose merge does not dominate `b` (a merge equal to `b` dominates it).
///
/// Computed with dominators first (DFS preorder from the body) from the answer
/// for `idom(b)`: a candidate is dropped only at its own merge block, and then the next
/// candidate is the answer for the dropped construct's parent. Each construct is dropped
/// at most once, so the whole computation is linear in the number of blocks.
fn enclosing_scopes(
    g: &Graph,
    scopes: &SecondaryMap<BlockId, Option<Scope>>,
) -> (
    SecondaryMap<BlockId, Option<BlockId>>,
    SecondaryMap<BlockId, Option<BlockId>>,
) {
    let mut brk: SecondaryMap<BlockId, Option<BlockId>> = SecondaryMap::with_default(None);
    let mut cont: SecondaryMap<BlockId, Option<BlockId>> = SecondaryMap::with_default(None);
    // Whether the construct parented by `p` encloses `b` (its merge does not dominate `b`).
    let encloses = |p: BlockId, b: BlockId| -> bool {
        scopes.get(p).is_some_and(|s| {
            !s.merge
                .is_some_and(|m| m == b || (g.is_reachable(m) && g.block_dominates(m, b)))
        })
    };
    for &b in g.dominators_first() {
        let Some(q) = g.idom(b) else { continue };
        for (map, needs_continue) in [(&mut brk, false), (&mut cont, true)] {
            let qualifies = |p: BlockId| {
                scopes
                    .get(p)
                    .is_some_and(|s| !needs_continue || s.continue_target.is_some())
            };
            let mut cand = if qualifies(q) { Some(q) } else { map[q] };
            while let Some(p) = cand {
                if encloses(p, b) {
                    break;
                }
                cand = map[p];
            }
            map[b] = cand;
        }
    }
    (brk, cont)
}

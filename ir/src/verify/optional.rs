//! The optional contracts of [`VerifyOptions`](super::VerifyOptions) other than
//! `require_terminated_blocks` (which lives with the block layout checks):
//! reachability, no phis, no unstructured branches, unique merge blocks and canonical
//! `break`/`continue` targets.

use super::Fx;
use super::ssa::Graph;
use crate::entity::{EntityRef, SecondaryMap};
use crate::inst::{InstId, InstKind};
use crate::value::{BlockId, Value};

/// Per-instruction option checks.
pub(super) fn check_inst(fx: &mut Fx<'_, '_>, b: BlockId, i: InstId) {
    let Some(d) = fx.inst(i) else { return };
    if fx.opts.require_no_phi && matches!(d.kind, InstKind::Phi { .. }) {
        fx.err_inst(
            b,
            i,
            "phi instructions are not allowed here (require-no-phi)",
        );
    }
    if fx.opts.require_no_unstructured_control_flow
        && matches!(
            d.kind,
            InstKind::ConditionalBranch | InstKind::IndexedBranch { .. }
        )
    {
        fx.err_inst(
            b,
            i,
            "unstructured control flow is not allowed here (require-no-unstructured-control-flow)",
        );
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
    let f = fx.f;
    let mut order: Vec<BlockId> = Vec::new();
    let mut seen: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    for &b in &f.block_order {
        if fx.is_owned(b) && !seen[b] {
            seen[b] = true;
            order.push(b);
        }
    }
    if fx.opts.require_reachable_blocks {
        for &b in &order {
            if !g.cfg.is_reachable(b) {
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
                if fx.place(i).map(|p| p.0) != Some(b) || !*fx.shape_ok.get(i) {
                    continue;
                }
                let Some(m) = fx.inst(i).and_then(|d| d.kind.merge()) else {
                    continue;
                };
                if !fx.is_owned(m) {
                    continue;
                }
                match owner[m] {
                    Some(o) if o != i => fx.err_inst(
                        b,
                        i,
                        format!(
                            "merge block block{} is also the merge block of inst{} (require-unique-merge-blocks)",
                            m.index(),
                            o.index()
                        ),
                    ),
                    _ => owner[m] = Some(i),
                }
            }
        }
    }
    if fx.opts.require_canonical_break_continue_targets {
        check_break_continue(fx, g, &order);
    }
}

fn check_break_continue(fx: &mut Fx<'_, '_>, g: &Graph, order: &[BlockId]) {
    // Scopes keyed by their parent block (one terminator per block).
    let mut scopes: SecondaryMap<BlockId, Option<Scope>> = SecondaryMap::default();
    let scope_of = |fx: &Fx<'_, '_>, b: BlockId| -> Option<Scope> {
        let t = (*g.term.get(b))?;
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
    for &b in order {
        if !g.cfg.is_reachable(b) {
            continue;
        }
        let Some(t) = *g.term.get(b) else { continue };
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
        // The deepest dominating scope parent (other than `b`) whose merge does not
        // dominate `b`; dominator-tree ancestors have distinct depths, so there is no tie.
        let mut expected = None;
        let mut found = false;
        let mut cur = g.dom.idom(b);
        while let Some(p) = cur {
            if let Some(s) = scopes.get(p) {
                let has_target = !is_continue || s.continue_target.is_some();
                let merge_dominates = s
                    .merge
                    .is_some_and(|m| m == b || (g.cfg.is_reachable(m) && g.block_dominates(m, b)));
                if has_target && !merge_dominates {
                    expected = if is_continue {
                        s.continue_target
                    } else {
                        s.merge
                    };
                    found = true;
                    break;
                }
            }
            cur = g.dom.idom(p);
        }
        if !found || expected != target {
            let what = if is_continue {
                "continue target is not the continue block of the nearest enclosing loop"
            } else {
                "break target is not the merge block of the nearest enclosing loop or switch"
            };
            let exp = match (found, expected) {
                (true, Some(e)) => format!("expected block{}", e.index()),
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

//! SSA checks: the control-flow graph (upstream's edges: the block operands of each
//! terminator), reachability from the body, dominance of definitions over uses, and the
//! phi rules.
//!
//! Upstream semantics, reproduced exactly:
//! * a use in an unreachable block is never a dominance error; a definition in an
//!   unreachable block used from a reachable one is;
//! * within one block a definition must come strictly before its (non-phi) use;
//! * a phi's incoming value must dominate the end of its incoming block (or precede that
//!   block's terminator when defined in it);
//! * phi incoming blocks are distinct and are exactly the block's predecessor *set*
//!   (a `cond_br %c, %x, %x` edge pair counts once, as upstream keeps predecessor sets).

use super::Fx;
use super::graph::Graph;
use crate::entity::EntityRef;
use crate::inst::{InstId, InstTag};
use crate::value::{BlockId, Value};

/// The dominance and phi checks of instruction `i` of block `b` (placed there, with
/// valid operand handles); `g` holds the function's CFG. Diagnostics are held back
/// ([`Fx::err_inst_later`]).
#[inline]
pub(super) fn check_inst(fx: &mut Fx<'_, '_>, g: &mut Graph, b: BlockId, i: InstId) {
    let Some(d) = fx.inst(i) else { return };
    if fx.placed_tag(i) == Some(InstTag::Phi) && d.is_phi() {
        check_phi(fx, g, b, i);
        return;
    }
    let Some((_, order)) = fx.place(i) else {
        return;
    };
    for (k, &v) in d.operands.iter().enumerate() {
        let Value::Inst(x) = v else { continue };
        let Some((db, dorder)) = fx.place(x) else {
            continue;
        };
        let dominated = if db == b {
            dorder < order
        } else {
            g.block_dominates(db, b)
        };
        if !dominated {
            report_undominated(fx, b, i, k, x, db);
        }
    }
}

/// Reports operand `k` (`x`, defined in block `db`) of instruction `i` in block `b` as
/// not dominating its use.
#[cold]
fn report_undominated(
    fx: &mut Fx<'_, '_>,
    b: BlockId,
    i: InstId,
    k: usize,
    x: InstId,
    db: BlockId,
) {
    let xn = fx.iname(x);
    let msg = if db == b {
        let what = if x == i {
            "the instruction itself"
        } else {
            "a later instruction"
        };
        format!(
            "operand {k} ({xn}) is defined by {what} of the same block; definitions must precede their uses"
        )
    } else {
        let dn = fx.bname(db);
        format!("operand {k} ({xn}, defined in block {dn}) does not dominate this use")
    };
    fx.err_inst_later(b, i, msg);
}

fn check_phi(fx: &mut Fx<'_, '_>, g: &mut Graph, b: BlockId, i: InstId) {
    let Some(d) = fx.inst(i) else { return };
    let mut incoming = 0;
    for (k, (v, ib)) in d.phi_incoming().enumerate() {
        if !fx.is_owned(ib) {
            fx.err_inst_later(
                b,
                i,
                format!("incoming block {k} is not owned by this function"),
            );
            continue;
        }
        if g.preds(b).binary_search(&ib).is_err() {
            let (ibn, bn) = (fx.bname(ib), fx.bname(b));
            fx.err_inst_later(
                b,
                i,
                format!("incoming block {k} ({ibn}) is not a predecessor of block {bn}"),
            );
            continue;
        }
        // `ib` is owned, so a valid handle.
        if g.phi_listed[ib.index()].replace(i) == Some(i) {
            let ibn = fx.bname(ib);
            fx.err_inst_later(
                b,
                i,
                format!("incoming block {k} ({ibn}) appears more than once"),
            );
            continue;
        }
        incoming += 1;
        let Value::Inst(x) = v else { continue };
        let Some((db, dorder)) = fx.place(x) else {
            continue;
        };
        if db == ib {
            if let Some(t) = g.term(ib) {
                let torder = fx.place(t).map_or(u32::MAX, |p| p.1);
                if dorder >= torder {
                    let (xn, ibn) = (fx.iname(x), fx.bname(ib));
                    fx.err_inst_later(
                        b,
                        i,
                        format!(
                            "incoming value {k} ({xn}) does not precede the terminator of its incoming block {ibn}"
                        ),
                    );
                }
            }
        } else if !g.block_dominates(db, ib) {
            let (xn, dn, ibn) = (fx.iname(x), fx.bname(db), fx.bname(ib));
            fx.err_inst_later(
                b,
                i,
                format!(
                    "incoming value {k} ({xn}, defined in block {dn}) does not dominate the end of its incoming block {ibn}"
                ),
            );
        }
    }
    let preds = g.preds(b);
    if incoming != preds.len() {
        let names: Vec<String> = preds.iter().map(|p| fx.bname(*p)).collect();
        fx.err_inst_later(
            b,
            i,
            format!(
                "incoming blocks do not match the predecessors of block {} ({})",
                fx.bname(b),
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ),
        );
    }
}

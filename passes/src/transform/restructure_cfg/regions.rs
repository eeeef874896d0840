//! `restructure-cfg` and single-entry regions: `autodiff` scopes and `outline`.
//!
//! A region instruction ends its block `X` with one operand, the region's entry `E`, and
//! a merge `M` outside its operands. Its *body* is every block reachable from `E`
//! without passing `M`. The pass treats the region as one step from `X` to `M`: the body
//! is restructured like any other code, inside a construct whose only exit is `M`
//! (`M` keeps its role; the structured form treats the region like an `if`).
//!
//! * **Preflight** ([`check`]): the body is entered only at `E`, only from `X`, and does
//!   not lead back to `X`; so it is left only through `M` (an edge from the body to
//!   any other block would put that block in the body, with an entry from outside).
//!   A `break`, `continue` or shared exit block crossing the region boundary is refused
//!   with both blocks named.
//! * **Stand-in** ([`lower`]): while the pass runs, the region terminator is a
//!   `cond_br` whose condition is a marker (`Value::Func` indexing [`Regions`]; no
//!   function's value, never printed) and whose arms are `E` and `M`, so every CFG
//!   query of the pass sees the structural edge `X → M` as SPIR-V's merge instruction
//!   adds it: `M` is dominated by `X`, a loop of the body that leaves to `M` gets a
//!   merge of its own, and a selection of the body reaches `M` as an enclosing merge.
//!   A merge that is a small exit block (`return` …) first gets a new merge block that
//!   branches to it, so no step copies it into the body (the region's merge must stay
//!   after the region). A small exit block the body shares with code outside (the one
//!   exit `destructure-cfg` makes for early returns) is copied for the body's edges, so
//!   an early `return` inside the region stays inside it (the preflight accepts that
//!   sharing and no other).
//! * **Walk** (`walk.rs`): a marker is a construct whose merge is `M` and which no
//!   `break`, `continue` or guard crosses; it is rewritten to `if` with its merge.
//! * **Restore** ([`restore`]): every marker (`if` or, when the walk never reached it,
//!   `cond_br`) becomes the original region instruction again, with the entry it
//!   branches to now (a preheader when `E` heads a loop) and its merge.

use super::exits::{clone_block, exit_block, is_small_exit, retarget};
use super::Failure;
use xir_ir::analysis::Cfg;
use xir_ir::inst::{InstData, InstKind};
use xir_ir::{BlockId, EntityRef, FuncId, Function, SecondaryMap, Value};

/// Whether `k` is a region this pass restructures around.
pub(super) fn is_region(k: &InstKind) -> bool {
    matches!(k, InstKind::AutodiffScope { .. } | InstKind::Outline { .. })
}

/// The original region instructions of one definition, indexed by their markers.
#[derive(Clone, Debug, Default)]
pub(super) struct Regions {
    kinds: Vec<InstKind>,
}

/// Whether `d` is a region's stand-in (`cond_br` or, after the walk, `if`).
pub(super) fn is_marker(d: &InstData) -> bool {
    matches!(d.kind, InstKind::ConditionalBranch | InstKind::If { .. })
        && matches!(d.operands.first(), Some(Value::Func(_)))
}

/// The blocks reachable from `entry` without passing `merge`, marked in `body`; returns
/// them in discovery order.
fn body_of(cfg: &Cfg, entry: BlockId, merge: BlockId, body: &mut SecondaryMap<BlockId, bool>) -> Vec<BlockId> {
    let mut out = vec![entry];
    body[entry] = true;
    let mut k = 0;
    while k < out.len() {
        let b = out[k];
        k += 1;
        for &s in cfg.succs(b) {
            if s != merge && !body[s] {
                body[s] = true;
                out.push(s);
            }
        }
    }
    out
}

/// Preflight: every region of `func` is entered only at its entry, from its own block,
/// and its body does not lead back to that block. No mutation.
pub(super) fn check(func: &Function, cfg: &Cfg) -> Result<(), Failure> {
    let mut body: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    for &x in &func.block_order {
        let Some(t) = func.terminator(x) else { continue };
        let d = func.inst(t);
        if !is_region(&d.kind) {
            continue;
        }
        let (Some(e), Some(m)) = (d.operands.first().and_then(|v| v.as_block()), d.kind.merge()) else {
            return Err(Failure::Invalid {
                block: x,
                what: "ends in an `autodiff` or `outline` region without an entry and a merge",
            });
        };
        if e == m {
            return Err(Failure::Invalid {
                block: x,
                what: "ends in an `autodiff` or `outline` region whose entry is its merge",
            });
        }
        let blocks = body_of(cfg, e, m, &mut body);
        let mut result = Ok(());
        if body[x] {
            result = Err(Failure::Unstructured {
                from: x,
                to: Some(e),
                why: "the body of the `autodiff` or `outline` region this block ends in leads back to the block (a region is left only through its merge)",
            });
        }
        'scan: for &b in &blocks {
            if result.is_err() {
                break;
            }
            // A small exit block shared with code outside (the single exit
            // destructure-cfg makes for early returns) gets a copy of its own in `lower`.
            if is_small_exit(func, b) {
                continue;
            }
            for &p in cfg.preds(b) {
                if cfg.is_reachable(p) && !body[p] && !(b == e && p == x) {
                    result = Err(Failure::Unstructured {
                        from: p,
                        to: Some(b),
                        why: "the target is in the body of an `autodiff` or `outline` region the source is not in (a region is entered only at its entry, from its own block, and left only through its merge)",
                    });
                    break 'scan;
                }
            }
        }
        for &b in &blocks {
            body[b] = false;
        }
        result?;
    }
    Ok(())
}

/// Replaces every region terminator of `func` by its stand-in (see the module header);
/// returns the regions and the number of blocks made (merges and exit copies).
pub(super) fn lower(func: &mut Function) -> (Regions, u64) {
    let mut regions = Regions::default();
    let mut made = 0;
    let mut cfg: Option<Cfg> = None;
    let mut body: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    for k in 0..func.block_order.len() {
        let x = func.block_order[k];
        let Some(t) = func.terminator(x) else { continue };
        if !is_region(&func.inst(t).kind) {
            continue;
        }
        let d = func.inst(t);
        let e = d.operands[0].as_block().expect("checked by preflight");
        let mut m = d.kind.merge().expect("checked by preflight");
        // Small exit blocks the body shares with code outside: the body gets a copy.
        let shared: Vec<(BlockId, Vec<BlockId>)> = {
            let cfg = cfg.get_or_insert_with(|| Cfg::compute(func));
            let blocks = body_of(cfg, e, m, &mut body);
            let mut shared = Vec::new();
            for &b in &blocks {
                let (inside, outside): (Vec<BlockId>, Vec<BlockId>) = cfg
                    .preds(b)
                    .iter()
                    .filter(|p| cfg.is_reachable(**p))
                    .partition(|p| body[**p] || (b == e && **p == x));
                if !outside.is_empty() && is_small_exit(func, b) {
                    shared.push((b, inside));
                }
            }
            for &b in &blocks {
                body[b] = false;
            }
            shared
        };
        for (b, inside) in shared {
            let c = clone_block(func, b);
            for p in inside {
                retarget(func, p, b, c);
            }
            made += 1;
            cfg = None;
        }
        if is_small_exit(func, m) {
            // The body's edges into `m` (and the region's merge) go to a new block.
            let blocks = {
                let cfg = cfg.get_or_insert_with(|| Cfg::compute(func));
                body_of(cfg, e, m, &mut body)
            };
            let n = exit_block(func, InstKind::Branch, m);
            for &b in &blocks {
                body[b] = false;
                retarget(func, b, m, n);
            }
            m = n;
            made += 1;
            cfg = None;
        }
        let d = func.inst_mut(t);
        let mut kind = InstKind::ConditionalBranch;
        std::mem::swap(&mut kind, &mut d.kind);
        if let Some(slot) = kind.merge_mut() {
            *slot = None;
        }
        let marker = Value::Func(FuncId::new(regions.kinds.len()));
        regions.kinds.push(kind);
        d.operands.clear();
        d.operands.extend([marker, Value::Block(e), Value::Block(m)]);
    }
    (regions, made)
}

/// Turns every stand-in of `func` back into its region instruction.
pub(super) fn restore(func: &mut Function, regions: &Regions) {
    if regions.kinds.is_empty() {
        return;
    }
    for k in 0..func.block_order.len() {
        let x = func.block_order[k];
        let Some(t) = func.terminator(x) else { continue };
        if !is_marker(func.inst(t)) {
            continue;
        }
        let d = func.inst_mut(t);
        let Value::Func(f) = d.operands[0] else { unreachable!("a marker") };
        let merge = match d.kind {
            InstKind::If { merge } => merge,
            _ => d.operands[2].as_block(),
        };
        let entry = d.operands[1];
        d.kind = regions.kinds[f.index()].clone();
        if let Some(slot) = d.kind.merge_mut() {
            *slot = merge;
        }
        d.operands.clear();
        d.operands.push(entry);
    }
}

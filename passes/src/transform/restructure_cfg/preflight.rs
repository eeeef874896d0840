//! `restructure-cfg` step 1: the preflight (input form, phis, reducibility); no mutation.

use super::Failure;
use super::regions::{check as check_regions, is_region};
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::inst::InstKind;
use xir_ir::{BlockId, Function, SecondaryMap};

/// Whether `func` needs restructuring (`Ok(false)`: already structured or straight-line),
/// or why it cannot be restructured. No mutation.
pub fn preflight(func: &Function) -> Result<bool, Failure> {
    let mut structured = false;
    let mut regions = false;
    // Blocks ending in `cond_br` / `indexed_branch`, and the prepare blocks of `loop`s
    // (whose `cond_br c, body, merge` is the structured loop header, not a plain branch).
    let mut branching: Vec<BlockId> = Vec::new();
    let mut prepares: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    for &b in &func.block_order {
        let Some(t) = func.terminator(b) else {
            return Err(Failure::Invalid {
                block: b,
                what: "is not terminated",
            });
        };
        for &i in &func.blocks[b].insts {
            if matches!(func.inst(i).kind, InstKind::Phi) {
                return Err(Failure::Invalid {
                    block: b,
                    what: "has a phi (restructure-cfg needs phi-free input: run reg2mem first)",
                });
            }
        }
        let k = &func.inst(t).kind;
        if matches!(k, InstKind::RayQueryLoop { .. }) {
            return Err(Failure::Invalid {
                block: b,
                what: "ends in a `ray_query_loop` region: run lower-ray-query-to-loop first (upstream's destructure-cfg refuses it and its pipelines lower it before restructuring)",
            });
        }
        if is_region(k) {
            // Neutral: an `autodiff` / `outline` region is one step to its merge.
            regions = true;
        } else if k.tag().is_structured() || matches!(k, InstKind::Break | InstKind::Continue) {
            structured = true;
        }
        if matches!(
            k,
            InstKind::ConditionalBranch | InstKind::IndexedBranch { .. }
        ) {
            branching.push(b);
        }
        if let InstKind::Loop { .. } = k
            && let Some(p) = func.inst(t).operands.first().and_then(|v| v.as_block())
        {
            prepares[p] = true;
        }
    }
    let first_plain = branching.iter().copied().find(|&b| {
        let t = func.terminator(b).expect("terminated");
        !(prepares[b] && matches!(func.inst(t).kind, InstKind::ConditionalBranch))
    });
    let plain = first_plain.is_some();
    if structured && let Some(b) = first_plain {
        return Err(Failure::Invalid {
            block: b,
            what: "branches plainly in a function that already has structured constructs",
        });
    }
    if structured {
        return Ok(false);
    }
    let cfg = Cfg::compute(func);
    let dom = DomTree::compute(func, &cfg);
    check_reducible(&cfg, &dom)?;
    if regions {
        check_regions(func, &cfg)?;
    }
    // Straight-line code with no loop needs nothing either.
    let has_back_edge = cfg.rpo.iter().any(|&b| {
        cfg.succs(b)
            .iter()
            .any(|&s| cfg.rpo_index[s] <= cfg.rpo_index[b])
    });
    Ok(plain || has_back_edge)
}

/// Every retreating edge (with respect to the DFS behind `cfg.rpo`) must be a back edge.
fn check_reducible(cfg: &Cfg, dom: &DomTree) -> Result<(), Failure> {
    for &u in &cfg.rpo {
        for &v in cfg.succs(u) {
            if cfg.rpo_index[v] <= cfg.rpo_index[u] && !dom.dominates(v, u) {
                let blocks = scc_of(cfg, v);
                let mut inside: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
                for &b in &blocks {
                    inside[b] = true;
                }
                let entries = blocks
                    .iter()
                    .copied()
                    .filter(|&b| {
                        cfg.preds(b)
                            .iter()
                            .any(|p| cfg.is_reachable(*p) && !inside[*p])
                    })
                    .collect();
                return Err(Failure::Irreducible { blocks, entries });
            }
        }
    }
    Ok(())
}

/// The strongly connected component of `v` (forward ∩ backward reachability), in RPO.
fn scc_of(cfg: &Cfg, v: BlockId) -> Vec<BlockId> {
    let walk = |next: &dyn Fn(BlockId) -> Vec<BlockId>| {
        let mut seen: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
        let mut work = vec![v];
        seen[v] = true;
        while let Some(b) = work.pop() {
            for s in next(b) {
                if cfg.is_reachable(s) && !seen[s] {
                    seen[s] = true;
                    work.push(s);
                }
            }
        }
        seen
    };
    let fwd = walk(&|b| cfg.succs(b).to_vec());
    let bwd = walk(&|b| cfg.preds(b).to_vec());
    cfg.rpo
        .iter()
        .copied()
        .filter(|b| fwd[*b] && bwd[*b])
        .collect()
}

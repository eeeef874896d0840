//! Rewriter property tests: random edit sequences on generated modules
//! (`testgen::generate_module`). After every edit the rewriter's use index must equal a
//! fresh computation ([`UseIndex::check`]), the block list's membership counts must
//! match the list (`BlockLayout::is_consistent`), every block's kept last instruction
//! must be its list's (`InstList::is_consistent`) and the function must verify clean. Every
//! edit is valid by construction (so a verifier error is a rewriter bug):
//!
//! * **insert + replace-all-uses + remove**: clone a value instruction just before
//!   itself, reroute every use of the original to the clone, remove the original;
//! * **split-block**: split a block before a random non-phi instruction;
//! * **redirect-edge**: split a `br` / `cond_br` edge through a new block (redirect the
//!   edge to a fresh block that branches to the old target), and sometimes redirect it
//!   back, which removes the detour's phi edges again;
//! * **phi edits**: remove a phi edge and add it back (with the same value or the
//!   type's undefined value), or set an edge's value.
//!
//! The test counts successful edits of each operation and requires at least 1,000 each.

use xir_ir::edit::{InsertPoint, InstBuilder, Rewriter};
use xir_ir::inst::{InstData, InstId, InstKind};
use xir_ir::verify::{VerifyOptions, verify_function};
use xir_ir::{BlockId, FuncId, Module, Type, Value};
use xir_testgen::{GenConfig, Rng, generate_module};

#[derive(Default, Debug)]
struct Counts {
    replace_all_uses: usize,
    insert: usize,
    remove: usize,
    split_block: usize,
    redirect_edge: usize,
    phi_add: usize,
    phi_remove: usize,
    phi_set: usize,
    phi_rename: usize,
}

impl Counts {
    fn min(&self) -> usize {
        [
            self.replace_all_uses,
            self.insert,
            self.remove,
            self.split_block,
            self.redirect_edge,
            self.phi_add,
            self.phi_remove,
            self.phi_set,
            self.phi_rename,
        ]
        .into_iter()
        .min()
        .unwrap()
    }
}

/// Checks the index and verifies the function as it stands in the rewriter: the
/// function is copied into `shadow` (a clone of the module taken before the rewriter
/// borrowed it, with every undefined value the edits use already created).
fn check(rw: &mut Rewriter<'_>, shadow: &mut Module, f: FuncId, what: &str) {
    let func = rw.func().clone();
    if let Err(e) = rw.use_index().check(&func) {
        panic!("use index after {what}: {e}");
    }
    assert!(
        func.block_order.is_consistent(),
        "block membership counts after {what}"
    );
    assert!(
        func.blocks.values().all(|b| b.insts.is_consistent()),
        "a block's kept last instruction after {what}"
    );
    shadow.functions[f] = func;
    let diags = verify_function(shadow, f, &VerifyOptions::default(), None);
    assert!(
        diags.is_empty(),
        "verifier after {what}: {}\n{}",
        diags[0].message,
        xir_ir::text::print_module(shadow, &Default::default())
    );
}

/// Value-producing kinds whose copy placed right before the original is always valid.
fn clonable(d: &InstData) -> bool {
    d.ty.is_some()
        && matches!(
            d.kind,
            InstKind::Arithmetic(_) | InstKind::Cast(_) | InstKind::Load | InstKind::Phi
        )
}

fn placed(rw: &mut Rewriter<'_>) -> (Vec<BlockId>, Vec<InstId>) {
    let blocks = rw.func().block_order.to_vec();
    let insts = blocks.iter().flat_map(|b| rw.insts(*b)).collect();
    (blocks, insts)
}

fn edit_function(m: &mut Module, f: FuncId, rng: &mut Rng, n: &mut Counts) {
    // Undefined values of every phi type exist before the rewriter borrows the module.
    let phi_types: Vec<Type> = {
        let func = m.func(f);
        func.placed_insts()
            .filter(|i| matches!(func.inst(*i).kind, InstKind::Phi))
            .filter_map(|i| func.inst(i).ty)
            .collect()
    };
    for t in phi_types {
        m.undef(t);
    }
    let mut shadow = m.clone();
    let undef_of = |shadow: &Module, t: Type| {
        shadow
            .live_undefs()
            .find(|u| shadow.undefs[*u].ty == t)
            .map(Value::Undef)
    };
    let mut rw = Rewriter::for_module(m, f);
    for _ in 0..24 {
        let (blocks, insts) = placed(&mut rw);
        if insts.is_empty() {
            return;
        }
        match rng.below(4) {
            // insert + replace-all-uses + remove
            0 => {
                let cands: Vec<InstId> = insts
                    .iter()
                    .copied()
                    .filter(|i| clonable(rw.inst(*i)))
                    .collect();
                if cands.is_empty() {
                    continue;
                }
                let x = rng.pick(&cands);
                let mut copy = rw.inst(x).clone();
                copy.block = None;
                let c = rw.at(InsertPoint::Before(x)).insert(copy);
                n.insert += 1;
                check(&mut rw, &mut shadow, f, "insert");
                let uses = rw.uses(Value::Inst(x)).len();
                assert_eq!(rw.replace_all_uses(Value::Inst(x), Value::Inst(c)), uses);
                assert!(rw.uses(Value::Inst(x)).is_empty());
                n.replace_all_uses += 1;
                check(&mut rw, &mut shadow, f, "replace_all_uses");
                rw.remove(x);
                n.remove += 1;
                check(&mut rw, &mut shadow, f, "remove");
            }
            // split-block
            1 => {
                let cands: Vec<InstId> = insts
                    .iter()
                    .copied()
                    .filter(|i| !matches!(rw.inst(*i).kind, InstKind::Phi))
                    .collect();
                if cands.is_empty() {
                    continue;
                }
                let at = rng.pick(&cands);
                let old = rw.inst(at).block.unwrap();
                let new = rw.split_block(at);
                assert_eq!(rw.successors(old).as_slice(), &[new]);
                assert!(rw.func().has_block(new));
                n.split_block += 1;
                check(&mut rw, &mut shadow, f, "split_block");
            }
            // redirect-edge: detour an edge through a fresh block, maybe back again.
            2 => {
                let cands: Vec<(BlockId, usize)> = blocks
                    .iter()
                    .filter_map(|b| Some((*b, rw.terminator(*b)?)))
                    .filter(|(_, t)| {
                        matches!(
                            rw.inst(*t).kind,
                            InstKind::Branch | InstKind::ConditionalBranch
                        )
                    })
                    .flat_map(|(b, t)| {
                        let k0 = usize::from(rw.inst(t).kind == InstKind::ConditionalBranch);
                        (k0..rw.inst(t).operands.len()).map(move |k| (b, k))
                    })
                    .collect();
                if cands.is_empty() {
                    continue;
                }
                let (from, k) = rng.pick(&cands);
                let t = rw.terminator(from).unwrap();
                let old = rw.inst(t).operands[k].as_block().unwrap();
                let detour = rw.create_block();
                rw.at(InsertPoint::End(detour)).br(old);
                // The detour's phi edges carry what `from` sent.
                let still = rw.successors(from).iter().filter(|s| **s == old).count() > 1;
                let mut added: Vec<InstId> = Vec::new();
                for p in rw.phis(old) {
                    let v = rw
                        .phi_edges(p)
                        .into_iter()
                        .find(|e| e.1 == from)
                        .map(|e| e.0)
                        .expect("phi has an edge for every predecessor");
                    rw.add_phi_edge(p, v, detour);
                    added.push(p);
                }
                rw.redirect_edge(from, k, detour, |_| unreachable!("detour has no phis"));
                n.redirect_edge += 1;
                // Still an edge from `from` (cond_br c, old, old): its phi edges stay.
                for p in rw.phis(old) {
                    let has = rw.phi_edges(p).iter().any(|e| e.1 == from);
                    assert_eq!(has, still);
                }
                check(&mut rw, &mut shadow, f, "redirect_edge (detour)");
                if rng.chance(50) {
                    // And back: `old`'s phis get `from` again (from the detour's values).
                    let vals: Vec<(InstId, Value)> = rw
                        .phis(old)
                        .into_iter()
                        .map(|p| {
                            let v = rw.phi_edges(p).iter().find(|e| e.1 == detour).unwrap().0;
                            (p, v)
                        })
                        .collect();
                    rw.redirect_edge(from, k, old, |p| vals.iter().find(|x| x.0 == p).unwrap().1);
                    // The detour is dead now: drop its phi edges and its branch.
                    for p in rw.phis(old) {
                        rw.remove_phi_edge(p, detour).unwrap();
                    }
                    let br = rw.terminator(detour).unwrap();
                    rw.remove(br);
                    rw.at(InsertPoint::End(detour)).unreachable("");
                    n.redirect_edge += 1;
                    check(&mut rw, &mut shadow, f, "redirect_edge (back)");
                }
            }
            // phi edits
            _ => {
                let phis: Vec<InstId> = insts
                    .iter()
                    .copied()
                    .filter(|i| matches!(rw.inst(*i).kind, InstKind::Phi))
                    .collect();
                if phis.is_empty() {
                    continue;
                }
                let p = rng.pick(&phis);
                let edges = rw.phi_edges(p);
                if edges.is_empty() {
                    continue;
                }
                let (v, b) = edges[rng.index(edges.len())];
                let undef = undef_of(&shadow, rw.inst(p).ty.unwrap()).unwrap();
                if rng.chance(50) {
                    assert_eq!(rw.remove_phi_edge(p, b), Some(v));
                    n.phi_remove += 1;
                    let value = if rng.chance(50) { v } else { undef };
                    rw.add_phi_edge(p, value, b);
                    n.phi_add += 1;
                } else if let Some(x) = rng
                    .chance(50)
                    .then(|| {
                        let owned = rw.func().block_order.to_vec();
                        owned.into_iter().find(|o| edges.iter().all(|e| e.1 != *o))
                    })
                    .flatten()
                {
                    // Rename the edge's block to another block (the index follows: the
                    // incoming block is a use), then back.
                    let (ub, ux) = (
                        rw.uses(Value::Block(b)).len(),
                        rw.uses(Value::Block(x)).len(),
                    );
                    assert_eq!(rw.rename_phi_block(p, b, x), 1);
                    assert_eq!(rw.uses(Value::Block(b)).len(), ub - 1);
                    assert_eq!(rw.uses(Value::Block(x)).len(), ux + 1);
                    let now = rw.func().clone();
                    if let Err(e) = rw.use_index().check(&now) {
                        panic!("use index after rename_phi_block: {e}");
                    }
                    assert_eq!(rw.rename_phi_block(p, x, b), 1);
                    n.phi_rename += 1;
                } else {
                    assert!(rw.set_phi_value(p, b, undef));
                    n.phi_set += 1;
                }
                check(&mut rw, &mut shadow, f, "phi edit");
            }
        }
    }
}

#[test]
fn random_edit_sequences_keep_index_and_verifier_clean() {
    let mut n = Counts::default();
    let cfg = GenConfig::default();
    let mut seed = 0u64;
    while n.min() < 1000 {
        assert!(seed < 5000, "not enough edits after {seed} modules: {n:?}");
        let mut m = generate_module(seed, &cfg);
        let mut rng = Rng::new(seed ^ 0x5eed);
        let funcs: Vec<FuncId> = m
            .func_order
            .iter()
            .copied()
            .filter(|f| m.func(*f).body.is_some())
            .collect();
        for f in funcs {
            edit_function(&mut m, f, &mut rng, &mut n);
        }
        // The whole module still verifies and prints/parses back.
        let diags = xir_ir::verify::verify_module(&m, &VerifyOptions::default(), None);
        assert!(diags.is_empty(), "seed {seed}: {}", diags[0].message);
        seed += 1;
    }
    eprintln!("edits after {seed} modules: {n:?}");
}

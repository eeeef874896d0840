//! The plain-CFG mode of the generator: small random verifier-clean functions with
//! plain control flow (loops, unreachable blocks, constant branches, indexed branches),
//! structured `if`/`loop`/`switch` diamonds, phis on every kind of join, allocas, loads,
//! stores and arithmetic on dominating values. [`generate_module`](crate::generate_module)
//! covers every instruction kind; this mode is dense in the CFG shapes the scalar and
//! control-flow passes rewrite (their fuzz, CFG round-trip and analysis-cache tests).

use crate::{Rng, T};
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::edit::InstBuilder;
use xir_ir::inst::{InstData, InstKind};
use xir_ir::op::{AllocaOp, ArithmeticOp as A};
use xir_ir::{BlockId, Metadata, Module, SecondaryMap, Value};

/// Generates a module holding one random verifier-clean `i32` callable from `seed`.
pub fn generate_plain_cfg_module(seed: u64) -> Module {
    let mut rng = Rng::new(seed);
    let mut t = T::callable(Some(|ts| ts.i32()));
    let i32t = t.i32();
    let boolt = t.boolt();
    let nb = 1 + rng.index(9);
    let blocks: Vec<BlockId> = (0..nb).map(|_| t.block()).collect();
    let args = [t.arg(i32t), t.arg(i32t)];
    let flag = t.arg(boolt);
    // Terminator skeletons first (so dominance is known before values are placed).
    #[derive(Clone, Copy)]
    enum Term {
        Ret,
        Br(usize),
        Cond(u8, usize, usize),
        Indexed(bool, usize, usize),
        If(usize, usize, usize),
        Loop(usize),
        Switch(usize),
    }
    let mut terms = Vec::new();
    let mut extra: Vec<BlockId> = Vec::new();
    for _ in 0..nb {
        let pick = rng.index(13);
        let term = match pick {
            0 | 1 => Term::Ret,
            2..=4 => Term::Br(rng.index(nb)),
            5..=7 => Term::Cond(rng.index(4) as u8, rng.index(nb), rng.index(nb)),
            8 => Term::Indexed(rng.chance(50), rng.index(nb), rng.index(nb)),
            9 | 10 => {
                let (th, el, m) = (t.block(), t.block(), t.block());
                extra.extend([th, el, m]);
                Term::If(extra.len() - 3, extra.len() - 2, extra.len() - 1)
            }
            11 => {
                let k = extra.len();
                extra.extend([t.block(), t.block(), t.block(), t.block()]);
                Term::Loop(k)
            }
            _ => {
                let k = extra.len();
                extra.extend([t.block(), t.block(), t.block()]);
                Term::Switch(k)
            }
        };
        terms.push(term);
    }
    // Allocas in the entry.
    let nalloca = rng.index(3);
    let slots: Vec<Value> = (0..nalloca)
        .map(|_| t.at(blocks[0]).alloca(AllocaOp::Local, i32t))
        .collect();
    // Emit terminators now (values are inserted before them later).
    for (k, &b) in blocks.iter().enumerate() {
        match terms[k] {
            Term::Ret => {
                t.at(b).ret(Some(args[0]));
            }
            Term::Br(x) => {
                t.at(b).br(blocks[x]);
            }
            Term::Cond(kind, x, y) => {
                let c = match kind {
                    0 => t.cbool(true),
                    1 => t.cbool(false),
                    _ => flag,
                };
                t.at(b).cond_br(c, blocks[x], blocks[y]);
            }
            Term::Indexed(constant, x, y) => {
                let sel = if constant { t.ci32(1) } else { args[1] };
                t.at(b)
                    .indexed_branch(sel, blocks[x], &[(0, blocks[y]), (1, blocks[y])]);
            }
            Term::If(th, el, m) => {
                let (th, el, m) = (extra[th], extra[el], extra[m]);
                t.at(b).if_(flag, th, el, m);
                t.at(th).br(m);
                t.at(el).br(m);
                t.at(m).ret(Some(args[1]));
            }
            Term::Loop(k) => {
                let (prep, body, upd, merge) = (extra[k], extra[k + 1], extra[k + 2], extra[k + 3]);
                t.at(b).loop_(prep, body, upd, Some(merge));
                let c = match rng.index(3) {
                    0 => t.cbool(false),
                    1 => t.cbool(true),
                    _ => flag,
                };
                t.at(prep).cond_br(c, body, merge);
                if rng.chance(30) {
                    t.at(body).break_(merge);
                } else {
                    t.at(body).continue_(upd);
                }
                t.at(upd).br(prep);
                if rng.chance(50) {
                    t.at(merge).ret(Some(args[0]));
                } else {
                    t.at(merge).br(blocks[rng.index(nb)]);
                }
            }
            Term::Switch(k) => {
                let (c0, d, merge) = (extra[k], extra[k + 1], extra[k + 2]);
                let sel = if rng.chance(40) { t.ci32(0) } else { args[1] };
                t.at(b).switch(sel, d, &[(0, c0)], merge);
                t.at(c0).break_(merge);
                t.at(d).break_(merge);
                t.at(merge).ret(Some(args[0]));
            }
        }
    }
    // Fill values in reverse post-order so dominating values exist.
    let f = t.m.func(t.f);
    let cfg = Cfg::compute(f);
    let dom = DomTree::compute(f, &cfg);
    let order: Vec<BlockId> = f.block_order.to_vec();
    let mut defined: SecondaryMap<BlockId, Vec<Value>> = SecondaryMap::default();
    let mut rpo: Vec<BlockId> = cfg.rpo.clone();
    rpo.extend(order.iter().copied().filter(|b| !cfg.is_reachable(*b)));
    let consts = [t.ci32(0), t.ci32(7), t.ci32(-3)];
    for &b in &rpo {
        let mut avail: Vec<Value> = args.to_vec();
        avail.extend(consts);
        if cfg.is_reachable(b) {
            let mut d = dom.idom(b);
            while let Some(x) = d {
                avail.extend(defined[x].iter().copied());
                d = dom.idom(x);
            }
        }
        let n = rng.index(5);
        for _ in 0..n {
            let term = t.m.func(t.f).terminator(b).expect("terminated");
            let choice = rng.index(6);
            let v = match choice {
                0 | 1 => {
                    let ops = [avail[rng.index(avail.len())], avail[rng.index(avail.len())]];
                    let op = [A::BinaryAdd, A::BinaryMul, A::BinarySub, A::BinaryDiv][rng.index(4)];
                    let d = InstData::new(InstKind::Arithmetic(op), Some(i32t), ops);
                    Some(t.func().insert_inst_before(term, d))
                }
                2 if !slots.is_empty() => {
                    let p = slots[rng.index(slots.len())];
                    Some(
                        t.func().insert_inst_before(
                            term,
                            InstData::new(InstKind::Load, Some(i32t), [p]),
                        ),
                    )
                }
                3 if !slots.is_empty() => {
                    let p = slots[rng.index(slots.len())];
                    let v = avail[rng.index(avail.len())];
                    t.func()
                        .insert_inst_before(term, InstData::new(InstKind::Store, None, [p, v]));
                    None
                }
                4 => {
                    let v = avail[rng.index(avail.len())];
                    t.func().insert_inst_before(
                        term,
                        InstData::new(InstKind::Print { format: "v".into() }, None, [v]),
                    );
                    None
                }
                _ => None,
            };
            if let Some(i) = v {
                avail.push(Value::Inst(i));
                defined[b].push(Value::Inst(i));
            }
        }
        // Return a value computed here sometimes.
        let term = t.m.func(t.f).terminator(b).expect("terminated");
        if matches!(t.m.func(t.f).insts[term].kind, InstKind::Return) && rng.chance(60) {
            let v = avail[rng.index(avail.len())];
            t.func().insts[term].operands[0] = v;
        }
    }
    // Phis: in blocks with predecessors, one per block sometimes; incoming values must be
    // available at the end of each predecessor.
    let f = t.m.func(t.f);
    let cfg = Cfg::compute(f);
    for &b in &order {
        let mut preds = cfg.preds(b).to_vec();
        preds.sort();
        preds.dedup();
        if preds.is_empty() || Some(b) == t.m.func(t.f).body || !rng.chance(50) {
            continue;
        }
        let mut inc = Vec::new();
        for &p in &preds {
            let mut cand: Vec<Value> = args.to_vec();
            cand.push(consts[rng.index(3)]);
            if cfg.is_reachable(p) {
                let mut d = Some(p);
                while let Some(x) = d {
                    cand.extend(defined[x].iter().copied());
                    d = dom.idom(x);
                }
            }
            inc.push((cand[rng.index(cand.len())], p));
        }
        let phi = t.func().insert_inst_at(b, 0, InstData::phi(i32t, inc));
        if rng.chance(30) {
            t.func().insts[phi]
                .metadata
                .push(Metadata::Name("p".into()));
        }
        // Use it before the terminator sometimes.
        if rng.chance(70) {
            let term = t.m.func(t.f).terminator(b).expect("terminated");
            let d = InstData::new(
                InstKind::Print { format: "p".into() },
                None,
                [Value::Inst(phi)],
            );
            t.func().insert_inst_before(term, d);
        }
    }
    t.m
}

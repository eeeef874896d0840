//! Randomised robustness tests: seeded random verifier-clean functions (plain CFG with
//! loops, unreachable blocks, constant branches, indexed branches, structured `if`
//! diamonds, phis, allocas, loads and stores, arithmetic on dominating values) are run
//! through every pass and through pass pairs. After every run the module must verify;
//! a run that reports "unchanged" must leave the module structurally identical, one that
//! reports an instruction-only change must leave its control-flow fingerprint alone; a second
//! run of an idempotent pass must report no change. The same properties are checked on
//! `ir::testgen` modules (every instruction kind and construct). More seeds:
//! `XIR_FUZZ_SEEDS=4000 XIR_TESTGEN_SEEDS=600 cargo test -p xir-passes --lib fuzz`.

use super::*;
use crate::Changed;
use crate::direct::DirectPass;
use crate::pipeline::fingerprint::cfg_fingerprint;
use ArithmeticOp as A;
use xir_testgen::structural_diff;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Builds one random function.
pub(super) fn random_module(seed: u64) -> Module {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut t = T::callable(Some(|ts| ts.i32()));
    let i32t = t.i32();
    let boolt = t.boolt();
    let nb = 1 + rng.below(9);
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
        let pick = rng.below(13);
        let term = match pick {
            0 | 1 => Term::Ret,
            2..=4 => Term::Br(rng.below(nb)),
            5..=7 => Term::Cond(rng.below(4) as u8, rng.below(nb), rng.below(nb)),
            8 => Term::Indexed(rng.chance(50), rng.below(nb), rng.below(nb)),
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
    let nalloca = rng.below(3);
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
                t.ins(
                    b,
                    InstKind::IndexedBranch { labels: vec![0, 1] },
                    None,
                    &[
                        sel,
                        Value::Block(blocks[x]),
                        Value::Block(blocks[y]),
                        Value::Block(blocks[y]),
                    ],
                );
            }
            Term::If(th, el, m) => {
                let (th, el, m) = (extra[th], extra[el], extra[m]);
                t.ins(
                    b,
                    InstKind::If { merge: Some(m) },
                    None,
                    &[flag, Value::Block(th), Value::Block(el)],
                );
                t.at(th).br(m);
                t.at(el).br(m);
                t.at(m).ret(Some(args[1]));
            }
            Term::Loop(k) => {
                let (prep, body, upd, merge) = (extra[k], extra[k + 1], extra[k + 2], extra[k + 3]);
                t.ins(
                    b,
                    InstKind::Loop {
                        body: Some(body),
                        update: Some(upd),
                        merge: Some(merge),
                    },
                    None,
                    &[Value::Block(prep)],
                );
                let c = match rng.below(3) {
                    0 => t.cbool(false),
                    1 => t.cbool(true),
                    _ => flag,
                };
                t.at(prep).cond_br(c, body, merge);
                if rng.chance(30) {
                    t.ins(body, InstKind::Break, None, &[Value::Block(merge)]);
                } else {
                    t.ins(body, InstKind::Continue, None, &[Value::Block(upd)]);
                }
                t.at(upd).br(prep);
                if rng.chance(50) {
                    t.at(merge).ret(Some(args[0]));
                } else {
                    t.at(merge).br(blocks[rng.below(nb)]);
                }
            }
            Term::Switch(k) => {
                let (c0, d, merge) = (extra[k], extra[k + 1], extra[k + 2]);
                let sel = if rng.chance(40) { t.ci32(0) } else { args[1] };
                t.ins(
                    b,
                    InstKind::Switch {
                        labels: vec![0],
                        merge: Some(merge),
                    },
                    None,
                    &[sel, Value::Block(d), Value::Block(c0)],
                );
                t.ins(c0, InstKind::Break, None, &[Value::Block(merge)]);
                t.ins(d, InstKind::Break, None, &[Value::Block(merge)]);
                t.at(merge).ret(Some(args[0]));
            }
        }
    }
    // Fill values in reverse post-order so dominating values exist.
    let f = t.m.func(t.f);
    let cfg = Cfg::compute(f);
    let dom = DomTree::compute(f, &cfg);
    let order: Vec<BlockId> = f.block_order.clone();
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
        let n = rng.below(5);
        for _ in 0..n {
            let term = t.m.func(t.f).terminator(b).expect("terminated");
            let choice = rng.below(6);
            let v = match choice {
                0 | 1 => {
                    let ops = [avail[rng.below(avail.len())], avail[rng.below(avail.len())]];
                    let op = [A::BinaryAdd, A::BinaryMul, A::BinarySub, A::BinaryDiv][rng.below(4)];
                    let d = InstData::new(InstKind::Arithmetic(op), Some(i32t), ops);
                    Some(t.func().insert_inst_before(term, d))
                }
                2 if !slots.is_empty() => {
                    let p = slots[rng.below(slots.len())];
                    Some(
                        t.func().insert_inst_before(
                            term,
                            InstData::new(InstKind::Load, Some(i32t), [p]),
                        ),
                    )
                }
                3 if !slots.is_empty() => {
                    let p = slots[rng.below(slots.len())];
                    let v = avail[rng.below(avail.len())];
                    t.func()
                        .insert_inst_before(term, InstData::new(InstKind::Store, None, [p, v]));
                    None
                }
                4 => {
                    let v = avail[rng.below(avail.len())];
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
            let v = avail[rng.below(avail.len())];
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
            cand.push(consts[rng.below(3)]);
            if cfg.is_reachable(p) {
                let mut d = Some(p);
                while let Some(x) = d {
                    cand.extend(defined[x].iter().copied());
                    d = dom.idom(x);
                }
            }
            inc.push((cand[rng.below(cand.len())], p));
        }
        let blocks_: Vec<BlockId> = inc.iter().map(|x| x.1).collect();
        let vals: Vec<Value> = inc.iter().map(|x| x.0).collect();
        let phi = t.func().insert_inst_at(
            b,
            0,
            InstData::new(InstKind::Phi { blocks: blocks_ }, Some(i32t), vals),
        );
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

fn run_pass(m: &mut Module, pass: &dyn Pass, what: &str, seed: u64) -> bool {
    let before = m.clone();
    let r = pass
        .run(m, &mut PassContext::default())
        .unwrap_or_else(|e| panic!("seed {seed}: {what} failed: {e}"));
    let diags = xir_ir::verify::verify_module(m, &xir_ir::verify::VerifyOptions::default(), None);
    assert!(
        diags.is_empty(),
        "seed {seed}: {what} broke the module: {diags:#?}"
    );
    if !r.changed.any()
        && let Some(d) = structural_diff(&before, m)
    {
        panic!("seed {seed}: {what} reported no change but changed: {d}");
    }
    assert!(
        r.changed != Changed::Instructions || cfg_fingerprint(&before) == cfg_fingerprint(m),
        "seed {seed}: {what} reported an instruction-only change but changed the CFG"
    );
    r.changed.any()
}

/// The transforming passes, built through the registry (indices are used below).
fn passes() -> Vec<(&'static str, Box<dyn Pass>)> {
    use DirectPass::*;
    let registry = crate::registry::Registry::new(false);
    [Dce, ConstFold, Mem2Reg, Reg2Mem, PhiCleanup, SimplifyCfg]
        .into_iter()
        .map(|p| {
            let info = registry.get(p.name()).expect("registered");
            let pass = (info.create)(&Default::default()).expect("default options");
            (p.name(), pass)
        })
        .collect()
}

#[test]
fn random_modules_stay_valid_and_passes_are_idempotent() {
    let all = passes();
    let seeds: u64 = std::env::var("XIR_FUZZ_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    for seed in 0..seeds {
        let m0 = random_module(seed);
        let diags =
            xir_ir::verify::verify_module(&m0, &xir_ir::verify::VerifyOptions::default(), None);
        assert!(
            diags.is_empty(),
            "seed {seed}: generator produced invalid IR: {diags:#?}"
        );
        for (name, p) in &all {
            let mut m = m0.clone();
            run_pass(&mut m, p.as_ref(), name, seed);
            let again = run_pass(&mut m, p.as_ref(), name, seed);
            assert!(!again, "seed {seed}: {name} is not idempotent");
        }
        // Pairs and a longer pipeline.
        for (a, b) in [(3, 2), (2, 4), (1, 0), (5, 0), (3, 5), (2, 5)] {
            let mut m = m0.clone();
            run_pass(&mut m, all[a].1.as_ref(), all[a].0, seed);
            run_pass(&mut m, all[b].1.as_ref(), all[b].0, seed);
        }
        let mut m = m0.clone();
        for k in [3, 2, 4, 1, 0, 5, 3, 2, 0] {
            run_pass(&mut m, all[k].1.as_ref(), all[k].0, seed);
        }
        // reg2mem then mem2reg consumes every spill marker it can reach.
        let mut m = m0.clone();
        run_pass(&mut m, all[3].1.as_ref(), all[3].0, seed);
        run_pass(&mut m, all[2].1.as_ref(), all[2].0, seed);
        let left = crate::transform::audit_reg2mem_spills::audit(&m);
        assert_eq!(left.invalid, 0, "seed {seed}");
    }
}

#[test]
#[ignore]
fn debug_seed() {
    let seed: u64 = std::env::var("SEED").unwrap().parse().unwrap();
    let pass = std::env::var("PASS").unwrap();
    let all = passes();
    let p = &all.iter().find(|(n, _)| *n == pass).unwrap().1;
    let mut m = random_module(seed);
    let pr = |m: &Module| xir_ir::text::print::print_module(m, &Default::default());
    eprintln!("=== input\n{}", pr(&m));
    let r = p.run(&mut m, &mut PassContext::default()).unwrap();
    eprintln!("=== after 1 {:?}\n{}", r.report, pr(&m));
    let r = p.run(&mut m, &mut PassContext::default()).unwrap();
    eprintln!("=== after 2 {:?}\n{}", r.report, pr(&m));
}

/// The shared generator (`ir::testgen`): every instruction kind, structured construct,
/// metadata kind and coroutine feature, in verifier-clean modules.
#[test]
fn testgen_modules_stay_valid_and_passes_are_idempotent() {
    let all = passes();
    let seeds: u64 = std::env::var("XIR_TESTGEN_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let cfg = xir_testgen::GenConfig::default();
    for seed in 0..seeds {
        let m0 = xir_testgen::generate_module(seed, &cfg);
        for (name, p) in &all {
            let mut m = m0.clone();
            run_pass(&mut m, p.as_ref(), name, seed);
            let again = run_pass(&mut m, p.as_ref(), name, seed);
            assert!(!again, "testgen seed {seed}: {name} is not idempotent");
        }
        let mut m = m0.clone();
        for k in [3, 2, 4, 1, 0, 5, 3, 2, 0] {
            run_pass(&mut m, all[k].1.as_ref(), all[k].0, seed);
        }
    }
}

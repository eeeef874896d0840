//! The analysis cache: dependencies are served from the cache, invalidation is per
//! function, and no pass leaves a stale analysis behind — after every pass, each cached
//! CFG, dominator tree, frontier set and use map equals a fresh computation.

use super::{AllocaOp, InstBuilder};
use crate::analysis::{AnalysisCache, DomFrontiers};
use crate::direct::DirectPass;
use crate::pass::{Pass, PassContext};
use crate::transform::audit_reg2mem_spills::AuditReg2MemSpills;
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::uses::UseMap;
use xir_ir::{FuncId, Module, Value};

fn bodies(m: &Module) -> Vec<FuncId> {
    m.func_order
        .iter()
        .copied()
        .filter(|f| m.func(*f).body.is_some())
        .collect()
}

#[test]
fn dependencies_come_from_the_cache_and_invalidation_is_per_function() {
    let m = xir_testgen::generate_module(7, &Default::default());
    let fs = bodies(&m);
    assert!(fs.len() >= 2, "the generated module has several bodies");
    let (f, g) = (fs[0], fs[1]);
    let mut c = AnalysisCache::default();
    c.get::<DomFrontiers>(&m, f);
    assert_eq!(
        c.computed, 3,
        "frontiers compute the CFG and dominator tree once"
    );
    c.get::<Cfg>(&m, f);
    c.get::<DomTree>(&m, f);
    assert_eq!(c.computed, 3, "both were cached as dependencies");
    c.get::<DomTree>(&m, g);
    assert_eq!(c.computed, 5);
    c.invalidate_function(f);
    assert!(c.cached::<Cfg>(f).is_none() && c.cached::<DomFrontiers>(f).is_none());
    assert!(c.cached::<Cfg>(g).is_some() && c.cached::<DomTree>(g).is_some());
    c.get::<Cfg>(&m, f);
    assert_eq!(c.computed, 6);
    c.invalidate_all();
    assert!(c.cached::<DomTree>(g).is_none());
}

/// Differences between the cached analyses of `f` and fresh ones.
fn stale(m: &Module, f: FuncId, c: &AnalysisCache) -> Vec<&'static str> {
    let func = m.func(f);
    let cfg = Cfg::compute(func);
    let dom = DomTree::compute(func, &cfg);
    let mut out = Vec::new();
    if let Some(old) = c.cached::<Cfg>(f) {
        let same = old.rpo == cfg.rpo
            && func
                .block_order
                .iter()
                .all(|b| old.succs(*b) == cfg.succs(*b) && old.preds(*b) == cfg.preds(*b));
        if !same {
            out.push("cfg");
        }
    }
    if let Some(old) = c.cached::<DomTree>(f) {
        let same = func
            .block_order
            .iter()
            .all(|b| old.contains(*b) == dom.contains(*b) && old.idom(*b) == dom.idom(*b));
        if !same {
            out.push("dominator tree");
        }
    }
    if let Some(old) = c.cached::<DomFrontiers>(f) {
        let new = DomFrontiers::from_parts(&cfg, &dom);
        if !func.block_order.iter().all(|b| old.of(*b) == new.of(*b)) {
            out.push("dominance frontiers");
        }
    }
    if let Some(old) = c.cached::<UseMap>(f) {
        let new = UseMap::compute(func);
        let same = func
            .placed_insts()
            .all(|i| old.uses(Value::Inst(i)) == new.uses(Value::Inst(i)))
            && func
                .block_order
                .iter()
                .all(|b| old.uses(Value::Block(*b)) == new.uses(Value::Block(*b)))
            && func
                .arg_order
                .iter()
                .all(|a| old.uses(Value::Arg(*a)) == new.uses(Value::Arg(*a)));
        if !same {
            out.push("use map");
        }
    }
    out
}

fn warm(m: &Module, c: &mut AnalysisCache) {
    for f in bodies(m) {
        c.get::<DomFrontiers>(m, f);
        c.get::<UseMap>(m, f);
    }
}

fn run(p: DirectPass, m: &mut Module, cx: &mut PassContext) {
    let r = match p {
        DirectPass::AuditReg2MemSpills => AuditReg2MemSpills { fatal: false }.run(m, cx),
        _ => p.run(m, cx),
    };
    if let Err(e) = r {
        panic!("{}: {e}", p.name());
    }
}

/// Every pass, in an order that gives each one work, with one shared context and every
/// analysis warmed before each pass: whatever a pass leaves cached must be current.
#[test]
fn no_pass_leaves_a_stale_analysis() {
    use DirectPass::*;
    let order = [
        Mem2Reg,
        ConstFold,
        Dce,
        SimplifyCfg,
        PhiCleanup,
        Reg2Mem,
        AuditReg2MemSpills,
        Mem2Reg,
        SimplifyCfg,
        Dce,
        ConstFold,
        PhiCleanup,
        AlgebraicSimplify,
        DivRemPairs,
        Reassociate,
        SimplifyLibcalls,
    ];
    let cfg = xir_testgen::GenConfig::default();
    let mut modules: Vec<(String, Module)> = (0..40)
        .map(|s| {
            (
                format!("testgen seed {s}"),
                xir_testgen::generate_module(s, &cfg),
            )
        })
        .collect();
    modules.extend((0..200).map(|s| {
        (
            format!("random CFG seed {s}"),
            xir_testgen::generate_plain_cfg_module(s),
        )
    }));
    for (what, mut m) in modules {
        let mut cx = PassContext::default();
        for p in order {
            warm(&m, &mut cx.analyses);
            run(p, &mut m, &mut cx);
            for f in bodies(&m) {
                let s = stale(&m, f, &cx.analyses);
                assert!(
                    s.is_empty(),
                    "{what}: after {}, the cached {s:?} of {f:?} is stale",
                    p.name()
                );
            }
        }
    }
}

/// What a pass reports decides what survives: an instruction-only change keeps the CFG,
/// dominator tree and frontiers (the same cached objects) and drops the use map; no
/// change keeps the use map; a control-flow change drops everything.
#[test]
fn analyses_survive_by_change_class() {
    use super::T;
    use crate::Changed;
    use crate::pass::PerFunction;
    use crate::transform::{mem2reg::Mem2Reg, simplify_cfg::SimplifyCfg};
    use std::rc::Rc;
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let x = t.block();
    let y = t.block();
    let i32t = t.i32();
    let a = t.arg(i32t);
    let p = t.at(e).alloca(AllocaOp::Local, i32t);
    t.at(e).store(p, a);
    let tru = t.cbool(true);
    t.at(e).cond_br(tru, x, y);
    let v = t.at(x).load(i32t, p);
    t.at(x).ret(Some(v));
    t.at(y).ret(Some(a));
    let f = t.f;
    let mut cx = PassContext::default();
    warm(&t.m, &mut cx.analyses);
    let (cfg, dom) = (
        cx.analyses.cached::<Cfg>(f).unwrap(),
        cx.analyses.cached::<DomTree>(f).unwrap(),
    );
    let r = PerFunction(Mem2Reg).run(&mut t.m, &mut cx).unwrap();
    assert_eq!(r.changed, Changed::Instructions);
    assert!(Rc::ptr_eq(&cfg, &cx.analyses.cached::<Cfg>(f).unwrap()));
    assert!(Rc::ptr_eq(&dom, &cx.analyses.cached::<DomTree>(f).unwrap()));
    assert!(cx.analyses.cached::<DomFrontiers>(f).is_some());
    assert!(cx.analyses.cached::<UseMap>(f).is_none());
    let uses = cx.analyses.get::<UseMap>(&t.m, f);
    let computed = cx.analyses.computed;
    let r = PerFunction(Mem2Reg).run(&mut t.m, &mut cx).unwrap();
    assert_eq!(r.changed, Changed::Nothing);
    assert!(Rc::ptr_eq(&uses, &cx.analyses.cached::<UseMap>(f).unwrap()));
    assert_eq!(
        cx.analyses.computed, computed,
        "mem2reg used the cached analyses"
    );
    let r = PerFunction(SimplifyCfg).run(&mut t.m, &mut cx).unwrap();
    assert_eq!(r.changed, Changed::ControlFlow);
    assert!(cx.analyses.cached::<Cfg>(f).is_none() && cx.analyses.cached::<UseMap>(f).is_none());
    assert!(stale(&t.m, f, &cx.analyses).is_empty());
}

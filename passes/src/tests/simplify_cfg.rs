use super::*;
use crate::PerFunction;
use crate::transform::simplify_cfg::SimplifyCfg;
use ArithmeticOp as A;

fn sc() -> PerFunction<SimplifyCfg> {
    PerFunction(SimplifyCfg)
}

#[test]
fn merges_straight_line_chain() {
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let b1 = t.block();
    let b2 = t.block();
    let i32t = t.i32();
    let a = t.arg(i32t);
    let x = t.at(e).arith(A::BinaryAdd, i32t, &[a, a]);
    t.at(e).br(b1);
    let y = t.at(b1).arith(A::BinaryMul, i32t, &[x, x]);
    t.at(b1).br(b2);
    t.at(b2).ret(Some(y));
    let r = t.run(&sc());
    assert_eq!(r.changed, crate::Changed::ControlFlow);
    assert_eq!(stat(&r, "merged_straight_line"), 2);
    assert_eq!(stat(&r, "straight_line_scan"), 2);
    assert_eq!(t.m.func(t.f).block_order, vec![e]);
    assert_eq!(t.m.func(t.f).blocks[e].insts.len(), 3);
    let again = t.run(&sc());
    assert!(!again.changed.any());
    assert_eq!(stat(&again, "straight_line_scan"), 1);
    assert_eq!(stat(&again, "straight_line_block_visit"), 1);
}

#[test]
fn folds_constant_branch_and_drops_dead_block() {
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let l = t.block();
    let r = t.block();
    let m = t.block();
    let i32t = t.i32();
    let a = t.arg(i32t);
    let fls = t.cbool(false);
    let one = t.ci32(1);
    t.at(e).cond_br(fls, l, r);
    let x = t.at(l).arith(A::BinaryAdd, i32t, &[a, one]);
    t.at(l).br(m);
    let y = t.at(r).arith(A::BinarySub, i32t, &[a, one]);
    t.at(r).br(m);
    let p = t.at(m).phi(i32t, &[(x, l), (y, r)]);
    t.at(m).ret(Some(p));
    let res = t.run(&sc());
    assert_eq!(stat(&res, "folded_constant_cond_br"), 1);
    assert_eq!(stat(&res, "removed_unreachable_block"), 1);
    let f = t.m.func(t.f);
    assert!(!f.has_block(l));
    // The phi keeps its single incoming (phi-cleanup's job to remove it), so `m` is not
    // merged into `r`.
    assert_eq!(t.count(|k| matches!(k, InstKind::Phi)), 1);
    assert!(!t.run(&sc()).changed.any());
}

#[test]
fn folds_constant_indexed_branch() {
    let mut t = T::callable(None);
    let e = t.block();
    let d = t.block();
    let c0 = t.block();
    let c1 = t.block();
    let sel = t.ci32(-1);
    t.at(e)
        .indexed_branch(sel, d, &[(0, c0), (0xffff_ffff, c1)]);
    let i32t = t.i32();
    let a = t.arg(i32t);
    for b in [d, c0, c1] {
        t.at(b).print("x", &[a]);
        t.at(b).ret(None);
    }
    let res = t.run(&sc());
    assert_eq!(stat(&res, "folded_switch"), 1);
    assert_eq!(stat(&res, "removed_unreachable_block"), 2);
    assert_eq!(stat(&res, "merged_straight_line"), 1);
    assert_eq!(t.m.func(t.f).block_order, vec![e]);
}

#[test]
fn threads_empty_block_and_keeps_loop_prepare() {
    let mut t = T::callable(None);
    let e = t.block();
    let prep = t.block();
    let body = t.block();
    let upd = t.block();
    let merge = t.block();
    let empty = t.block();
    let fls = t.cbool(false);
    let boolt = t.boolt();
    let c = t.arg(boolt);
    t.at(e).loop_(prep, body, upd, Some(merge));
    t.at(prep).cond_br(fls, body, merge);
    t.at(body).continue_(upd);
    t.at(upd).br(prep);
    t.at(merge).cond_br(c, empty, empty);
    t.at(empty).br(e);
    let _ = empty;
    let res = t.run(&sc());
    assert!(matches!(t.term(prep).kind, InstKind::ConditionalBranch));
    assert_eq!(stat(&res, "folded_constant_cond_br"), 1); // merge's identical targets
    assert!(!t.run(&sc()).changed.any());
}

#[test]
fn threads_empty_if_arm_and_stays_valid() {
    let mut t = T::callable(None);
    let e = t.block();
    let th = t.block();
    let el = t.block();
    let m = t.block();
    let boolt = t.boolt();
    let c = t.arg(boolt);
    t.at(e).if_(c, th, el, m);
    t.at(th).br(m);
    t.at(el).print("x", &[]);
    t.at(el).br(m);
    t.at(m).ret(None);
    let res = t.run(&sc());
    assert_eq!(stat(&res, "threaded_empty_block"), 1);
    assert_eq!(stat(&res, "removed_unreachable_block"), 1);
    assert!(matches!(t.term(e).kind, InstKind::If { .. }));
    assert_eq!(t.term(e).operands[1], Value::Block(m));
}

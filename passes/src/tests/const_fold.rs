use super::*;
use crate::PerFunction;
use crate::transform::const_fold::ConstFold;
use ArithmeticOp as A;

fn cf() -> PerFunction<ConstFold> {
    PerFunction(ConstFold)
}

#[test]
fn folds_chains_in_one_run() {
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let i32t = t.i32();
    let two = t.ci32(2);
    let three = t.ci32(3);
    let a = t.at(e).arith(A::BinaryAdd, i32t, &[two, three]);
    let b = t.at(e).arith(A::BinaryMul, i32t, &[a, a]);
    t.at(e).ret(Some(b));
    let r = t.run(&cf());
    assert_eq!(r.changed, crate::Changed::Instructions);
    assert_eq!(stat(&r, "folded_inst"), 2);
    let c25 = t.ci32(25);
    assert_eq!(t.term(e).operands[0], c25);
    assert!(!t.run(&cf()).changed.any());
}

#[test]
fn keeps_annotated_and_unsafe() {
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let i32t = t.i32();
    let two = t.ci32(2);
    let zero = t.ci32(0);
    let a = t.at(e).arith(A::BinaryAdd, i32t, &[two, two]);
    t.name(a, "four");
    let d = t.at(e).arith(A::BinaryDiv, i32t, &[two, zero]);
    let s = t.at(e).arith(A::BinaryAdd, i32t, &[a, d]);
    t.at(e).ret(Some(s));
    let r = t.run(&cf());
    assert!(!r.changed.any());
    assert_eq!(stat(&r, "folded_inst"), 0);
}

#[test]
fn folds_into_phis_and_branches() {
    let mut t = T::callable(Some(|ts| ts.f32()));
    let e = t.block();
    let x = t.block();
    let f32t = t.f32t();
    let boolt = t.boolt();
    let one = t.cf32(1.0);
    let half = t.cf32(0.5);
    let c = t.at(e).arith(A::BinaryLess, boolt, &[half, one]);
    let s = t.at(e).arith(A::BinaryAdd, f32t, &[half, one]);
    t.at(e).cond_br(c, x, x);
    let p = t.at(x).phi(f32t, &[(s, e)]);
    t.at(x).ret(Some(p));
    let r = t.run(&cf());
    assert_eq!(stat(&r, "folded_inst"), 2);
    let tru = t.cbool(true);
    assert_eq!(t.term(e).operands[0], tru);
    let v = t.cf32(1.5);
    let f = t.m.func(t.f);
    assert_eq!(f.insts[p.as_inst().unwrap()].phi_edge(0).unwrap().0, v);
}

use super::*;
use crate::PerFunction;
use crate::transform::phi_cleanup::PhiCleanup;
use ArithmeticOp as A;

fn pc() -> PerFunction<PhiCleanup> {
    PerFunction(PhiCleanup)
}

/// entry: x = a + a; br h;  h: p = phi (x, entry), (p|q, h); q = p + 1; cond_br c, h, exit
fn looped(self_ref: bool) -> (T, Value, Value, Value) {
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let h = t.block();
    let exit = t.block();
    let i32t = t.i32();
    let boolt = t.boolt();
    let a = t.arg(i32t);
    let c = t.arg(boolt);
    let one = t.ci32(1);
    let x = t.at(e).arith(A::BinaryAdd, i32t, &[a, a]);
    t.at(e).br(h);
    let p = t.at(h).phi(i32t, &[(x, e)]);
    let q = t.at(h).arith(A::BinaryAdd, i32t, &[p, one]);
    {
        let back = if self_ref { p } else { q };
        let f = t.func();
        let pi = p.as_inst().unwrap();
        f.insts[pi].phi_push(back, h);
    }
    t.at(h).cond_br(c, h, exit);
    t.at(exit).ret(Some(q));
    (t, x, p, q)
}

#[test]
fn self_referencing_phi_takes_dominating_value() {
    let (mut t, x, _p, q) = looped(true);
    let r = t.run(&pc());
    assert_eq!(stat(&r, "removed_phi"), 1);
    let f = t.m.func(t.f);
    assert_eq!(f.insts[q.as_inst().unwrap()].operands[0], x);
    assert!(!t.run(&pc()).changed.any());
}

#[test]
fn loop_carried_phi_stays() {
    let (mut t, ..) = looped(false);
    let r = t.run(&pc());
    assert!(!r.changed.any());
    assert_eq!(stat(&r, "removed_phi"), 0);
}

#[test]
fn named_phi_is_kept_unnamed_and_unused_go() {
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let l = t.block();
    let r = t.block();
    let m = t.block();
    let i32t = t.i32();
    let boolt = t.boolt();
    let c = t.arg(boolt);
    let a = t.arg(i32t);
    t.at(e).cond_br(c, l, r);
    t.at(l).br(m);
    t.at(r).br(m);
    let named = t.at(m).phi(i32t, &[(a, l), (a, r)]);
    t.name(named, "keep");
    let plain = t.at(m).phi(i32t, &[(a, l), (a, r)]);
    let _unused = t.at(m).phi(i32t, &[(a, l), (a, r)]);
    let s = t.at(m).arith(A::BinaryAdd, i32t, &[named, plain]);
    t.at(m).ret(Some(s));
    let res = t.run(&pc());
    assert_eq!(stat(&res, "removed_phi"), 2);
    let f = t.m.func(t.f);
    assert_eq!(
        f.insts[s.as_inst().unwrap()].operands.to_vec(),
        vec![named, a]
    );
}

use super::*;
use crate::PerFunction;
use crate::transform::dce::Dce;
use ArithmeticOp as A;

fn dce() -> PerFunction<Dce> {
    PerFunction(Dce)
}

#[test]
fn no_functions_publishes_all_keys() {
    let mut m = Module::new();
    let r = dce().run(&mut m, &mut PassContext::default()).unwrap();
    assert_eq!(r.report.entries().len(), 5);
    assert!(r.report.entries().iter().all(|(_, v)| *v == 0));
    assert!(!r.changed.any());
}

#[test]
fn removes_unused_chain_through_worklist() {
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let i32t = t.i32();
    let a = t.arg(i32t);
    let x = t.at(e).arith(A::BinaryAdd, i32t, &[a, a]);
    let y = t.at(e).arith(A::BinaryMul, i32t, &[x, x]);
    let _z = t.at(e).arith(A::UnaryMinus, i32t, &[y]);
    t.at(e).ret(Some(a));
    let r = t.run(&dce());
    assert_eq!(r.changed, crate::Changed::Instructions);
    assert_eq!(stat(&r, "removed_inst"), 3);
    assert_eq!(stat(&r, "dead_code_instruction_scan"), 4);
    assert_eq!(stat(&r, "dead_code_worklist_pop"), 3);
    assert_eq!(t.count(|_| true), 1);
    let again = t.run(&dce());
    assert!(!again.changed.any(), "idempotent");
    assert_eq!(stat(&again, "removed_inst"), 0);
}

#[test]
fn keeps_side_effects() {
    let mut t = T::callable(None);
    let e = t.block();
    let i32t = t.i32();
    let p = t.at(e).alloca(AllocaOp::Local, i32t);
    let one = t.ci32(1);
    t.at(e).store(p, one);
    let v = t.at(e).load(i32t, p);
    let boolt = t.boolt();
    let c = t.at(e).arith(A::BinaryEqual, boolt, &[v, one]);
    t.at(e).assert(c, "x");
    t.at(e).ret(None);
    let before = t.count(|_| true);
    let r = t.run(&dce());
    assert!(!r.changed.any());
    assert_eq!(t.count(|_| true), before);
}

#[test]
fn write_only_alloca_goes_with_its_stores_and_values() {
    let mut t = T::callable(None);
    let e = t.block();
    let i32t = t.i32();
    let a = t.arg(i32t);
    let p = t.at(e).alloca(AllocaOp::Local, i32t);
    let x = t.at(e).arith(A::BinaryAdd, i32t, &[a, a]);
    t.at(e).store(p, x);
    t.at(e).store(p, a);
    t.at(e).ret(None);
    let r = t.run(&dce());
    assert_eq!(r.changed, crate::Changed::Instructions);
    // alloca + 2 stores explicitly, then the add through the worklist.
    assert_eq!(stat(&r, "removed_inst"), 4);
    assert_eq!(stat(&r, "dead_code_worklist_pop"), 1);
    assert_eq!(t.count(|_| true), 1);
}

#[test]
fn folds_constant_cond_br_and_removes_dead_block_and_phi() {
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let a_blk = t.block();
    let b_blk = t.block();
    let m_blk = t.block();
    let i32t = t.i32();
    let tru = t.cbool(true);
    let one = t.ci32(1);
    let two = t.ci32(2);
    let br = t.at(e).cond_br(tru, a_blk, b_blk);
    t.func().insts[br]
        .metadata
        .push(Metadata::Comment("keep me".into()));
    t.at(a_blk).br(m_blk);
    t.at(b_blk).br(m_blk);
    let p = t.at(m_blk).phi(i32t, &[(one, a_blk), (two, b_blk)]);
    t.at(m_blk).ret(Some(p));
    let r = t.run(&dce());
    assert_eq!(r.changed, crate::Changed::ControlFlow);
    assert_eq!(stat(&r, "removed_block"), 1);
    // cond_br rewritten (1), b's br cleared (1), phi replaced (1).
    assert_eq!(stat(&r, "removed_inst"), 3);
    let term = t.term(e);
    assert!(matches!(term.kind, InstKind::Branch));
    assert_eq!(term.metadata, vec![Metadata::Comment("keep me".into())]);
    assert_eq!(t.term(m_blk).operands[0], one);
    assert!(!t.m.func(t.f).has_block(b_blk));
    assert!(!t.run(&dce()).changed.any());
}

#[test]
fn keeps_loop_prepare_false_form_and_shells() {
    let mut t = T::callable(None);
    let e = t.block();
    let prep = t.block();
    let body = t.block();
    let upd = t.block();
    let merge = t.block();
    let fls = t.cbool(false);
    t.at(e).loop_(prep, body, upd, Some(merge));
    t.at(prep).cond_br(fls, body, merge);
    let i32t = t.i32();
    let a = t.arg(i32t);
    let p = t.at(body).alloca(AllocaOp::Local, i32t);
    t.at(body).store(p, a);
    t.at(body).continue_(upd);
    t.at(upd).br(prep);
    t.at(merge).ret(None);
    let r = t.run(&dce());
    assert_eq!(r.changed, crate::Changed::ControlFlow);
    assert!(matches!(t.term(prep).kind, InstKind::ConditionalBranch));
    let f = t.m.func(t.f);
    assert!(f.has_block(body) && f.has_block(upd));
    assert!(matches!(t.term(body).kind, InstKind::Unreachable { .. }));
    assert!(matches!(t.term(upd).kind, InstKind::Unreachable { .. }));
    assert_eq!(stat(&r, "removed_block"), 0);
    assert!(!t.run(&dce()).changed.any());
}

#[test]
fn constant_if_keeps_construct_and_empties_untaken_arm() {
    let mut t = T::callable(None);
    let e = t.block();
    let th = t.block();
    let el = t.block();
    let merge = t.block();
    let tru = t.cbool(true);
    t.at(e).if_(tru, th, el, merge);
    t.at(th).br(merge);
    let i32t = t.i32();
    let a = t.arg(i32t);
    t.at(el).print("x", &[a]);
    t.at(el).br(merge);
    t.at(merge).ret(None);
    let r = t.run(&dce());
    assert_eq!(r.changed, crate::Changed::ControlFlow);
    assert!(matches!(t.term(e).kind, InstKind::If { .. }));
    assert_eq!(t.m.func(t.f).blocks[el].insts.len(), 1);
    assert!(matches!(t.term(el).kind, InstKind::Unreachable { .. }));
    assert_eq!(stat(&r, "removed_inst"), 2);
}

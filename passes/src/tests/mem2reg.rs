use super::*;
use crate::PerFunction;
use crate::transform::mem2reg::Mem2Reg;
use ArithmeticOp as A;
use xir_ir::metadata::SpillKind;

fn m2r() -> PerFunction<Mem2Reg> {
    PerFunction(Mem2Reg)
}

fn is_phi(k: &InstKind) -> bool {
    matches!(k, InstKind::Phi)
}

#[test]
fn diamond_gets_named_phi() {
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let th = t.block();
    let el = t.block();
    let m = t.block();
    let i32t = t.i32();
    let boolt = t.boolt();
    let c = t.arg(boolt);
    let a = t.arg(i32t);
    let b = t.arg(i32t);
    let p = t.at(e).alloca(AllocaOp::Local, i32t);
    t.name(p, "x");
    t.at(e).cond_br(c, th, el);
    t.at(th).store(p, a);
    t.at(th).br(m);
    t.at(el).store(p, b);
    t.at(el).br(m);
    let v = t.at(m).load(i32t, p);
    t.at(m).ret(Some(v));
    let r = t.run(&m2r());
    assert_eq!(r.changed, crate::Changed::Instructions);
    assert_eq!(stat(&r, "promoted_alloca"), 1);
    assert_eq!(stat(&r, "removed_store"), 2);
    assert_eq!(stat(&r, "removed_load"), 1);
    assert_eq!(stat(&r, "inserted_phi"), 1);
    let f = t.m.func(t.f);
    let phi = f.blocks[m].insts[0];
    assert!(is_phi(&f.insts[phi].kind));
    assert_eq!(f.insts[phi].metadata, vec![Metadata::Name("x".into())]);
    assert_eq!(t.term(m).operands[0], Value::Inst(phi));
    assert_eq!(
        t.count(|k| matches!(k, InstKind::Alloca(_) | InstKind::Load | InstKind::Store)),
        0
    );
    assert!(!t.run(&m2r()).changed.any(), "idempotent");
}

#[test]
fn loop_counter() {
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let h = t.block();
    let body = t.block();
    let exit = t.block();
    let i32t = t.i32();
    let boolt = t.boolt();
    let n = t.arg(i32t);
    let zero = t.ci32(0);
    let one = t.ci32(1);
    let p = t.at(e).alloca(AllocaOp::Local, i32t);
    t.at(e).store(p, zero);
    t.at(e).br(h);
    let i = t.at(h).load(i32t, p);
    let c = t.at(h).arith(A::BinaryLess, boolt, &[i, n]);
    t.at(h).cond_br(c, body, exit);
    let i2 = t.at(body).load(i32t, p);
    let inc = t.at(body).arith(A::BinaryAdd, i32t, &[i2, one]);
    t.at(body).store(p, inc);
    t.at(body).br(h);
    let fin = t.at(exit).load(i32t, p);
    t.at(exit).ret(Some(fin));
    let r = t.run(&m2r());
    assert_eq!(stat(&r, "inserted_phi"), 1);
    assert_eq!(stat(&r, "removed_load"), 3);
    let f = t.m.func(t.f);
    let phi = f.blocks[h].insts[0];
    assert_eq!(
        f.insts[phi].phi_incoming().collect::<Vec<_>>(),
        vec![(zero, e), (inc, body)]
    );
    // The body's load reads the header phi, the exit returns it.
    assert_eq!(
        f.insts[inc.as_inst().unwrap()].operands[0],
        Value::Inst(phi)
    );
    assert_eq!(t.term(exit).operands[0], Value::Inst(phi));
}

#[test]
fn straight_line_forwarding_and_uninitialised_read() {
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let i32t = t.i32();
    let a = t.arg(i32t);
    let b = t.arg(i32t);
    let p = t.at(e).alloca(AllocaOp::Local, i32t);
    let u = t.at(e).load(i32t, p); // before any store: undefined
    t.at(e).store(p, a);
    t.at(e).store(p, b);
    let v = t.at(e).load(i32t, p);
    let s = t.at(e).arith(A::BinaryAdd, i32t, &[u, v]);
    t.at(e).ret(Some(s));
    let r = t.run(&m2r());
    assert_eq!(stat(&r, "removed_store"), 2);
    assert_eq!(stat(&r, "removed_load"), 2);
    assert_eq!(stat(&r, "inserted_phi"), 0);
    let f = t.m.func(t.f);
    let ops = &f.insts[s.as_inst().unwrap()].operands;
    assert!(matches!(ops[0], Value::Undef(_)));
    assert_eq!(ops[1], b);
}

#[test]
fn leaves_escaping_or_annotated_allocas() {
    let mut t = T::callable(None);
    let e = t.block();
    let i32t = t.i32();
    let a = t.arg(i32t);
    // GEP user.
    let arr =
        t.m.types
            .intern(xir_ir::TypeData::Array { elem: i32t, len: 4 });
    let p = t.at(e).alloca(AllocaOp::Local, arr);
    let zero = t.cu32(0);
    let g = t.at(e).gep(i32t, p, &[zero]);
    t.at(e).store(g, a);
    // Annotated store.
    let q = t.at(e).alloca(AllocaOp::Local, i32t);
    let s = t.at(e).store(q, a);
    t.func().insts[s]
        .metadata
        .push(Metadata::Comment("keep".into()));
    let l = t.at(e).load(i32t, q);
    // Shared alloca.
    let sh = t.at(e).alloca(xir_ir::op::AllocaOp::Shared, i32t);
    t.at(e).store(sh, l);
    t.at(e).ret(None);
    let before = t.count(|_| true);
    let r = t.run(&m2r());
    assert!(!r.changed.any());
    assert_eq!(t.count(|_| true), before);
}

#[test]
fn consumes_spill_marker_and_named_reload() {
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let x = t.block();
    let i32t = t.i32();
    let a = t.arg(i32t);
    let p = t.at(e).alloca(AllocaOp::Local, i32t);
    let pi = p.as_inst().unwrap();
    t.func().insts[pi]
        .metadata
        .push(Metadata::Reg2MemSpill(SpillKind::CrossBlock));
    t.at(e).store(p, a);
    t.at(e).br(x);
    let l = t.at(x).load(i32t, p);
    t.name(l, "reload");
    t.at(x).ret(Some(l));
    let r = t.run(&m2r());
    assert_eq!(stat(&r, "promoted_alloca"), 1);
    assert_eq!(t.term(x).operands[0], a);
}

#[test]
fn use_in_unreachable_block_blocks_promotion() {
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let dead = t.block();
    let i32t = t.i32();
    let a = t.arg(i32t);
    let p = t.at(e).alloca(AllocaOp::Local, i32t);
    t.at(e).store(p, a);
    let l = t.at(e).load(i32t, p);
    t.at(e).ret(Some(l));
    let l2 = t.at(dead).load(i32t, p);
    t.at(dead).ret(Some(l2));
    let r = t.run(&m2r());
    assert!(!r.changed.any());
}

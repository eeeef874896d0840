use super::*;
use crate::PerFunction;
use crate::transform::audit_reg2mem_spills::{AuditReg2MemSpills, audit};
use crate::transform::mem2reg::Mem2Reg;
use crate::transform::reg2mem::Reg2Mem;
use ArithmeticOp as A;
use xir_ir::metadata::SpillKind;

fn r2m() -> PerFunction<Reg2Mem> {
    PerFunction(Reg2Mem)
}

/// entry: cond_br c, l, r;  l: br m;  r: br m;  m: x = phi (a, l), (b, r) [name = x]; ret x
fn diamond() -> (T, [BlockId; 4], Value) {
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let l = t.block();
    let r = t.block();
    let m = t.block();
    let i32t = t.i32();
    let boolt = t.boolt();
    let c = t.arg(boolt);
    let a = t.arg(i32t);
    let b = t.arg(i32t);
    let x = t.at(l).arith(A::BinaryAdd, i32t, &[a, b]);
    t.at(e).cond_br(c, l, r);
    t.at(l).br(m);
    t.at(r).br(m);
    let p = t.at(m).phi(i32t, &[(x, l), (b, r)]);
    t.name(p, "x");
    t.at(m).ret(Some(p));
    (t, [e, l, r, m], p)
}

#[test]
fn phi_becomes_marked_slot_and_round_trips() {
    let (mut t, [e, l, r, m], p) = diamond();
    let res = t.run(&r2m());
    assert_eq!(res.changed, crate::Changed::Instructions);
    assert_eq!(stat(&res, "lowered_phi"), 1);
    assert_eq!(stat(&res, "lowered_cross_block_value"), 0);
    assert_eq!(stat(&res, "hoisted_alloca"), 0);
    let f = t.m.func(t.f);
    let slot = f.blocks[e].insts[0];
    assert!(matches!(f.insts[slot].kind, InstKind::Alloca(_)));
    assert_eq!(
        f.insts[slot].metadata,
        vec![
            Metadata::Reg2MemSpill(SpillKind::Phi),
            Metadata::Name("x".into())
        ]
    );
    for b in [l, r] {
        let insts = &f.blocks[b].insts;
        let st = insts[insts.len() - 2];
        assert!(matches!(f.insts[st].kind, InstKind::Store));
    }
    let pi = p.as_inst().unwrap();
    assert!(matches!(f.insts[pi].kind, InstKind::Load));
    assert_eq!(t.count(|k| matches!(k, InstKind::Phi)), 0);
    assert_eq!(audit(&t.m).phi, 1);
    // Idempotent.
    assert!(!t.run(&r2m()).changed.any());
    // mem2reg restores the named phi and consumes the marker.
    let back = t.run(&PerFunction(Mem2Reg));
    assert_eq!(stat(&back, "promoted_alloca"), 1);
    assert_eq!(stat(&back, "inserted_phi"), 1);
    let f = t.m.func(t.f);
    let phi = f.blocks[m].insts[0];
    assert_eq!(f.insts[phi].metadata, vec![Metadata::Name("x".into())]);
    assert_eq!(audit(&t.m).total(), 0);
}

#[test]
fn audit_fails_or_refuses_while_markers_remain() {
    let (mut t, ..) = diamond();
    t.run(&r2m());
    let mut cx = PassContext::default();
    assert!(
        AuditReg2MemSpills { fatal: true }
            .run(&mut t.m, &mut cx)
            .is_err()
    );
    let r = AuditReg2MemSpills { fatal: false }
        .run(&mut t.m, &mut cx)
        .unwrap();
    assert!(r.refusal.is_some() && !r.changed.any());
    assert_eq!(stat(&r, "remaining_phi_spill"), 1);
    assert_eq!(stat(&r, "remaining_spill"), 1);
    // A marker on a block is an invalid placement.
    let body = t.m.func(t.f).body.unwrap();
    t.func().blocks[body]
        .metadata
        .push(Metadata::Reg2MemSpill(SpillKind::CrossBlock));
    let a = audit(&t.m);
    assert_eq!((a.phi, a.cross_block, a.invalid), (1, 0, 1));
}

#[test]
fn audit_on_empty_module_publishes_four_zero_keys() {
    let mut m = Module::new();
    let r = AuditReg2MemSpills::default()
        .run(&mut m, &mut PassContext::default())
        .unwrap();
    assert_eq!(r.report.entries().len(), 4);
    assert!(!r.changed.any() && r.refusal.is_none());
}

#[test]
fn swapping_loop_phis_keep_parallel_semantics() {
    // h: a = phi (x, e), (b, h); b = phi (y, e), (a, h); cond_br c, h, exit
    let mut t = T::callable(Some(|ts| ts.i32()));
    let e = t.block();
    let h = t.block();
    let exit = t.block();
    let i32t = t.i32();
    let boolt = t.boolt();
    let x = t.arg(i32t);
    let y = t.arg(i32t);
    let c = t.arg(boolt);
    t.at(e).br(h);
    let a = t.at(h).phi(i32t, &[(x, e)]);
    let b = t.at(h).phi(i32t, &[(y, e), (a, h)]);
    // Close the cycle: a's back-edge incoming is b.
    {
        let f = t.func();
        let ai = a.as_inst().unwrap();
        f.insts[ai].phi_push(b, h);
    }
    t.at(h).cond_br(c, h, exit);
    let s = t.at(exit).arith(A::BinarySub, i32t, &[a, b]);
    t.at(exit).ret(Some(s));
    let r = t.run(&r2m());
    assert_eq!(stat(&r, "lowered_phi"), 2);
    // Both former phis are loads at the top of h; the stores at the end of h store the
    // loaded values crosswise.
    let f = t.m.func(t.f);
    let insts = &f.blocks[h].insts;
    assert_eq!(insts[0], a.as_inst().unwrap());
    assert_eq!(insts[1], b.as_inst().unwrap());
    let back = t.run(&PerFunction(Mem2Reg));
    assert_eq!(stat(&back, "inserted_phi"), 2);
    let f = t.m.func(t.f);
    let phis: Vec<InstId> = f.blocks[h].insts[..2].to_vec();
    let ops: Vec<Vec<Value>> = phis
        .iter()
        .map(|p| f.insts[*p].phi_values().collect())
        .collect();
    // One phi is (x, phi_b), the other (y, phi_a).
    let pa = Value::Inst(phis[0]);
    let pb = Value::Inst(phis[1]);
    assert!(ops == vec![vec![x, pb], vec![y, pa]] || ops == vec![vec![y, pb], vec![x, pa]]);
}

#[test]
fn cross_block_value_and_hoisting() {
    // A value used in a block it does not dominate (non-SSA input built by hand, as
    // restructuring can produce), plus an alloca outside the entry block.
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
    let v = t.at(l).arith(A::BinaryAdd, i32t, &[a, a]);
    t.name(v, "v");
    t.at(l).br(m);
    let q = t.at(r).alloca(AllocaOp::Local, i32t);
    t.at(r).store(q, a);
    t.at(r).br(m);
    let w = t.at(m).arith(A::BinaryMul, i32t, &[v, v]);
    t.at(m).ret(Some(w));
    let res = t.run_unchecked(&r2m());
    assert_eq!(stat(&res, "lowered_cross_block_value"), 1);
    assert_eq!(stat(&res, "hoisted_alloca"), 1);
    let f = t.m.func(t.f);
    let entry = &f.blocks[e].insts;
    assert!(matches!(f.insts[entry[0]].kind, InstKind::Alloca(_)));
    assert_eq!(
        f.insts[entry[0]].metadata,
        vec![
            Metadata::Reg2MemSpill(SpillKind::CrossBlock),
            Metadata::Name("v".into())
        ]
    );
    assert_eq!(entry[1], q.as_inst().unwrap());
    // Two reloads (one per use) in m, each feeding one operand.
    assert_eq!(f.blocks[m].insts.len(), 4);
    let wi = &f.insts[w.as_inst().unwrap()];
    assert_ne!(wi.operands[0], wi.operands[1]);
    assert!(!t.run(&r2m()).changed.any());
    let back = t.run(&PerFunction(Mem2Reg));
    assert_eq!(back.changed, crate::Changed::Instructions);
    assert_eq!(audit(&t.m).cross_block, 0);
}

//! Dominance of definitions over uses and the phi rules.

use crate::{B, err, ok};
use xir_ir::edit::InstBuilder;

use xir_ir::op::ArithmeticOp as A;
use xir_ir::types::ScalarKind as K;
use xir_ir::value::{BlockId, Value};

#[test]
fn definitions_precede_uses_in_a_block() {
    let mut b = B::kernel();
    let body = b.body();
    let u = b.t(K::U32);
    let one = b.c(K::U32, 1);
    let x = b.at(body).arith(A::BinaryAdd, u, &[one, one]);
    b.at(body).arith(A::BinaryAdd, u, &[x, one]);
    b.ret(body);
    ok(&b.done());

    let mut b = B::kernel();
    let body = b.body();
    let u = b.t(K::U32);
    let one = b.c(K::U32, 1);
    let x = b.at(body).arith(A::BinaryAdd, u, &[one, one]);
    let y = b.at(body).arith(A::BinaryAdd, u, &[one, one]);
    b.f.insts[x.as_inst().unwrap()].operands[0] = y;
    b.f.insts[y.as_inst().unwrap()].operands[1] = y;
    b.ret(body);
    let e = crate::check(&b.done());
    assert!(
        e.iter()
            .any(|m| m.contains("is defined by a later instruction")),
        "{e:?}"
    );
    assert!(
        e.iter()
            .any(|m| m.contains("is defined by the instruction itself")),
        "{e:?}"
    );
}

/// body: cond_br c, t, f; t: x = …; br m; f: br m; m: use(x) or phi.
fn diamond(use_in_merge: bool) -> (B, [BlockId; 4], Value) {
    let mut b = B::kernel();
    let (body, t, f, m) = (b.body(), b.block(), b.block(), b.block());
    let c = b.c(K::Bool, 1);
    b.at(body).cond_br(c, t, f);
    let u = b.t(K::U32);
    let one = b.c(K::U32, 1);
    let x = b.at(t).arith(A::BinaryAdd, u, &[one, one]);
    b.br(t, m);
    b.br(f, m);
    if use_in_merge {
        b.at(m).print("{}", &[x]);
    }
    (b, [body, t, f, m], x)
}

#[test]
fn definitions_dominate_uses_across_blocks() {
    let (mut b, [_, _, _, m], _) = diamond(true);
    b.ret(m);
    err(&b.done(), "does not dominate this use");
    let (mut b, [_, t, f, m], x) = diamond(false);
    let u = b.t(K::U32);
    let one = b.c(K::U32, 1);
    b.at(m).phi(u, &[(x, t), (one, f)]);
    b.ret(m);
    ok(&b.done());
}

#[test]
fn unreachable_definitions_and_uses() {
    // A use in an unreachable block is never a dominance error.
    let mut b = B::kernel();
    let (body, orphan) = (b.body(), b.block());
    let u = b.t(K::U32);
    let one = b.c(K::U32, 1);
    let x = b.at(body).arith(A::BinaryAdd, u, &[one, one]);
    b.ret(body);
    b.at(orphan).print("{}", &[x]);
    b.ret(orphan);
    ok(&b.done());
    // A definition in an unreachable block used from a reachable one is.
    let mut b = B::kernel();
    let (body, orphan) = (b.body(), b.block());
    let u = b.t(K::U32);
    let one = b.c(K::U32, 1);
    let x = b.at(orphan).arith(A::BinaryAdd, u, &[one, one]);
    b.ret(orphan);
    b.at(body).print("{}", &[x]);
    b.ret(body);
    err(&b.done(), "does not dominate this use");
}

#[test]
fn phi_incoming_blocks_equal_the_predecessor_set() {
    // Missing predecessor.
    let (mut b, [_, t, _, m], x) = diamond(false);
    let u = b.t(K::U32);
    b.at(m).phi(u, &[(x, t)]);
    b.ret(m);
    err(
        &b.done(),
        "incoming blocks do not match the predecessors of block %8 (%5, %11)",
    );
    // Not a predecessor.
    let (mut b, [body, t, f, m], x) = diamond(false);
    let u = b.t(K::U32);
    let one = b.c(K::U32, 1);
    b.at(m).phi(u, &[(x, t), (one, f), (one, body)]);
    b.ret(m);
    err(
        &b.done(),
        "incoming block 2 (%3) is not a predecessor of block %8",
    );
    // Duplicate incoming block.
    let (mut b, [_, t, f, m], x) = diamond(false);
    let u = b.t(K::U32);
    let one = b.c(K::U32, 1);
    b.at(m).phi(u, &[(x, t), (one, f), (x, t)]);
    b.ret(m);
    err(&b.done(), "incoming block 2 (%5) appears more than once");
}

#[test]
fn doubled_edges_count_once() {
    let build = |incomings: usize| {
        let mut b = B::kernel();
        let (body, j) = (b.body(), b.block());
        let c = b.c(K::Bool, 1);
        b.at(body).cond_br(c, j, j);
        let u = b.t(K::U32);
        let one = b.c(K::U32, 1);
        b.at(j).phi(u, &vec![(one, body); incomings]);
        b.ret(j);
        b.done()
    };
    ok(&build(1));
    err(&build(2), "appears more than once");
}

#[test]
fn phi_values_dominate_the_end_of_their_incoming_block() {
    // A loop-carried value defined in the latch is fine.
    let mut b = B::kernel();
    let (pre, h, l, e) = (b.body(), b.block(), b.block(), b.block());
    let u = b.t(K::U32);
    let zero = b.c(K::U32, 0);
    let one = b.c(K::U32, 1);
    b.br(pre, h);
    let phi = b.at(h).phi(u, &[(zero, pre), (zero, l)]);
    let bt = b.t(K::Bool);
    let c = b.at(h).arith(A::BinaryLess, bt, &[phi, one]);
    b.at(h).cond_br(c, l, e);
    let next = b.at(l).arith(A::BinaryAdd, u, &[phi, one]);
    b.br(l, h);
    b.ret(e);
    b.f.insts[phi.as_inst().unwrap()].phi_set_value_at(1, next);
    ok(&b.done());
    // The value from the other arm of a diamond does not dominate this arm's end.
    let mut b = B::kernel();
    let (body, t, f, m) = (b.body(), b.block(), b.block(), b.block());
    let c = b.c(K::Bool, 1);
    b.at(body).cond_br(c, t, f);
    let u = b.t(K::U32);
    let one = b.c(K::U32, 1);
    let x = b.at(t).arith(A::BinaryAdd, u, &[one, one]);
    b.br(t, m);
    b.br(f, m);
    b.at(m).phi(u, &[(x, t), (x, f)]);
    b.ret(m);
    err(
        &b.done(),
        "incoming value 1 (%6, defined in block %5) does not dominate the end of its incoming block %11",
    );
}

#[test]
fn phi_values_defined_in_the_incoming_block_precede_its_terminator() {
    let mut b = B::kernel();
    let (body, j) = (b.body(), b.block());
    let u = b.t(K::U32);
    let one = b.c(K::U32, 1);
    let x = b.at(body).arith(A::BinaryAdd, u, &[one, one]);
    b.br(body, j);
    b.at(j).phi(u, &[(x, body)]);
    b.ret(j);
    ok(&b.done());
    // A phi's own result is typed like any incoming value.
    let mut b = B::kernel();
    let (body, j) = (b.body(), b.block());
    b.br(body, j);
    let u = b.t(K::U32);
    let f = b.f(1.0);
    b.at(j).phi(u, &[(f, body)]);
    b.ret(j);
    err(
        &b.done(),
        "incoming value 0 must be an rvalue of the phi's type `u32`, found `f32`",
    );
}

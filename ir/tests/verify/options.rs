//! The six verifier options, each with a module it accepts and one it rejects.

use crate::{B, check_with, err_with, ok};
use xir_ir::edit::InstBuilder;
use xir_ir::inst::InstKind;
use xir_ir::module::Module;
use xir_ir::types::ScalarKind as K;
use xir_ir::value::Value;
use xir_ir::verify::VerifyOptions;

fn opt(name: &str) -> VerifyOptions {
    VerifyOptions::parse_list(name).unwrap()
}

fn clean(m: &Module, o: &VerifyOptions) {
    let e = check_with(m, o);
    assert!(e.is_empty(), "{e:#?}");
}

#[test]
fn require_terminated_blocks() {
    let mut b = B::kernel();
    let body = b.body();
    let u = b.m.types.u64();
    b.at(body).clock(u);
    let m = b.done();
    err_with(
        &m,
        &VerifyOptions::default(),
        "block does not end with a terminator",
    );
    clean(&m, &opt("no-require-terminated-blocks"));
}

fn with_orphan() -> Module {
    let mut b = B::kernel();
    let (body, orphan) = (b.body(), b.block());
    b.ret(body);
    b.ret(orphan);
    b.done()
}

#[test]
fn require_reachable_blocks() {
    let m = with_orphan();
    ok(&m);
    err_with(
        &m,
        &opt("require-reachable-blocks"),
        "function %0, block %3: block is unreachable from the body block",
    );
    let mut b = B::kernel();
    let (body, next) = (b.body(), b.block());
    b.br(body, next);
    b.ret(next);
    clean(&b.done(), &opt("require-reachable-blocks"));
}

fn phi_module() -> Module {
    let mut b = B::kernel();
    let (body, j) = (b.body(), b.block());
    b.br(body, j);
    let u = b.t(K::U32);
    let one = b.c(K::U32, 1);
    b.at(j).phi(u, &[(one, body)]);
    b.ret(j);
    b.done()
}

#[test]
fn require_no_phi() {
    let m = phi_module();
    ok(&m);
    err_with(
        &m,
        &opt("require-no-phi"),
        "phi instructions are not allowed here",
    );
    clean(&with_orphan(), &opt("require-no-phi"));
}

fn branchy(kind: &str) -> Module {
    let mut b = B::kernel();
    let (body, t, f) = (b.body(), b.block(), b.block());
    match kind {
        "cond_br" => {
            let c = b.c(K::Bool, 1);
            b.at(body).cond_br(c, t, f);
        }
        "indexed_branch" => {
            let s = b.c(K::U32, 1);
            b.at(body).ins(
                InstKind::IndexedBranch { labels: vec![1] },
                None,
                vec![s, Value::Block(f), Value::Block(t)],
            );
        }
        _ => {
            let c = b.c(K::Bool, 1);
            b.at(body).if_(c, t, f, f);
        }
    }
    b.br(t, f);
    b.ret(f);
    b.done()
}

#[test]
fn require_no_unstructured_control_flow() {
    let o = opt("require-no-unstructured-control-flow");
    for k in ["cond_br", "indexed_branch"] {
        let m = branchy(k);
        ok(&m);
        err_with(&m, &o, "unstructured control flow is not allowed here");
    }
    clean(&branchy("if"), &o);
}

fn two_ifs(shared_merge: bool) -> Module {
    let mut b = B::kernel();
    let (body, t1, m1, t2) = (b.body(), b.block(), b.block(), b.block());
    let m2 = if shared_merge { m1 } else { b.block() };
    let c = b.c(K::Bool, 1);
    b.at(body).if_(c, t1, m1, m1);
    b.at(t1).if_(c, t2, m2, m2);
    b.br(t2, m2);
    if !shared_merge {
        b.br(m2, m1);
    }
    b.ret(m1);
    b.done()
}

#[test]
fn require_unique_merge_blocks() {
    let o = opt("require-unique-merge-blocks");
    let shared = two_ifs(true);
    ok(&shared);
    err_with(&shared, &o, "is also the merge block of %3");
    clean(&two_ifs(false), &o);
}

/// `loop` whose body ends with `break target`; `wrong` picks a non-merge target.
fn loop_with_break(wrong: bool, cont: bool) -> Module {
    let mut b = B::kernel();
    let (body, p, lb, u, m) = (b.body(), b.block(), b.block(), b.block(), b.block());
    b.at(body).loop_(p, lb, u, m);
    let c = b.c(K::Bool, 1);
    b.at(p).cond_br(c, lb, m);
    let (kind, right) = if cont {
        (InstKind::Continue, u)
    } else {
        (InstKind::Break, m)
    };
    let target = if wrong { p } else { right };
    b.at(lb).ins(kind, None, vec![Value::Block(target)]);
    b.br(u, p);
    b.ret(m);
    b.done()
}

#[test]
fn require_canonical_break_continue_targets() {
    let o = opt("require-canonical-break-continue-targets");
    for cont in [false, true] {
        clean(&loop_with_break(false, cont), &o);
        let bad = loop_with_break(true, cont);
        ok(&bad);
        let what = if cont {
            "continue target is not the continue block"
        } else {
            "break target is not the merge block"
        };
        err_with(&bad, &o, what);
        err_with(&bad, &o, "(expected %");
    }
    // A break with no enclosing loop or switch.
    let mut b = B::kernel();
    let (body, m) = (b.body(), b.block());
    b.at(body).break_(m);
    b.ret(m);
    err_with(&b.done(), &o, "there is no enclosing construct");
}

#[test]
fn all_options_together() {
    let all = VerifyOptions::parse_list("all").unwrap();
    assert_eq!(all, VerifyOptions::all());
    let e = check_with(&phi_module(), &all);
    assert_eq!(e.len(), 1, "{e:?}");
}

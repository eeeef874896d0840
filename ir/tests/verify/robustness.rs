//! The verifier never panics, never recurses with nesting depth, and points at sources.

use crate::B;
use xir_ir::diag::Span;
use xir_ir::edit::InstBuilder;
use xir_ir::entity::EntityRef;

use xir_ir::module::Module;
use xir_ir::op::ArithmeticOp;
use xir_ir::source_map::SourceMap;
use xir_ir::types::{ScalarKind as K, Type, TypeData};

use xir_ir::verify::{VerifyOptions, verify_module};

/// `depth` nested `if`s (each then-arm holds the next), every merge branching outwards,
/// plus `depth` nested loops whose bodies `break`/`continue` canonically.
fn deep(depth: usize) -> Module {
    let mut b = B::kernel();
    let c = b.c(K::Bool, 1);
    let mut cur = b.body();
    let mut merges = Vec::new();
    for _ in 0..depth {
        let (t, m) = (b.block(), b.block());
        b.at(cur).if_(c, t, m, m);
        merges.push(m);
        cur = t;
    }
    let mut loops = Vec::new();
    for k in 0..depth {
        let (p, lb, u, m) = (b.block(), b.block(), b.block(), b.block());
        b.at(cur).loop_(p, lb, u, m);
        b.at(p).cond_br(c, lb, m);
        b.br(u, p);
        if k % 2 == 0 {
            // An early exit in the body: if c { break } (merge = the next level).
            let (t, x) = (b.block(), b.block());
            b.at(lb).if_(c, t, x, x);
            b.at(t).break_(m);
            loops.push((x, u, m));
            cur = x;
        } else {
            loops.push((lb, u, m));
            cur = lb;
        }
    }
    // Innermost: continue; then every loop merge continues the enclosing loop.
    let mut inner = cur;
    for (k, &(_, u, m)) in loops.iter().enumerate().rev() {
        b.at(inner).continue_(u);
        inner = m;
        let _ = k;
    }
    let mut cur = inner;
    for m in merges.into_iter().rev() {
        b.br(cur, m);
        cur = m;
    }
    b.ret(cur);
    b.done()
}

#[test]
fn ten_thousand_deep_nesting_verifies_in_a_small_stack() {
    let m = deep(10_000);
    let h = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let d1 = verify_module(&m, &VerifyOptions::default(), None);
            // Everything but require-no-unstructured-control-flow (canonical loop
            // prepare blocks end in `cond_br`).
            let o =
                VerifyOptions::parse_list("all,no-require-no-unstructured-control-flow").unwrap();
            let d2 = verify_module(&m, &o, None);
            (
                d1.len(),
                d2.into_iter()
                    .map(|d| d.message)
                    .take(3)
                    .collect::<Vec<_>>(),
            )
        })
        .unwrap();
    let (n1, d2) = h.join().unwrap();
    assert_eq!(n1, 0);
    assert!(d2.is_empty(), "{d2:?}");
}

#[test]
fn deeply_nested_and_cyclic_types_do_not_overflow() {
    let h = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let mut m = Module::new();
            let mut t = m.types.f32();
            for _ in 0..10_000 {
                t = m.types.intern(TypeData::Array { elem: t, len: 1 });
            }
            let n = m.types.len();
            // A type whose element is itself.
            m.types.intern(TypeData::Array {
                elem: Type::new(n),
                len: 2,
            });
            m.constant(t, &[0; 4]);
            verify_module(&m, &VerifyOptions::all(), None).len()
        })
        .unwrap();
    assert_eq!(h.join().unwrap(), 1, "only the cyclic type is malformed");
}

#[test]
fn diagnostics_carry_source_spans() {
    let mut b = B::kernel();
    let body = b.body();
    let f = b.f(1.0);
    let u = b.t(K::U32);
    let x = b.at(body).arith(ArithmeticOp::BinaryAdd, u, &[f, f]);
    let (m, fid) = b.done_id();
    let mut sm = SourceMap::default();
    sm.funcs.get_mut(fid).header = Span::new(0, 6);
    sm.funcs
        .get_mut(fid)
        .insts
        .set(x.as_inst().unwrap(), Span::new(20, 30));
    let d = verify_module(&m, &VerifyOptions::default(), Some(&sm));
    assert_eq!(d.len(), 2, "{d:?}");
    let typing = d.iter().find(|d| d.message.contains("binary_add")).unwrap();
    assert_eq!(typing.span, Some(Span::new(20, 30)));
    // The block has no label span, so its diagnostic falls back to the function header.
    let term = d.iter().find(|d| d.message.contains("terminator")).unwrap();
    assert_eq!(term.span, Some(Span::new(0, 6)));
    let none = verify_module(&m, &VerifyOptions::default(), None);
    assert!(none.iter().all(|d| d.span.is_none()));
}

//! Unit tests of the passes, with a module holder (`T`, building through the one builder,
//! `xir_ir::edit::InstBuilder`) and an SSA well-formedness checker
//! (used in addition to `ir::verify` once that is available).

mod analysis_cache;
mod cfg_round_trip;
mod const_fold;
mod dce;
mod fuzz;
mod mem2reg;
mod phi_cleanup;
mod reg2mem;
mod schema;
mod simplify_cfg;

use crate::pass::{Pass, PassContext, PassRun};
use xir_ir::analysis::{Cfg, DomTree};
pub use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::{InstData, InstKind};
pub use xir_ir::op::{AllocaOp, ArithmeticOp};
use xir_ir::{
    BlockId, FuncId, Function, FunctionKind, InstId, Metadata, Module, SecondaryMap, Type, Value,
};

/// A module with one function under construction.
pub struct T {
    pub m: Module,
    pub f: FuncId,
}

impl T {
    /// A callable returning `ret`.
    pub fn callable(ret: Option<fn(&mut xir_ir::TypeStore) -> Type>) -> Self {
        let mut m = Module::new();
        let r = ret.map(|g| g(&mut m.types));
        let f = m.add_function(Function::new(FunctionKind::Callable, r));
        T { m, f }
    }
    pub fn func(&mut self) -> &mut Function {
        self.m.func_mut(self.f)
    }
    /// A new block (the first one becomes the body).
    pub fn block(&mut self) -> BlockId {
        let f = self.func();
        if f.body.is_none() {
            f.ensure_body()
        } else {
            f.create_block()
        }
    }
    pub fn arg(&mut self, ty: Type) -> Value {
        Value::Arg(self.func().add_arg(xir_ir::ArgKind::Value, ty))
    }
    pub fn ins(&mut self, b: BlockId, kind: InstKind, ty: Option<Type>, ops: &[Value]) -> InstId {
        self.at(b).ins(kind, ty, ops.iter().copied())
    }
    pub fn i32(&mut self) -> Type {
        self.m.types.i32()
    }
    pub fn u32t(&mut self) -> Type {
        self.m.types.u32()
    }
    pub fn f32t(&mut self) -> Type {
        self.m.types.f32()
    }
    pub fn boolt(&mut self) -> Type {
        self.m.types.bool()
    }
    pub fn ci32(&mut self, v: i32) -> Value {
        let t = self.i32();
        Value::Const(self.m.constant(t, &v.to_le_bytes()))
    }
    pub fn cu32(&mut self, v: u32) -> Value {
        let t = self.u32t();
        Value::Const(self.m.constant(t, &v.to_le_bytes()))
    }
    pub fn cf32(&mut self, v: f32) -> Value {
        let t = self.f32t();
        Value::Const(self.m.constant(t, &v.to_le_bytes()))
    }
    pub fn cbool(&mut self, v: bool) -> Value {
        let t = self.boolt();
        Value::Const(self.m.constant(t, &[v as u8]))
    }
    /// The one builder ([`InstBuilder`]) at the end of block `b`.
    pub fn at(&mut self, b: BlockId) -> Cursor<'_> {
        Cursor::at_end(self.m.func_mut(self.f), b)
    }
    pub fn name(&mut self, v: Value, n: &str) {
        if let Value::Inst(i) = v {
            self.func().insts[i].metadata.push(Metadata::Name(n.into()));
        }
    }
    /// Runs `pass` on the module with a fresh context, checking well-formedness after.
    pub fn run(&mut self, pass: &dyn Pass) -> PassRun {
        check(&self.m);
        let mut cx = PassContext::default();
        let r = pass.run(&mut self.m, &mut cx).expect("pass failed");
        check(&self.m);
        r
    }
    /// Runs `pass` without checking the input first (for deliberately non-SSA inputs).
    pub fn run_unchecked(&mut self, pass: &dyn Pass) -> PassRun {
        let mut cx = PassContext::default();
        let r = pass.run(&mut self.m, &mut cx).expect("pass failed");
        check(&self.m);
        r
    }
    /// Placed instructions of the function with `tag`-like predicate.
    pub fn count(&self, pred: impl Fn(&InstKind) -> bool) -> usize {
        let f = self.m.func(self.f);
        f.placed_insts().filter(|i| pred(&f.insts[*i].kind)).count()
    }
    /// The function's terminator of block `b`.
    pub fn term(&self, b: BlockId) -> &InstData {
        let f = self.m.func(self.f);
        &f.insts[f.terminator(b).expect("terminated")]
    }
}

/// Counter `key` of a run.
pub fn stat(r: &PassRun, key: &str) -> u64 {
    r.report
        .get(key)
        .unwrap_or_else(|| panic!("missing key {key}"))
}

/// The verifier plus a structural/SSA well-formedness check of every function.
pub fn check(m: &Module) {
    let diags = xir_ir::verify::verify_module(m, &xir_ir::verify::VerifyOptions::default(), None);
    assert!(diags.is_empty(), "verifier: {diags:#?}");
    for &fid in &m.func_order {
        let f = m.func(fid);
        let Some(body) = f.body else { continue };
        assert!(f.block_order.contains(&body), "body not owned");
        let mut owned: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
        for &b in &f.block_order {
            owned[b] = true;
        }
        let cfg = Cfg::compute(f);
        let dom = DomTree::compute(f, &cfg);
        let mut pos: SecondaryMap<InstId, u32> = SecondaryMap::with_default(u32::MAX);
        for &b in &f.block_order {
            for (k, &i) in f.blocks[b].insts.iter().enumerate() {
                pos[i] = k as u32;
                assert_eq!(f.insts[i].block, Some(b), "{i:?} block field");
            }
        }
        for &b in &f.block_order {
            let insts = &f.blocks[b].insts;
            assert!(!insts.is_empty(), "{b:?} empty");
            let n = insts.len();
            let mut in_phis = true;
            for (k, &i) in insts.iter().enumerate() {
                let d = &f.insts[i];
                assert_eq!(
                    d.kind.is_terminator(),
                    k + 1 == n,
                    "{b:?}: terminator placement at {i:?}"
                );
                let is_phi = matches!(d.kind, InstKind::Phi { .. });
                assert!(!is_phi || in_phis, "{b:?}: phi {i:?} after non-phi");
                in_phis &= is_phi;
                for s in d.kind.side_blocks() {
                    assert!(owned[s], "{i:?} names unowned block {s:?}");
                }
                for (slot, op) in d.operands.iter().enumerate() {
                    match *op {
                        Value::Block(t) => assert!(owned[t], "{i:?} targets unowned {t:?}"),
                        Value::Inst(def) => {
                            let Some(db) = f.insts[def].block else {
                                panic!("{i:?} uses removed {def:?}");
                            };
                            let use_block = match &d.kind {
                                InstKind::Phi { blocks } => blocks[slot],
                                _ => b,
                            };
                            if !cfg.is_reachable(use_block) {
                                continue;
                            }
                            let ok = if matches!(d.kind, InstKind::Phi { .. }) {
                                dom.dominates(db, use_block)
                            } else if db == b {
                                pos[def] < pos[i]
                            } else {
                                dom.dominates(db, b)
                            };
                            assert!(ok, "{def:?} does not dominate its use in {i:?}");
                        }
                        _ => {}
                    }
                }
                if let InstKind::Phi { blocks } = &d.kind {
                    assert_eq!(blocks.len(), d.operands.len());
                    let mut preds: Vec<BlockId> = cfg.preds(b).to_vec();
                    preds.sort();
                    preds.dedup();
                    let mut inc = blocks.clone();
                    inc.sort();
                    assert_eq!(inc, preds, "{i:?}: phi incomings do not match predecessors");
                }
            }
        }
    }
}

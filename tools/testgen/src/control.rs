//! Control-flow constructs. Each construct starts in the (unterminated) current block
//! and leaves the builder in a fresh, unterminated continuation block; values defined
//! inside a construct's arms are dropped from the pools afterwards because they do not
//! dominate the continuation.

use super::fb::{Fb, Scope};
use super::recipes;
use xir_ir::edit::InstBuilder;
use xir_ir::inst::{
    CoroAttrValue, CoroExtension, CoroExtensionItem, CoroExtensionKind, CoroSuspendData,
};
use xir_ir::op::{ArithmeticOp, AutodiffIntrinsicOp};
use xir_ir::types::ScalarKind;
use xir_ir::value::{BlockId, Value};

/// Every construct kind the generator knows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Construct {
    If,
    Switch,
    Loop,
    SimpleLoop,
    RayQueryLoop,
    Autodiff,
    Outline,
    Diamond,
    PlainLoop,
    IndexedBranch,
    Coroutine,
    Orphan,
}

impl Construct {
    /// All kinds (the kernel rotates through them by seed).
    pub const ALL: [Construct; 12] = [
        Self::If,
        Self::Switch,
        Self::Loop,
        Self::SimpleLoop,
        Self::RayQueryLoop,
        Self::Autodiff,
        Self::Outline,
        Self::Diamond,
        Self::PlainLoop,
        Self::IndexedBranch,
        Self::Coroutine,
        Self::Orphan,
    ];
    /// Kinds that may appear nested anywhere.
    pub const NESTABLE: [Construct; 9] = [
        Self::If,
        Self::Switch,
        Self::Loop,
        Self::SimpleLoop,
        Self::Outline,
        Self::Diamond,
        Self::PlainLoop,
        Self::IndexedBranch,
        Self::If,
    ];
}

/// Saved pool sizes, restored when a region's values stop dominating.
struct Mark(usize, usize);

impl Fb<'_> {
    fn mark(&self) -> Mark {
        Mark(self.vals.len(), self.lvals.len())
    }
    fn reset(&mut self, m: &Mark) {
        self.vals.truncate(m.0);
        self.lvals.truncate(m.1);
    }

    /// A nested region with the given `break`/`continue` scopes.
    fn nested(&mut self, scopes: Vec<Scope>) {
        let saved = std::mem::replace(&mut self.scopes, scopes);
        self.depth += 1;
        self.region();
        self.depth -= 1;
        self.scopes = saved;
    }

    /// Ends the current block with `br to`, or (inside a loop or switch, sometimes) with a
    /// canonical `break`/`continue` instead.
    fn leave(&mut self, to: BlockId) {
        if let Some(s) = self.scopes.last().copied() {
            if self.rng.chance(15) {
                self.break_(s.brk);
                return;
            }
            let cont = self.scopes.iter().rev().find_map(|s| s.cont);
            if let Some(c) = cont
                && self.rng.chance(10)
            {
                self.continue_(c);
                return;
            }
        }
        self.br(to);
    }

    fn cond(&mut self) -> Value {
        if self.rng.chance(50) {
            let a = self.sval(ScalarKind::I32);
            let b = self.sval(ScalarKind::I32);
            let t = self.m.types.bool();
            let v = self.arith(ArithmeticOp::BinaryLess, t, &[a, b]);
            self.keep(v, t)
        } else {
            self.sval(ScalarKind::Bool)
        }
    }

    /// Emits one construct of kind `c`.
    pub fn construct(&mut self, c: Construct) {
        match c {
            Construct::If => self.c_if(),
            Construct::Switch => self.c_switch(),
            Construct::Loop => self.c_loop(),
            Construct::SimpleLoop => self.c_simple_loop(),
            Construct::RayQueryLoop => self.c_ray_query_loop(),
            Construct::Autodiff => self.c_autodiff(),
            Construct::Outline => self.c_outline(),
            Construct::Diamond => self.c_diamond(),
            Construct::PlainLoop => self.c_plain_loop(),
            Construct::IndexedBranch => self.c_indexed_branch(),
            Construct::Coroutine => self.c_coroutine(),
            Construct::Orphan => self.c_orphan(),
        }
    }

    fn c_if(&mut self) {
        let c = self.cond();
        let t = self.block();
        let m = self.block();
        let e = if self.rng.chance(30) { m } else { self.block() };
        self.if_(c, t, e, m);
        let mk = self.mark();
        let scopes = self.scopes.clone();
        for arm in [t, e] {
            if arm == m {
                continue;
            }
            self.cur = arm;
            self.nested(scopes.clone());
            self.leave(m);
            self.reset(&mk);
        }
        self.cur = m;
    }

    fn c_switch(&mut self) {
        let k = self.rng.pick(&[
            ScalarKind::I32,
            ScalarKind::U32,
            ScalarKind::I8,
            ScalarKind::U64,
            ScalarKind::Bool,
        ]);
        let sel = self.sval(k);
        let n = if k == ScalarKind::Bool {
            1 + self.rng.below(2)
        } else {
            1 + self.rng.below(4)
        };
        let labels: Vec<u64> = (0..n)
            .map(|j| match k {
                ScalarKind::Bool => j,
                ScalarKind::I32 if j == 0 => 0xffff_fffe, // -2 at i32 width
                ScalarKind::I8 => (j * 3) & 0xff,
                _ => j * 7,
            })
            .collect();
        let m = self.block();
        let d = self.block();
        let cases: Vec<BlockId> = (0..n).map(|_| self.block()).collect();
        let arms: Vec<(u64, BlockId)> = labels.into_iter().zip(cases.iter().copied()).collect();
        self.switch(sel, d, &arms, m);
        let mk = self.mark();
        let mut scopes = self.scopes.clone();
        scopes.push(Scope { brk: m, cont: None });
        for b in std::iter::once(d).chain(cases) {
            self.cur = b;
            self.nested(scopes.clone());
            let saved = std::mem::replace(&mut self.scopes, scopes.clone());
            self.leave(m);
            self.scopes = saved;
            self.reset(&mk);
        }
        self.cur = m;
    }

    fn c_loop(&mut self) {
        let (p, body, u, m) = (self.block(), self.block(), self.block(), self.block());
        self.loop_(p, body, u, m);
        let mk = self.mark();
        self.cur = p;
        let c = self.cond();
        self.cond_br(c, body, m);
        self.cur = body;
        let mut scopes = self.scopes.clone();
        scopes.push(Scope {
            brk: m,
            cont: Some(u),
        });
        self.nested(scopes.clone());
        if self.rng.chance(30) {
            self.continue_(u);
        } else {
            self.br(u);
        }
        self.reset(&mk);
        self.cur = u;
        if self.rng.chance(30) {
            recipes::emit_simple(self, 0);
            self.reset(&mk);
        }
        self.br(p);
        self.cur = m;
    }

    fn c_simple_loop(&mut self) {
        let (body, m) = (self.block(), self.block());
        self.simple_loop(body, m);
        let mk = self.mark();
        self.cur = body;
        let mut scopes = self.scopes.clone();
        scopes.push(Scope {
            brk: m,
            cont: Some(body),
        });
        self.nested(scopes.clone());
        // Exit: if c { break } else { }; continue.
        let c = self.cond();
        let (t, x) = (self.block(), self.block());
        self.if_(c, t, x, x);
        self.cur = t;
        self.break_(m);
        self.cur = x;
        self.continue_(body);
        self.reset(&mk);
        self.cur = m;
    }

    fn c_ray_query_loop(&mut self) {
        let Some(q) = self.rq else {
            return self.c_if();
        };
        let (d, s, p, m) = (self.block(), self.block(), self.block(), self.block());
        self.ray_query_loop(d, m);
        self.cur = d;
        self.ray_query_dispatch(q, m, s, p);
        let mk = self.mark();
        for (h, r) in [(s, 0usize), (p, 1usize)] {
            self.cur = h;
            recipes::emit_rq(self, recipes::RQ_READS + r);
            self.nested(Vec::new());
            self.br(d);
            self.reset(&mk);
        }
        self.cur = m;
    }

    fn c_autodiff(&mut self) {
        let (e, m) = (self.block(), self.block());
        let forward = self.rng.chance(30);
        let n = if forward {
            1 + self.rng.below(3) as u32
        } else {
            0
        };
        self.autodiff_scope(e, m, forward, n);
        let mk = self.mark();
        self.cur = e;
        let op = AutodiffIntrinsicOp::ALL[self.rng.index(AutodiffIntrinsicOp::ALL.len())];
        recipes::autodiff_intrinsic(self, op);
        self.nested(Vec::new());
        self.br(m);
        self.reset(&mk);
        self.cur = m;
    }

    fn c_outline(&mut self) {
        let (t, m) = (self.block(), self.block());
        self.outline(t, m);
        let mk = self.mark();
        self.cur = t;
        self.nested(Vec::new());
        self.br(m);
        self.reset(&mk);
        self.cur = m;
    }

    /// `cond_br` diamond (or a doubled edge) joined by phis.
    fn c_diamond(&mut self) {
        let c = self.cond();
        let ty = recipes::phi_type(self);
        let j = self.block();
        let mk = self.mark();
        let mut incoming = Vec::new();
        if self.rng.chance(20) {
            let t = self.block();
            self.cond_br(c, t, t);
            self.cur = t;
            self.nested(Vec::new());
            incoming.push((self.val(ty), self.cur));
            self.br(j);
        } else {
            let (t, f) = (self.block(), self.block());
            self.cond_br(c, t, f);
            for arm in [t, f] {
                self.cur = arm;
                self.nested(Vec::new());
                incoming.push((self.val(ty), self.cur));
                self.br(j);
                self.reset(&mk);
            }
        }
        self.reset(&mk);
        self.cur = j;
        self.pooled_phi(ty, &incoming);
    }

    /// A phi, pooled.
    fn pooled_phi(&mut self, ty: xir_ir::types::Type, incoming: &[(Value, BlockId)]) -> Value {
        let v = self.phi(ty, incoming);
        self.keep(v, ty)
    }

    /// A natural loop with an induction phi.
    fn c_plain_loop(&mut self) {
        let k = self.rng.pick(&[ScalarKind::I32, ScalarKind::U32]);
        let ty = self.m.types.scalar(k);
        let init = self.val(ty);
        let bound = self.val(ty);
        let one = self.int_const(k, 1);
        let pre = self.cur;
        let (h, l, e) = (self.block(), self.block(), self.block());
        self.br(h);
        self.cur = h;
        let phi = self.phi(ty, &[(init, pre)]);
        let b = self.m.types.bool();
        let c = self.arith(ArithmeticOp::BinaryLess, b, &[phi, bound]);
        self.cond_br(c, l, e);
        let mk = self.mark();
        self.cur = l;
        let next = self.arith(ArithmeticOp::BinaryAdd, ty, &[phi, one]);
        self.keep(phi, ty);
        self.nested(Vec::new());
        let l_end = self.cur;
        self.br(h);
        self.reset(&mk);
        let phi_inst = phi.as_inst().expect("a phi");
        self.f.insts[phi_inst].phi_push(next, l_end);
        self.cur = e;
        self.keep(phi, ty);
    }

    fn c_indexed_branch(&mut self) {
        let k = self.rng.pick(&[
            ScalarKind::U32,
            ScalarKind::I32,
            ScalarKind::Bool,
            ScalarKind::U8,
        ]);
        let sel = self.sval(k);
        let n = if k == ScalarKind::Bool {
            1
        } else {
            1 + self.rng.below(3)
        };
        let labels: Vec<u64> = (0..n)
            .map(|j| {
                if k == ScalarKind::I32 && j == 1 {
                    0xffff_ffff
                } else {
                    j
                }
            })
            .collect();
        let j = self.block();
        let d = self.block();
        let cases: Vec<BlockId> = (0..n).map(|_| self.block()).collect();
        let arms: Vec<(u64, BlockId)> = labels.into_iter().zip(cases.iter().copied()).collect();
        self.indexed_branch(sel, d, &arms);
        let ty = recipes::phi_type(self);
        let mk = self.mark();
        let mut incoming = Vec::new();
        for b in std::iter::once(d).chain(cases) {
            self.cur = b;
            if self.rng.chance(50) {
                {
                    let a_ = self.rng.index(recipes::SIMPLE_COUNT);
                    recipes::emit_simple(self, a_)
                };
            }
            incoming.push((self.val(ty), self.cur));
            self.br(j);
            self.reset(&mk);
        }
        self.cur = j;
        if self.rng.chance(70) {
            self.pooled_phi(ty, &incoming);
        }
    }

    /// `if c { coro_suspend … }` plus an unreachable-by-traversal resume block.
    fn c_coroutine(&mut self) {
        let frame_t = recipes::random_composite(self);
        let frame = self.alloca_with_store(frame_t);
        let c = self.cond();
        let (s, m) = (self.block(), self.block());
        self.if_(c, s, m, m);
        let token = self.rng.below(16) as u32;
        self.cur = s;
        let mut data = CoroSuspendData {
            token,
            name: format!("suspend{token}"),
            has_frame: self.rng.chance(80),
            exports: Vec::new(),
            extensions: Vec::new(),
        };
        let suspend_frame = data.has_frame.then_some(frame);
        let (mut exports, mut bindings) = (Vec::new(), Vec::new());
        for e in 0..self.rng.below(3) {
            let t = self
                .m
                .types
                .scalar(self.rng.pick(&[ScalarKind::F32, ScalarKind::U32]));
            data.exports.push(format!("x{e}"));
            exports.push(self.val(t));
        }
        if self.rng.chance(60) {
            let mut items = vec![CoroExtensionItem::Attribute {
                name: "priority".into(),
                value: match self.rng.below(5) {
                    0 => CoroAttrValue::String("high".into()),
                    1 => CoroAttrValue::Bool(true),
                    2 => CoroAttrValue::Int(-3),
                    3 => CoroAttrValue::UInt(7),
                    _ => CoroAttrValue::Float(0.5),
                },
            }];
            items.push(CoroExtensionItem::Binding {
                name: "state".into(),
                access: 1,
                lifetime: 2,
            });
            bindings.push(self.sval(ScalarKind::U32));
            data.extensions.push(CoroExtension {
                schema: "luisa.test".into(),
                version: 1,
                kind: if self.rng.chance(50) {
                    CoroExtensionKind::Annotation
                } else {
                    CoroExtensionKind::Semantic
                },
                fallback: 0,
                items,
            });
        }
        self.coro_suspend(data, suspend_frame, &exports, &bindings);
        // The resume point: nothing branches here (reached by the coroutine runtime).
        let r = self.block();
        self.cur = r;
        let frame = self.rng.chance(70).then_some(frame);
        self.coro_resume(token, frame);
        if self.rng.chance(50) {
            self.coro_terminate();
        } else {
            self.br(m);
        }
        self.cur = m;
    }

    /// A block no terminator targets.
    fn c_orphan(&mut self) {
        let back = self.cur;
        let b = self.block();
        self.cur = b;
        let mk = self.mark();
        {
            let a_ = self.rng.index(recipes::SIMPLE_COUNT);
            recipes::emit_simple(self, a_)
        };
        self.reset(&mk);
        let msg = if self.rng.chance(50) {
            "orphan".to_string()
        } else {
            String::new()
        };
        self.unreachable(msg);
        self.cur = back;
    }
}

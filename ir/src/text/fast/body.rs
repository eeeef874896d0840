//! The fast reader's instructions: `%N: T = body;` and every body form of the grammar's
//! `BodyV` rule, each calling the same `Ctx` builder the grammar's action calls.
//!
//! `Op` and `Callee` are `#[inline]` rules in the grammar, so lalrpop resolves an operand
//! only when the production around it is reduced: after the blocks of `if`, `switch`,
//! `cond_br` … and after the tail operands of `call`, `ray_query_pipeline` and a long
//! `arithmetic`. Resolving can create forward placeholders, so the order is replayed
//! here exactly: such operands are read raw and resolved at the end.

use super::{Fast, GiveUp, R};
use crate::diag::Span;
use crate::inst::{InstKind, InstTag};
use crate::metadata::MetadataList;
use crate::text::ctx::{BArg, Body};
use crate::text::insts::{Case, CoroTail, ExtItem};
use crate::text::items::Sp;
use crate::text::lexer::{Tok, ValRef, keyword};
use crate::value::Value;

impl<'s> Fast<'s> {
    /// `Inst` after `[md] %N:`: the type, `=`, the body and the `;`.
    pub fn inst_after_colon(&mut self, md: Option<MetadataList>, v: (ValRef<'s>, Span)) -> R<()> {
        let ty = self.ty()?;
        self.t.expect(Tok::Eq)?;
        let h = self.ctx.inst_head(v, ty);
        // Dispatch on the instruction table's keyword; the kinds with successor blocks
        // take the recursive path.
        let b = match self.t.peek()? {
            Tok::Ident(w) => {
                let Some(tag) = InstTag::from_keyword(w) else {
                    return Err(GiveUp);
                };
                self.t.next()?;
                if tag.has_successors() {
                    self.structured(tag)?
                } else {
                    self.body(tag)?
                }
            }
            Tok::At(w) => {
                let t = self.t.next()?;
                let w = (w, Span::new(t.l, t.r));
                let has = self.ops_opt()?;
                self.ctx.b_autodiff_intrinsic(w, has)
            }
            _ => return Err(GiveUp),
        };
        let e = self.t.expect(Tok::Semi)?;
        self.ctx.finish_inst_body(md, h, b, e.r);
        Ok(())
    }

    /// `Op`: an operand.
    #[inline]
    fn op(&mut self) -> R<Value> {
        let v = self.t.val()?;
        Ok(self.ctx.use_value(v))
    }

    /// `"," keyword`.
    #[inline]
    fn comma_kw(&mut self, kw: &str) -> R<()> {
        self.t.expect(Tok::Comma)?;
        self.t.kw(kw)?;
        Ok(())
    }

    /// `Ops`: one or more comma-separated operands into `ctx.ops`.
    fn ops(&mut self) -> R<()> {
        let o = self.op()?;
        self.ctx.ops_first(o);
        while self.t.eat(Tok::Comma)?.is_some() {
            let o = self.op()?;
            self.ctx.ops.push(o);
        }
        Ok(())
    }

    /// An optional `Ops` (present when the next token is a value); whether present.
    #[inline]
    fn ops_opt(&mut self) -> R<bool> {
        if matches!(self.t.peek()?, Tok::Val(_)) {
            self.ops()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// `TailOps`: zero or more `, %v` into `ctx.ops`.
    fn tail_ops(&mut self) -> R<()> {
        self.ctx.ops.clear();
        while self.t.eat(Tok::Comma)?.is_some() {
            let o = self.op()?;
            self.ctx.ops.push(o);
        }
        Ok(())
    }

    /// An optional string (`Sp<Str>?`).
    #[inline]
    fn str_opt(&mut self) -> R<Option<Sp<'s>>> {
        if matches!(self.t.peek()?, Tok::Str(_)) {
            return self.t.str().map(Some);
        }
        Ok(None)
    }

    /// `Cases` then `default B`.
    fn cases(&mut self) -> R<(Vec<Case<'s>>, BArg)> {
        let mut cs = Vec::new();
        loop {
            let t = self.t.next()?;
            match t.tok {
                Tok::Ident("case") => {
                    let n = self.t.num()?;
                    let b = self.block_arg()?;
                    self.t.expect(Tok::Comma)?;
                    cs.push((n, b));
                }
                Tok::Ident("default") => return Ok((cs, self.block_arg()?)),
                _ => return Err(GiveUp),
            }
        }
    }

    /// `PhiRef`.
    fn phi_ref(&mut self) -> R<BArg> {
        let t = self.t.next()?;
        match t.tok {
            Tok::Val(v) => Ok(self.ctx.block_ref((v, Span::new(t.l, t.r)))),
            Tok::Ident("null") => Ok(self.ctx.null_block(Span::new(t.l, t.r))),
            _ => Err(GiveUp),
        }
    }

    /// `Frame`: `null` or an operand.
    fn frame(&mut self) -> R<Option<Value>> {
        if self.t.at_kw("null")? {
            self.t.next()?;
            return Ok(None);
        }
        self.op().map(Some)
    }

    /// `BodyV` without block arguments, after the keyword of `tag`.
    #[inline(never)]
    fn body(&mut self, tag: InstTag) -> R<Body> {
        Ok(match tag {
            InstTag::Arithmetic => return self.arithmetic(),
            InstTag::Load => Body::new(InstKind::Load, [self.op()?]),
            InstTag::Store => {
                let p = self.op()?;
                self.t.expect(Tok::Comma)?;
                let v = self.op()?;
                Body::new(InstKind::Store, [p, v])
            }
            InstTag::Call => {
                let f = self.t.val()?;
                self.tail_ops()?;
                let f = self.ctx.use_func(f);
                self.ctx.b_lead_ops(InstKind::Call, &[f])
            }
            InstTag::Gep => {
                self.ops()?;
                self.ctx.b_ops(InstKind::Gep, true)
            }
            InstTag::Cast => {
                let w = self.t.word()?;
                let v = self.op()?;
                self.ctx.b_cast(w, v)
            }
            InstTag::Return => match self.t.peek()? {
                Tok::Val(_) => Body::new(InstKind::Return, [self.op()?]),
                _ => Body::new(InstKind::Return, []),
            },
            InstTag::Phi => {
                if !matches!(self.t.peek()?, Tok::LParen) {
                    return Ok(Body::new(InstKind::Phi, []));
                }
                let mut first = true;
                loop {
                    self.t.expect(Tok::LParen)?;
                    let v = self.t.val()?;
                    self.t.expect(Tok::Comma)?;
                    let b = self.phi_ref()?;
                    self.t.expect(Tok::RParen)?;
                    let v = self.ctx.use_value(v);
                    if first {
                        self.ctx.ops.clear();
                        first = false;
                    }
                    self.ctx.phi_inc(v, b);
                    if self.t.eat(Tok::Comma)?.is_none() {
                        break;
                    }
                }
                self.ctx.b_phi()
            }
            InstTag::Alloca => {
                let w = self.t.word()?;
                self.ctx.b_alloca(w)
            }
            InstTag::Atomic => {
                let w = self.t.word()?;
                self.ops()?;
                self.ctx.b_atomic(w)
            }
            InstTag::ThreadGroup => {
                let w = self.t.word()?;
                let has = self.ops_opt()?;
                self.ctx.b_thread_group(w, has)
            }
            InstTag::ResourceQuery | InstTag::ResourceRead | InstTag::ResourceWrite => {
                let k = match tag {
                    InstTag::ResourceQuery => 0,
                    InstTag::ResourceRead => 1,
                    _ => 2,
                };
                let w = self.t.word()?;
                let a = if self.t.eat(Tok::LBracket)?.is_some() {
                    Some(self.bindless()?)
                } else {
                    None
                };
                let has = self.ops_opt()?;
                self.ctx.b_resource(k, w, a, has)
            }
            InstTag::RayQueryObjectRead | InstTag::RayQueryObjectWrite => {
                let wr = tag == InstTag::RayQueryObjectWrite;
                let w = self.t.word()?;
                self.ops()?;
                self.ctx.b_rq_object(wr, w)
            }
            InstTag::RayQueryPipeline => {
                let q = self.t.val()?;
                self.t.expect(Tok::Comma)?;
                let s = self.t.val()?;
                self.t.expect(Tok::Comma)?;
                let p = self.t.val()?;
                self.tail_ops()?;
                let q = self.ctx.use_value(q);
                let s = self.ctx.use_func(s);
                let p = self.ctx.use_func(p);
                self.ctx.b_lead_ops(InstKind::RayQueryPipeline, &[q, s, p])
            }
            InstTag::Print => {
                let s = self.t.str()?;
                let has = self.ops_opt()?;
                self.ctx.b_print(s, has)
            }
            InstTag::Clock => Body::new(InstKind::Clock, []),
            InstTag::RasterDiscard => Body::new(InstKind::RasterDiscard, []),
            InstTag::CoroTerminate => Body::new(InstKind::CoroTerminate, []),
            InstTag::Unreachable => {
                let s = self.str_opt()?;
                match self.ctx.message(s) {
                    Some(message) => Body::new(InstKind::Unreachable { message }, []),
                    None => Body::err(),
                }
            }
            InstTag::DebugBreak => {
                let cb = if self.t.at_kw("callback")? {
                    self.t.next()?;
                    self.t.expect(Tok::LParen)?;
                    let n = self.t.num()?;
                    self.t.expect(Tok::RParen)?;
                    Some(n)
                } else {
                    None
                };
                let has = self.ops_opt()?;
                self.ctx.b_debug_break(cb, has)
            }
            InstTag::Assert | InstTag::Assume => {
                let s = self.str_opt()?;
                let cnd = self.op()?;
                self.ctx.b_assert(tag == InstTag::Assume, s, cnd)
            }
            InstTag::CoroSuspend => {
                let tok = self.t.num()?;
                let n = self.t.str()?;
                let f = self.frame()?;
                let tail = self.coro_tail()?;
                self.ctx.b_coro_suspend(tok, n, f, tail)
            }
            InstTag::CoroResume => {
                let tok = self.t.num()?;
                let f = self.frame()?;
                self.ctx.b_coro_resume(tok, f)
            }
            _ => return Err(GiveUp),
        })
    }

    /// `arithmetic OP` with zero to four operands and a tail.
    fn arithmetic(&mut self) -> R<Body> {
        let w = self.t.word()?;
        if !matches!(self.t.peek()?, Tok::Val(_)) {
            return Ok(self.ctx.b_arith(w, false));
        }
        let mut raw = [self.t.val()?; 4];
        let mut n = 1;
        while n < 4 && self.t.eat(Tok::Comma)?.is_some() {
            raw[n] = self.t.val()?;
            n += 1;
        }
        if n == 4 {
            self.tail_ops()?;
        }
        let mut a = [crate::text::ctx::err_value(); 4];
        for k in 0..n {
            a[k] = self.ctx.use_value(raw[k]);
        }
        if n < 4 {
            return Ok(self.ctx.b_arith_n(w, &a[..n]));
        }
        Ok(self.ctx.b_arith_tail(w, &a))
    }

    /// `Bindless` after its `[`.
    fn bindless(&mut self) -> R<Vec<Sp<'s>>> {
        let mut v = Vec::new();
        loop {
            if self.t.eat(Tok::RBracket)?.is_some() {
                return Ok(v);
            }
            v.push(self.t.ident()?);
            if self.t.eat(Tok::Comma)?.is_none() {
                self.t.expect(Tok::RBracket)?;
                return Ok(v);
            }
        }
    }

    /// The forms with block arguments (which may define nested blocks, so they are the
    /// recursion path: kept apart from [`Self::body`], whose frame is large), after the
    /// keyword of `tag`.
    fn structured(&mut self, tag: InstTag) -> R<Body> {
        Ok(match tag {
            InstTag::Branch | InstTag::Break | InstTag::Continue => {
                let kind = match tag {
                    InstTag::Branch => InstKind::Branch,
                    InstTag::Break => InstKind::Break,
                    _ => InstKind::Continue,
                };
                let b = self.block_arg()?;
                self.ctx.b_jump(kind, b)
            }
            InstTag::ConditionalBranch => {
                let cnd = self.t.val()?;
                self.t.expect(Tok::Comma)?;
                let tb = self.block_arg()?;
                self.t.expect(Tok::Comma)?;
                let fb = self.block_arg()?;
                let cnd = self.ctx.use_value(cnd);
                self.ctx.b_cond_br(cnd, tb, fb)
            }
            InstTag::If => {
                let c = self.t.val()?;
                self.comma_kw("then")?;
                let t = self.block_arg()?;
                self.comma_kw("else")?;
                let e = self.block_arg()?;
                self.comma_kw("merge")?;
                let m = self.block_arg()?;
                let c = self.ctx.use_value(c);
                self.ctx.b_if(c, t, e, m)
            }
            InstTag::Switch | InstTag::IndexedBranch => {
                let s = self.t.val()?;
                self.t.expect(Tok::Comma)?;
                let (cs, d) = self.cases()?;
                let m = if tag == InstTag::Switch {
                    self.comma_kw("merge")?;
                    Some(self.block_arg()?)
                } else {
                    None
                };
                let s = self.ctx.use_value(s);
                self.ctx.b_switch(s, cs, d, m)
            }
            InstTag::Loop => {
                self.t.kw("prepare")?;
                let p = self.block_arg()?;
                self.comma_kw("body")?;
                let b = self.block_arg()?;
                self.comma_kw("update")?;
                let u = self.block_arg()?;
                self.comma_kw("merge")?;
                let m = self.block_arg()?;
                self.ctx.b_loop(p, b, u, m)
            }
            InstTag::SimpleLoop | InstTag::Outline | InstTag::RayQueryLoop => {
                let (which, kw) = match tag {
                    InstTag::SimpleLoop => (0, "body"),
                    InstTag::Outline => (1, "body"),
                    _ => (2, "dispatch"),
                };
                self.t.kw(kw)?;
                let b = self.block_arg()?;
                self.comma_kw("merge")?;
                let m = self.block_arg()?;
                self.ctx.b_region(which, b, m)
            }
            InstTag::AutodiffScope => {
                let fwd = if self.t.at_kw("forward")? {
                    self.t.next()?;
                    Some(self.t.num()?)
                } else {
                    None
                };
                self.t.kw("entry")?;
                let e = self.block_arg()?;
                self.comma_kw("merge")?;
                let m = self.block_arg()?;
                self.ctx.b_autodiff(fwd, e, m)
            }
            InstTag::RayQueryDispatch => {
                let q = self.t.val()?;
                self.comma_kw("exit")?;
                let x = self.block_arg()?;
                self.comma_kw("on_surface_candidate")?;
                let s = self.block_arg()?;
                self.comma_kw("on_procedural_candidate")?;
                let p = self.block_arg()?;
                let q = self.ctx.use_value(q);
                self.ctx.b_rq_dispatch(q, x, s, p)
            }
            _ => return Err(GiveUp),
        })
    }

    /// `CoroTail`: `, export "n" = %v` and `, extension …` groups.
    fn coro_tail(&mut self) -> R<CoroTail> {
        let mut tail = CoroTail::default();
        while self.t.eat(Tok::Comma)?.is_some() {
            let t = self.t.next()?;
            match t.tok {
                Tok::Ident("export") => {
                    let n = self.t.str()?;
                    self.t.expect(Tok::Eq)?;
                    let v = self.op()?;
                    tail = self.ctx.coro_export(tail, n, v);
                }
                Tok::Ident("extension") => {
                    let s = self.t.str()?;
                    let ver = self.t.ident()?;
                    let k = self.t.ident()?;
                    let fk = self.t.ident()?;
                    self.t.expect(Tok::Eq)?;
                    let f = self.t.num()?;
                    self.t.expect(Tok::LBrace)?;
                    let mut items = Vec::new();
                    loop {
                        if self.t.eat(Tok::RBrace)?.is_some() {
                            break;
                        }
                        items.push(self.ext_item()?);
                        if self.t.eat(Tok::Comma)?.is_none() {
                            self.t.expect(Tok::RBrace)?;
                            break;
                        }
                    }
                    tail = self.ctx.coro_extension(tail, s, ver, k, fk, f, items);
                }
                _ => return Err(GiveUp),
            }
        }
        Ok(tail)
    }

    /// `ExtItem`: a binding or an attribute of an extension group.
    fn ext_item(&mut self) -> R<ExtItem> {
        let kw = self.t.ident()?;
        let n = self.t.str()?;
        if self.t.at_kw("type")? {
            self.t.next()?;
            self.t.expect(Tok::Eq)?;
            let ty = self.t.num()?;
            let vk = self.t.ident()?;
            self.t.expect(Tok::Eq)?;
            let a = self.t.next()?;
            let v = match a.tok {
                Tok::Str(w) | Tok::Num(w) | Tok::Float(w) => (w, Span::new(a.l, a.r)),
                Tok::Ident(w) if keyword(w).is_none() => (w, Span::new(a.l, a.r)),
                Tok::Minus => {
                    let e = self.t.ident()?;
                    let r = e.1.end as usize;
                    (&self.ctx.src[a.l..r], Span::new(a.l, r))
                }
                _ => return Err(GiveUp),
            };
            return Ok(self.ctx.ext_attribute(kw, n, ty, vk, v));
        }
        let ak = self.t.ident()?;
        self.t.expect(Tok::Eq)?;
        let a = self.t.num()?;
        let lk = self.t.ident()?;
        self.t.expect(Tok::Eq)?;
        let lv = self.t.num()?;
        let vk = self.t.ident()?;
        self.t.expect(Tok::Eq)?;
        let v = self.op()?;
        Ok(self.ctx.ext_binding(kw, n, ak, a, lk, lv, vk, v))
    }
}

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
use crate::inst::InstKind;
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
        let b = match self.t.peek()? {
            Tok::Ident(w) if has_blocks(w) => {
                self.t.next()?;
                self.structured(w)?
            }
            _ => self.body()?,
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

    /// `BodyV` without block arguments (the word after `=` is read here).
    #[inline(never)]
    fn body(&mut self) -> R<Body> {
        let t = self.t.next()?;
        let w = match t.tok {
            Tok::Ident(w) => w,
            Tok::At(w) => {
                let w = (w, Span::new(t.l, t.r));
                let has = self.ops_opt()?;
                return Ok(self.ctx.b_autodiff_intrinsic(w, has));
            }
            _ => return Err(GiveUp),
        };
        Ok(match w {
            "arithmetic" => return self.arithmetic(),
            "load" => Body::new(InstKind::Load, [self.op()?]),
            "store" => {
                let p = self.op()?;
                self.t.expect(Tok::Comma)?;
                let v = self.op()?;
                Body::new(InstKind::Store, [p, v])
            }
            "call" => {
                let f = self.t.val()?;
                self.tail_ops()?;
                let f = self.ctx.use_func(f);
                self.ctx.b_lead_ops(InstKind::Call, &[f])
            }
            "getelementptr" => {
                self.ops()?;
                self.ctx.b_ops(InstKind::Gep, true)
            }
            "cast" => {
                let w = self.t.word()?;
                let v = self.op()?;
                self.ctx.b_cast(w, v)
            }
            "return" => match self.t.peek()? {
                Tok::Val(_) => Body::new(InstKind::Return, [self.op()?]),
                _ => Body::new(InstKind::Return, []),
            },
            "phi" => {
                if !matches!(self.t.peek()?, Tok::LParen) {
                    return Ok(Body::new(InstKind::Phi { blocks: Vec::new() }, []));
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
                        self.ctx.phi_blocks.clear();
                        first = false;
                    }
                    self.ctx.phi_inc(v, b);
                    if self.t.eat(Tok::Comma)?.is_none() {
                        break;
                    }
                }
                self.ctx.b_phi()
            }
            "alloca" => {
                let w = self.t.word()?;
                self.ctx.b_alloca(w)
            }
            "atomic" => {
                let w = self.t.word()?;
                self.ops()?;
                self.ctx.b_atomic(w)
            }
            "thread_group" => {
                let w = self.t.word()?;
                let has = self.ops_opt()?;
                self.ctx.b_thread_group(w, has)
            }
            "resource_query" | "resource_read" | "resource_write" => {
                let k = match w {
                    "resource_query" => 0,
                    "resource_read" => 1,
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
            "ray_query_object_read" | "ray_query_object_write" => {
                let wr = w == "ray_query_object_write";
                let w = self.t.word()?;
                self.ops()?;
                self.ctx.b_rq_object(wr, w)
            }
            "ray_query_pipeline" => {
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
            "print" => {
                let s = self.t.str()?;
                let has = self.ops_opt()?;
                self.ctx.b_print(s, has)
            }
            "clock" => Body::new(InstKind::Clock, []),
            "raster_discard" => Body::new(InstKind::RasterDiscard, []),
            "coro_terminate" => Body::new(InstKind::CoroTerminate, []),
            "unreachable" => {
                let s = self.str_opt()?;
                match self.ctx.message(s) {
                    Some(message) => Body::new(InstKind::Unreachable { message }, []),
                    None => Body::err(),
                }
            }
            "debug_break" => {
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
            "assert" | "assume" => {
                let s = self.str_opt()?;
                let cnd = self.op()?;
                self.ctx.b_assert(w == "assume", s, cnd)
            }
            "coro_suspend" => {
                let tok = self.t.num()?;
                let n = self.t.str()?;
                let f = self.frame()?;
                let tail = self.coro_tail()?;
                self.ctx.b_coro_suspend(tok, n, f, tail)
            }
            "coro_resume" => {
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
    /// recursion path: kept apart from [`Self::body`], whose frame is large).
    fn structured(&mut self, w: &'s str) -> R<Body> {
        Ok(match w {
            "br" | "break" | "continue" => {
                let kind = match w {
                    "br" => InstKind::Branch,
                    "break" => InstKind::Break,
                    _ => InstKind::Continue,
                };
                let b = self.block_arg()?;
                self.ctx.b_jump(kind, b)
            }
            "cond_br" => {
                let cnd = self.t.val()?;
                self.t.expect(Tok::Comma)?;
                let tb = self.block_arg()?;
                self.t.expect(Tok::Comma)?;
                let fb = self.block_arg()?;
                let cnd = self.ctx.use_value(cnd);
                self.ctx.b_cond_br(cnd, tb, fb)
            }
            "if" => {
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
            "switch" | "indexed_branch" => {
                let s = self.t.val()?;
                self.t.expect(Tok::Comma)?;
                let (cs, d) = self.cases()?;
                let m = if w == "switch" {
                    self.comma_kw("merge")?;
                    Some(self.block_arg()?)
                } else {
                    None
                };
                let s = self.ctx.use_value(s);
                self.ctx.b_switch(s, cs, d, m)
            }
            "loop" => {
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
            "simple_loop" | "outline" | "ray_query_loop" => {
                let (which, kw) = match w {
                    "simple_loop" => (0, "body"),
                    "outline" => (1, "body"),
                    _ => (2, "dispatch"),
                };
                self.t.kw(kw)?;
                let b = self.block_arg()?;
                self.comma_kw("merge")?;
                let m = self.block_arg()?;
                self.ctx.b_region(which, b, m)
            }
            "autodiff" => {
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
            "ray_query_dispatch" => {
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

/// Whether the body form `w` takes block arguments (see [`Fast::structured`]).
fn has_blocks(w: &str) -> bool {
    matches!(
        w,
        "if" | "switch"
            | "indexed_branch"
            | "loop"
            | "simple_loop"
            | "outline"
            | "ray_query_loop"
            | "autodiff"
            | "ray_query_dispatch"
            | "br"
            | "break"
            | "continue"
            | "cond_br"
    )
}

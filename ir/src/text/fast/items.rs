//! The fast reader's top-level items, function bodies, blocks, types, literals and
//! metadata: one method per rule of `grammar.lalrpop`, each calling the rule's action
//! at the point where lalrpop reduces it.

use super::{Fast, GiveUp, R};
use crate::diag::Span;
use crate::metadata::{Metadata, MetadataList};
use crate::text::ctx::{BArg, Ty};
use crate::text::items::{FuncKw, Sp};
use crate::text::lexer::{Tok, ValRef, keyword};
use crate::text::meta::{MdField, MdV};
use crate::text::tyres::TArg;

impl<'s> Fast<'s> {
    /// `Item`: one top-level item, through its final `;`.
    pub fn item(&mut self) -> R<()> {
        let md = self.md_opt()?;
        let t = self.t.next()?;
        let Tok::Ident(w) = t.tok else {
            return Err(GiveUp);
        };
        match w {
            "module" => {
                self.t.expect(Tok::Semi)?;
                self.ctx.module_header(md, Span::new(t.l, t.r));
            }
            "type" if md.is_none() => self.type_decl()?,
            "const" => {
                let v = self.t.val()?;
                self.t.expect(Tok::Colon)?;
                let ty = self.ty()?;
                self.t.expect(Tok::Eq)?;
                let h = self.ctx.const_head(v, ty, t.l);
                let l = self.t.peek_l()?;
                // `= ;`: a zero-size constant has no bytes.
                let r = if matches!(self.t.peek()?, Tok::Semi) {
                    l
                } else {
                    self.lit()?
                };
                let e = self.t.expect(Tok::Semi)?;
                self.ctx.finish_const(md, h, Span::new(l, r), e.r);
            }
            "undef" => {
                let v = self.t.val()?;
                self.t.expect(Tok::Colon)?;
                let ty = self.ty()?;
                self.t.expect(Tok::Semi)?;
                self.ctx.decl_undef(md, v, ty);
            }
            "special" => {
                let v = self.t.val()?;
                self.t.expect(Tok::Semi)?;
                self.ctx.decl_special(md, v);
            }
            _ => self.function(md, w, t.l)?,
        }
        Ok(())
    }

    /// `TypeDecl` after `type`.
    fn type_decl(&mut self) -> R<()> {
        let n = self.t.ident()?;
        self.t.expect(Tok::Eq)?;
        let n = self.ctx.type_head(n);
        let t = self.t.next()?;
        match t.tok {
            Tok::Ident("struct") => {
                let align = if self.t.at_kw("align")? {
                    self.t.next()?;
                    self.t.expect(Tok::LParen)?;
                    let a = self.t.num()?;
                    self.t.expect(Tok::RParen)?;
                    Some(a)
                } else {
                    None
                };
                self.t.expect(Tok::LBrace)?;
                let mut ms = Vec::new();
                while self.t.eat(Tok::RBrace)?.is_none() {
                    ms.push(self.ty()?);
                    if self.t.eat(Tok::Comma)?.is_none() {
                        self.t.expect(Tok::RBrace)?;
                        break;
                    }
                }
                self.t.expect(Tok::Semi)?;
                self.ctx.decl_struct(n, align, ms);
            }
            Tok::Ident("opaque") => {
                let s = self.t.str()?;
                self.t.expect(Tok::Semi)?;
                self.ctx.decl_opaque(n, s);
            }
            _ => return Err(GiveUp),
        }
        Ok(())
    }

    /// `Function` after its metadata; `w` is the keyword starting at `l`.
    fn function(&mut self, md: Option<MetadataList>, w: &'s str, l: usize) -> R<()> {
        let kw = match w {
            "kernel" => FuncKw::Kernel,
            "callable" => FuncKw::Callable,
            "external" => FuncKw::External,
            "raster_vertex" => FuncKw::RasterVertex,
            "raster_fragment" => FuncKw::RasterFragment,
            _ => return Err(GiveUp),
        };
        let v = self.t.val()?;
        let mut r = v.1.end as usize;
        let ret = if kw == FuncKw::Kernel {
            None
        } else {
            self.t.expect(Tok::Colon)?;
            let ty = self.ty_end(&mut r)?;
            Some(ty)
        };
        let bs = if self.t.at_kw("block_size")? {
            let b = self.t.next()?;
            self.t.expect(Tok::LParen)?;
            let x = self.t.num()?;
            self.t.expect(Tok::Comma)?;
            let y = self.t.num()?;
            self.t.expect(Tok::Comma)?;
            let z = self.t.num()?;
            let e = self.t.expect(Tok::RParen)?;
            r = e.r;
            Some(self.ctx.block_size(x, y, z, Span::new(b.l, e.r)))
        } else {
            None
        };
        self.ctx.begin_function(kw, v, ret, bs, Span::new(l, r));
        self.t.expect(Tok::LParen)?;
        while self.t.eat(Tok::RParen)?.is_none() {
            self.arg()?;
        }
        let has_body = matches!(self.t.peek()?, Tok::Eq);
        if has_body {
            self.t.next()?;
            self.t.kw("define")?;
            if self.t.eat(Tok::LBrace)?.is_some() {
                self.flat_body()?;
            } else {
                let b = self.block_arg()?;
                self.ctx.set_body(b);
                while !matches!(self.t.peek()?, Tok::Semi) {
                    let md = self.md_opt()?;
                    let v = self.t.val()?;
                    self.t.expect(Tok::Colon)?;
                    self.block_def(md, v)?;
                }
            }
        }
        let e = self.t.expect(Tok::Semi)?;
        self.ctx.finish_function(md, has_body, Span::new(e.l, e.r));
        Ok(())
    }

    /// `Arg`: `[md] %v: [&]T;`.
    fn arg(&mut self) -> R<()> {
        let md = self.md_opt()?;
        let v = self.t.val()?;
        self.t.expect(Tok::Colon)?;
        let amp = self.t.eat(Tok::Amp)?.is_some();
        let mut r = 0;
        let ty = self.ty_end(&mut r)?;
        self.ctx.stmt = crate::text::ctx::Stmt::Arg;
        self.t.expect(Tok::Semi)?;
        self.ctx.def_arg(md, v, amp, ty, r);
        Ok(())
    }

    /// `"{" FlatBody "}"` after the `{`: labels and instructions, the first a label.
    fn flat_body(&mut self) -> R<()> {
        let mut first = true;
        while self.t.eat(Tok::RBrace)?.is_none() {
            let md = self.md_opt()?;
            let v = self.t.val()?;
            self.t.expect(Tok::Colon)?;
            if matches!(self.t.peek()?, Tok::Ident(_)) {
                if first {
                    return Err(GiveUp);
                }
                self.inst_after_colon(md, v)?;
            } else {
                self.ctx.flat_label(md, v);
            }
            first = false;
        }
        Ok(())
    }

    /// `BlockArg`: `%b`, `null` or a nested block definition.
    pub fn block_arg(&mut self) -> R<BArg> {
        let t = self.t.next()?;
        match t.tok {
            Tok::Val(v) => {
                let v = (v, Span::new(t.l, t.r));
                if self.t.eat(Tok::Colon)?.is_some() {
                    self.block_def(None, v)
                } else {
                    Ok(self.ctx.block_ref(v))
                }
            }
            Tok::Ident("null") => Ok(self.ctx.null_block(Span::new(t.l, t.r))),
            Tok::LBracket => {
                let md = self.md_rest()?;
                let v = self.t.val()?;
                self.t.expect(Tok::Colon)?;
                self.block_def(Some(md), v)
            }
            _ => Err(GiveUp),
        }
    }

    /// `BlockDef` after `[md] %b:`: `{ instructions }`.
    fn block_def(&mut self, md: Option<MetadataList>, v: (ValRef<'s>, Span)) -> R<BArg> {
        self.t.expect(Tok::LBrace)?;
        let o = self.ctx.open_block(md, v);
        while self.t.eat(Tok::RBrace)?.is_none() {
            let md = self.md_opt()?;
            let v = self.t.val()?;
            self.t.expect(Tok::Colon)?;
            self.inst_after_colon(md, v)?;
        }
        Ok(self.ctx.close_block(o))
    }

    // ----- types and literals ---------------------------------------------------

    /// `Type`.
    #[inline]
    pub fn ty(&mut self) -> R<Ty> {
        let mut r = 0;
        self.ty_end(&mut r)
    }

    /// `Type`, setting `r` to its end offset.
    pub fn ty_end(&mut self, r: &mut usize) -> R<Ty> {
        let n = self.t.word()?;
        if !matches!(self.t.peek()?, Tok::Lt) {
            *r = n.1.end as usize;
            return Ok(self.ctx.named_type(n));
        }
        self.generic(n, r)
    }

    /// `GenericType` after its name (the next token is `<`).
    fn generic(&mut self, n: Sp<'s>, r: &mut usize) -> R<Ty> {
        self.t.next()?;
        self.ctx.tick();
        let mut count = 0u32;
        loop {
            let t = self.t.next()?;
            let a = match t.tok {
                Tok::Ident(w) if keyword(w).is_none() => {
                    let sp = Span::new(t.l, t.r);
                    if matches!(self.t.peek()?, Tok::Lt) {
                        let mut e = 0;
                        let ty = self.generic((w, sp), &mut e)?;
                        TArg::Ty(ty, Span::new(t.l, e))
                    } else {
                        TArg::Name(w, sp)
                    }
                }
                Tok::Num(w) => TArg::Num(w, Span::new(t.l, t.r)),
                _ => return Err(GiveUp),
            };
            self.ctx.targs.push(a);
            count += 1;
            if self.t.eat(Tok::Comma)?.is_none() {
                break;
            }
        }
        let e = self.t.expect(Tok::Gt)?;
        self.ctx.tick();
        *r = e.r;
        Ok(self
            .ctx
            .generic_type(n, count, Span::new(n.1.start as usize, e.r)))
    }

    /// `Lit` (structure only); returns its end offset.
    fn lit(&mut self) -> R<usize> {
        let t = self.t.next()?;
        let close = match t.tok {
            Tok::Num(_) | Tok::Float(_) => {
                self.ctx.tick();
                return Ok(t.r);
            }
            Tok::Ident(w) if keyword(w).is_none() => {
                self.ctx.tick();
                return Ok(t.r);
            }
            Tok::Minus => {
                let e = self.t.ident()?;
                self.ctx.tick();
                return Ok(e.1.end as usize);
            }
            Tok::LBracket => Tok::RBracket,
            Tok::LBrace => Tok::RBrace,
            _ => return Err(GiveUp),
        };
        self.ctx.tick();
        loop {
            if let Some(e) = self.t.eat(close)? {
                self.ctx.tick();
                return Ok(e.r);
            }
            self.lit()?;
            if self.t.eat(Tok::Comma)?.is_none() {
                let e = self.t.expect(close)?;
                self.ctx.tick();
                return Ok(e.r);
            }
        }
    }

    // ----- metadata -------------------------------------------------------------

    /// An optional `Md`.
    #[inline]
    pub fn md_opt(&mut self) -> R<Option<MetadataList>> {
        if !matches!(self.t.peek()?, Tok::LBracket) {
            return Ok(None);
        }
        self.t.next()?;
        self.md_rest().map(Some)
    }

    /// `Md` after its `[`.
    fn md_rest(&mut self) -> R<MetadataList> {
        let mut out: Vec<Metadata> = Vec::new();
        loop {
            let t = self.t.next()?;
            match t.tok {
                Tok::Comma => continue,
                Tok::RBracket => return Ok(out),
                Tok::Ident(k) => {
                    let key = (k, Span::new(t.l, t.r));
                    let (val, r) = if let Some(eq) = self.t.eat(Tok::Eq)? {
                        if matches!(self.t.peek()?, Tok::Comma | Tok::RBracket) {
                            // Upstream's empty name: `name = ` then `]` or `,`.
                            (Some(MdV::Atom(("", Span::new(eq.r, eq.r)))), eq.r)
                        } else {
                            let (v, r) = self.md_val()?;
                            (Some(v), r)
                        }
                    } else {
                        (None, t.r)
                    };
                    out.extend(self.ctx.md_entry(key, val, Span::new(t.l, r)));
                    match self.t.next()?.tok {
                        Tok::Comma => {}
                        Tok::RBracket => return Ok(out),
                        _ => return Err(GiveUp),
                    }
                }
                _ => return Err(GiveUp),
            }
        }
    }

    /// `MdVal` and its end offset.
    fn md_val(&mut self) -> R<(MdV<'s>, usize)> {
        let t = self.t.next()?;
        match t.tok {
            Tok::RawName(w) => Ok((MdV::Atom((w, Span::new(t.l, t.r))), t.r)),
            Tok::LParen => {
                let (items, r) = self.md_tuple()?;
                Ok((MdV::Tuple(items, Span::new(t.l, r)), r))
            }
            Tok::LBrace => {
                let mut fields = Vec::new();
                loop {
                    if let Some(e) = self.t.eat(Tok::RBrace)? {
                        return Ok((MdV::Set(fields, Span::new(t.l, e.r)), e.r));
                    }
                    fields.push(self.md_field()?);
                    if self.t.eat(Tok::Comma)?.is_none() {
                        let e = self.t.expect(Tok::RBrace)?;
                        return Ok((MdV::Set(fields, Span::new(t.l, e.r)), e.r));
                    }
                }
            }
            tok => {
                let a = md_atom(tok).ok_or(GiveUp)?;
                Ok((MdV::Atom((a, Span::new(t.l, t.r))), t.r))
            }
        }
    }

    /// `Comma<Sp<MdAtom>> ")"` after the `(`, with the end of the `)`.
    fn md_tuple(&mut self) -> R<(Vec<Sp<'s>>, usize)> {
        let mut items = Vec::new();
        loop {
            let t = self.t.next()?;
            if matches!(t.tok, Tok::RParen) {
                return Ok((items, t.r));
            }
            items.push((md_atom(t.tok).ok_or(GiveUp)?, Span::new(t.l, t.r)));
            if self.t.eat(Tok::Comma)?.is_none() {
                let e = self.t.expect(Tok::RParen)?;
                return Ok((items, e.r));
            }
        }
    }

    /// `MdField`.
    fn md_field(&mut self) -> R<MdField<'s>> {
        let t = self.t.next()?;
        let a = (md_atom(t.tok).ok_or(GiveUp)?, Span::new(t.l, t.r));
        let is_word = matches!(t.tok, Tok::Ident(_));
        if !is_word || self.t.eat(Tok::Eq)?.is_none() {
            return Ok(MdField {
                key: None,
                val: MdV::Atom(a),
            });
        }
        let v = self.t.next()?;
        let val = if matches!(v.tok, Tok::LParen) {
            let (items, r) = self.md_tuple()?;
            MdV::Tuple(items, Span::new(v.l, r))
        } else {
            MdV::Atom((md_atom(v.tok).ok_or(GiveUp)?, Span::new(v.l, v.r)))
        };
        Ok(MdField { key: Some(a), val })
    }
}

/// `MdAtom`: any word (keywords included), string, number or float.
fn md_atom(t: Tok<'_>) -> Option<&str> {
    match t {
        Tok::Ident(w) | Tok::Str(w) | Tok::Num(w) | Tok::Float(w) => Some(w),
        _ => None,
    }
}

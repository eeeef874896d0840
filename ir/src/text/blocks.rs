//! Grammar actions that define blocks and place instructions, and the poisoning of
//! labels skipped by error recovery.

use super::ctx::{BArg, Ctx, Head, Key, Open, Slot};
use super::lexer::{Tok, ValRef};
use crate::diag::Span;
use crate::entity::EntityRef;
use crate::inst::{InstData, InstId};
use crate::metadata::MetadataList;
use crate::value::BlockId;
use logos::Logos;

impl<'s> Ctx<'s> {
    // ----- block definitions -------------------------------------------------------

    /// Defines the block labelled `v` (nested `%N: {` or flat `%N:`).
    pub fn def_block(
        &mut self,
        md: Option<MetadataList>,
        v: (ValRef<'s>, Span),
    ) -> Option<BlockId> {
        self.tick();
        let (key, deco) = Self::split_ref(v.0);
        let fid = self.fid()?;
        if deco.is_some() {
            self.error(format!("{} cannot label a block", self.text(v.1)), v.1);
            return None;
        }
        let slot = self.syms.get(key);
        let b = match slot {
            Slot::Block(f, b) if f == fid => {
                let fs = self.func.as_ref()?;
                if fs.block_defined[b.index()] {
                    let prev = self.map.block(fid, b);
                    self.redefinition(v.1, prev);
                    return None;
                }
                b
            }
            s if s == Slot::Empty || self.foreign(s) => self.new_block(key),
            s => {
                let prev = self.slot_span(s);
                self.redefinition(v.1, prev);
                return None;
            }
        };
        let fs = self.func.as_mut()?;
        fs.block_defined[b.index()] = true;
        let func = &mut self.module.functions[fid];
        func.block_order.push(b);
        if let Some(md) = md {
            func.blocks[b].metadata = md;
        }
        self.map.funcs.get_mut(fid).blocks.set(b, v.1);
        Some(b)
    }

    /// `[md] %N: {` — opens a nested block.
    pub fn open_block(&mut self, md: Option<MetadataList>, v: (ValRef<'s>, Span)) -> Open {
        let block = self.def_block(md, v);
        let parent = self.cur_block;
        if block.is_some() {
            self.cur_block = block;
        }
        let p = &self.progress.open_blocks;
        p.set(p.get() + 1);
        Open {
            block,
            parent,
            span: v.1,
        }
    }

    /// `}` of a nested block.
    pub fn close_block(&mut self, o: Open) -> BArg {
        self.tick();
        self.cur_block = o.parent;
        let p = &self.progress.open_blocks;
        p.set(p.get().saturating_sub(1));
        BArg {
            block: o.block,
            span: o.span,
            ok: o.block.is_some(),
        }
    }

    /// A flat-form label `%N:`; later instructions go to this block.
    pub fn flat_label(
        &mut self,
        md: Option<MetadataList>,
        v: (ValRef<'s>, Span),
    ) -> Option<BlockId> {
        let b = self.def_block(md, v);
        if let (Some(b), Some(fs)) = (b, self.func.as_mut())
            && !fs.body_set
        {
            fs.body_set = true;
            self.module.functions[fs.id].body = Some(b);
        }
        self.cur_block = b;
        b
    }

    /// The block a nested-form body starts with.
    pub fn set_body(&mut self, b: BArg) {
        if let Some(fs) = self.func.as_mut() {
            fs.body_set = true;
            self.module.functions[fs.id].body = b.block;
        }
    }

    // ----- instruction definitions -------------------------------------------------

    /// Creates or fills in the instruction labelled by `head` in the current block.
    #[inline]
    pub fn place_inst(&mut self, head: &Head<'s>, data: InstData, span: Span) -> Option<InstId> {
        // The common case inline: a new `%N` in a block of the current function.
        if let (ValRef::Num(n), Some(b)) = (head.id, self.cur_block)
            && let Some(slot) = self.syms.get_dense(n)
            && (slot == Slot::Empty || self.foreign(slot))
            && let Some(fs) = self.func.as_mut()
        {
            let fid = fs.id;
            let i = self.module.functions[fid].insts.push(InstData {
                block: Some(b),
                ..data
            });
            self.syms.set(Key::Num(n), Slot::Inst(fid, i));
            fs.placed.push((b, i));
            self.map.funcs.get_mut(fid).insts.set(i, span);
            return Some(i);
        }
        self.place_inst_general(head, data, span)
    }

    /// [`Self::place_inst`] for every case (its inline part handles the common one).
    #[inline(never)]
    fn place_inst_general(
        &mut self,
        head: &Head<'s>,
        data: InstData,
        span: Span,
    ) -> Option<InstId> {
        let fid = self.fid()?;
        let Some(b) = self.cur_block else {
            self.error("instruction outside of a block", span);
            return None;
        };
        let (key, deco) = Self::split_ref(head.id);
        if deco.is_some() {
            self.error(
                format!("{} cannot name an instruction", self.text(head.id_span)),
                head.id_span,
            );
            return None;
        }
        let slot = self.syms.get(key);
        let fresh = slot == Slot::Empty || self.foreign(slot);
        let func = &mut self.module.functions[fid];
        let i = match slot {
            Slot::Inst(f, i) if f == fid && func.insts[i].block.is_none() => {
                func.insts[i] = data;
                i
            }
            _ if fresh => {
                let i = func.insts.push(data);
                self.syms.set(key, Slot::Inst(fid, i));
                i
            }
            s => {
                let prev = self.slot_span(s);
                self.redefinition(head.id_span, prev);
                return None;
            }
        };
        self.module.functions[fid].insts[i].block = Some(b);
        if let Some(fs) = self.func.as_mut() {
            fs.placed.push((b, i));
        }
        self.map.funcs.get_mut(fid).insts.set(i, span);
        Some(i)
    }

    /// Marks every `%…` label in `span` of the source as skipped by error recovery.
    pub fn poison(&mut self, span: Span) {
        let text = self.text(span);
        for t in Tok::lexer(text) {
            if let Ok(Tok::Val(v)) = t {
                self.poisoned.insert(Self::split_ref(v).0);
            }
        }
    }
}

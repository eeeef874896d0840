//! What happens at the end of a function and at the end of the module: undefined
//! labels are reported at their first use, forward references to functions from plain
//! operand positions are patched, switch labels are canonicalised to the selector
//! width, and `%N.undefined` values without a declaration get their type from
//! [`infer_operand_type_interning`](crate::text::infer::infer_operand_type_interning) at their first use in text order.

use super::ctx::{Ctx, FuncSizes, GlobalPending, Key, Slot, SwitchFix};
use crate::diag::{Diagnostic, Span};
use crate::entity::EntityRef;
use crate::inst::{InstId, InstKind};
use crate::text::infer::infer_operand_type_interning;
use crate::types::TypeData;
use crate::value::{BlockId, FuncId, Value};
use rustc_hash::FxHashMap;

impl<'s> Ctx<'s> {
    fn poisoned_text(&self, span: Span) -> bool {
        let text = self.text(span);
        let key = text
            .strip_prefix('%')
            .map(|t| t.split('.').next().unwrap_or(t))
            .map(|t| match t.parse::<u32>() {
                Ok(n) if t.starts_with(|c: char| c.is_ascii_digit()) => Key::Num(n),
                _ => Key::Name(t),
            });
        key.is_some_and(|k| self.poisoned.contains(&k))
    }

    /// Closes the current function: undefined blocks are errors; undefined values may
    /// still be functions defined later (decided at the end of the module).
    pub fn end_function(&mut self) {
        let Some(mut fs) = self.func.take() else {
            return;
        };
        self.cur_block = None;
        let f = fs.id;
        self.fill_block_lists(f, &fs.placed);
        fs.placed.clear();
        self.placed_spare = std::mem::take(&mut fs.placed);
        for (b, span) in fs.pending_blocks {
            if !fs.block_defined[b.index()] && !self.poisoned_text(span) {
                self.push(
                    Diagnostic::error(
                        format!("use of undefined block {}", self.text(span)),
                        Some(span),
                    )
                    .with_label("never defined in this function"),
                );
            }
        }
        for (inst, key, span) in fs.pending_insts {
            if self.module.functions[f].insts[inst].block.is_none() {
                self.global_pending.push(GlobalPending {
                    func: f,
                    inst,
                    key,
                    span,
                });
            }
        }
        for fix in fs.switch_fixes {
            self.switch_fixes.push((f, fix));
        }
        self.shrink_function(f);
    }

    /// Appends the placed instructions to their blocks' lists, in placement order; each
    /// list is allocated once, at its final length.
    fn fill_block_lists(&mut self, f: FuncId, placed: &[(BlockId, InstId)]) {
        let func = &mut self.module.functions[f];
        let mut counts = vec![0u32; func.blocks.len()];
        for (b, _) in placed {
            counts[b.index()] += 1;
        }
        for (b, data) in func.blocks.iter_mut() {
            data.insts.reserve_exact(counts[b.index()] as usize);
        }
        for &(b, i) in placed {
            func.blocks[b].insts.push(i);
        }
    }

    /// Drops the growth slack of a finished function's arenas (up to half of a large
    /// module's memory otherwise) and notes their lengths for the next function.
    fn shrink_function(&mut self, f: FuncId) {
        // In place (a shrinking realloc): no second copy, no per-instruction clone.
        let func = &mut self.module.functions[f];
        if !func.insts.is_empty() {
            self.last_sizes = FuncSizes {
                insts: func.insts.len(),
                blocks: func.blocks.len(),
            };
        }
        func.insts.shrink_to_fit();
        func.blocks.shrink_to_fit();
        func.block_order.shrink_to_fit();
        let spans = self.map.funcs.get_mut(f);
        spans.insts.shrink_to_fit();
        spans.blocks.shrink_to_fit();
    }

    /// Module-level resolution after the last item.
    pub fn finish(&mut self) {
        if !self.seen_header {
            self.push(
                Diagnostic::error(
                    "expected 'module;' at the start of the file",
                    Some(Span::new(0, 0)),
                )
                .with_help("every xir file starts with the line 'module;'"),
            );
        }
        self.resolve_global_pending();
        let pending = std::mem::take(&mut self.pending_funcs);
        for (f, _, span) in pending {
            if !self.func_defined[f.index()] && !self.poisoned_text(span) {
                self.error(
                    format!("use of undefined function {}", self.text(span)),
                    span,
                );
            }
        }
        self.infer_undefs();
        let fixes = std::mem::take(&mut self.switch_fixes);
        for (f, fix) in fixes {
            self.canonicalise_switch(f, fix);
        }
    }

    fn resolve_global_pending(&mut self) {
        let pending = std::mem::take(&mut self.global_pending);
        let mut remap: FxHashMap<FuncId, FxHashMap<InstId, Value>> = FxHashMap::default();
        for p in pending {
            match self.syms.get(p.key) {
                Slot::Func(g) if self.func_defined[g.index()] => {
                    remap
                        .entry(p.func)
                        .or_default()
                        .insert(p.inst, Value::Func(g));
                }
                _ => {
                    if !self.poisoned_text(p.span) {
                        self.push(
                            Diagnostic::error(
                                format!("use of undefined value {}", self.text(p.span)),
                                Some(p.span),
                            )
                            .with_label("never defined"),
                        );
                    }
                }
            }
        }
        for (f, m) in remap {
            self.module.functions[f].remap_operands(|v| match v {
                Value::Inst(i) => m.get(&i).copied().unwrap_or(v),
                v => v,
            });
        }
    }

    fn infer_undefs(&mut self) {
        if self.unresolved_undefs == 0 {
            return;
        }
        let mut uses = std::mem::take(&mut self.undef_uses);
        uses.sort_by_key(|u| (u.undef, u.pos, u.index));
        // First use of each undefined value, and the range of its uses.
        let mut groups: Vec<(u32, u32, usize, usize)> = Vec::new(); // (pos, undef, from, to)
        let mut i = 0;
        while i < uses.len() {
            let k = uses[i].undef;
            let mut j = i;
            while j < uses.len() && uses[j].undef == k {
                j += 1;
            }
            groups.push((uses[i].pos, k, i, j));
            i = j;
        }
        groups.sort();
        for (_, k, from, to) in groups {
            let first = uses[from];
            let inst = self.module.functions[first.func].insts[first.inst].clone();
            let ty = infer_operand_type_interning(
                &mut self.module,
                first.func,
                &inst,
                first.index as usize,
            );
            let info = &self.undefs[k as usize];
            let Some(ty) = ty else {
                let name = info.name.clone();
                let span = info.span;
                let base = name.strip_suffix(".undefined").unwrap_or(&name).to_string();
                self.push(
                    Diagnostic::error(format!("cannot infer the type of {name}"), Some(span))
                        .with_help(format!(
                            "declare it in the prelude: 'undef {base}.undefined: T;'"
                        )),
                );
                continue;
            };
            let u = self.module.undef(ty);
            self.map.undefs.set(u, info.span);
            self.undefs[k as usize].resolved = Some(u);
            for use_ in &uses[from..to] {
                self.module.functions[use_.func].insts[use_.inst].operands[use_.index as usize] =
                    Value::Undef(u);
            }
        }
    }

    /// Stores switch labels as u64 canonicalised to the selector width (zero-extended),
    /// after checking they fit: signed selectors take signed labels, others unsigned.
    fn canonicalise_switch(&mut self, f: FuncId, fix: SwitchFix) {
        let func = &self.module.functions[f];
        let sel = func.insts[fix.inst].operands.first().copied();
        let ty = sel.and_then(|v| self.module.value_type(f, v));
        let kind = ty.and_then(|t| match self.module.types.get(t) {
            TypeData::Scalar(k) => Some(*k),
            _ => None,
        });
        let mut labels = Vec::with_capacity(fix.labels.len());
        for (v, span) in fix.labels {
            let (lo, hi, bits): (i128, i128, u32) = match kind {
                Some(k) if k.is_signed_int() => {
                    let bits = if k == crate::types::ScalarKind::I4 {
                        4
                    } else {
                        k.size() as u32 * 8
                    };
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1, bits)
                }
                Some(k) if k.is_unsigned_int() => {
                    (0, (1i128 << (k.size() * 8)) - 1, k.size() as u32 * 8)
                }
                Some(crate::types::ScalarKind::Bool) => (0, 1, 1),
                // Not an integer selector (the verifier reports it): keep the raw bits.
                _ => (i64::MIN as i128, u64::MAX as i128, 64),
            };
            if v < lo || v > hi {
                let tn = kind.map_or("the selector", |k| k.text_name());
                self.error(format!("case label {v} is out of range for {tn}"), span);
                continue;
            }
            let mask = if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            labels.push((v as i64 as u64) & mask);
        }
        match &mut self.module.functions[f].insts[fix.inst].kind {
            InstKind::Switch { labels: l, .. } | InstKind::IndexedBranch { labels: l } => {
                *l = labels
            }
            _ => {}
        }
    }
}

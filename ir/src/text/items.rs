//! Grammar actions for top-level items: `module;`, type declarations, constants,
//! undefined-value declarations, function headers, arguments and function ends.

use super::ctx::{Ctx, FuncState, Slot, Stmt, Ty};
use super::insts::Dims;
use super::lexer::ValRef;
use crate::diag::{Diagnostic, Span};
use crate::entity::EntityRef;
use crate::function::{ArgKind, Function, FunctionKind};
use crate::metadata::MetadataList;
use crate::types::TypeData;

/// Which function keyword started a header.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FuncKw {
    /// `kernel`.
    Kernel,
    /// `callable`.
    Callable,
    /// `external`.
    External,
    /// `raster_vertex`.
    RasterVertex,
    /// `raster_fragment`.
    RasterFragment,
}

/// `const %N: T =` of a constant.
pub struct ConstHead<'s> {
    /// The id.
    pub id: (ValRef<'s>, Span),
    /// Declared type.
    pub ty: Ty,
    /// Start of the declaration.
    pub start: usize,
}

/// A spanned word.
pub type Sp<'s> = (&'s str, Span);

impl<'s> Ctx<'s> {
    /// `block_size(X, Y, Z)`.
    pub fn block_size(
        &mut self,
        x: Sp<'s>,
        y: Sp<'s>,
        z: Sp<'s>,
        span: Span,
    ) -> (Option<Dims>, Span) {
        let mut d = [0u32; 3];
        let mut ok = true;
        for (k, w) in [x, y, z].into_iter().enumerate() {
            match w.0.parse::<u32>() {
                Ok(v) if v > 0 => d[k] = v,
                _ => {
                    self.error("block size must be a positive 32-bit integer", w.1);
                    ok = false;
                }
            }
        }
        (ok.then_some(d), span)
    }

    /// `[md] module;`.
    pub fn module_header(&mut self, md: Option<MetadataList>, span: Span) {
        if self.seen_header {
            self.error("duplicate 'module;' header", span);
            return;
        }
        if !self.module.func_order.is_empty()
            || !self.module.constants.is_empty()
            || !self.tnames.is_empty()
        {
            self.error("'module;' must come before every other item", span);
        }
        self.seen_header = true;
        if let Some(md) = md {
            self.module.metadata = md;
        }
    }

    fn require_header(&mut self, span: Span) {
        if !self.seen_header {
            self.seen_header = true;
            self.push(
                Diagnostic::error("expected 'module;' before the first item", Some(span))
                    .with_help("every xir file starts with the line 'module;'"),
            );
        }
    }

    /// `type NAME =` (marks the statement kind).
    pub fn type_head(&mut self, name: Sp<'s>) -> Sp<'s> {
        self.stmt = Stmt::TypeDecl;
        self.require_header(name.1);
        name
    }

    fn declare_type_name(&mut self, name: Sp<'s>, t: Option<crate::types::Type>) {
        let Some(t) = t else { return };
        if let Some((_, prev)) = self.tnames.get(name.0) {
            let prev = *prev;
            let d = Diagnostic::error(format!("redefinition of type {}", name.0), Some(name.1))
                .with_secondary(prev, "previous definition here");
            self.push(d);
            return;
        }
        if self.builtin_type_name(name.0) {
            self.error(
                format!("cannot redefine the built-in type '{}'", name.0),
                name.1,
            );
            return;
        }
        self.tnames.insert(name.0, (t, name.1));
    }

    /// `type T = struct [align(A)] { members };`.
    pub fn decl_struct(&mut self, name: Sp<'s>, align: Option<Sp<'s>>, members: Vec<Ty>) {
        self.stmt = Stmt::None;
        let mut ms = Vec::with_capacity(members.len());
        for m in members {
            match m {
                Ty::T(t) if self.is_data_type(t) => ms.push(t),
                Ty::T(_) | Ty::Void => {
                    self.error("struct members must be data types", name.1);
                    return;
                }
                Ty::Err => return,
            }
        }
        let natural = self.module.types.natural_struct_align(&ms);
        let align = match align {
            None => natural,
            Some((a, span)) => match a.parse::<u32>() {
                Ok(a) if a.is_power_of_two() && a <= 16 && a >= natural => a,
                Ok(a) if a.is_power_of_two() && a <= 16 => {
                    self.error(
                        format!(
                            "struct alignment {a} is less than its members' alignment {natural}"
                        ),
                        span,
                    );
                    return;
                }
                _ => {
                    self.error("struct alignment must be 1, 2, 4, 8 or 16", span);
                    return;
                }
            },
        };
        let t = self.intern(TypeData::Struct { align, members: ms }, name.1);
        self.declare_type_name(name, t);
    }

    /// `type T = opaque "desc";`.
    pub fn decl_opaque(&mut self, name: Sp<'s>, desc: Sp<'s>) {
        self.stmt = Stmt::None;
        let Some(s) = self.unescape(desc) else { return };
        if s.is_empty() {
            self.error("opaque type description must not be empty", desc.1);
            return;
        }
        let t = self.intern(TypeData::Custom { name: s }, name.1);
        self.declare_type_name(name, t);
    }

    /// `const %N: T =`.
    pub fn const_head(&mut self, id: (ValRef<'s>, Span), ty: Ty, start: usize) -> ConstHead<'s> {
        self.stmt = Stmt::Const;
        self.require_header(Span::new(start, start + 5));
        ConstHead { id, ty, start }
    }

    /// `… = init;` of a constant.
    pub fn finish_const(
        &mut self,
        md: Option<MetadataList>,
        h: ConstHead<'s>,
        init: Span,
        end: usize,
    ) {
        let key = Ctx::split_ref(h.id.0).0;
        if !self.finish_const_inner(md, h, init, end) {
            self.poisoned.insert(key);
        }
    }

    fn finish_const_inner(
        &mut self,
        md: Option<MetadataList>,
        h: ConstHead<'s>,
        init: Span,
        end: usize,
    ) -> bool {
        self.stmt = Stmt::None;
        self.tick();
        let span = Span::new(h.start, end);
        let (key, deco) = Ctx::split_ref(h.id.0);
        if deco.is_some() {
            self.error(
                format!("{} cannot name a constant", self.text(h.id.1)),
                h.id.1,
            );
            return false;
        }
        let t = match h.ty {
            Ty::T(t) => t,
            Ty::Void => {
                self.error("constants cannot have type void", h.id.1);
                return false;
            }
            Ty::Err => return false,
        };
        if !self.is_data_type(t) || self.module.types.is_custom(t) {
            self.error(
                "constants must have a data type (not a resource or opaque type)",
                h.id.1,
            );
            return false;
        }
        let Some(bytes) = self.constant_bytes(t, init) else {
            return false;
        };
        let slot = self.syms.get(key);
        if slot != Slot::Empty {
            let prev = self.slot_span(slot);
            self.redefinition(h.id.1, prev);
            return false;
        }
        let c = self.module.push_unshared_constant(t, &bytes);
        if let Some(md) = md {
            self.module.constants[c].metadata = md;
        }
        self.map.constants.set(c, span);
        self.syms.set(key, Slot::Const(c));
        true
    }

    /// `undef %N: T;` (xir extension: declares the type of an undefined value).
    pub fn decl_undef(&mut self, md: Option<MetadataList>, id: (ValRef<'s>, Span), ty: Ty) {
        let key = Ctx::split_ref(id.0).0;
        if !self.decl_undef_inner(md, id, ty) {
            self.poisoned.insert(key);
        }
    }

    fn decl_undef_inner(
        &mut self,
        md: Option<MetadataList>,
        id: (ValRef<'s>, Span),
        ty: Ty,
    ) -> bool {
        self.require_header(id.1);
        let (key, deco) = Ctx::split_ref(id.0);
        if deco.is_some_and(|d| d != "undefined") {
            self.error(
                format!("{} cannot name an undefined value", self.text(id.1)),
                id.1,
            );
            return false;
        }
        let t = match ty {
            Ty::T(t) => t,
            Ty::Void => {
                self.error("undefined values cannot have type void", id.1);
                return false;
            }
            Ty::Err => return false,
        };
        let slot = self.syms.get(key);
        if slot != Slot::Empty {
            let prev = self.slot_span(slot);
            self.redefinition(id.1, prev);
            return false;
        }
        let k = self.new_undef(key, id.1, Some(t));
        if let (Some(md), Some(u)) = (md, self.undefs[k as usize].resolved) {
            self.module.undefs[u].metadata = md;
        }
        true
    }

    /// `special %N.<sreg>;` (xir extension: a special register with metadata, or one
    /// that is never used).
    pub fn decl_special(&mut self, md: Option<MetadataList>, id: (ValRef<'s>, Span)) {
        self.require_header(id.1);
        let (key, deco) = Ctx::split_ref(id.0);
        let Some(r) = deco.and_then(crate::value::SpecialRegister::from_name) else {
            self.error(
                format!(
                    "{} is not a special register (expected %N.<register>)",
                    self.text(id.1)
                ),
                id.1,
            );
            return;
        };
        if self.syms.get(key) != Slot::Empty {
            let prev = self.slot_span(self.syms.get(key));
            self.redefinition(id.1, prev);
            return;
        }
        if let Some(prev) = self
            .special_decls
            .iter()
            .find(|(x, _)| *x == r)
            .map(|(_, s)| *s)
        {
            let d = Diagnostic::error(
                format!("special register {} declared twice", r.name()),
                Some(id.1),
            )
            .with_secondary(prev, "previous declaration here");
            self.push(d);
            return;
        }
        self.special_decls.push((r, id.1));
        self.use_value(id);
        if let Some(md) = md
            && let Some(entry) = self
                .module
                .special_registers
                .iter_mut()
                .find(|(x, _)| *x == r)
        {
            entry.1 = md;
        }
    }

    /// A function header: creates (or fills in) the function and makes it current.
    pub fn begin_function(
        &mut self,
        kw: FuncKw,
        id: (ValRef<'s>, Span),
        ret: Option<Ty>,
        block_size: Option<(Option<Dims>, Span)>,
        span: Span,
    ) {
        self.tick();
        self.require_header(span);
        self.stmt = Stmt::Function;
        self.cur_block = None;
        let ret = match ret {
            None | Some(Ty::Void) => None,
            Some(Ty::T(t)) => Some(t),
            Some(Ty::Err) => None,
        };
        let mut kind = match kw {
            FuncKw::Kernel => FunctionKind::kernel(),
            FuncKw::Callable => FunctionKind::Callable,
            FuncKw::External => FunctionKind::External,
            FuncKw::RasterVertex => FunctionKind::RasterVertex,
            FuncKw::RasterFragment => FunctionKind::RasterFragment,
        };
        if let Some((dims, span)) = block_size {
            if let FunctionKind::Kernel { block_size } = &mut kind {
                if let Some(d) = dims {
                    *block_size = d;
                }
            } else {
                self.error("only kernels have a block size", span);
            }
        }
        let (key, deco) = Ctx::split_ref(id.0);
        if deco.is_some() {
            self.error(format!("{} cannot name a function", self.text(id.1)), id.1);
        }
        let slot = self.syms.get(key);
        let leftover = matches!(slot, Slot::Inst(..) | Slot::Block(..) | Slot::Arg(..));
        let f = match slot {
            Slot::Func(f) if deco.is_none() && !self.func_defined[f.index()] => {
                self.module.functions[f] = Function::new(kind, ret);
                f
            }
            s => {
                let fresh = deco.is_none() && (s == Slot::Empty || leftover);
                if deco.is_none() && !fresh {
                    let prev = self.slot_span(s);
                    self.redefinition(id.1, prev);
                }
                let f = self.module.functions.push(Function::new(kind, ret));
                self.func_defined.resize(self.module.functions.len(), false);
                if fresh {
                    self.syms.set(key, Slot::Func(f));
                }
                f
            }
        };
        self.func_defined[f.index()] = true;
        self.module.func_order.push(f);
        self.map.funcs.get_mut(f).header = span;
        // Room for as many instructions and blocks as the previous function had:
        // consecutive functions are often alike, and the slack is dropped at the end.
        let n = self.last_sizes;
        let func = &mut self.module.functions[f];
        func.insts.reserve(n.insts);
        func.blocks.reserve(n.blocks);
        func.block_order.reserve(n.blocks);
        let spans = self.map.funcs.get_mut(f);
        spans.insts.reserve(n.insts);
        spans.blocks.reserve(n.blocks);
        self.func = Some(FuncState {
            id: f,
            pending_insts: Vec::new(),
            pending_blocks: Vec::new(),
            block_defined: Vec::with_capacity(n.blocks),
            switch_fixes: Vec::new(),
            body_set: false,
            placed: std::mem::take(&mut self.placed_spare),
        });
    }

    /// `%N: [&]T;` in a function's argument list.
    pub fn def_arg(
        &mut self,
        md: Option<MetadataList>,
        id: (ValRef<'s>, Span),
        by_ref: bool,
        ty: Ty,
        end: usize,
    ) {
        let key = Ctx::split_ref(id.0).0;
        if !self.def_arg_inner(md, id, by_ref, ty, end) {
            self.poisoned.insert(key);
        }
    }

    fn def_arg_inner(
        &mut self,
        md: Option<MetadataList>,
        id: (ValRef<'s>, Span),
        by_ref: bool,
        ty: Ty,
        end: usize,
    ) -> bool {
        self.tick();
        self.stmt = Stmt::None;
        let Some(fid) = self.func.as_ref().map(|f| f.id) else {
            return false;
        };
        let t = match ty {
            Ty::T(t) => t,
            Ty::Void => {
                self.error("arguments cannot have type void", id.1);
                return false;
            }
            Ty::Err => return false,
        };
        let kind = if by_ref {
            ArgKind::Reference
        } else if self.module.types.is_resource(t) {
            ArgKind::Resource
        } else {
            ArgKind::Value
        };
        let (key, deco) = Ctx::split_ref(id.0);
        if deco.is_some() {
            self.error(format!("{} cannot name an argument", self.text(id.1)), id.1);
            return false;
        }
        let slot = self.syms.get(key);
        let foreign =
            matches!(slot, Slot::Inst(f, _) | Slot::Block(f, _) | Slot::Arg(f, _) if f != fid);
        if slot != Slot::Empty && !foreign {
            let prev = self.slot_span(slot);
            self.redefinition(id.1, prev);
            return false;
        }
        let func = &mut self.module.functions[fid];
        let a = func.add_arg(kind, t);
        if let Some(md) = md {
            func.args[a].metadata = md;
        }
        self.map
            .funcs
            .get_mut(fid)
            .args
            .set(a, Span::new(id.1.start as usize, end));
        self.syms.set(key, Slot::Arg(fid, a));
        true
    }

    /// The `;` after a function: attaches metadata and closes the function.
    pub fn finish_function(&mut self, md: Option<MetadataList>, has_body: bool, end: Span) {
        self.stmt = Stmt::None;
        let Some(fid) = self.func.as_ref().map(|f| f.id) else {
            return;
        };
        if let Some(md) = md {
            self.module.functions[fid].metadata = md;
        }
        let kind = self.module.functions[fid].kind;
        if has_body && !kind.has_definition() {
            let span = self.map.func(fid).unwrap_or(end);
            self.error("external functions cannot have a body", span);
        }
        self.end_function();
    }
}

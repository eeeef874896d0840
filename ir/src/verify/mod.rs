//! The XIR verifier: checks that a module is well formed exactly as upstream
//! LuisaCompute's `xir_verify_module` does, plus the construction invariants upstream's
//! in-memory model enforces by construction (result-type shapes, handle validity).
//!
//! Entry points are [`verify_module`] and [`verify_function`]. Every problem becomes one
//! [`Diagnostic`] (nothing stops at the first error) whose span comes from the optional
//! [`SourceMap`] and whose message names the function, block and instruction the way the
//! text does (see [`names`]): `function %k, block %entry, %x (arithmetic binary_add): …`.
//! [`verify_module_with_source`] names things by the labels of the parsed source text.
//!
//! The checks are split by concern:
//! * [`globals`]: types, constants, undefined values, special registers, function list;
//! * [`structure`]: function headers, block/instruction placement, terminators, phi
//!   position, structured ownership (merge/body/update blocks), branch targets, switches;
//! * [`types`], [`arith`], [`resource`]: operand and result typing per instruction and op;
//! * [`ssa`]: CFG, reachability, dominance of definitions over uses, phi edges;
//! * [`optional`]: the [`VerifyOptions`] contracts.
//!
//! Nothing here panics on malformed input (out-of-range handles, missing blocks, cyclic
//! types) and every traversal is iterative.

mod arith;
mod globals;
mod graph;
mod names;
mod optional;
pub mod options;
mod resource;
mod ssa;
mod structure;
pub(crate) mod types;
mod tyutil;

use graph::Graph;
use names::Names;
pub use options::VerifyOptions;

use crate::diag::{Diagnostic, Span};
use crate::entity::{EntityRef, SecondaryMap};
use crate::function::{ArgKind, Function};
use crate::inst::{InstData, InstId, InstKind, InstTag};
use crate::module::Module;
use crate::source_map::SourceMap;
use crate::text::numbering::Key;
use crate::types::{Type, TypeData};
use crate::value::{ArgId, BlockId, FuncId, Value};
use tyutil::Tys;

/// Verifies every function of `m` (and the module-level values) under `opts`. Messages
/// name entities by the ids the default printer shows.
pub fn verify_module(m: &Module, opts: &VerifyOptions, sm: Option<&SourceMap>) -> Vec<Diagnostic> {
    verify_named(m, opts, sm, &Names::new(m, sm, None))
}

/// [`verify_module`] for a module parsed from `source` (with its source map): messages
/// name entities by the labels written in the text (`%entry`, `%x`).
pub fn verify_module_with_source(
    m: &Module,
    opts: &VerifyOptions,
    sm: &SourceMap,
    source: &str,
) -> Vec<Diagnostic> {
    verify_named(m, opts, Some(sm), &Names::new(m, Some(sm), Some(source)))
}

fn verify_named(
    m: &Module,
    opts: &VerifyOptions,
    sm: Option<&SourceMap>,
    names: &Names<'_>,
) -> Vec<Diagnostic> {
    let tys = Tys::new(&m.types);
    let listed = listed_functions(m);
    let mut out = Vec::new();
    globals::check_module(m, &tys, opts, sm, names, &mut out);
    let mut done: SecondaryMap<FuncId, bool> = SecondaryMap::with_default(false);
    // One set of CFG buffers for every function.
    let mut graph = Graph::default();
    for &f in &m.func_order {
        if m.functions.is_valid(f) && !done[f] {
            done[f] = true;
            check_function(m, &tys, &listed, opts, sm, names, f, &mut out, &mut graph);
        }
    }
    out
}

/// Verifies one function of `m` under `opts` (module-level values are not checked).
pub fn verify_function(
    m: &Module,
    f: FuncId,
    opts: &VerifyOptions,
    sm: Option<&SourceMap>,
) -> Vec<Diagnostic> {
    let tys = Tys::new(&m.types);
    let mut out = Vec::new();
    if !m.functions.is_valid(f) {
        out.push(Diagnostic::error(
            "the function to verify is not part of the module",
            None,
        ));
        return out;
    }
    let names = Names::new(m, sm, None);
    let mut graph = Graph::default();
    check_function(
        m,
        &tys,
        &listed_functions(m),
        opts,
        sm,
        &names,
        f,
        &mut out,
        &mut graph,
    );
    out
}

fn listed_functions(m: &Module) -> SecondaryMap<FuncId, bool> {
    let mut listed = SecondaryMap::with_default(false);
    for &f in &m.func_order {
        if m.functions.is_valid(f) {
            listed[f] = true;
        }
    }
    listed
}

#[allow(clippy::too_many_arguments)]
fn check_function(
    m: &Module,
    tys: &Tys<'_>,
    listed: &SecondaryMap<FuncId, bool>,
    opts: &VerifyOptions,
    sm: Option<&SourceMap>,
    names: &Names<'_>,
    fid: FuncId,
    out: &mut Vec<Diagnostic>,
    graph: &mut Graph,
) {
    let mut fx = Fx::new(m, tys, listed, opts, sm, names, fid, out);
    if !structure::check_header(&mut fx) {
        return;
    }
    structure::collect_placement(&mut fx);
    // The CFG needs only placement and operand counts, so the dominance checks run in
    // the same walk as the per-instruction checks; their diagnostics are held back and
    // follow all of those, in block and instruction order.
    graph.build(&fx);
    let f = fx.f;
    let order = std::mem::take(&mut fx.order);
    for &b in &order {
        structure::check_block_layout(&mut fx, b);
        for &i in &f.blocks[b].insts {
            if fx.place(i).map(|p| p.0) != Some(b) {
                continue; // invalid or duplicated; already reported
            }
            let handles_ok = structure::check_operand_handles(&mut fx, b, i);
            let shape_ok = types::check_inst(&mut fx, b, i, handles_ok);
            fx.set_shape_ok(i, shape_ok);
            structure::check_control_flow(&mut fx, b, i, handles_ok);
            optional::check_inst(&mut fx, b, i);
            if handles_ok {
                ssa::check_inst(&mut fx, graph, b, i);
            }
        }
    }
    fx.order = order;
    let later = std::mem::take(&mut fx.later);
    fx.out.extend(later);
    optional::check_graph(&mut fx, graph);
}

/// What the verifier has learnt about one instruction handle of the function.
#[derive(Copy, Clone, Default)]
struct InstFacts {
    /// Its block and position, if placed (once) in an owned block.
    place: Option<(BlockId, u32)>,
    /// For a placed instruction: its tag and result type, so that typing an operand
    /// does not decode the defining instruction's kind again.
    tag: Option<InstTag>,
    ty: Option<Type>,
    /// Whether the operand count matches the kind (CFG edges need it).
    shape_ok: bool,
}

/// Per-function verification state shared by every checker.
pub(crate) struct Fx<'a, 'o> {
    pub m: &'a Module,
    pub tys: &'a Tys<'a>,
    /// Functions in the module's function list.
    pub funcs_listed: &'a SecondaryMap<FuncId, bool>,
    pub opts: &'a VerifyOptions,
    pub sm: Option<&'a SourceMap>,
    /// How messages name entities.
    pub names: &'a Names<'a>,
    pub fid: FuncId,
    pub f: &'a Function,
    out: &'o mut Vec<Diagnostic>,
    /// Per block handle: whether it is owned (a valid handle listed in `block_order`).
    owned: Vec<bool>,
    /// Per block handle: whether its instructions are all placed in it, with phis
    /// first and nothing after a terminator (set by `collect_placement`).
    layout_clean: Vec<bool>,
    /// Per instruction handle: placement and per-instruction results.
    facts: Vec<InstFacts>,
    /// Arguments listed in the signature.
    pub arg_listed: SecondaryMap<ArgId, bool>,
    /// The owned blocks, each once, in owned-list order.
    pub order: Vec<BlockId>,
    /// Diagnostics held back until the per-instruction checks are done (dominance).
    later: Vec<Diagnostic>,
}

impl<'a, 'o> Fx<'a, 'o> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        m: &'a Module,
        tys: &'a Tys<'a>,
        funcs_listed: &'a SecondaryMap<FuncId, bool>,
        opts: &'a VerifyOptions,
        sm: Option<&'a SourceMap>,
        names: &'a Names<'a>,
        fid: FuncId,
        out: &'o mut Vec<Diagnostic>,
    ) -> Self {
        let f = &m.functions[fid];
        let mut arg_listed = SecondaryMap::with_default(false);
        for &a in &f.arg_order {
            if f.args.is_valid(a) {
                arg_listed[a] = true;
            }
        }
        Fx {
            m,
            tys,
            funcs_listed,
            opts,
            sm,
            names,
            fid,
            f,
            out,
            // Dense, sized up front: every valid handle has a slot.
            owned: vec![false; f.blocks.len()],
            layout_clean: vec![false; f.blocks.len()],
            facts: vec![InstFacts::default(); f.insts.len()],
            arg_listed,
            order: Vec::new(),
            later: Vec::new(),
        }
    }

    // ---- naming and reporting ----

    /// `function %k`.
    pub fn fn_label(&self) -> String {
        match self.names.get(Key::Func(self.fid)) {
            Some(n) => format!("function {n}"),
            None => "function".into(),
        }
    }

    /// The text's name of an instruction of this function (`%x`), or a description.
    pub fn iname(&self, i: InstId) -> String {
        self.names
            .get(Key::Inst(self.fid, i))
            .unwrap_or_else(|| "an unplaced instruction".into())
    }

    /// The text's name of a block of this function (`%entry`), or a description.
    pub fn bname(&self, b: BlockId) -> String {
        self.names
            .get(Key::Block(self.fid, b))
            .unwrap_or_else(|| "an unlisted block".into())
    }

    /// The text's name of any operand value as seen from this function.
    pub fn vname(&self, v: Value) -> String {
        match v {
            Value::Inst(i) => self.iname(i),
            Value::Block(b) => self.bname(b),
            Value::Special(r) => self
                .names
                .get(Key::Special(r))
                .unwrap_or_else(|| format!("the `{}` register", r.name())),
            _ => self
                .names
                .get(Key::of(self.fid, v))
                .unwrap_or_else(|| "an unlisted value".into()),
        }
    }

    /// A short description of an instruction: its keyword and op.
    pub fn inst_desc(&self, i: InstId) -> String {
        let Some(d) = self.f.insts.get(i) else {
            return "invalid".into();
        };
        let kw = d.kind.tag().text_keyword();
        match op_name(&d.kind) {
            Some(op) if kw == "@" => format!("@{op}"),
            Some(op) => format!("{kw} {op}"),
            None => kw.to_string(),
        }
    }

    fn span_fn(&self) -> Option<Span> {
        self.sm.and_then(|s| s.func(self.fid))
    }
    fn span_block(&self, b: BlockId) -> Option<Span> {
        self.sm
            .and_then(|s| s.block(self.fid, b))
            .or_else(|| self.span_fn())
    }
    fn span_inst(&self, b: BlockId, i: InstId) -> Option<Span> {
        self.sm
            .and_then(|s| s.inst(self.fid, i))
            .or_else(|| self.span_block(b))
    }

    /// Reports a function-level problem.
    pub fn err_fn(&mut self, msg: impl std::fmt::Display) {
        let d = Diagnostic::error(format!("{}: {msg}", self.fn_label()), self.span_fn());
        self.out.push(d);
    }

    /// Reports a problem with an argument.
    pub fn err_arg(&mut self, a: ArgId, msg: impl std::fmt::Display) {
        let span = self
            .sm
            .and_then(|s| s.arg(self.fid, a))
            .or_else(|| self.span_fn());
        let name = self
            .names
            .get(Key::Arg(self.fid, a))
            .unwrap_or_else(|| "an unlisted argument".into());
        let d = Diagnostic::error(format!("{}, argument {name}: {msg}", self.fn_label()), span);
        self.out.push(d);
    }

    /// Reports a problem with a block.
    pub fn err_block(&mut self, b: BlockId, msg: impl std::fmt::Display) {
        let d = Diagnostic::error(
            format!("{}, block {}: {msg}", self.fn_label(), self.bname(b)),
            self.span_block(b),
        );
        self.out.push(d);
    }

    /// Reports a problem with an instruction of block `b`.
    pub fn err_inst(&mut self, b: BlockId, i: InstId, msg: impl std::fmt::Display) {
        let d = self.inst_diag(b, i, msg);
        self.out.push(d);
    }

    /// [`Fx::err_inst`], reported after every per-instruction diagnostic of the function.
    pub fn err_inst_later(&mut self, b: BlockId, i: InstId, msg: impl std::fmt::Display) {
        let d = self.inst_diag(b, i, msg);
        self.later.push(d);
    }

    fn inst_diag(&self, b: BlockId, i: InstId, msg: impl std::fmt::Display) -> Diagnostic {
        Diagnostic::error(
            format!(
                "{}, block {}, {} ({}): {msg}",
                self.fn_label(),
                self.bname(b),
                self.iname(i),
                self.inst_desc(i)
            ),
            self.span_inst(b, i),
        )
    }

    // ---- entity queries (all panic-free) ----

    /// Instruction data, if `i` is a valid handle.
    pub fn inst(&self, i: InstId) -> Option<&'a InstData> {
        self.f.insts.get(i)
    }

    /// Placement of a valid, placed instruction.
    #[inline]
    pub fn place(&self, i: InstId) -> Option<(BlockId, u32)> {
        self.facts.get(i.index()).and_then(|x| x.place)
    }

    /// For a valid instruction handle, its placement (`Some(None)`: not placed).
    #[inline]
    pub fn valid_place(&self, i: InstId) -> Option<Option<(BlockId, u32)>> {
        self.facts.get(i.index()).map(|x| x.place)
    }

    /// Records where a valid instruction handle is placed, with its tag and type.
    pub fn set_place(&mut self, i: InstId, b: BlockId, pos: u32, tag: InstTag, ty: Option<Type>) {
        if let Some(x) = self.facts.get_mut(i.index()) {
            x.place = Some((b, pos));
            x.tag = Some(tag);
            x.ty = ty;
        }
    }

    /// The tag of a placed instruction.
    #[inline]
    pub fn placed_tag(&self, i: InstId) -> Option<InstTag> {
        self.facts.get(i.index()).and_then(|x| x.tag)
    }

    /// Whether the operand count of `i` matches its kind (as checked so far).
    pub fn shape_ok(&self, i: InstId) -> bool {
        self.facts.get(i.index()).is_some_and(|x| x.shape_ok)
    }

    /// Records whether the operand count of a valid instruction handle matches its kind.
    pub fn set_shape_ok(&mut self, i: InstId, shape_ok: bool) {
        if let Some(x) = self.facts.get_mut(i.index()) {
            x.shape_ok = shape_ok;
        }
    }

    /// Whether `b` is a valid block in the owned block list.
    #[inline]
    pub fn is_owned(&self, b: BlockId) -> bool {
        self.owned.get(b.index()).copied().unwrap_or(false)
    }

    /// Whether `b`'s instructions are all placed in it in a valid order.
    pub fn layout_clean(&self, b: BlockId) -> bool {
        self.layout_clean.get(b.index()).copied().unwrap_or(false)
    }

    /// Records that a valid block handle's layout is clean.
    pub fn set_layout_clean(&mut self, b: BlockId) {
        if let Some(x) = self.layout_clean.get_mut(b.index()) {
            *x = true;
        }
    }

    /// Marks a valid block handle as owned.
    pub fn set_owned(&mut self, b: BlockId) {
        if let Some(x) = self.owned.get_mut(b.index()) {
            *x = true;
        }
    }

    /// The type of a value (`None` for void, blocks, functions and bad handles).
    pub fn vty(&self, v: Value) -> Option<Type> {
        let t = match v {
            Value::Inst(i) => self.inst(i)?.ty,
            Value::Arg(a) => Some(self.f.args.get(a)?.ty),
            Value::Const(c) => Some(self.m.constants.get(c)?.ty),
            Value::Undef(u) => Some(self.m.undefs.get(u)?.ty),
            Value::Special(r) => self.m.find_special_register_type(r),
            Value::Block(_) | Value::Func(_) => None,
        }?;
        self.tys.valid(t).then_some(t)
    }

    /// The structure of a value's type.
    pub fn vdata(&self, v: Value) -> Option<&'a TypeData> {
        self.tys.data(self.vty(v)?)
    }

    /// Lvalues: allocas, GEPs and reference arguments.
    pub fn is_lvalue(&self, v: Value) -> bool {
        match v {
            Value::Inst(i) => self
                .inst(i)
                .is_some_and(|d| matches!(d.kind, InstKind::Alloca(_) | InstKind::Gep)),
            Value::Arg(a) => self
                .f
                .args
                .get(a)
                .is_some_and(|d| d.kind == ArgKind::Reference),
            _ => false,
        }
    }

    /// Upstream `typed_value_operand_valid`: a typed, non-resource value.
    pub fn typed(&self, v: Value) -> bool {
        self.vty(v).is_some_and(|t| !self.tys.is_resource(t))
    }

    /// Upstream `rvalue_operand_valid`.
    pub fn rvalue(&self, v: Value) -> bool {
        self.rvalue_ty(v).is_some()
    }

    /// Upstream `data_operand_valid`: an rvalue of non-custom type.
    pub fn data(&self, v: Value) -> bool {
        self.data_ty(v).is_some()
    }

    /// The type of `v` if it is a data operand ([`Fx::data`]).
    #[inline]
    pub fn data_ty(&self, v: Value) -> Option<Type> {
        self.rvalue_ty(v).filter(|t| !self.tys.is_custom(*t))
    }

    /// The type of `v` if it is an rvalue ([`Fx::rvalue`]), in one lookup of the value:
    /// the hot path of operand typing.
    #[inline]
    pub fn rvalue_ty(&self, v: Value) -> Option<Type> {
        let t = match v {
            Value::Inst(i) => match self.facts.get(i.index()) {
                Some(&InstFacts {
                    tag: Some(tag), ty, ..
                }) => {
                    if tag.is_lvalue() {
                        return None; // an lvalue
                    }
                    ty?
                }
                _ => {
                    let d = self.inst(i)?;
                    if matches!(d.kind, InstKind::Alloca(_) | InstKind::Gep) {
                        return None; // an lvalue
                    }
                    d.ty?
                }
            },
            Value::Arg(a) => {
                let d = self.f.args.get(a)?;
                if d.kind == ArgKind::Reference {
                    return None; // an lvalue
                }
                d.ty
            }
            _ => self.vty(v)?,
        };
        (self.tys.valid(t) && !self.tys.is_resource(t)).then_some(t)
    }

    /// Upstream `resource_argument_valid`: a resource argument of resource type.
    pub fn resource_arg(&self, v: Value) -> bool {
        match v {
            Value::Arg(a) => self
                .f
                .args
                .get(a)
                .is_some_and(|d| d.kind == ArgKind::Resource && self.tys.is_resource(d.ty)),
            _ => false,
        }
    }

    /// A ray-query object: an lvalue of `LC_RayQueryAll`/`LC_RayQueryAny` type.
    pub fn ray_query_object(&self, v: Value) -> bool {
        self.typed(v) && self.is_lvalue(v) && self.vty(v).is_some_and(|t| self.tys.is_ray_query(t))
    }

    /// The value of a constant of integer scalar type, if it is non-negative.
    pub fn const_nonneg(&self, v: Value) -> Option<u64> {
        let Value::Const(c) = v else { return None };
        let cd = self.m.constants.get(c)?;
        let k = self.tys.scalar(cd.ty)?;
        if !k.is_int() {
            return None;
        }
        let n = k.size() as usize;
        let b = cd.bytes.get(..n)?;
        let mut raw = [0u8; 8];
        raw[..n].copy_from_slice(b);
        let mut u = u64::from_le_bytes(raw);
        if k.is_signed_int() {
            let bits: u32 = if k == crate::types::ScalarKind::I4 {
                4
            } else {
                (n * 8) as u32
            };
            if bits < 64 {
                u &= (1u64 << bits) - 1;
            }
            if (u >> (bits - 1)) & 1 == 1 {
                return None;
            }
        }
        Some(u)
    }

    /// The spelling of a value's type for messages.
    pub fn vty_name(&self, v: Value) -> String {
        match v {
            Value::Block(_) => "a block".into(),
            Value::Func(_) => "a function".into(),
            _ => match self.vty(v) {
                Some(t) => format!("`{}`", self.tys.name(Some(t))),
                None => "an untyped value".into(),
            },
        }
    }

    /// The spelling of a type for messages.
    pub fn tname(&self, t: Option<Type>) -> String {
        format!("`{}`", self.tys.name(t))
    }
}

/// The op spelling of an instruction kind, if it has one.
pub(crate) fn op_name(k: &InstKind) -> Option<&'static str> {
    Some(match k {
        InstKind::Alloca(o) => o.name(),
        InstKind::Atomic(o) => o.name(),
        InstKind::Arithmetic(o) => o.name(),
        InstKind::ThreadGroup(o) => o.name(),
        InstKind::ResourceQuery(o, _) => o.name(),
        InstKind::ResourceRead(o, _) => o.name(),
        InstKind::ResourceWrite(o, _) => o.name(),
        InstKind::RayQueryObjectRead(o) => o.name(),
        InstKind::RayQueryObjectWrite(o) => o.name(),
        InstKind::AutodiffIntrinsic(o) => o.name(),
        InstKind::Cast(o) => o.name(),
        _ => return None,
    })
}

//! The xir2text printer: upstream's nested and flat forms byte for byte, plus the
//! lossless extensions of `docs/text-format.md` (each printed only when needed).
//!
//! Output is assembled like upstream's: a *prelude* (module metadata, `module;`, type
//! declarations appended at first use, constants, and xir's `undef`/`special`
//! declarations) followed by *main* (the functions). Blocks and instructions are printed
//! by a small work-stack machine ([`Work`]) instead of recursion, so nesting depth only
//! costs heap memory. Values are numbered at the moment their text is produced, which
//! reproduces upstream's lazy numbering exactly.

use super::debug_info::UserMap;
use super::escape::{escaped, is_identifier, write_escaped};
use super::numbering::{self, Key, Namer};
use crate::entity::EntityRef;
use crate::function::FunctionKind;
use crate::inst::{InstId, InstKind};
use crate::metadata::Metadata;
use crate::module::Module;
use crate::types::{Type, TypeData};
use crate::value::{BlockId, FuncId, SpecialRegister, UndefId, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt::Write as _;

pub use super::numbering::IdStyle;

/// Printer options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrintOptions {
    /// Flat form: every block a top-level label (`define {`), children as references.
    pub flat: bool,
    /// Debug-info comments: `// users:`, `// preds:` and the `// CFG = {…}` line.
    pub debug_info: bool,
    /// How value ids are spelled.
    pub ids: IdStyle,
}

/// Prints `m` in xir2text syntax.
pub fn print_module(m: &Module, opts: &PrintOptions) -> String {
    let mut p = Printer::new(m, opts);
    if opts.debug_info {
        // Users are listed in text order, which a reader reproduces (the owned block
        // order is not in the text): a first pass without comments finds the order in
        // which this form prints the blocks.
        let plain = PrintOptions {
            debug_info: false,
            ..opts.clone()
        };
        let mut first = Printer::new(m, &plain);
        first.module();
        p.users = UserMap::build(m, &first.block_text_order);
    }
    p.module();
    // The prelude goes in front of main in place: no second copy of the (large) text.
    let mut out = std::mem::take(&mut p.main);
    out.insert_str(0, &p.prelude);
    out
}

/// The ids printing `m` under `opts` shows (for diagnostics that name entities the way
/// the printed text does); prints into a scratch buffer.
pub(crate) fn printed_ids(m: &Module, opts: &PrintOptions) -> Namer {
    let mut p = Printer::new(m, opts);
    p.module();
    p.namer
}

/// One step of the block/instruction machine.
pub(crate) enum Work {
    /// Literal text.
    Text(&'static str),
    /// Computed text.
    Str(String),
    /// An operand (with the instruction and operand index, for undefined-value typing).
    Val(Value, Option<(InstId, u32)>),
    /// A structured child block: inline at this depth in nested form if not printed yet,
    /// otherwise (and always in flat form) a reference; `None` prints `null`.
    Slot(Option<Value>, usize),
    /// A block reference (`null` for `None`).
    Ref(Option<Value>),
    /// An instruction at a depth.
    Inst(InstId, usize),
    /// Indentation and `}` closing a nested block.
    Close(usize),
    /// Debug info: `// users: …` of a value.
    Users(Value),
    /// A top-level block, printed if not printed yet.
    TopBlock(BlockId),
    /// The extra blocks upstream's traversal misses (docs §4.5).
    Extras,
}

/// Printer state.
pub(crate) struct Printer<'m> {
    pub(crate) m: &'m Module,
    pub(crate) opts: PrintOptions,
    pub(crate) prelude: String,
    pub(crate) main: String,
    pub(crate) namer: Namer,
    type_names: FxHashMap<Type, u32>,
    /// The spelling of each type printed so far, by type index (fixed once a type has
    /// been spelled: struct and opaque names are assigned at first use).
    type_text: Vec<Option<Box<str>>>,
    spaces: String,
    pub(crate) users: UserMap,
    /// The function being printed.
    pub(crate) cur: FuncId,
    emitted: BlockSet,
    /// Every block printed so far, in text order.
    block_text_order: Vec<(FuncId, BlockId)>,
    referenced: Vec<BlockId>,
    owned_cursor: usize,
    ref_cursor: usize,
    stack: Vec<Work>,
    /// Scratch list for one instruction's body (reused).
    body: Vec<Work>,
}

/// The blocks of the current function printed so far: a bit per arena slot, a hash set
/// for out-of-range handles (invalid modules).
#[derive(Default)]
struct BlockSet {
    dense: Vec<bool>,
    extra: FxHashSet<BlockId>,
}

impl BlockSet {
    fn reset(&mut self, n: usize) {
        self.dense.clear();
        self.dense.resize(n, false);
        self.extra.clear();
    }
    #[inline]
    fn contains(&self, b: &BlockId) -> bool {
        match self.dense.get(b.index()) {
            Some(x) => *x,
            None => self.extra.contains(b),
        }
    }
    #[inline]
    fn insert(&mut self, b: BlockId) {
        match self.dense.get_mut(b.index()) {
            Some(x) => *x = true,
            None => {
                self.extra.insert(b);
            }
        }
    }
}

impl<'m> Printer<'m> {
    fn new(m: &'m Module, opts: &PrintOptions) -> Self {
        Self {
            m,
            opts: opts.clone(),
            prelude: String::new(),
            main: String::new(),
            namer: Namer::new(opts.ids),
            type_names: FxHashMap::default(),
            type_text: Vec::new(),
            spaces: String::new(),
            users: UserMap::default(),
            cur: FuncId::new(0),
            emitted: BlockSet::default(),
            block_text_order: Vec::new(),
            referenced: Vec::new(),
            owned_cursor: 0,
            ref_cursor: 0,
            stack: Vec::new(),
            body: Vec::new(),
        }
    }

    fn module(&mut self) {
        let m = self.m;
        // Room for the whole text up front (about 65-70 bytes per instruction in
        // practice): growing by doubling would copy it over and over. Pages never
        // written are never touched, so a generous guess costs no memory.
        // (Arena sizes, not `inst_count`: a malformed module may list bad functions.)
        let insts: usize = m.functions.values().map(|f| f.insts.len()).sum();
        self.main
            .reserve(insts.saturating_mul(80).saturating_add(4096));
        self.namer.pre_pass(m);
        if !m.metadata.is_empty() {
            write_mdlist(&mut self.prelude, &m.metadata);
            self.prelude.push('\n');
        }
        self.prelude.push_str("module;\n\n");
        for c in m.live_constants() {
            self.constant(c);
        }
        for &f in &m.func_order {
            self.function(f);
        }
        // Undefined values and special registers that never appeared (docs §4.3, §4.4).
        for u in m.live_undefs() {
            if !self.namer.is_seen(Key::Undef(u)) {
                self.namer.uid(Key::Undef(u));
                self.declare_undef(u);
            }
        }
        for (r, _) in &m.special_registers {
            if !self.namer.is_seen(Key::Special(*r)) {
                self.namer.uid(Key::Special(*r));
                self.declare_special(*r);
            }
        }
    }

    fn constant(&mut self, c: crate::value::ConstId) {
        let Some(data) = self.m.constants.get(c) else {
            return;
        };
        let t = self.type_ident(Some(data.ty));
        let mut v = String::new();
        self.namer.write(&mut v, Key::Const(c));
        if !data.metadata.is_empty() {
            write_mdlist(&mut self.prelude, &data.metadata);
            self.prelude.push('\n');
        }
        let p = &mut self.prelude;
        let _ = write!(p, "const {v}: {t} = ");
        for b in data.bytes.iter() {
            let _ = write!(p, "{b:02x}");
        }
        p.push(';');
        self.users_comment(true, Key::Const(c));
        self.prelude.push_str("\n\n");
    }

    fn function(&mut self, fid: FuncId) {
        let m = self.m;
        let Some(f) = m.functions.get(fid) else {
            return;
        };
        self.cur = fid;
        self.emitted.reset(f.blocks.len());
        self.referenced.clear();
        self.owned_cursor = 0;
        self.ref_cursor = 0;
        if !f.metadata.is_empty() {
            write_mdlist(&mut self.main, &f.metadata);
            self.main.push('\n');
        }
        self.main.push_str(f.kind.keyword());
        self.main.push(' ');
        self.namer.write(&mut self.main, Key::Func(fid));
        match f.kind {
            FunctionKind::Kernel { block_size } => {
                if block_size != FunctionKind::DEFAULT_BLOCK_SIZE {
                    let [x, y, z] = block_size;
                    let _ = write!(self.main, " block_size({x}, {y}, {z})");
                }
            }
            _ => {
                self.main.push_str(": ");
                self.push_type(f.ret);
            }
        }
        self.main.push_str(" (");
        if !f.arg_order.is_empty() {
            self.main.push('\n');
        }
        for &a in &f.arg_order {
            let Some(arg) = f.args.get(a) else {
                continue;
            };
            if !arg.metadata.is_empty() {
                self.indent(1);
                write_mdlist(&mut self.main, &arg.metadata);
                self.main.push('\n');
            }
            self.indent(1);
            self.namer.write(&mut self.main, Key::Arg(fid, a));
            self.main.push_str(": ");
            if arg.kind == crate::function::ArgKind::Reference {
                self.main.push('&');
            }
            self.push_type(Some(arg.ty));
            self.main.push(';');
            self.users_comment(false, Key::Arg(fid, a));
            self.main.push('\n');
        }
        self.main.push(')');
        let body = f.body.filter(|_| f.kind.has_definition());
        if let Some(body) = body {
            let order = numbering::pre_order(f);
            self.stack.clear();
            if self.opts.flat {
                self.main.push_str(" = define {\n");
                self.stack.push(Work::Text("}"));
                self.stack.push(Work::Extras);
                self.stack
                    .extend(order.iter().rev().map(|b| Work::TopBlock(*b)));
            } else {
                self.main.push_str(" = define ");
                self.stack.push(Work::Extras);
                self.stack
                    .extend(order.iter().rev().map(|b| Work::TopBlock(*b)));
                self.stack.push(Work::Slot(Some(Value::Block(body)), 0));
            }
            self.run();
        }
        self.main.push(';');
        self.users_comment(false, Key::Func(fid));
        self.main.push_str("\n\n");
        if self.opts.debug_info && body.is_some() {
            self.cfg_comment(fid);
        }
    }

    /// Runs the work stack until it is empty.
    fn run(&mut self) {
        while let Some(w) = self.stack.pop() {
            match w {
                Work::Text(s) => self.main.push_str(s),
                Work::Str(s) => self.main.push_str(&s),
                Work::Val(v, ctx) => self.value(v, ctx),
                Work::Ref(None) | Work::Slot(None, _) => self.main.push_str("null"),
                Work::Ref(Some(v)) => self.value(v, None),
                Work::Slot(Some(Value::Block(b)), depth)
                    if !self.opts.flat && !self.emitted.contains(&b) =>
                {
                    self.open_nested_block(b, depth)
                }
                Work::Slot(Some(v), _) => self.value(v, None),
                Work::Inst(i, depth) => self.inst(i, depth),
                Work::Close(depth) => {
                    self.indent(depth);
                    self.main.push('}');
                }
                Work::Users(v) => self.users_comment(false, Key::of(self.cur, v)),
                Work::TopBlock(b) => self.top_block(b),
                Work::Extras => self.extras(),
            }
        }
    }

    fn top_block(&mut self, b: BlockId) {
        if self.emitted.contains(&b) {
            return;
        }
        if self.opts.flat {
            self.open_flat_block(b);
        } else {
            self.main.push('\n');
            self.open_nested_block(b, 0);
        }
    }

    /// Schedules the next block that is owned or referenced but not printed yet.
    fn extras(&mut self) {
        let f = &self.m.functions[self.cur];
        let valid = |b: &BlockId| f.blocks.is_valid(*b);
        while let Some(&b) = f.block_order.get(self.owned_cursor) {
            self.owned_cursor += 1;
            if valid(&b) && !self.emitted.contains(&b) {
                self.stack.push(Work::Extras);
                self.stack.push(Work::TopBlock(b));
                return;
            }
        }
        while let Some(&b) = self.referenced.get(self.ref_cursor) {
            self.ref_cursor += 1;
            if valid(&b) && !self.emitted.contains(&b) {
                self.stack.push(Work::Extras);
                self.stack.push(Work::TopBlock(b));
                return;
            }
        }
    }

    fn open_nested_block(&mut self, b: BlockId, depth: usize) {
        self.emitted.insert(b);
        self.block_text_order.push((self.cur, b));
        let f = &self.m.functions[self.cur];
        let Some(data) = f.blocks.get(b) else {
            self.value(Value::Block(b), None);
            return;
        };
        if !data.metadata.is_empty() {
            write_mdlist(&mut self.main, &data.metadata);
            self.main.push(' ');
        }
        self.namer.write(&mut self.main, Key::Block(self.cur, b));
        self.main.push_str(": {");
        self.block_comment(b);
        self.main.push('\n');
        self.stack.push(Work::Close(depth));
        self.stack
            .extend(data.insts.iter().rev().map(|i| Work::Inst(*i, depth + 1)));
    }

    fn open_flat_block(&mut self, b: BlockId) {
        self.emitted.insert(b);
        self.block_text_order.push((self.cur, b));
        let f = &self.m.functions[self.cur];
        let Some(data) = f.blocks.get(b) else {
            return;
        };
        if !data.metadata.is_empty() {
            write_mdlist(&mut self.main, &data.metadata);
            self.main.push('\n');
        }
        self.namer.write(&mut self.main, Key::Block(self.cur, b));
        self.main.push(':');
        self.block_comment(b);
        self.main.push('\n');
        self.stack
            .extend(data.insts.iter().rev().map(|i| Work::Inst(*i, 1)));
    }

    fn inst(&mut self, i: InstId, depth: usize) {
        let f = &self.m.functions[self.cur];
        let Some(d) = f.insts.get(i) else {
            return;
        };
        if !d.metadata.is_empty() {
            self.indent(depth);
            write_mdlist(&mut self.main, &d.metadata);
            self.main.push('\n');
        }
        self.indent(depth);
        self.namer.write(&mut self.main, Key::Inst(self.cur, i));
        self.main.push_str(": ");
        self.push_type(d.ty);
        self.main.push_str(" = ");
        let mut body = std::mem::take(&mut self.body);
        body.clear();
        super::print_inst::inst_body(self.m, self.cur, i, d, depth, &mut body);
        body.push(Work::Text(";"));
        if self.opts.debug_info {
            body.push(Work::Users(Value::Inst(i)));
        }
        body.push(Work::Text("\n"));
        self.stack.extend(body.drain(..).rev());
        self.body = body;
    }

    /// Prints a value reference; declares undefined values and special registers at
    /// their first print when the text alone would lose a fact (docs §4.3, §4.4).
    fn value(&mut self, v: Value, ctx: Option<(InstId, u32)>) {
        let fresh = self.namer.write(&mut self.main, Key::of(self.cur, v));
        match v {
            Value::Block(b) => self.referenced.push(b),
            Value::Undef(u) if fresh && self.undef_needs_decl(u, ctx) => self.declare_undef(u),
            Value::Special(r)
                if fresh && self.special_metadata(r).is_some_and(|md| !md.is_empty()) =>
            {
                self.declare_special(r)
            }
            _ => {}
        }
    }

    fn undef_needs_decl(&self, u: UndefId, ctx: Option<(InstId, u32)>) -> bool {
        let Some(data) = self.m.undefs.get(u) else {
            return false;
        };
        if !data.metadata.is_empty() {
            return true;
        }
        let default = ctx.and_then(|(i, k)| {
            let d = self.m.functions[self.cur].insts.get(i)?;
            if !super::print_inst::operands_valid(self.m, self.cur, d) {
                return None;
            }
            if matches!(d.kind, InstKind::Store) {
                // The rule reads the other operand's type: unknown to a reader if that is
                // an undefined value it has not met before.
                let other = *d.operands.get(match k {
                    0 => 1,
                    1 => 0,
                    _ => return None,
                })?;
                if let Value::Undef(o) = other
                    && (o == u || !self.namer.is_seen(Key::Undef(o)))
                {
                    return None;
                }
            }
            super::infer::infer_operand_type(self.m, self.cur, d, k as usize)
        });
        default != Some(data.ty)
    }

    fn declare_undef(&mut self, u: UndefId) {
        let Some(data) = self.m.undefs.get(u) else {
            return;
        };
        let t = self.type_ident(Some(data.ty));
        if !data.metadata.is_empty() {
            write_mdlist(&mut self.prelude, &data.metadata);
            self.prelude.push('\n');
        }
        self.prelude.push_str("undef ");
        self.namer.write(&mut self.prelude, Key::Undef(u));
        let _ = write!(self.prelude, ": {t};\n\n");
    }

    fn special_metadata(&self, r: SpecialRegister) -> Option<&'m [Metadata]> {
        let m: &'m Module = self.m;
        m.special_registers
            .iter()
            .find(|(x, _)| *x == r)
            .map(|(_, md)| &md[..])
    }

    fn declare_special(&mut self, r: SpecialRegister) {
        if let Some(md) = self.special_metadata(r).filter(|md| !md.is_empty()) {
            write_mdlist(&mut self.prelude, md);
            self.prelude.push('\n');
        }
        self.prelude.push_str("special ");
        self.namer.write(&mut self.prelude, Key::Special(r));
        self.prelude.push_str(";\n\n");
    }

    /// Appends 4 × `depth` spaces to main.
    pub(crate) fn indent(&mut self, depth: usize) {
        let n = depth * 4;
        if self.spaces.len() < n {
            let more = n.max(self.spaces.len() * 2) - self.spaces.len();
            self.spaces.extend(std::iter::repeat_n(' ', more));
        }
        self.main.push_str(&self.spaces[..n]);
    }

    /// Appends the spelling of `t` to main (see [`Self::type_ident`]), from the cache of
    /// spellings after the first time.
    pub(crate) fn push_type(&mut self, t: Option<Type>) {
        let Some(ty) = t else {
            self.main.push_str("void");
            return;
        };
        let i = ty.index();
        if let Some(Some(text)) = self.type_text.get(i) {
            self.main.push_str(text);
            return;
        }
        let text = self.type_ident(t);
        self.main.push_str(&text);
        if i < self.m.types.len() {
            if self.type_text.len() <= i {
                self.type_text.resize(i + 1, None);
            }
            self.type_text[i] = Some(text.into_boxed_str());
        }
    }

    /// The spelling of a type (`void` for `None`), declaring struct and opaque types in
    /// the prelude at first use (members first). Iterative: types may nest deeply.
    pub(crate) fn type_ident(&mut self, t: Option<Type>) -> String {
        enum Task {
            Ty(Type),
            Text(&'static str),
            Num(u64),
            EndStruct(Type),
        }
        fn push_generic(tasks: &mut Vec<Task>, head: &'static str, elem: Type, n: Option<u64>) {
            tasks.push(Task::Text(">"));
            if let Some(n) = n {
                tasks.push(Task::Num(n));
                tasks.push(Task::Text(", "));
            }
            tasks.push(Task::Ty(elem));
            tasks.push(Task::Text(head));
        }
        let Some(t) = t else {
            return "void".to_string();
        };
        let m: &'m Module = self.m;
        let types = &m.types;
        let mut bufs: Vec<String> = vec![String::new()];
        let mut tasks = vec![Task::Ty(t)];
        while let Some(task) = tasks.pop() {
            let Some(out) = bufs.last_mut() else {
                break;
            };
            match task {
                Task::Text(s) => out.push_str(s),
                Task::Num(n) => {
                    let _ = write!(out, "{n}");
                }
                Task::Ty(t) if t.index() >= types.len() => out.push_str("<invalid type>"),
                Task::Ty(t) => match types.get(t) {
                    TypeData::Scalar(k) => out.push_str(k.text_name()),
                    TypeData::Vector { elem, len } => {
                        push_generic(&mut tasks, "vector<", *elem, Some(*len as u64))
                    }
                    TypeData::Matrix { elem, n } => {
                        push_generic(&mut tasks, "matrix<", *elem, Some(*n as u64))
                    }
                    TypeData::Array { elem, len } => {
                        push_generic(&mut tasks, "array<", *elem, Some(*len))
                    }
                    TypeData::Buffer { elem: Some(e) } => {
                        push_generic(&mut tasks, "buffer<", *e, None)
                    }
                    TypeData::Buffer { elem: None } => out.push_str("buffer<void>"),
                    TypeData::Texture { dim, elem } => {
                        let kw = match dim {
                            crate::types::TextureDim::D2 => "texture2d<",
                            crate::types::TextureDim::D3 => "texture3d<",
                        };
                        push_generic(&mut tasks, kw, *elem, None)
                    }
                    TypeData::BindlessArray => out.push_str("bindless_array"),
                    TypeData::Accel => out.push_str("accel"),
                    TypeData::CoopVector { elem, len } => {
                        let e = match types.get(*elem) {
                            TypeData::Scalar(k) => k.ast_name().unwrap_or(k.text_name()),
                            _ => "?",
                        };
                        let _ = write!(out, "coopvec<{e},{len}>");
                    }
                    TypeData::CoopVectorRef { len, elem } => {
                        let _ = write!(out, "coopvec_ref<{len}, ");
                        tasks.push(Task::Text(">"));
                        tasks.push(Task::Ty(*elem));
                    }
                    TypeData::CoopMatrixRef { rows, cols, elem } => {
                        let _ = write!(out, "coopmat_ref<{rows}, {cols}, ");
                        tasks.push(Task::Text(">"));
                        tasks.push(Task::Ty(*elem));
                    }
                    TypeData::Custom { name } => {
                        let k = match self.type_names.get(&t) {
                            Some(k) => *k,
                            None => {
                                let k = self.new_type_name(t);
                                let _ = write!(
                                    self.prelude,
                                    "type T{k} = opaque {};\n\n",
                                    escaped(name)
                                );
                                k
                            }
                        };
                        let _ = write!(out, "T{k}");
                    }
                    TypeData::Struct { members, .. } => {
                        if let Some(k) = self.type_names.get(&t) {
                            let _ = write!(out, "T{k}");
                        } else {
                            bufs.push(String::new());
                            tasks.push(Task::EndStruct(t));
                            for (j, m) in members.iter().enumerate().rev() {
                                tasks.push(Task::Ty(*m));
                                if j > 0 {
                                    tasks.push(Task::Text(", "));
                                }
                            }
                        }
                    }
                },
                Task::EndStruct(t) => {
                    let desc = bufs.pop().unwrap_or_default();
                    let k = match self.type_names.get(&t) {
                        Some(k) => *k,
                        None => {
                            let k = self.new_type_name(t);
                            let p = &mut self.prelude;
                            let _ = write!(p, "type T{k} = struct ");
                            if let TypeData::Struct { align, members } = types.get(t)
                                && members.iter().all(|m| m.index() < types.len())
                                && *align != types.natural_struct_align(members)
                            {
                                let _ = write!(p, "align({align}) ");
                            }
                            let _ = write!(p, "{{ {desc} }};\n\n");
                            k
                        }
                    };
                    if let Some(out) = bufs.last_mut() {
                        let _ = write!(out, "T{k}");
                    }
                }
            }
        }
        bufs.pop().unwrap_or_default()
    }

    fn new_type_name(&mut self, t: Type) -> u32 {
        let k = match self.opts.ids {
            IdStyle::Upstream => self.type_names.len() as u32,
            IdStyle::Stable => t.index() as u32,
        };
        self.type_names.insert(t, k);
        k
    }
}

/// Appends `[item, item]` for a metadata list.
pub(crate) fn write_mdlist(out: &mut String, list: &[Metadata]) {
    out.push('[');
    for (k, md) in list.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        write_metadata(out, md);
    }
    out.push(']');
}

fn write_metadata(out: &mut String, md: &Metadata) {
    match md {
        Metadata::Name(n) => {
            out.push_str("name = ");
            if is_identifier(n) {
                out.push_str(n);
            } else {
                write_escaped(out, n);
            }
        }
        Metadata::Location { file, line } => {
            out.push_str("location = (");
            write_escaped(out, file);
            let _ = write!(out, ", {line})");
        }
        Metadata::Comment(c) => {
            out.push_str("comment = ");
            write_escaped(out, c);
        }
        Metadata::CurveBasis(set) => {
            out.push_str("curve_basis = {");
            for (k, b) in set.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                out.push_str(b.name());
            }
            out.push('}');
        }
        Metadata::SignatureConstraint => out.push_str("signature_constraint"),
        Metadata::Reg2MemSpill(k) => {
            let _ = write!(out, "reg2mem_spill = {}", k.name());
        }
        Metadata::NoInline => out.push_str("no_inline"),
        Metadata::ContiguousCopy {
            element_count,
            vector_width,
        } => {
            let _ = write!(out, "contiguous_copy = ({element_count}, {vector_width})");
        }
        Metadata::StridedMma(s) => {
            let [m, n, k] = s.extents;
            let [a, b, c] = s.strides;
            let _ = write!(
                out,
                "strided_mma = {{extents = ({m}, {n}, {k}), strides = ({a}, {b}, {c}), \
                 vector_width = {}, reassociation = {}, vectorization_mode = {}}}",
                s.vector_width, s.reassociation, s.vectorization_mode
            );
        }
    }
}

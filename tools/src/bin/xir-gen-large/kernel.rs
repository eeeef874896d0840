//! `xir-gen-large --vulkan-kernel N OUT.xir [OUT.comp]` — one compute kernel of about `N`
//! XIR instructions meant for Vulkan (`spirv-final` with `optimize=false` accepts it and
//! the backend compiles it), and the same kernel in GLSL for `glslangValidator -V`, so
//! that the backend and glslang compile the same program.
//!
//! Pinned like the module generator: the output depends only on `N` (bump
//! [`KERNEL_GENERATOR_VERSION`] when it changes). The program is in the spirit of
//! `../shared/bench/glsl-big.py`: mostly straight-line f32/u32 arithmetic (binary ops,
//! min/max, unary ops, fma, compare + select, u32→f32 casts), reads of two input buffers
//! at masked indices, writes of the thread's own element of the output buffer (no two
//! threads touch one element it writes), and now and then an `if`/`else` that assigns a local and a counted
//! loop that accumulates into one. A new value's first operand is the previous value of
//! its type and further operands are preferably values not used yet, so almost nothing
//! is dead (a dead-code-heavy input would flatter `spirv-opt`'s size). Constructs are sequential, one about every 250 instructions: in
//! XIR each one nests the rest of the function in its merge block, so the 1M kernel is
//! about 3,500 deep, well inside the reader's `MAX_NESTING_DEPTH`.
//!
//! The GLSL twin names XIR value `%N` `xN` and spells each XIR instruction as one GLSL
//! statement (`select(f, t, c)` as `c ? t : f`, `alloca`/`load`/`store` as a local
//! variable), with the kernel's default block size 64.

use crate::Rng;
use std::fmt::Write as _;

/// Bump when the generated text (either form) changes.
pub const KERNEL_GENERATOR_VERSION: u32 = 1;

/// The generated kernel in both forms.
pub struct Kernel {
    /// XIR text (nested form).
    pub xir: String,
    /// GLSL 4.50 compute shader text.
    pub glsl: String,
}

#[derive(Copy, Clone, PartialEq)]
enum Ty {
    F32 = 0,
    U32 = 1,
}

struct Gen {
    rng: Rng,
    xir: String,
    glsl: String,
    next_id: u32,
    insts: usize,
    /// XIR nesting depth (indentation stops growing at 4 levels, to keep the deep 1M
    /// kernel near 60 bytes per instruction; the reader ignores indentation).
    depth: usize,
    /// GLSL brace depth.
    gdepth: usize,
    fvals: Vec<u32>,
    uvals: Vec<u32>,
    /// Visible values not used yet, per type (f32, u32): operands are taken from here
    /// first, so that almost every value is live.
    unused: [Vec<u32>; 2],
    /// Constants: XIR id and GLSL literal.
    consts: Vec<(u32, String)>,
    c_u32: Vec<u32>,
    c_f32: Vec<u32>,
    c_mask: u32,
    /// Input `buffer<f32>`, input `buffer<u32>`, output `buffer<f32>`.
    bufs: [u32; 3],
    cur_block: u32,
}

const F_BIN: [(&str, &str); 5] = [
    ("binary_add", "+"),
    ("binary_sub", "-"),
    ("binary_mul", "*"),
    ("min", "min"),
    ("max", "max"),
];
const U_BIN: [(&str, &str); 4] = [
    ("binary_add", "+"),
    ("binary_mul", "*"),
    ("binary_bit_and", "&"),
    ("binary_bit_xor", "^"),
];
const F_UN: [(&str, &str); 4] = [
    ("sqrt", "sqrt"),
    ("abs", "abs"),
    ("sin", "sin"),
    ("floor", "floor"),
];

impl Gen {
    fn id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id - 1
    }

    /// The GLSL spelling of XIR value `id`.
    fn g(&self, id: u32) -> String {
        match self.consts.iter().find(|c| c.0 == id) {
            Some(c) => c.1.clone(),
            None => format!("x{id}"),
        }
    }

    fn xline(&mut self, args: std::fmt::Arguments) {
        for _ in 0..self.depth.min(4) {
            self.xir.push_str("    ");
        }
        let _ = writeln!(self.xir, "{args}");
    }

    fn gline(&mut self, args: std::fmt::Arguments) {
        for _ in 0..self.gdepth.min(4) {
            self.glsl.push_str("  ");
        }
        let _ = writeln!(self.glsl, "{args}");
    }

    /// One XIR instruction `%id: ty = body;`.
    fn inst(&mut self, id: u32, ty: &str, body: std::fmt::Arguments) {
        self.xline(format_args!("%{id}: {ty} = {body};"));
        self.insts += 1;
    }

    /// Defines a value in both forms and makes it visible.
    fn def(&mut self, t: Ty, xir: std::fmt::Arguments, glsl: std::fmt::Arguments) -> u32 {
        let id = self.id();
        let (xt, gt) = match t {
            Ty::F32 => ("f32", "float"),
            Ty::U32 => ("u32", "uint"),
        };
        self.inst(id, xt, xir);
        self.gline(format_args!("{gt} x{id} = {glsl};"));
        match t {
            Ty::F32 => self.fvals.push(id),
            Ty::U32 => self.uvals.push(id),
        }
        self.unused[t as usize].push(id);
        id
    }

    /// Marks `id` used.
    fn take(&mut self, t: Ty, id: u32) -> u32 {
        let u = &mut self.unused[t as usize];
        if let Some(k) = u.iter().rposition(|&x| x == id) {
            u.remove(k);
        }
        id
    }

    /// The latest value of type `t` (the usual first operand).
    fn last(&mut self, t: Ty) -> u32 {
        let v = match t {
            Ty::F32 => *self.fvals.last().expect("an f32 value"),
            Ty::U32 => *self.uvals.last().expect("a u32 value"),
        };
        self.take(t, v)
    }

    /// A recent value of type `t` other than the latest (the usual first operand), or
    /// now and then a constant.
    fn pick(&mut self, t: Ty) -> u32 {
        if let Some(&v) = self.unused[t as usize].last()
            && self.rng.below(4) != 0
        {
            return self.take(t, v);
        }
        if self.rng.below(8) == 0 {
            return match t {
                Ty::F32 => self.c_f32[self.rng.below(self.c_f32.len())],
                Ty::U32 => self.c_u32[self.rng.below(self.c_u32.len())],
            };
        }
        let v = match t {
            Ty::F32 => &self.fvals,
            Ty::U32 => &self.uvals,
        };
        let n = v.len().saturating_sub(1).max(1);
        let v = v[n - 1 - self.rng.below(n.min(12))];
        self.take(t, v)
    }

    /// A masked buffer index (`u & 255`).
    fn index(&mut self) -> u32 {
        let (u, m) = (self.last(Ty::U32), self.c_mask);
        let (gu, gm) = (self.g(u), self.g(m));
        self.def(
            Ty::U32,
            format_args!("arithmetic binary_bit_and %{u}, %{m}"),
            format_args!("{gu} & {gm}"),
        )
    }

    fn straight(&mut self, writes: bool) {
        let r = self.rng.below(1000);
        match r {
            0..=379 => {
                let (a, b) = (self.last(Ty::F32), self.pick(Ty::F32));
                let (op, gop) = F_BIN[self.rng.below(F_BIN.len())];
                let (ga, gb) = (self.g(a), self.g(b));
                if gop.len() == 1 {
                    self.def(
                        Ty::F32,
                        format_args!("arithmetic {op} %{a}, %{b}"),
                        format_args!("{ga} {gop} {gb}"),
                    );
                } else {
                    self.def(
                        Ty::F32,
                        format_args!("arithmetic {op} %{a}, %{b}"),
                        format_args!("{gop}({ga}, {gb})"),
                    );
                }
            }
            380..=529 => {
                let (a, b) = (self.last(Ty::U32), self.pick(Ty::U32));
                let (op, gop) = U_BIN[self.rng.below(U_BIN.len())];
                let (ga, gb) = (self.g(a), self.g(b));
                self.def(
                    Ty::U32,
                    format_args!("arithmetic {op} %{a}, %{b}"),
                    format_args!("{ga} {gop} {gb}"),
                );
            }
            530..=579 => {
                let a = self.last(Ty::F32);
                let (op, gop) = F_UN[self.rng.below(F_UN.len())];
                let ga = self.g(a);
                self.def(
                    Ty::F32,
                    format_args!("arithmetic {op} %{a}"),
                    format_args!("{gop}({ga})"),
                );
            }
            580..=609 => {
                let (a, b, c) = (self.last(Ty::F32), self.pick(Ty::F32), self.pick(Ty::F32));
                let (ga, gb, gc) = (self.g(a), self.g(b), self.g(c));
                self.def(
                    Ty::F32,
                    format_args!("arithmetic fma %{a}, %{b}, %{c}"),
                    format_args!("fma({ga}, {gb}, {gc})"),
                );
            }
            610..=669 => {
                let (a, b) = (self.last(Ty::F32), self.pick(Ty::F32));
                let (ga, gb) = (self.g(a), self.g(b));
                let c = self.cond(a, b);
                // select(false_value, true_value, condition)
                self.def(
                    Ty::F32,
                    format_args!("arithmetic select %{a}, %{b}, %{c}"),
                    format_args!("x{c} ? {gb} : {ga}"),
                );
            }
            670..=719 => {
                let a = self.last(Ty::U32);
                let ga = self.g(a);
                self.def(
                    Ty::F32,
                    format_args!("cast static_cast %{a}"),
                    format_args!("float({ga})"),
                );
            }
            720..=789 => {
                let i = self.index();
                let b = self.bufs[0];
                self.def(
                    Ty::F32,
                    format_args!("resource_read buffer_read %{b}, %{i}"),
                    format_args!("a[x{i}]"),
                );
            }
            790..=839 => {
                let i = self.index();
                let b = self.bufs[1];
                self.def(
                    Ty::U32,
                    format_args!("resource_read buffer_read %{b}, %{i}"),
                    format_args!("b[x{i}]"),
                );
            }
            840..=879 if writes => {
                let (i, v) = (self.uvals[0], self.last(Ty::F32));
                let (b, s, gv) = (self.bufs[2], self.id(), self.g(v));
                self.inst(
                    s,
                    "void",
                    format_args!("resource_write buffer_write %{b}, %{i}, %{v}"),
                );
                self.gline(format_args!("c[x{i}] = {gv};"));
            }
            _ => {
                let (a, b) = (self.last(Ty::U32), self.pick(Ty::F32));
                let (ga, gb) = (self.g(a), self.g(b));
                let f = self.def(
                    Ty::F32,
                    format_args!("cast static_cast %{a}"),
                    format_args!("float({ga})"),
                );
                self.def(
                    Ty::F32,
                    format_args!("arithmetic binary_add %{f}, %{b}"),
                    format_args!("x{f} + {gb}"),
                );
            }
        }
    }

    /// `a < b` as a bool value.
    fn cond(&mut self, a: u32, b: u32) -> u32 {
        let c = self.id();
        let (ga, gb) = (self.g(a), self.g(b));
        self.inst(c, "bool", format_args!("arithmetic binary_less %{a}, %{b}"));
        self.gline(format_args!("bool x{c} = {ga} < {gb};"));
        c
    }

    /// Statements in a nested scope (values defined there are not visible after it).
    fn scoped(&mut self, n: usize, tail: impl FnOnce(&mut Self)) {
        let (nf, nu, first) = (self.fvals.len(), self.uvals.len(), self.next_id);
        self.depth += 1;
        self.gdepth += 1;
        for _ in 0..n {
            self.straight(true);
        }
        tail(self);
        self.depth -= 1;
        self.gdepth -= 1;
        self.fvals.truncate(nf);
        self.uvals.truncate(nu);
        for u in &mut self.unused {
            u.retain(|&x| x < first);
        }
    }

    /// A local `f32` initialised to `init`.
    fn local(&mut self, init: u32) -> u32 {
        let p = self.id();
        self.inst(p, "f32", format_args!("alloca local"));
        let s = self.id();
        self.inst(s, "void", format_args!("store %{p}, %{init}"));
        let gi = self.g(init);
        self.gline(format_args!("float x{p} = {gi};"));
        p
    }

    /// `store p, last f32; br to`.
    fn assign_and_branch(&mut self, p: u32, to: u32) {
        let v = self.last(Ty::F32);
        let s = self.id();
        self.inst(s, "void", format_args!("store %{p}, %{v}"));
        let gv = self.g(v);
        self.gline(format_args!("x{p} = {gv};"));
        let b = self.id();
        self.inst(b, "void", format_args!("br %{to}"));
    }

    /// `if`/`else` that assigns a local; opens the merge block (closed at the end).
    fn open_if(&mut self) {
        let init = self.last(Ty::F32);
        let p = self.local(init);
        let (a, b) = (self.last(Ty::F32), self.pick(Ty::F32));
        let c = self.cond(a, b);
        let (i, t) = (self.id(), self.id());
        self.xline(format_args!("%{i}: void = if %{c}, then %{t}: {{"));
        self.insts += 1;
        self.gline(format_args!("if (x{c}) {{"));
        let merge = self.id();
        let n = self.rng.range(2, 6);
        self.scoped(n, |g| g.assign_and_branch(p, merge));
        let e = self.id();
        self.xline(format_args!("}}, else %{e}: {{"));
        self.gline(format_args!("}} else {{"));
        let n = self.rng.range(1, 3);
        self.scoped(n, |g| g.assign_and_branch(p, merge));
        self.xline(format_args!("}}, merge %{merge}: {{"));
        self.gline(format_args!("}}"));
        self.depth += 1;
        self.cur_block = merge;
        self.def(Ty::F32, format_args!("load %{p}"), format_args!("x{p}"));
    }

    /// A counted loop `acc += x * float(t)` (plus a few scoped statements); opens the
    /// merge block.
    fn open_loop(&mut self) {
        let acc = self.local(self.c_f32[0]);
        let x = self.last(Ty::F32);
        let (l, prep) = (self.id(), self.id());
        let (update, next) = (self.id(), self.id());
        let from = self.cur_block;
        self.xline(format_args!("%{l}: void = loop prepare %{prep}: {{"));
        self.insts += 1;
        self.depth += 1;
        let c0 = self.c_u32[0];
        let t = self.id();
        self.inst(
            t,
            "u32",
            format_args!("phi (%{c0}, %{from}), (%{next}, %{update})"),
        );
        let bi = self.rng.range(2, 7);
        let bound = self.c_u32[bi];
        let c = self.id();
        self.inst(
            c,
            "bool",
            format_args!("arithmetic binary_less %{t}, %{bound}"),
        );
        let (body, merge, cbr) = (self.id(), self.id(), self.id());
        self.inst(cbr, "void", format_args!("cond_br %{c}, %{body}, %{merge}"));
        self.depth -= 1;
        self.xline(format_args!("}}, body %{body}: {{"));
        self.gline(format_args!(
            "for (uint x{t} = 0u; x{t} < {bi}u; x{t}++) {{"
        ));
        let n = self.rng.range(0, 3);
        self.scoped(n, |g| {
            let a = g.def(Ty::F32, format_args!("load %{acc}"), format_args!("x{acc}"));
            let tf = g.def(
                Ty::F32,
                format_args!("cast static_cast %{t}"),
                format_args!("float(x{t})"),
            );
            let gx = g.g(x);
            let m = g.def(
                Ty::F32,
                format_args!("arithmetic binary_mul %{x}, %{tf}"),
                format_args!("{gx} * x{tf}"),
            );
            g.def(
                Ty::F32,
                format_args!("arithmetic binary_add %{a}, %{m}"),
                format_args!("x{a} + x{m}"),
            );
            g.assign_and_branch(acc, update);
        });
        self.xline(format_args!("}}, update %{update}: {{"));
        self.depth += 1;
        let one = self.c_u32[1];
        self.inst(
            next,
            "u32",
            format_args!("arithmetic binary_add %{t}, %{one}"),
        );
        let b = self.id();
        self.inst(b, "void", format_args!("br %{prep}"));
        self.depth -= 1;
        self.xline(format_args!("}}, merge %{merge}: {{"));
        self.gline(format_args!("}}"));
        self.depth += 1;
        self.cur_block = merge;
        self.def(Ty::F32, format_args!("load %{acc}"), format_args!("x{acc}"));
    }
}

/// The kernel of about `n` instructions.
pub fn generate(n: usize) -> Kernel {
    let mut g = Gen {
        rng: Rng(0xD1B5_4A32_D192_ED03),
        xir: String::with_capacity(n * 60 + 4096),
        glsl: String::with_capacity(n * 30 + 4096),
        next_id: 0,
        insts: 0,
        depth: 0,
        gdepth: 0,
        fvals: Vec::new(),
        uvals: Vec::new(),
        unused: [Vec::new(), Vec::new()],
        consts: Vec::new(),
        c_u32: Vec::new(),
        c_f32: Vec::new(),
        c_mask: 0,
        bufs: [0, 0, 0],
        cur_block: 0,
    };
    g.xir.push_str("module;\n\n");
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    for v in (0u32..8).chain([255]) {
        let id = g.id();
        let _ = write!(g.xir, "const %{id}: u32 = {};\n\n", hex(&v.to_le_bytes()));
        g.consts.push((id, format!("{v}u")));
        if v == 255 {
            g.c_mask = id;
        } else {
            g.c_u32.push(id);
        }
    }
    for v in [0.0f32, 0.5, 1.0, 2.0, -1.0, 1.5] {
        let id = g.id();
        let _ = write!(g.xir, "const %{id}: f32 = {};\n\n", hex(&v.to_le_bytes()));
        g.consts.push((id, format!("{v:?}")));
        g.c_f32.push(id);
    }
    // Special registers are numbered lazily upstream: after every other id.
    let dispatch = (n as u32).saturating_mul(3).saturating_add(1000);
    let (k, b0, b1, b2, body) = (g.id(), g.id(), g.id(), g.id(), g.id());
    g.bufs = [b0, b1, b2];
    let _ = writeln!(
        g.xir,
        "kernel %{k} (\n    %{b0}: buffer<f32>;\n    %{b1}: buffer<u32>;\n    %{b2}: buffer<f32>;\n) = define %{body}: {{"
    );
    g.glsl.push_str(concat!(
        "#version 450\n",
        "layout(local_size_x = 64) in;\n",
        "layout(std430, binding = 0) buffer A { float a[]; };\n",
        "layout(std430, binding = 1) buffer B { uint b[]; };\n",
        "layout(std430, binding = 2) buffer C { float c[]; };\n",
        "void main() {\n"
    ));
    g.cur_block = body;
    g.depth = 1;
    g.gdepth = 1;
    let c0 = g.c_u32[0];
    let i = g.def(
        Ty::U32,
        format_args!("arithmetic extract %{dispatch}.dispatch_id, %{c0}"),
        format_args!("gl_GlobalInvocationID.x"),
    );
    g.def(
        Ty::F32,
        format_args!("resource_read buffer_read %{b0}, %{i}"),
        format_args!("a[x{i}]"),
    );
    let mut open = 0;
    while g.insts + 40 < n {
        match g.rng.below(1000) {
            0..=4 => {
                g.open_if();
                open += 1;
            }
            5..=7 => {
                g.open_loop();
                open += 1;
            }
            _ => g.straight(true),
        }
    }
    while g.insts + 4 < n {
        g.straight(false);
    }
    let (u, v) = (g.last(Ty::U32), g.last(Ty::F32));
    let (gu, gv) = (g.g(u), g.g(v));
    let f = g.def(
        Ty::F32,
        format_args!("cast static_cast %{u}"),
        format_args!("float({gu})"),
    );
    let s = g.def(
        Ty::F32,
        format_args!("arithmetic binary_add %{v}, %{f}"),
        format_args!("{gv} + x{f}"),
    );
    let (w, r) = (g.id(), g.id());
    g.inst(
        w,
        "void",
        format_args!("resource_write buffer_write %{b2}, %{i}, %{s}"),
    );
    g.inst(r, "void", format_args!("return"));
    g.gline(format_args!("c[x{i}] = x{s};"));
    assert!(g.next_id < dispatch, "ids overran the dispatch_id number");
    for _ in 0..open {
        g.depth -= 1;
        g.xline(format_args!("}};"));
    }
    g.xir.push_str("};\n");
    g.glsl.push_str("}\n");
    Kernel {
        xir: g.xir,
        glsl: g.glsl,
    }
}

//! `xir-gen-large N [OUT]` — writes a deterministic, realistic XIR module of about `N`
//! instructions in upstream's nested xir2text form (to OUT or stdout).
//!
//! Pinned: the output depends only on `N` (a fixed-seed xorshift generator; no hash
//! maps, no clocks), so benchmark figures are comparable across commits. Changing this
//! file changes the benchmark; bump `GENERATOR_VERSION` when you do.
//!
//! The module has a few constants and a struct type, then functions of 200–400
//! instructions: three callables `(f32, u32, &f32) -> f32` for every kernel
//! `(buffer<f32>, buffer<u32>)`. Bodies mix arithmetic (f32/u32, unary, fma, select,
//! comparisons), casts, local allocas with load/store, getelementptr into local arrays
//! and structs, calls to earlier callables, buffer reads/writes in kernels, structured
//! `if` and `loop` (with a loop-carried `phi` and forward references to the update block
//! and value), printed inline the way upstream does: the rest of a function continues
//! inside each construct's merge block, so nesting deepens through a function. Kernels
//! read `%N.dispatch_id`, numbered lazily (larger than every other id) as upstream does.
//! The mix averages about 65 bytes of text per instruction.
//!
//! `xir-gen-large --vulkan-kernel N OUT.xir [OUT.comp]` writes instead one kernel of
//! about `N` instructions meant for Vulkan, and the same kernel in GLSL (`kernel.rs`).

mod kernel;

use std::fmt::Write as _;
use std::io::Write as _;

/// Bump when the generated text changes.
const GENERATOR_VERSION: u32 = 1;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
}

#[derive(Copy, Clone, PartialEq)]
enum Ty {
    F32,
    U32,
    Bool,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::F32 => "f32",
            Ty::U32 => "u32",
            Ty::Bool => "bool",
        }
    }
}

struct Gen {
    rng: Rng,
    out: String,
    next_id: u32,
    insts: usize,
    depth: usize,
    /// Values visible at the current point (dominating definitions), with scope marks.
    vals: Vec<(u32, Ty)>,
    /// f32 lvalues (allocas, reference argument, geps) visible now.
    ptrs: Vec<u32>,
    /// Array allocas `array<f32, 8>` visible now.
    arrays: Vec<u32>,
    /// Struct allocas `T0` visible now.
    structs: Vec<u32>,
    /// Callables defined so far.
    callables: Vec<u32>,
    c_u32: Vec<u32>,
    c_f32: Vec<u32>,
    dispatch_id: u32,
    kernel: bool,
    bufs: [u32; 2],
    cur_block: u32,
}

impl Gen {
    fn id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id - 1
    }

    fn indent(&mut self) {
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
    }

    /// Emits `%id: ty = body;` and returns the id.
    fn emit(&mut self, id: u32, ty: &str, body: std::fmt::Arguments) -> u32 {
        self.indent();
        let _ = writeln!(self.out, "%{id}: {ty} = {body};");
        self.insts += 1;
        id
    }

    fn pick(&mut self, t: Ty) -> u32 {
        let n = self.vals.iter().filter(|v| v.1 == t).count();
        if n == 0 {
            return match t {
                Ty::F32 => self.c_f32[self.rng.below(self.c_f32.len())],
                _ => self.c_u32[self.rng.below(self.c_u32.len())],
            };
        }
        // Prefer recent values (realistic def-use distances).
        let k = n - 1 - self.rng.below(n.min(12));
        self.vals
            .iter()
            .filter(|v| v.1 == t)
            .nth(k)
            .expect("value")
            .0
    }

    fn def(&mut self, t: Ty, body: std::fmt::Arguments) -> u32 {
        let id = self.id();
        self.emit(id, t.name(), body);
        self.vals.push((id, t));
        id
    }

    fn straight(&mut self) {
        let r = self.rng.below(100);
        const F_BIN: [&str; 5] = ["binary_add", "binary_sub", "binary_mul", "min", "max"];
        const U_BIN: [&str; 4] = [
            "binary_add",
            "binary_mul",
            "binary_bit_and",
            "binary_shift_right",
        ];
        const F_UN: [&str; 4] = ["sqrt", "abs", "sin", "floor"];
        match r {
            0..=31 => {
                let (a, b) = (self.pick(Ty::F32), self.pick(Ty::F32));
                let op = F_BIN[self.rng.below(5)];
                self.def(Ty::F32, format_args!("arithmetic {op} %{a}, %{b}"));
            }
            32..=43 => {
                let (a, b) = (self.pick(Ty::U32), self.pick(Ty::U32));
                let op = U_BIN[self.rng.below(4)];
                self.def(Ty::U32, format_args!("arithmetic {op} %{a}, %{b}"));
            }
            44..=49 => {
                let a = self.pick(Ty::F32);
                let op = F_UN[self.rng.below(4)];
                self.def(Ty::F32, format_args!("arithmetic {op} %{a}"));
            }
            50..=52 => {
                let (a, b, c) = (self.pick(Ty::F32), self.pick(Ty::F32), self.pick(Ty::F32));
                self.def(Ty::F32, format_args!("arithmetic fma %{a}, %{b}, %{c}"));
            }
            53..=56 => {
                let (a, b) = (self.pick(Ty::F32), self.pick(Ty::F32));
                let c = self.def(Ty::Bool, format_args!("arithmetic binary_less %{a}, %{b}"));
                self.def(Ty::F32, format_args!("arithmetic select %{a}, %{b}, %{c}"));
            }
            57..=60 => {
                let a = self.pick(Ty::U32);
                self.def(Ty::F32, format_args!("cast static_cast %{a}"));
            }
            61..=70 => {
                if self.ptrs.is_empty() || self.rng.below(4) == 0 {
                    let p = self.id();
                    self.emit(p, "f32", format_args!("alloca local"));
                    self.ptrs.push(p);
                    let v = self.pick(Ty::F32);
                    let s = self.id();
                    self.emit(s, "void", format_args!("store %{p}, %{v}"));
                } else {
                    let p = self.ptrs[self.ptrs.len() - 1 - self.rng.below(self.ptrs.len().min(4))];
                    self.def(Ty::F32, format_args!("load %{p}"));
                }
            }
            71..=75 => {
                if self.arrays.is_empty() {
                    let a = self.id();
                    self.emit(a, "array<f32, 8>", format_args!("alloca local"));
                    self.arrays.push(a);
                }
                let a = self.arrays[self.rng.below(self.arrays.len())];
                let i = self.c_u32[self.rng.below(8)];
                let g = self.id();
                self.emit(g, "f32", format_args!("getelementptr %{a}, %{i}"));
                if self.rng.below(2) == 0 {
                    let v = self.pick(Ty::F32);
                    let s = self.id();
                    self.emit(s, "void", format_args!("store %{g}, %{v}"));
                } else {
                    self.def(Ty::F32, format_args!("load %{g}"));
                }
            }
            76..=78 => {
                if self.structs.is_empty() {
                    let a = self.id();
                    self.emit(a, "T0", format_args!("alloca local"));
                    self.structs.push(a);
                }
                let a = self.structs[0];
                let (c1, v) = (self.c_u32[1], self.pick(Ty::U32));
                let g = self.id();
                self.emit(g, "u32", format_args!("getelementptr %{a}, %{c1}"));
                let s = self.id();
                self.emit(s, "void", format_args!("store %{g}, %{v}"));
            }
            79..=84 if !self.callables.is_empty() && !self.ptrs.is_empty() => {
                let f = self.callables
                    [self.callables.len() - 1 - self.rng.below(self.callables.len().min(6))];
                let (a, b) = (self.pick(Ty::F32), self.pick(Ty::U32));
                let p = self.ptrs[self.rng.below(self.ptrs.len())];
                self.def(Ty::F32, format_args!("call %{f}, %{a}, %{b}, %{p}"));
            }
            85..=94 if self.kernel => {
                let i = self.pick(Ty::U32);
                if self.rng.below(3) == 0 {
                    let v = self.pick(Ty::F32);
                    let b = self.bufs[0];
                    let s = self.id();
                    self.emit(
                        s,
                        "void",
                        format_args!("resource_write buffer_write %{b}, %{i}, %{v}"),
                    );
                } else if self.rng.below(2) == 0 {
                    let b = self.bufs[0];
                    self.def(
                        Ty::F32,
                        format_args!("resource_read buffer_read %{b}, %{i}"),
                    );
                } else {
                    let b = self.bufs[1];
                    self.def(
                        Ty::U32,
                        format_args!("resource_read buffer_read %{b}, %{i}"),
                    );
                }
            }
            _ => {
                let (a, b) = (self.pick(Ty::U32), self.pick(Ty::U32));
                self.def(Ty::U32, format_args!("arithmetic binary_add %{a}, %{b}"));
            }
        }
    }

    fn scope(&self) -> (usize, usize, usize, usize) {
        (
            self.vals.len(),
            self.ptrs.len(),
            self.arrays.len(),
            self.structs.len(),
        )
    }

    fn unscope(&mut self, s: (usize, usize, usize, usize)) {
        self.vals.truncate(s.0);
        self.ptrs.truncate(s.1);
        self.arrays.truncate(s.2);
        self.structs.truncate(s.3);
    }

    /// A branch arm: a few statements then `br merge`.
    fn arm(&mut self, merge: u32, n: usize) {
        let s = self.scope();
        self.depth += 1;
        for _ in 0..n {
            self.straight();
        }
        let b = self.id();
        self.emit(b, "void", format_args!("br %{merge}"));
        self.depth -= 1;
        self.unscope(s);
    }

    /// `if`: then/else arms inline, then opens the merge block (the caller continues in
    /// it and closes it with `};`).
    fn open_if(&mut self) {
        let (a, b) = (self.pick(Ty::F32), self.pick(Ty::F32));
        let c = self.def(Ty::Bool, format_args!("arithmetic binary_less %{a}, %{b}"));
        let i = self.id();
        let t = self.id();
        self.indent();
        let _ = writeln!(self.out, "%{i}: void = if %{c}, then %{t}: {{");
        self.insts += 1;
        let merge = self.id();
        let n = self.rng.range(2, 8);
        self.arm(merge, n);
        let e = self.id();
        self.indent();
        let _ = writeln!(self.out, "}}, else %{e}: {{");
        let n = self.rng.range(1, 5);
        self.arm(merge, n);
        self.indent();
        let _ = writeln!(self.out, "}}, merge %{merge}: {{");
        self.depth += 1;
        self.cur_block = merge;
    }

    /// `loop` with a counter phi; opens the merge block.
    fn open_loop(&mut self) {
        let l = self.id();
        let p = self.id();
        let (update, next) = (self.id(), self.id());
        let from = self.cur_block;
        self.indent();
        let _ = writeln!(self.out, "%{l}: void = loop prepare %{p}: {{");
        self.insts += 1;
        self.depth += 1;
        let c0 = self.c_u32[0];
        let i = self.def(
            Ty::U32,
            format_args!("phi (%{c0}, %{from}), (%{next}, %{update})"),
        );
        let bound = self.c_u32[self.rng.range(2, 7)];
        let c = self.def(
            Ty::Bool,
            format_args!("arithmetic binary_less %{i}, %{bound}"),
        );
        let (body, merge, cbr) = (self.id(), self.id(), self.id());
        self.emit(cbr, "void", format_args!("cond_br %{c}, %{body}, %{merge}"));
        self.depth -= 1;
        self.indent();
        let _ = writeln!(self.out, "}}, body %{body}: {{");
        let n = self.rng.range(3, 10);
        self.arm(update, n);
        self.indent();
        let _ = writeln!(self.out, "}}, update %{update}: {{");
        self.depth += 1;
        let one = self.c_u32[1];
        self.emit(
            next,
            "u32",
            format_args!("arithmetic binary_add %{i}, %{one}"),
        );
        let b = self.id();
        self.emit(b, "void", format_args!("br %{p}"));
        self.depth -= 1;
        self.indent();
        let _ = writeln!(self.out, "}}, merge %{merge}: {{");
        self.depth += 1;
        self.cur_block = merge;
    }

    fn function(&mut self, kernel: bool, size: usize) {
        self.kernel = kernel;
        let f = self.id();
        let start = self.insts;
        self.vals.clear();
        self.ptrs.clear();
        self.arrays.clear();
        self.structs.clear();
        if kernel {
            let (b0, b1) = (self.id(), self.id());
            self.bufs = [b0, b1];
            let _ = write!(
                self.out,
                "kernel %{f} (\n    %{b0}: buffer<f32>;\n    %{b1}: buffer<u32>;\n) = define "
            );
        } else {
            let (a, b, p) = (self.id(), self.id(), self.id());
            let _ = write!(
                self.out,
                "callable %{f}: f32 (\n    %{a}: f32;\n    %{b}: u32;\n    %{p}: &f32;\n) = define "
            );
            self.vals.push((a, Ty::F32));
            self.vals.push((b, Ty::U32));
            self.ptrs.push(p);
        }
        let body = self.id();
        let _ = writeln!(self.out, "%{body}: {{");
        self.cur_block = body;
        self.depth = 1;
        if kernel {
            let (d, c0) = (self.dispatch_id, self.c_u32[0]);
            self.def(
                Ty::U32,
                format_args!("arithmetic extract %{d}.dispatch_id, %{c0}"),
            );
        }
        let mut open = 0;
        while self.insts - start < size {
            match self.rng.below(100) {
                0..=2 if self.insts - start + 20 < size => {
                    self.open_if();
                    open += 1;
                }
                3 if self.insts - start + 20 < size => {
                    self.open_loop();
                    open += 1;
                }
                _ => self.straight(),
            }
        }
        let r = self.id();
        if kernel {
            self.emit(r, "void", format_args!("return"));
        } else {
            let v = self.pick(Ty::F32);
            self.emit(r, "void", format_args!("return %{v}"));
            self.callables.push(f);
        }
        for _ in 0..open {
            self.depth -= 1;
            self.indent();
            self.out.push_str("};\n");
        }
        self.out.push_str("};\n\n");
    }
}

/// The module text for about `n` instructions.
fn generate(n: usize) -> String {
    let mut g = Gen {
        rng: Rng(0x9E37_79B9_7F4A_7C15),
        out: String::with_capacity(n * 70 + 4096),
        next_id: 0,
        insts: 0,
        depth: 0,
        vals: Vec::new(),
        ptrs: Vec::new(),
        arrays: Vec::new(),
        structs: Vec::new(),
        callables: Vec::new(),
        c_u32: Vec::new(),
        c_f32: Vec::new(),
        dispatch_id: 0,
        kernel: false,
        bufs: [0, 0],
        cur_block: 0,
    };
    let _ = write!(g.out, "module;\n\n");
    for v in 0u32..8 {
        let id = g.id();
        let _ = write!(g.out, "const %{id}: u32 = {};\n\n", hex(&v.to_le_bytes()));
        g.c_u32.push(id);
    }
    for v in [0.5f32, 1.0, 2.0, -1.0] {
        let id = g.id();
        let _ = write!(g.out, "const %{id}: f32 = {};\n\n", hex(&v.to_le_bytes()));
        g.c_f32.push(id);
    }
    g.out.push_str("type T0 = struct { f32, u32 };\n\n");
    // Special registers are numbered lazily upstream: after every pre-pass id.
    g.dispatch_id = (n as u32).saturating_mul(3).saturating_add(1000);
    let mut k = 0;
    while g.insts < n {
        let size = g.rng.range(200, 400).min(n - g.insts + 8);
        g.function(k % 4 == 3, size);
        k += 1;
    }
    g.out
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = || -> ! {
        eprintln!(
            "usage: xir-gen-large N [OUT]   (generator version {GENERATOR_VERSION})\n       \
             xir-gen-large --vulkan-kernel N OUT.xir [OUT.comp]   (kernel generator version {})",
            kernel::KERNEL_GENERATOR_VERSION
        );
        std::process::exit(2);
    };
    let size = |s: Option<&String>| s.and_then(|s| s.parse::<usize>().ok());
    let r = if args.first().map(String::as_str) == Some("--vulkan-kernel") {
        let (Some(n), Some(out)) = (size(args.get(1)), args.get(2)) else {
            usage()
        };
        let k = kernel::generate(n);
        xir_driver::output::write_atomically(out.as_ref(), k.xir.as_bytes()).and_then(|()| {
            match args.get(3) {
                Some(glsl) => {
                    xir_driver::output::write_atomically(glsl.as_ref(), k.glsl.as_bytes())
                }
                None => Ok(()),
            }
        })
    } else {
        let Some(n) = size(args.first()) else { usage() };
        let text = generate(n);
        match args.get(1) {
            Some(path) => xir_driver::output::write_atomically(path.as_ref(), text.as_bytes()),
            None => std::io::stdout().lock().write_all(text.as_bytes()),
        }
    };
    if let Err(e) = r {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("xir-gen-large: error: {}", xir_sysio::stdio::cause(&e));
        }
        std::process::exit(1);
    }
}

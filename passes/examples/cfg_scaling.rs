//! Scaling of `restructure-cfg` and `destructure-cfg` on generated plain CFGs of about
//! 1k / 10k / 100k blocks in three shapes: deeply nested ifs, wide switches (a
//! 32-case switch per top-level statement, shallow ifs in the cases), and many loops
//! (three nested levels with breaks and continues per top-level statement, shallow ifs
//! inside); the switch and loop shapes repeat their statement, so their construct counts
//! grow with the size. Each row: the blocks, the pass's main
//! counters, the wall time and the time per block; the module is verified after each
//! pass. Run: `cargo run --release -p xir-passes --example cfg_scaling [SIZES…] [SHAPES…]`
//! (shapes by name, e.g. `ManyLoops`; all three by default).
//!
//! restructure-cfg runs with `main-iteration-limit` raised to the number of blocks:
//! upstream's default bound (10,000 constructs per definition) stops the 100k sizes.
//!
//! The measured work is in `measured_restructure`, `measured_verify` (every verifier run)
//! and `measured_destructure` (never inlined), so that callgrind can attribute it:
//! `valgrind --tool=callgrind --cache-sim=yes target/release/examples/cfg_scaling 10000`
//! then `callgrind_annotate --inclusive=yes` (docs/passes-perf.md).
//!
//! `--ll DIR` writes each generated CFG as LLVM IR (`DIR/SHAPE-N.ll`: one call to an
//! external `@s` where the XIR prints, `br` / `switch` / `ret` as the terminators) and
//! runs nothing, for the reference figures of LLVM's `structurizecfg` and `simplifycfg`
//! on the same graph.

use std::fmt::Write as _;
use std::time::Instant;
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::entity::EntityRef;
use xir_ir::verify::{VerifyOptions, verify_module};
use xir_ir::{BlockId, Function, FunctionKind, InstKind, Module, Value};
use xir_passes::transform::destructure_cfg::DestructureCfg;
use xir_passes::transform::restructure_cfg::{Limits, RestructureCfg};
use xir_passes::{Pass, PassContext, PassRun};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    DeepIfs,
    WideSwitches,
    ManyLoops,
}

struct Gen {
    f: Function,
    cond: Value,
    sel: Value,
    shape: Shape,
    target: usize,
    seed: u64,
}

impl Gen {
    fn rnd(&mut self, n: u64) -> u64 {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        self.seed % n
    }

    fn print(&mut self, b: BlockId) {
        let mut c = Cursor::at_end(&mut self.f, b);
        c.print("s", &[]);
    }

    /// Emits one statement starting in the open block `cur`; returns the open block
    /// where control continues.
    fn stmt(&mut self, cur: BlockId, depth: u32) -> BlockId {
        self.print(cur);
        // Deep ifs nest up to 40 levels; the other shapes stop nesting early, so the
        // count of switches and loops (not just their depth) grows with the size.
        let max_depth = match self.shape {
            Shape::DeepIfs => 40,
            Shape::WideSwitches => 3,
            Shape::ManyLoops => 6,
        };
        if self.f.block_order.len() >= self.target || depth > max_depth {
            return cur;
        }
        let pick = match self.shape {
            Shape::DeepIfs => 0,
            Shape::WideSwitches => {
                if depth == 0 {
                    1
                } else {
                    0
                }
            }
            Shape::ManyLoops => {
                if depth < 3 {
                    2
                } else {
                    0
                }
            }
        };
        match pick {
            0 => {
                // if (depth-first: the then arm nests further)
                let (t, e, m) = (
                    self.f.create_block(),
                    self.f.create_block(),
                    self.f.create_block(),
                );
                Cursor::at_end(&mut self.f, cur).cond_br(self.cond, t, e);
                let te = if self.rnd(4) == 0 {
                    t
                } else {
                    self.stmt(t, depth + 1)
                };
                Cursor::at_end(&mut self.f, te).br(m);
                let ee = self.stmt(e, depth + 3);
                Cursor::at_end(&mut self.f, ee).br(m);
                m
            }
            1 => {
                let cases: Vec<BlockId> = (0..32).map(|_| self.f.create_block()).collect();
                let m = self.f.create_block();
                let labelled: Vec<(u64, BlockId)> =
                    (1..32).zip(cases[1..].iter().copied()).collect();
                Cursor::at_end(&mut self.f, cur).indexed_branch(self.sel, cases[0], &labelled);
                for c in cases {
                    let end = self.stmt(c, depth + 1);
                    Cursor::at_end(&mut self.f, end).br(m);
                }
                m
            }
            _ => {
                // header: test; body with a break and a continue site; latch.
                let h = self.f.create_block();
                let b = self.f.create_block();
                let x = self.f.create_block();
                let l = self.f.create_block();
                let c2 = self.f.create_block();
                Cursor::at_end(&mut self.f, cur).br(h);
                self.print(h);
                Cursor::at_end(&mut self.f, h).cond_br(self.cond, b, x);
                let be = self.stmt(b, depth + 1);
                Cursor::at_end(&mut self.f, be).cond_br(self.cond, x, c2);
                let ce = self.stmt(c2, depth + 1);
                Cursor::at_end(&mut self.f, ce).cond_br(self.cond, l, h);
                self.print(l);
                Cursor::at_end(&mut self.f, l).br(h);
                x
            }
        }
    }
}

fn generate(shape: Shape, blocks: usize) -> Module {
    let mut m = Module::new();
    let bool_t = m.types.bool();
    let u32_t = m.types.u32();
    let mut f = Function::new(FunctionKind::kernel(), None);
    let cond = f.add_arg(xir_ir::ArgKind::Value, bool_t);
    let sel = f.add_arg(xir_ir::ArgKind::Value, u32_t);
    let entry = f.ensure_body();
    let mut g = Gen {
        f,
        cond: Value::Arg(cond),
        sel: Value::Arg(sel),
        shape,
        target: blocks,
        seed: 0x9e37_79b9_7f4a_7c15,
    };
    let mut cur = entry;
    while g.f.block_order.len() < blocks {
        cur = g.stmt(cur, 0);
    }
    Cursor::at_end(&mut g.f, cur).ret(None);
    m.add_function(g.f);
    m
}

/// Minor page faults of this process so far (`/proc/self/stat` field 10): a page the
/// allocator takes fresh from the kernel is zeroed on first touch, which a per-block
/// figure must count.
fn minor_faults() -> u64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let rest = &s[s.rfind(')')? + 2..];
            rest.split(' ').nth(7)?.parse().ok()
        })
        .unwrap_or(0)
}

#[inline(never)]
fn measured_restructure(pass: &RestructureCfg, m: &mut Module) -> PassRun {
    pass.run(m, &mut PassContext::default()).expect("runs")
}

#[inline(never)]
fn measured_destructure(m: &mut Module) -> PassRun {
    DestructureCfg
        .run(m, &mut PassContext::default())
        .expect("runs")
}

#[inline(never)]
fn measured_verify(m: &Module, opts: &VerifyOptions) -> bool {
    verify_module(m, opts, None).is_empty()
}

/// The generated CFG as LLVM IR (one function `@f(i1 %c, i32 %sel)`); `None` if it
/// holds an instruction the generator does not emit.
fn to_llvm(f: &Function) -> Option<String> {
    let mut s = String::from("declare void @s()\n\ndefine void @f(i1 %c, i32 %sel) {\n");
    // LLVM's entry block may not have predecessors.
    let _ = writeln!(s, "entry:\n  br label %b{}", f.body?.index());
    let label = |v: &Value| format!("%b{}", v.as_block().map(|b| b.index()).unwrap_or(0));
    for &b in &f.block_order {
        let _ = writeln!(s, "b{}:", b.index());
        for &i in &f.blocks[b].insts {
            let d = f.inst(i);
            let ops = &d.operands;
            match &d.kind {
                InstKind::Print { .. } => s.push_str("  call void @s()\n"),
                InstKind::Branch => {
                    let _ = writeln!(s, "  br label {}", label(&ops[0]));
                }
                InstKind::ConditionalBranch => {
                    let _ = writeln!(
                        s,
                        "  br i1 %c, label {}, label {}",
                        label(&ops[1]),
                        label(&ops[2])
                    );
                }
                InstKind::IndexedBranch { labels } => {
                    let _ = write!(s, "  switch i32 %sel, label {} [", label(&ops[1]));
                    for (l, t) in labels.iter().zip(&ops[2..]) {
                        let _ = write!(s, " i32 {l}, label {}", label(t));
                    }
                    s.push_str(" ]\n");
                }
                InstKind::Return => s.push_str("  ret void\n"),
                _ => return None,
            }
        }
    }
    s.push_str("}\n");
    Some(s)
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let all = [Shape::DeepIfs, Shape::WideSwitches, Shape::ManyLoops];
    let named: Vec<Shape> = std::env::args()
        .skip(1)
        .filter_map(|a| all.into_iter().find(|s| format!("{s:?}") == a))
        .collect();
    let shapes = if named.is_empty() {
        all.to_vec()
    } else {
        named
    };
    let sizes = if sizes.is_empty() {
        vec![1_000, 10_000, 100_000]
    } else {
        sizes
    };
    let args: Vec<String> = std::env::args().collect();
    if let Some(k) = args.iter().position(|a| a == "--ll") {
        let dir = args.get(k + 1).expect("--ll DIR");
        std::fs::create_dir_all(dir).expect("create DIR");
        for &shape in &shapes {
            for &n in &sizes {
                let m = generate(shape, n);
                let f = m.func(m.func_order[0]);
                let text = to_llvm(f).expect("only generated instructions");
                let path = format!("{dir}/{shape:?}-{n}.ll");
                std::fs::write(&path, text).expect("write");
                println!("{path}: {} blocks", f.block_order.len());
            }
        }
        return;
    }
    println!(
        "| shape | blocks | restructure-cfg: loops / ifs / switches | time | ns/block | page faults/block | destructure-cfg: constructs | time | ns/block | verifier (baseline) ns/block |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for &shape in &shapes {
        for &n in &sizes {
            let mut m = generate(shape, n);
            // The verifier's walk over the input: the baseline for the time per block
            // of a linear pass over the same IR (docs/passes-perf.md).
            let t = Instant::now();
            assert!(measured_verify(&m, &VerifyOptions::default()));
            let vt = t.elapsed();
            let blocks = m.func(m.func_order[0]).block_order.len();
            let pass = RestructureCfg {
                in_place: false,
                limits: Limits {
                    main: blocks as u64,
                    ..Limits::default()
                },
            };
            let faults = minor_faults();
            let t = Instant::now();
            let r = measured_restructure(&pass, &mut m);
            let rt = t.elapsed();
            let faults = minor_faults() - faults;
            assert!(r.refusal.is_none(), "{shape:?} {n}: {:?}", r.refusal);
            let strict = VerifyOptions {
                require_unique_merge_blocks: true,
                require_canonical_break_continue_targets: true,
                ..VerifyOptions::default()
            };
            assert!(measured_verify(&m, &strict));
            let get = |k: &str| r.report.get(k).unwrap_or(0);
            let t = Instant::now();
            let d = measured_destructure(&mut m);
            let dt = t.elapsed();
            assert!(measured_verify(&m, &VerifyOptions::default()));
            let dn: u64 = d.report.entries().iter().map(|e| e.1).sum();
            println!(
                "| {shape:?} | {blocks} | {} / {} / {} | {:.1} ms | {:.0} | {:.2} | {dn} | {:.1} ms | {:.0} | {:.0} |",
                get("restructured_loop"),
                get("restructured_if"),
                get("restructured_switch"),
                rt.as_secs_f64() * 1e3,
                rt.as_nanos() as f64 / blocks as f64,
                faults as f64 / blocks as f64,
                dt.as_secs_f64() * 1e3,
                dt.as_nanos() as f64 / blocks as f64,
                vt.as_nanos() as f64 / blocks as f64,
            );
        }
    }
}

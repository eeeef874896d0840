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

use std::time::Instant;
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::verify::{VerifyOptions, verify_module};
use xir_ir::{BlockId, Function, FunctionKind, Module, Value};
use xir_passes::transform::destructure_cfg::DestructureCfg;
use xir_passes::transform::restructure_cfg::{Limits, RestructureCfg};
use xir_passes::{Pass, PassContext};

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
    println!(
        "| shape | blocks | restructure-cfg: loops / ifs / switches | time | ns/block | destructure-cfg: constructs | time | ns/block |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for &shape in &shapes {
        for &n in &sizes {
            let mut m = generate(shape, n);
            assert!(verify_module(&m, &VerifyOptions::default(), None).is_empty());
            let blocks = m.func(m.func_order[0]).block_order.len();
            let pass = RestructureCfg {
                in_place: false,
                limits: Limits {
                    main: blocks as u64,
                    ..Limits::default()
                },
            };
            let t = Instant::now();
            let r = pass.run(&mut m, &mut PassContext::default()).expect("runs");
            let rt = t.elapsed();
            assert!(r.refusal.is_none(), "{shape:?} {n}: {:?}", r.refusal);
            let strict = VerifyOptions {
                require_unique_merge_blocks: true,
                require_canonical_break_continue_targets: true,
                ..VerifyOptions::default()
            };
            assert!(verify_module(&m, &strict, None).is_empty());
            let get = |k: &str| r.report.get(k).unwrap_or(0);
            let t = Instant::now();
            let d = DestructureCfg
                .run(&mut m, &mut PassContext::default())
                .expect("runs");
            let dt = t.elapsed();
            assert!(verify_module(&m, &VerifyOptions::default(), None).is_empty());
            let dn: u64 = d.report.entries().iter().map(|e| e.1).sum();
            println!(
                "| {shape:?} | {blocks} | {} / {} / {} | {:.1} ms | {:.0} | {dn} | {:.1} ms | {:.0} |",
                get("restructured_loop"),
                get("restructured_if"),
                get("restructured_switch"),
                rt.as_secs_f64() * 1e3,
                rt.as_nanos() as f64 / blocks as f64,
                dt.as_secs_f64() * 1e3,
                dt.as_nanos() as f64 / blocks as f64,
            );
        }
    }
}

//! Per-pass scaling: each real pass run alone on inputs of growing size, to show that its
//! cost per IR instruction stays flat (issue 5's second half; the framework overhead is
//! `pipeline_overhead`).
//!
//! Every pass gets an input that gives it real work (see [`input_of`]): the pinned
//! `xir-gen-large` module (structured control flow, promotable allocas, dead values,
//! loop phis), that module after some unmeasured preparation passes, or the synthetic
//! plain-CFG module of `support/plain.rs` (foldable constants, diamonds with trivial phis,
//! straight-line chains) where the pinned generator gives a pass nothing to do. Parsing
//! and preparation happen outside the `measured_pass_*` functions (one per pass), the only
//! ones callgrind counts:
//!
//! ```sh
//! cargo build --release -p xir-passes --example pass_scaling -p xir-tools --bin xir-gen-large
//! mkdir -p target/passbench
//! for n in 10000 100000 1000000; do
//!   target/release/xir-gen-large $n target/passbench/gen-large-$n.xir; done
//! B=target/release/examples/pass_scaling
//! valgrind --tool=callgrind --callgrind-out-file=cg.out \
//!   --toggle-collect='*measured_pass_*' $B one all 100000 target/passbench
//! callgrind_annotate --inclusive=yes cg.out | grep measured_pass_   # Ir of each pass
//! passes/examples/pass_scaling.sh     # the whole table (Ir per instruction)
//! $B table target/passbench 5        # wall-clock ns/instruction, medians of 5
//! ```
//!
//! Usage: `pass_scaling one PASSES SIZE [DIR] [INPUT]` runs each of PASSES (a comma
//! list, or `all`) once, in order, on its input of SIZE
//! (reading `DIR/gen-large-SIZE.xir` where the input needs it; DIR defaults to
//! `target/passbench`; INPUT = `large|plain[+PASS,…]` overrides the input and its
//! preparation passes) and prints the instruction count the pass saw, its report and the
//! wall time. `pass_scaling table [DIR] [REPEAT] [SIZES]` prints, for every pass and
//! size (default `10000,100000,1000000`), the median wall-clock ns per instruction of
//! REPEAT runs (default 5; every run on a fresh clone of the prepared input, passes
//! alternating) and the ratio largest/smallest size.

#[path = "support/plain.rs"]
mod plain;

use std::hint::black_box;
use std::time::{Duration, Instant};
use xir_ir::Module;
use xir_passes::direct::DirectPass;
use xir_passes::transform::audit_reg2mem_spills::AuditReg2MemSpills;
use xir_passes::{Pass, PassContext, PassRun};

/// The passes measured, in table order (the registry's).
const PASSES: &[DirectPass] = DirectPass::ALL;

/// Where a pass's input comes from.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Source {
    /// `xir-gen-large SIZE` (read from `DIR/gen-large-SIZE.xir`).
    Large,
    /// `support/plain.rs` of SIZE instructions.
    Plain,
}

/// The input of `p`: its source and the passes run (unmeasured) before it.
///
/// * `dce`: the pinned module as generated (about 40 % of it is dead arithmetic).
/// * `mem2reg`: the pinned module after `reg2mem` (the `reg2mem,mem2reg` round trip of
///   the shipped pipelines): the generator's own local allocas are only stored where they
///   are created, so promoting them alone never needs a phi; the spill slots of the loop
///   phis do, so phi placement and renaming get work too.
/// * `reg2mem`: the pinned module after `mem2reg` (its loop phis and hoistable allocas).
/// * `audit-reg2mem-spills`: the pinned module after `reg2mem`, so that every spill slot
///   is still marked and counted (run with `fatal=false`: the audit ends in a refusal
///   carrying the counts instead of an error).
/// * `const-fold`, `phi-cleanup`, `simplify-cfg`: the plain module — the pinned
///   generator has almost no arithmetic on constants, no single-value phis, and only
///   structured control flow (nothing to merge or thread); the plain module has foldable
///   constants, a diamond with a single-value phi and a straight-line edge per segment.
fn input_of(p: DirectPass) -> (Source, &'static [DirectPass]) {
    match p {
        DirectPass::Dce
        | DirectPass::DestructureCfg
        | DirectPass::LowerBreakContinue
        | DirectPass::EarlyReturnElimination
        | DirectPass::LowerRayQueryToLoop
        | DirectPass::LowerRayQueryToPipeline
        | DirectPass::LowerRayQueryLoop
        | DirectPass::LowerRayQueryLoopToLoop
        | DirectPass::ReconstructRayQueryLoop
        | DirectPass::Scalarizer
        | DirectPass::Sroa
        | DirectPass::LocalStoreForward
        | DirectPass::LocalLoadElimination
        | DirectPass::DeadStoreElimination
        | DirectPass::TraceGep => (Source::Large, &[]),
        // Arithmetic peepholes: the generated arithmetic as is.
        DirectPass::AlgebraicSimplify
        | DirectPass::DivRemPairs
        | DirectPass::Reassociate
        | DirectPass::SelectFactor
        | DirectPass::SimplifyLibcalls => (Source::Large, &[]),
        // The post-restructure boundary of spirv-post-restructure.
        DirectPass::CanonicalizeSpirvOneShotLoops | DirectPass::ClearSpirvInactivePayloads => (
            Source::Large,
            &[
                DirectPass::DestructureCfg,
                DirectPass::Reg2Mem,
                DirectPass::RestructureCfg,
            ],
        ),
        // Call-graph passes: the generated kernels have no callables, so these measure
        // the call-graph scan alone (autodiff: the scope scan).
        DirectPass::Autodiff
        | DirectPass::PromoteRefArg
        | DirectPass::InlineAll
        | DirectPass::InlineCallSites
        | DirectPass::InlineSpirvPointerArgs
        | DirectPass::FixSelfReferential
        | DirectPass::Gvn
        | DirectPass::EarlyCse
        | DirectPass::DeadArgElim
        | DirectPass::UnusedCallableRemoval
        | DirectPass::Licm
        | DirectPass::Inline
        | DirectPass::Cvp
        | DirectPass::IndvarSimplify
        | DirectPass::FuseConsecutiveBufferReads
        | DirectPass::SlpVectorization => (Source::Large, &[]),
        // Plain-CFG passes: the generated module destructured (its loops become natural loops).
        DirectPass::IfConversion | DirectPass::LoopRotation | DirectPass::LoopUnswitch => {
            (Source::Large, &[DirectPass::DestructureCfg])
        }
        DirectPass::Sccp => (Source::Plain, &[]),
        // Generated CFGs are reducible: this measures the region analysis (the SCC
        // decomposition of the destructured CFG), which finds none.
        DirectPass::LowerIrreducibleCfg => (
            Source::Large,
            &[DirectPass::DestructureCfg, DirectPass::Reg2Mem],
        ),
        DirectPass::RestructureCfg => (
            Source::Large,
            &[DirectPass::DestructureCfg, DirectPass::Reg2Mem],
        ),
        DirectPass::Mem2Reg | DirectPass::AuditReg2MemSpills => {
            (Source::Large, &[DirectPass::Reg2Mem])
        }
        DirectPass::Reg2Mem => (Source::Large, &[DirectPass::Mem2Reg]),
        DirectPass::ConstFold | DirectPass::PhiCleanup | DirectPass::SimplifyCfg => {
            (Source::Plain, &[])
        }
    }
}

/// Runs `p` once (the `fatal=false` audit for `audit-reg2mem-spills`).
fn run_pass(p: DirectPass, m: &mut Module, cx: &mut PassContext) -> PassRun {
    let r = match p {
        DirectPass::AuditReg2MemSpills => AuditReg2MemSpills { fatal: false }.run(m, cx),
        _ => p.run(m, cx),
    };
    r.unwrap_or_else(|e| panic!("{} failed: {e}", p.name()))
}

/// One measured function per pass, so that one callgrind run of `one all SIZE`
/// attributes each pass's cost separately (`--toggle-collect='*measured_pass_*'`, then
/// the inclusive cost of each `measured_pass_NAME`).
macro_rules! measured {
    ($($f:ident: $p:ident),* $(,)?) => {
        $(
            #[inline(never)]
            fn $f(m: &mut Module, cx: &mut PassContext) -> PassRun {
                run_pass(DirectPass::$p, m, cx)
            }
        )*
        /// The measured region: one run of `p` (nothing else).
        fn measured(p: DirectPass, m: &mut Module, cx: &mut PassContext) -> PassRun {
            match p {
                $(DirectPass::$p => $f(m, cx),)*
            }
        }
    };
}

measured! {
    measured_pass_dce: Dce,
    measured_pass_const_fold: ConstFold,
    measured_pass_mem2reg: Mem2Reg,
    measured_pass_reg2mem: Reg2Mem,
    measured_pass_audit_reg2mem_spills: AuditReg2MemSpills,
    measured_pass_phi_cleanup: PhiCleanup,
    measured_pass_simplify_cfg: SimplifyCfg,
    measured_pass_gvn: Gvn,
    measured_pass_early_cse: EarlyCse,
    measured_pass_sccp: Sccp,
    measured_pass_dead_arg_elim: DeadArgElim,
    measured_pass_unused_callable_removal: UnusedCallableRemoval,
    measured_pass_licm: Licm,
    measured_pass_inline: Inline,
    measured_pass_cvp: Cvp,
    measured_pass_indvar_simplify: IndvarSimplify,
    measured_pass_fuse_consecutive_buffer_reads: FuseConsecutiveBufferReads,
    measured_pass_slp_vectorization: SlpVectorization,
    measured_pass_if_conversion: IfConversion,
    measured_pass_loop_rotation: LoopRotation,
    measured_pass_loop_unswitch: LoopUnswitch,
    measured_pass_destructure_cfg: DestructureCfg,
    measured_pass_lower_break_continue: LowerBreakContinue,
    measured_pass_lower_irreducible_cfg: LowerIrreducibleCfg,
    measured_pass_restructure_cfg: RestructureCfg,
    measured_pass_autodiff: Autodiff,
    measured_pass_promote_ref_arg: PromoteRefArg,
    measured_pass_inline_all: InlineAll,
    measured_pass_inline_call_sites: InlineCallSites,
    measured_pass_inline_spirv_pointer_args: InlineSpirvPointerArgs,
    measured_pass_fix_self_referential: FixSelfReferential,
    measured_pass_canonicalize_spirv_one_shot_loops: CanonicalizeSpirvOneShotLoops,
    measured_pass_clear_spirv_inactive_payloads: ClearSpirvInactivePayloads,
    measured_pass_early_return_elimination: EarlyReturnElimination,
    measured_pass_lower_ray_query_to_loop: LowerRayQueryToLoop,
    measured_pass_lower_ray_query_to_pipeline: LowerRayQueryToPipeline,
    measured_pass_lower_ray_query_loop: LowerRayQueryLoop,
    measured_pass_lower_ray_query_loop_to_loop: LowerRayQueryLoopToLoop,
    measured_pass_reconstruct_ray_query_loop: ReconstructRayQueryLoop,
    measured_pass_scalarizer: Scalarizer,
    measured_pass_sroa: Sroa,
    measured_pass_algebraic_simplify: AlgebraicSimplify,
    measured_pass_div_rem_pairs: DivRemPairs,
    measured_pass_reassociate: Reassociate,
    measured_pass_simplify_libcalls: SimplifyLibcalls,
    measured_pass_local_store_forward: LocalStoreForward,
    measured_pass_local_load_elimination: LocalLoadElimination,
    measured_pass_dead_store_elimination: DeadStoreElimination,
    measured_pass_trace_gep: TraceGep,
    measured_pass_select_factor: SelectFactor,
}

fn load_large(dir: &str, size: usize) -> Module {
    let path = format!("{dir}/gen-large-{size}.xir");
    let fail = |why: String| -> ! {
        eprintln!("pass_scaling: {path}: {why}");
        std::process::exit(1)
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        fail(format!(
            "{e} (generate it with `xir-gen-large {size} {path}`)"
        ))
    });
    match xir_ir::text::parse_module(&text) {
        Ok((m, _)) => m,
        Err(d) => fail(format!(
            "does not parse: {}",
            d.first().map_or("", |d| d.message.as_str())
        )),
    }
}

/// `base` after the (unmeasured) preparation passes `prep`.
fn prepare(base: &Module, prep: &[DirectPass]) -> Module {
    let mut m = base.clone();
    let mut cx = PassContext::default();
    for q in prep {
        q.run(&mut m, &mut cx)
            .unwrap_or_else(|e| panic!("preparation: {} failed: {e}", q.name()));
    }
    m
}

/// Source modules of one size, loaded on first use.
struct Sources<'a> {
    dir: &'a str,
    size: usize,
    large: Option<Module>,
    plain: Option<Module>,
}

impl Sources<'_> {
    fn get(&mut self, s: Source) -> &Module {
        match s {
            Source::Large => self
                .large
                .get_or_insert_with(|| load_large(self.dir, self.size)),
            Source::Plain => self.plain.get_or_insert_with(|| plain::generate(self.size)),
        }
    }
}

fn time_once(p: DirectPass, input: &Module) -> (Duration, PassRun) {
    let mut m = input.clone();
    let mut cx = PassContext::default();
    let start = Instant::now();
    let r = black_box(measured(p, black_box(&mut m), &mut cx));
    (start.elapsed(), r)
}

/// Parses an input override `large|plain[+PASS,PASS…]`.
fn parse_input(spec: &str) -> Option<(Source, Vec<DirectPass>)> {
    let (src, prep) = spec.split_once('+').unwrap_or((spec, ""));
    let src = match src {
        "large" => Source::Large,
        "plain" => Source::Plain,
        _ => return None,
    };
    Some((src, xir_passes::direct::parse_list(prep).ok()?))
}

fn one(args: &[String]) {
    let (Some(names), Some(size)) = (args.first(), args.get(1).and_then(|s| s.parse().ok())) else {
        usage()
    };
    let passes = if names == "all" {
        PASSES.to_vec()
    } else {
        xir_passes::direct::parse_list(names).unwrap_or_else(|e| {
            eprintln!("pass_scaling: {e}");
            std::process::exit(2)
        })
    };
    let dir = args.get(2).map_or("target/passbench", String::as_str);
    let mut src = Sources {
        dir,
        size,
        large: None,
        plain: None,
    };
    let over = args
        .get(3)
        .map(|spec| parse_input(spec).unwrap_or_else(|| usage()));
    for p in passes {
        let (source, prep) = over
            .clone()
            .unwrap_or_else(|| (input_of(p).0, input_of(p).1.to_vec()));
        let input = prepare(src.get(source), &prep);
        let n = input.inst_count();
        let (t, r) = time_once(p, &input);
        let report: Vec<String> = r
            .report
            .entries()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let prep: Vec<&str> = prep.iter().map(|q| q.name()).collect();
        println!(
            "{} on {source:?}({size}) after [{}]: {n} instructions, changed={}, {:.3} ms, {:.1} ns/inst; {}",
            p.name(),
            prep.join(","),
            r.changed.any(),
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() * 1e9 / n as f64,
            report.join(" ")
        );
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn table(args: &[String]) {
    let dir = args.first().map_or("target/passbench", String::as_str);
    let repeat: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let sizes: Vec<usize> = args
        .get(2)
        .map_or("10000,100000,1000000", String::as_str)
        .split(',')
        .map(|s| s.parse().unwrap_or_else(|_| usage()))
        .collect();
    // ns per instruction, [pass][size].
    let mut ns = vec![Vec::new(); PASSES.len()];
    let mut counts = vec![Vec::new(); PASSES.len()];
    for &size in &sizes {
        let mut src = Sources {
            dir,
            size,
            large: None,
            plain: None,
        };
        let inputs: Vec<Module> = PASSES
            .iter()
            .map(|p| prepare(src.get(input_of(*p).0), input_of(*p).1))
            .collect();
        let mut times = vec![Vec::new(); PASSES.len()];
        for _ in 0..repeat {
            for (k, p) in PASSES.iter().enumerate() {
                times[k].push(time_once(*p, &inputs[k]).0);
            }
        }
        for (k, t) in times.into_iter().enumerate() {
            let n = inputs[k].inst_count();
            ns[k].push(median(t).as_secs_f64() * 1e9 / n as f64);
            counts[k].push(n);
        }
    }
    let head: Vec<String> = sizes.iter().map(|s| format!("{s:>9}")).collect();
    println!(
        "{:<22} {}  ratio (ns/inst, medians of {repeat})",
        "pass",
        head.join(" ")
    );
    for (k, p) in PASSES.iter().enumerate() {
        let cells: Vec<String> = ns[k].iter().map(|v| format!("{v:>9.2}")).collect();
        let ratio = ns[k].last().unwrap_or(&0.0) / ns[k].first().unwrap_or(&1.0);
        println!("{:<22} {}  {ratio:.2}", p.name(), cells.join(" "));
    }
    println!("instructions seen by each pass:");
    for (k, p) in PASSES.iter().enumerate() {
        let cells: Vec<String> = counts[k].iter().map(|v| format!("{v:>9}")).collect();
        println!("{:<22} {}", p.name(), cells.join(" "));
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: pass_scaling one PASS,…|all SIZE [DIR] [large|plain[+PASS,…]] | table [DIR] [REPEAT] [SIZES]"
    );
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("one") => one(&args[1..]),
        Some("table") => table(&args[1..]),
        _ => usage(),
    }
}

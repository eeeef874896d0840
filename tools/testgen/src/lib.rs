//! # xir-testgen — test support for the xir crates (never a product dependency)
//!
//! Only tests, benchmarks, examples and tools depend on this crate; `cargo tree -e normal`
//! of xir-ir, xir-passes and xir-driver does not contain it. It holds the random-module
//! generator (this module), [`samples`] (hand-built modules covering every instruction
//! tag and interchange record) and [`structural_eq`] (module equality up to renumbering).
//!
//! A deterministic generator of random *valid* XIR modules, for property tests
//! (round trips, pass invariants, verifier soundness) and fuzzing seeds.
//!
//! [`generate_module`] builds a module from a seed with its own small PRNG (no external
//! crates): callables with value/reference/resource arguments, external declarations,
//! raster stages and a kernel (sometimes with a non-default block size) that owns one
//! argument of every resource kind. Function bodies mix straight-line op "recipes" (one
//! per op of every op enum, rotated by seed so a few hundred seeds cover them all) with
//! structured constructs (`if`, `switch`, `loop`, `simple_loop`, `ray_query_loop` with
//! dispatch, `autodiff`, `outline`, `break`/`continue`) and plain control flow
//! (`cond_br` diamonds and loops with phis, `indexed_branch`), coroutine suspend/resume
//! with exports and extensions, undefined values, special registers, metadata of every
//! kind and blocks unreachable by traversal. Every generated module passes
//! [`verify_module`](xir_ir::verify::verify_module) with default options.
//!
//! [`generate_exec_kernel`] is the executable mode: kernels a reference interpreter runs
//! without undefined behaviour (in-bounds indices, non-zero divisors, bounded loops,
//! locals written before read, race-free shared memory), for differential pass testing.
//!
//! [`coverage`] reports which instruction kinds, ops, types, metadata kinds, special
//! registers and structural features a set of modules exercises, and what is missing.

mod arith_recipes;
mod control;
mod coverage;
mod exec;
mod fb;
mod holder;
mod plain_cfg;
mod recipes;
mod resources;
pub mod samples;
#[cfg(test)]
mod signature_tests;
pub mod structural_eq;

pub use coverage::{Coverage, TYPE_VARIANTS, coverage};
pub use exec::{ExecConfig, ExecKernel, generate_exec_kernel};
pub use holder::T;
pub use plain_cfg::generate_plain_cfg_module;
pub use structural_eq::structural_diff;
/// The generators' PRNG lives in `xir-ir` because the interpreter's input generator
/// (product code behind `xir-opt --check-semantics`) uses it too.
pub use xir_ir::rng::Rng;

use fb::Fb;
use xir_ir::function::{ArgKind, Function, FunctionKind};
use xir_ir::metadata::Metadata;
use xir_ir::module::Module;
use xir_ir::types::{ScalarKind, Type, TypeData};
use xir_ir::value::FuncId;

/// Knobs for [`generate_module`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// Maximum nesting depth of control-flow constructs.
    pub max_depth: u32,
    /// Maximum statements (recipes or constructs) per region.
    pub max_stmts: u32,
    /// Maximum number of helper callables.
    pub max_callables: u32,
    /// Op recipes guaranteed per module (taken from a seed-rotated window of the full
    /// recipe list, so `total / recipes_per_module` consecutive seeds cover every op).
    pub recipes_per_module: u32,
}

impl Default for GenConfig {
    fn default() -> Self {
        Self {
            max_depth: 3,
            max_stmts: 5,
            max_callables: 3,
            recipes_per_module: 48,
        }
    }
}

/// Module-wide facts function builders share.
pub(crate) struct Env {
    /// Callables and externals that may be called, in creation order.
    pub callees: Vec<FuncId>,
    /// Ray-query pipeline handlers (surface, procedural) and their capture types.
    pub rq_handlers: Option<(FuncId, FuncId, Vec<Type>)>,
    /// The recipe window of this module (indices into [`recipes::ALL_COUNT`]).
    pub recipes: Vec<usize>,
    /// The construct kinds this module must contain.
    pub constructs: Vec<control::Construct>,
    /// Configuration.
    pub cfg: GenConfig,
    /// The seed (for rotations).
    pub seed: u64,
}

/// Generates a random valid module from `seed` (deterministic).
pub fn generate_module(seed: u64, cfg: &GenConfig) -> Module {
    let mut rng = Rng::new(seed);
    let mut m = Module::new();
    let n_recipes = recipes::ALL_COUNT;
    let k = (cfg.recipes_per_module as usize).min(n_recipes).max(1);
    let start = (seed as usize).wrapping_mul(k) % n_recipes;
    let mut window: Vec<usize> = (0..k).map(|j| (start + j) % n_recipes).collect();
    for _ in 0..rng.below(6) {
        window.push(rng.index(n_recipes));
    }
    let all = control::Construct::ALL;
    let mut constructs: Vec<control::Construct> = (0..3)
        .map(|j| all[(seed as usize).wrapping_mul(3).wrapping_add(j) % all.len()])
        .collect();
    for _ in 0..rng.below(3) {
        constructs.push(rng.pick(&all));
    }
    let mut env = Env {
        callees: Vec::new(),
        rq_handlers: None,
        recipes: window,
        constructs,
        cfg: cfg.clone(),
        seed,
    };
    module_metadata(&mut m, &mut rng, seed);
    // Externals (declarations only).
    for _ in 0..1 + rng.below(2) {
        let ret = if rng.chance(50) {
            Some(m.types.f32())
        } else {
            None
        };
        let mut f = Function::new(FunctionKind::External, ret);
        let t = m.types.u32();
        f.add_arg(ArgKind::Value, t);
        if rng.chance(40) {
            f.metadata.push(Metadata::ContiguousCopy {
                element_count: 1 + rng.below(64),
                vector_width: 1 << rng.below(3),
            });
        }
        let id = m.add_function(f);
        env.callees.push(id);
    }
    // Ray-query pipeline handlers.
    let q = custom(&mut m, "LC_RayQueryAll");
    let cap = m.types.f32();
    let mut handlers = Vec::new();
    for _ in 0..2 {
        let mut f = Function::new(FunctionKind::Callable, None);
        f.add_arg(ArgKind::Reference, q);
        f.add_arg(ArgKind::Value, cap);
        let mut b = Fb::new(&mut m, &mut rng, &env, f);
        b.seed_args();
        b.handler_body();
        let f = b.finish();
        handlers.push(m.add_function(f));
    }
    env.rq_handlers = Some((handlers[0], handlers[1], vec![cap]));
    // Helper callables with value, reference and resource arguments.
    for _ in 0..rng.below(cfg.max_callables as u64 + 1) {
        let f = callable_signature(&mut m, &mut rng);
        let mut b = Fb::new(&mut m, &mut rng, &env, f);
        b.seed_args();
        b.body(false);
        let f = b.finish();
        let id = m.add_function(f);
        env.callees.push(id);
    }
    // Raster stages.
    if rng.chance(60) {
        for kind in [FunctionKind::RasterVertex, FunctionKind::RasterFragment] {
            let ret = Some(vec_ty(&mut m, ScalarKind::F32, 4));
            let mut f = Function::new(kind, ret);
            let t = vec_ty(&mut m, ScalarKind::F32, 3);
            f.add_arg(ArgKind::Value, t);
            let mut b = Fb::new(&mut m, &mut rng, &env, f);
            b.seed_args();
            b.raster_body(kind == FunctionKind::RasterFragment);
            let f = b.finish();
            m.add_function(f);
        }
    }
    // The kernel, which carries the recipe window.
    let block_size = if rng.chance(40) {
        rng.pick(&[
            [8, 8, 1],
            [32, 1, 1],
            [16, 4, 2],
            [256, 1, 1],
            [4, 4, 4],
            [1024, 1, 1],
        ])
    } else {
        FunctionKind::DEFAULT_BLOCK_SIZE
    };
    let mut f = Function::new(FunctionKind::Kernel { block_size }, None);
    resources::add_kernel_resources(&mut m, &mut f);
    let mut b = Fb::new(&mut m, &mut rng, &env, f);
    b.seed_args();
    b.body(true);
    let f = b.finish();
    m.add_function(f);
    m
}

fn module_metadata(m: &mut Module, rng: &mut Rng, seed: u64) {
    let forced = xir_ir::metadata::MetadataKind::ALL[(seed % 9) as usize];
    m.metadata.push(fb::metadata_of(forced, rng));
    if rng.chance(50) {
        m.metadata.push(Metadata::Name(format!("module_{seed}")));
    }
}

fn callable_signature(m: &mut Module, rng: &mut Rng) -> Function {
    let rets = [
        ScalarKind::F32,
        ScalarKind::I32,
        ScalarKind::U32,
        ScalarKind::Bool,
    ];
    let ret = if rng.chance(25) {
        None
    } else {
        let k = rng.pick(&rets);
        Some(m.types.scalar(k))
    };
    let mut f = Function::new(FunctionKind::Callable, ret);
    for _ in 0..rng.below(4) {
        let k = rng.pick(&rets);
        let t = if rng.chance(30) {
            vec_ty(m, k, 2 + rng.below(3) as u8)
        } else {
            m.types.scalar(k)
        };
        let kind = if rng.chance(35) {
            ArgKind::Reference
        } else {
            ArgKind::Value
        };
        f.add_arg(kind, t);
    }
    if rng.chance(30) {
        let (t, _) = resources::resource_types(m)[rng.index(3)];
        f.add_arg(ArgKind::Resource, t);
    }
    if rng.chance(15) {
        f.metadata.push(Metadata::SignatureConstraint);
    }
    if rng.chance(15) {
        f.metadata.push(Metadata::NoInline);
    }
    f
}

/// `vector<k, n>`.
pub(crate) fn vec_ty(m: &mut Module, k: ScalarKind, n: u8) -> Type {
    let e = m.types.scalar(k);
    m.types.vector(e, n)
}

/// A custom (opaque) type.
pub(crate) fn custom(m: &mut Module, name: &str) -> Type {
    m.types.intern(TypeData::Custom { name: name.into() })
}

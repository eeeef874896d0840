//! `canonicalize-spirv-one-shot-loops` — loops that can never iterate twice become
//! plain regions.
//!
//! **What:** a reachable `loop` or `simple_loop` is *one-shot* when the region reached
//! from its header (the `loop`'s prepare, the `simple_loop`'s body) along successor
//! operands, without crossing its merge, has no edge back to the header and no entry
//! from a reachable block outside the region other than the construct's own edge to the
//! header. Such a loop's terminator becomes `br header`; inside its region, `break`s to
//! its merge and `continue`s to its continue target (or header) become `br` (counted as
//! upstream counts them). The definition is then restructured at once, so the result is
//! structured again with the same block identities (the former loop body now sits in
//! plain `if`s). A definition without a one-shot loop is not touched; the pass is
//! idempotent because restructuring never forms a loop without a back edge.
//!
//! **Algorithm:** per definition, find the candidates (one region walk per reachable
//! loop; exact graph properties, no condition folded). For a definition with
//! candidates, on a copy: rewrite the candidates, turn every remaining structured
//! terminator into its plain form (`destructure-cfg`'s rewrite, without the return
//! spill), and run `restructure-cfg`'s algorithm and its boundary verification. Every
//! definition is committed only when all succeeded.
//!
//! **Preconditions:** the restructure-cfg input contract for affected definitions:
//! phi-free (this pass runs after `reg2mem` and `restructure-cfg` in
//! `spirv-post-restructure`), reducible, no `outline`/`ray_query_loop` terminator
//! (`destructure-cfg` refuses both); `autodiff` scopes are restructured around as
//! `restructure-cfg` does.
//!
//! **Refusals** (module byte-identical; upstream treats these as fatal errors): a
//! definition with a one-shot loop that cannot be restructured afterwards — it has a
//! phi, an `outline`/`ray_query_loop` terminator (message from `destructure-cfg`), or
//! restructuring fails (message from `restructure-cfg`).
//!
//! **Upstream followed:** LuisaCompute `src/backends/common/spirv_codegen/utils.cpp`,
//! `canonicalize_spirv_codegen_one_shot_loops` (candidate rule, region walk, single
//! entry, break/continue rewrite and counters, one restructure afterwards) and its
//! pipeline entry in `create_spirv_codegen_post_restructure_pipeline`. Upstream's
//! `restructure_cfg` accepts mixed structured input; here the affected definition is
//! made plain first because `restructure-cfg` takes plain CFG only.
//!
//! **Report keys:** `lowered_loop`, `lowered_simple_loop`, `rewritten_break`,
//! `rewritten_continue`. **Changed:** any is non-zero.
//!
//! **Example:**
//! ```text
//! %e: simple_loop %b, merge %m        %b: if %c, then %t, else %f, merge %j
//! %t: break %m   %f: break %m   %j: unreachable   %m: return
//! →  %e: br %b   %b: if %c, then %t, else %f, merge %m   %t: br %m   %f: br %m
//! ```

use crate::declare::Counters;
use crate::form::describe_function;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::transform::destructure_cfg::{Problem, destructure_terminators, preflight_function};
use crate::transform::restructure_cfg::{Failure, Limits, preflight, restructure_function};
use xir_ir::inst::InstKind;
use xir_ir::verify::{VerifyOptions, verify_function};
use xir_ir::{BlockId, FuncId, Function, Globals, InstId, Module, SecondaryMap, Value};

/// The `canonicalize-spirv-one-shot-loops` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct CanonicalizeSpirvOneShotLoops;

crate::declare_pass! {
    CanonicalizeSpirvOneShotLoops: module pass "canonicalize-spirv-one-shot-loops" {
        summary: "Turns loops without a back edge into plain regions (then restructures).",
        form: Either,
        counters: CanonicalizeSpirvOneShotLoopsCounters {
            /// One-shot `loop`s lowered.
            lowered_loop: ControlFlow,
            /// One-shot `simple_loop`s lowered.
            lowered_simple_loop: ControlFlow,
            /// `break`s to a lowered loop's merge rewritten to `br`.
            rewritten_break: ControlFlow,
            /// `continue`s of a lowered loop rewritten to `br`.
            rewritten_continue: ControlFlow,
        }
    }
}

/// A one-shot loop.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The block ending in the loop.
    pub owner: BlockId,
    /// The loop terminator.
    pub loop_inst: InstId,
    /// Prepare (`loop`) or body (`simple_loop`).
    pub header: BlockId,
    /// Update (`loop`) or body (`simple_loop`).
    pub continue_target: BlockId,
    /// Merge.
    pub merge: BlockId,
    /// Blocks reached from the header without crossing the merge.
    pub region: Vec<BlockId>,
    /// Whether it is a `simple_loop`.
    pub simple: bool,
}

/// The one-shot loops of `func` (no mutation).
pub fn candidates(func: &Function) -> Vec<Candidate> {
    let mut owned: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    let mut preds: SecondaryMap<BlockId, Vec<BlockId>> = SecondaryMap::with_default(Vec::new());
    for &b in &func.block_order {
        owned[b] = true;
    }
    let live = crate::util::reach::reachable(func);
    for &b in &func.block_order {
        if live[b] {
            for s in func.successors(b) {
                preds[s].push(b);
            }
        }
    }
    let mut out = Vec::new();
    for &owner in &func.block_order {
        if !live[owner] {
            continue;
        }
        let Some(t) = func.terminator(owner) else {
            continue;
        };
        let d = func.inst(t);
        let first = d.operands.first().and_then(|v| v.as_block());
        let (header, cont, merge, simple) = match (&d.kind, first) {
            (
                InstKind::Loop {
                    update: Some(u),
                    merge: Some(m),
                    body: Some(_),
                },
                Some(p),
            ) => (p, *u, *m, false),
            (InstKind::SimpleLoop { merge: Some(m) }, Some(b)) => (b, b, *m, true),
            _ => continue,
        };
        if !owned[header] || !owned[cont] || !owned[merge] || header == merge {
            continue;
        }
        let mut in_region: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
        let mut region = vec![header];
        in_region[header] = true;
        let mut work = vec![header];
        let mut reject = false;
        'walk: while let Some(b) = work.pop() {
            if func.terminator(b).is_none() {
                reject = true;
                break;
            }
            for s in func.successors(b) {
                if s == merge {
                    continue;
                }
                if !owned[s] || s == header {
                    reject = true;
                    break 'walk;
                }
                if !in_region[s] {
                    in_region[s] = true;
                    region.push(s);
                    work.push(s);
                }
            }
        }
        if reject {
            continue;
        }
        let external = region.iter().any(|&rb| {
            preds[rb]
                .iter()
                .any(|&p| !(in_region[p] || rb == header && p == owner))
        });
        if external {
            continue;
        }
        out.push(Candidate {
            owner,
            loop_inst: t,
            header,
            continue_target: cont,
            merge,
            region,
            simple,
        });
    }
    out
}

/// Lowers the candidates of a copy of `func`, makes it plain and restructures it.
fn canonicalize(
    func: &mut Function,
    g: &mut Globals<'_>,
    cands: &[Candidate],
    c: &mut CanonicalizeSpirvOneShotLoopsCounters,
) -> Result<(), Failure> {
    for cand in cands {
        for &b in &cand.region {
            let Some(t) = func.terminator(b) else {
                continue;
            };
            let d = func.inst(t);
            let target = d.operands.first().and_then(|v| v.as_block());
            match (&d.kind, target) {
                (InstKind::Break, Some(x)) if x == cand.merge => c.rewritten_break += 1,
                (InstKind::Continue, Some(x))
                    if x == cand.continue_target || x == cand.header =>
                {
                    c.rewritten_continue += 1
                }
                _ => {}
            }
        }
        let d = func.inst_mut(cand.loop_inst);
        d.kind = InstKind::Branch;
        d.operands.clear();
        d.operands.push(Value::Block(cand.header));
        if cand.simple {
            c.lowered_simple_loop += 1;
        } else {
            c.lowered_loop += 1;
        }
    }
    if let Some(p) = preflight_function(func).first() {
        let (block, what) = match *p {
            Problem::Unterminated(b) => (b, "is not terminated"),
            Problem::Malformed(b, what) => (b, what),
        };
        return Err(Failure::Invalid { block, what });
    }
    destructure_terminators(func);
    if preflight(func)? {
        restructure_function(func, g, Limits::default())?;
    }
    Ok(())
}

impl Pass for CanonicalizeSpirvOneShotLoops {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = CanonicalizeSpirvOneShotLoopsCounters::default();
        let mut work: Vec<(FuncId, Vec<Candidate>)> = Vec::new();
        for &f in &module.func_order {
            let func = module.func(f);
            if func.body.is_none() {
                continue;
            }
            let cands = candidates(func);
            if !cands.is_empty() {
                work.push((f, cands));
            }
        }
        let opts = VerifyOptions {
            require_unique_merge_blocks: true,
            require_canonical_break_continue_targets: true,
            ..VerifyOptions::default()
        };
        let mut originals: Vec<(FuncId, Function)> = Vec::new();
        let constants_before = module.constants.len();
        for (f, cands) in &work {
            let mut copy = module.func(*f).clone();
            let mut result = canonicalize(&mut copy, &mut module.globals(), cands, &mut c)
                .map_err(|e| format!("restructuring it fails: {}", e.describe(module, *f)));
            if result.is_ok() {
                originals.push((*f, std::mem::replace(module.func_mut(*f), copy)));
                if let Some(d) = verify_function(module, *f, &opts, None).first() {
                    result = Err(format!("is invalid once restructured: {}", d.message));
                }
            }
            if let Err(why) = result {
                for (g, orig) in originals.drain(..).rev() {
                    *module.func_mut(g) = orig;
                }
                // Guard variables' constants (restructure-cfg) go with the copies.
                let new: Vec<_> = module.constants.iter().skip(constants_before).map(|(k, _)| k).collect();
                for k in new {
                    module.remove_constant(k);
                }
                let c = CanonicalizeSpirvOneShotLoopsCounters::default();
                return Ok(PassRun::refused(
                    format!(
                        "{} has a one-shot loop but {why}",
                        describe_function(module, *f)
                    ),
                    c.report(),
                ));
            }
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}

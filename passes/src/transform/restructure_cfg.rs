//! `restructure-cfg` — a phi-free reducible plain CFG back to structured control flow.
//!
//! **What:** every definition whose control flow is plain (`br`, `cond_br`,
//! `indexed_branch`, `return`, `unreachable`, `raster_discard`) gets structured `if`,
//! `switch`, `loop` and `simple_loop` constructs with `break`/`continue`, following
//! SPIR-V's structured-exit rules: an `if` arm may leave only to its own merge, the
//! nearest enclosing `switch` merge, or the nearest loop's merge or continue block; a
//! `switch` case may not leave to an enclosing switch's merge (nor to a loop merge past
//! it: `break` there would name the switch). Block and instruction identities are kept;
//! the only new blocks are edge trampolines, loop preheaders and merges, and copies of
//! small exit blocks and small join subtrees (below). A definition that is already structured is left alone, so
//! the pass is idempotent.
//!
//! **Algorithm** (per definition; all walks iterative, so depth is not bounded by the
//! stack):
//! 1. *Preflight* (no mutation): no phi (run `reg2mem` first), every owned block
//!    terminated, no structured construct mixed with plain branches, and reducible: with
//!    a DFS reverse post-order, every retreating edge `u → v` must have `v` dominate `u`.
//!    An offending edge's strongly connected region is reported with its blocks and its
//!    entries.
//! 2. *Exit blocks:* a reachable block ending in `return`/`unreachable`/`raster_discard`
//!    with several predecessors and at most [`TAIL_DUPLICATION_LIMIT`] instructions is
//!    copied once per extra predecessor (undoing `destructure-cfg`'s single exit, so
//!    early returns inside loops and ifs stay where they were).
//! 3. *Loops:* natural loops (headers = targets of back edges; bodies by a backward walk
//!    from the latches that collapses inner loops to their headers). Each loop must leave
//!    to one block; that block becomes its merge, behind a new trampoline when it has
//!    predecessors outside the loop (no exit at all: a new `unreachable` merge). A loop
//!    still leaving to several blocks gets a guard variable (`guards.rs`): each exit
//!    stores its target's selector and goes to a new dispatch block, the merge, whose
//!    `if` chain goes on to the chosen target in the enclosing region. Before
//!    that, each loop (innermost first) absorbs the code after its `break` paths: an exit
//!    target all of whose predecessors are in the loop joins it, a small exit block
//!    shared with outside code is copied, and a whole loop entered only from this one
//!    (code after a `break` that loops on its own, e.g. an inner loop on the outer loop's
//!    break path) is adopted as a child. An edge still leaving `k ≥ 2` loops at once is
//!    a multi-level break: its target joins the innermost loop that holds all its
//!    predecessors (code after the inner loop's `break`) when it heads no loop;
//!    otherwise the edge leaves one loop at a time through a chain of `k - 1`
//!    trampolines, one in each enclosing loop it leaves (shared per loop and target),
//!    so every loop then leaves to its own merge and a trampoline, and the guard above
//!    dispatches at each loop's merge: break again (the next trampoline) or continue /
//!    go on to the target. SPIR-V's exit rules are not loosened: each `break` still
//!    leaves one loop. Each header gets a
//!    dedicated preheader (its single outside predecessor when that ends in `br`, a new
//!    block otherwise; a new body block when the header is the body, taking its allocas).
//!    The preheader's `br` becomes `loop prepare H, body B, update U, merge M` when the
//!    header ends in `cond_br c, B, M` (or `br B`), `B` has no other predecessor and one
//!    latch `U ≠ B` ends in `br H` with every predecessor inside the loop; otherwise
//!    `simple_loop H, merge M`.
//! 4. *Extra joins* (`joins.rs`): a selection block with several joins keeps the earliest
//!    (reverse post-order) as its merge; each later join whose dominator subtree is small
//!    (at most `JOIN_TAIL_LIMIT` = 64 instructions) and holds no loop role is copied for every
//!    forward predecessor the merge does not dominate (a `return` path that
//!    `destructure-cfg` joined with the code after the selection gets its own tail).
//!    A later join that cannot be copied is reached through a guard at the merge (below).
//! 5. *Selections:* a walk from the body keeps a stack of constructs. A `cond_br` /
//!    `indexed_branch` in block `X` becomes `if` / `switch`; its merge is the one
//!    dominator-tree child of `X` with two or more forward predecessors that is not a loop
//!    role (none: an `if` gets no merge unless an arm must reach an enclosing `if`'s merge,
//!    then a forwarding merge is created on demand; a `switch` gets an `unreachable`
//!    merge). Every edge is classified: to the innermost selection's merge (`br`, or
//!    `break` for a switch), through merge-less selections to an enclosing selection's
//!    merge (forwarding merges created), to the nearest loop/switch merge (`break`), to
//!    the nearest loop's continue block (`continue`), into a block whose only forward
//!    predecessor is `X` (the region goes on), or, past `if`s and merge-less switches, to
//!    the merge of the nearest enclosing switch or loop (`break`: `if`s do not catch it;
//!    each merge-less switch between gets a forwarding merge that breaks onwards), or,
//!    when the target is a small exit block (as in step 2), into a copy of its own. An
//!    arm whose target is an exit gets a trampoline block holding that exit. An edge
//!    to the merge or continue block of a construct further out than the innermost
//!    construct merge it may reach (a `switch` case in a loop that leaves or continues
//!    the loop: `break` would name the switch) goes through a *guard variable*
//!    (`guards.rs`): it stores a selector into a new `u32` local and goes to that merge,
//!    where a dispatch block loads and clears the local and an `if` chain goes on to the
//!    target, one construct at a time; the walk then reruns on the plain CFG with the
//!    guard in place (bounded by `main-iteration-limit`). When the innermost construct
//!    with a merge has only one the walk made to forward another exit (a merge-less
//!    switch whose case breaks the loop while another case goes to the latch), a new
//!    dispatch block becomes its merge, taking the forwarded exits (selector 1) and the
//!    edge (selector 2); when an `if` with such a merge sits inside a switch with one,
//!    the switch gets it (only the switch stops a `br` out of the `if`), and on the
//!    rerun the dispatch block is that selection's merge even when the selection
//!    reaches it only through a nested construct. Anything else is an unstructured
//!    branch.
//! 6. Unreachable blocks whose plain multi-way branch remains are sealed (below).
//! 7. The candidate is verified (default checks plus unique merges and canonical
//!    `break`/`continue` targets).
//!
//! **Regions** (`regions.rs`): an `autodiff` scope or `outline` region is one step from
//! its block to its merge. Its body (the blocks reachable from its entry without passing
//! its merge) is restructured with the rest, inside a construct that no `break`,
//! `continue` or guard crosses, and the region instruction is kept (same identity; its
//! entry becomes a preheader when the entry heads a loop, its merge a new block when the
//! merge is a small exit block or another construct's role). The preflight refuses a
//! body entered other than at its entry from the region's block, or leading back to that
//! block: a region is left only through its merge, so a `break`/`continue` out of it or
//! a block it shares with code outside it is refused, with both blocks named, except a
//! small exit block (the single exit `destructure-cfg` makes for early returns), which
//! the body gets a copy of, so an early `return` stays inside the region.
//! `ray_query_loop` is refused (run `lower-ray-query-to-loop` first).
//!
//! **Preconditions:** phi-free (run `reg2mem` first), reducible, plain CFG apart from
//! `autodiff` / `outline` regions; checked by step 1, which refuses otherwise.
//!
//! **Modes** (`mode=`): `transactional` (default) transforms each definition in place
//! under its undo log (`Function::begin_journal`: the original of every instruction and
//! block record it changes is kept, no copy of the definition), verifies it and commits the
//! whole module only when every definition succeeded; any failure rolls every definition
//! back and leaves the module byte-identical (a refusal). `in-place-discardable` transforms
//! the definitions without a log (as SPIR-V's pipeline asks); a failure after the
//! preflight is then a hard error and the module must be discarded. Failures found by the
//! preflight are refusals in both modes.
//!
//! **Bounds** (upstream's safety limits; exhaustion fails the pass, never a partial
//! result): `main-iteration-limit` (10000) bounds the constructs formed per definition;
//! `post-iteration-limit` (64) bounds how many merge-less selections one forwarded exit
//! may cross. Raise them for very large generated functions.
//!
//! **Unreachable blocks** (true orphans: the input is plain, so none is a role block)
//! keep their instructions; one that ends in a plain `cond_br` / `indexed_branch` gets
//! `unreachable` as its terminator instead (it never runs, and no construct can be
//! headed outside the body's CFG; the seed excludes true orphans from the structural
//! closure). `clear-spirv-inactive-payloads` is the pass that empties them.
//!
//! **Upstream followed:** LuisaCompute `include/luisa/xir/passes/restructure_cfg.h`
//! (options, modes, bounds, `changed()`/`succeeded()`, failure counters) and the reference
//! §6.2 / seed "Structured control flow and Phi" for the exit rules. Where structured
//! exits alone cannot express a shape, this pass duplicates small tails (exit blocks,
//! join subtrees), as upstream's restructurer does with shared exits, and otherwise
//! takes the exit through a guard (flag) variable, the standard answer for exits SPIR-V
//! forbids (an ordinary function-local variable, so the output stays phi-free and
//! `mem2reg` promotes it). Guards are made only when an edge needs one. Upstream's
//! algorithm is a much larger fixed point of canonicalization phases with ~45 diagnostic
//! work counters; this is a different (single-walk) algorithm, so those work counters are
//! not published. Upstream verifies input and output at the boundary; here the pipeline
//! verifies the input, and the pass verifies each candidate definition
//! (`boundary_verifier`). Regions, as read on 2026-12-02 in `restructure_cfg.cpp` at
//! commit `011366cd5cae`: its preflight (`count_invalid_structured_constructs`) checks
//! only the ownership of a region's merge and otherwise accepts `AUTODIFF_SCOPE`,
//! `OUTLINE` and `RAY_QUERY_LOOP`; its CFG follows operand successors, so a region is
//! an edge into its entry, the body is restructured with the rest of the function, and
//! the region instruction is never rewritten (`retarget_terminator` leaves it alone).
//! Its pre-autodiff pipeline (reference §7.5) runs it on exactly that input: after
//! `destructure-cfg`, which keeps autodiff scopes with plain bodies and rejects
//! `outline` and `ray_query_loop`, and before `autodiff` lowers the scopes. Upstream
//! states no rule for an edge leaving a region body; here it is refused (fail closed:
//! the structured form would accept it as an `if` exit, but autodiff would not see the
//! scope's end). Multi-level exits, as read on 2026-12-02 in
//! `restructure_cfg_loop_boundary.cpp` (commit `7a290ff3f2c8`): its loop-boundary
//! analysis normalises raw edges to a loop's own merge and continue target (`continue`
//! from any switch case, `break` only where no nested switch is active, an ordinary
//! branch otherwise) and states no rule for an edge leaving several loops; here such an
//! edge leaves one loop at a time (step 3), through guards at each loop's merge.
//!
//! **Checked** (docs/semantic-checking.md): on generated kernels 0..10000 (8 inputs
//! each), the round trip `destructure-cfg,reg2mem,restructure-cfg,mem2reg` and
//! `spirv-final` (`optimize=false`) complete on every kernel with 0 changed results:
//! `PASS_SEMANTICS_ONLY='round trip,spirv-final,restructure-cfg'
//! target/debug/examples/pass_semantics 2500 START 8` for START = 0, 2500, …, 7500.
//! With multi-level exits (2026-12-02): every shipped pipeline, the optimising
//! `pre-autodiff` and `spirv-final` included, completes on kernels 0..1000 with 0 changed
//! results (`PASS_SEMANTICS_ONLY='pipeline' target/debug/examples/pass_semantics 1000 0
//! 4`), and the round trip, `spirv-final` and this pass on kernels 0..2000 (`… 2000 0 8`
//! with the patterns above); with the generator's pass-input shapes (branch `testgen`,
//! measured just before the multi-level exits were merged) the round trips and both
//! `spirv-final`s complete on 2,000 of 2,000 with 0 changed results.
//!
//! **Report keys:** `restructured_loop`, `restructured_if`, `restructured_switch`,
//! `canonicalized_cfg` (auxiliary rewrites: trampolines, preheaders, exit copies,
//! folded `cond_br` with equal arms), `guard_variables` (guard locals created),
//! `definition_transform_invocation`,
//! `boundary_verifier`, `irreducible_region`, `unstructured_branch`,
//! `invalid_construct`, `iteration_limit`. **Changed:** any of the first five is
//! non-zero.
//!
//! **Example:**
//! ```text
//! %e: cond_br %c, %t, %f   %t: br %m   %f: br %m   %m: return
//! →  %e: if %c, then %t, else %f, merge %m   (arms keep `br %m`)
//! ```

mod exits;
mod failure;
mod guards;
mod joins;
mod loops;
mod preflight;
mod regions;
mod walk;

pub use failure::{Failure, Restructured};
pub use preflight::preflight;

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::registry::{PassOptionInfo, PassOptions};
use xir_ir::verify::{VerifyOptions, verify_function};
use xir_ir::{FuncId, Function, Globals, Module};

/// Exit blocks with at most this many instructions are copied per predecessor.
pub const TAIL_DUPLICATION_LIMIT: usize = 16;

/// The `restructure-cfg` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct RestructureCfg {
    /// `mode=in-place-discardable`.
    pub in_place: bool,
    /// Safety bounds.
    pub limits: Limits,
}

crate::declare_pass! {
    RestructureCfg: module pass "restructure-cfg" {
        summary: "Plain reducible CFG to structured control flow (also inside autodiff and outline regions, which stay).",
        form: Either,
        options: [
            PassOptionInfo {
                name: "mode",
                default: "transactional",
                help: "transactional (refuse untouched on failure) or in-place-discardable",
            },
            PassOptionInfo {
                name: "main-iteration-limit",
                default: "10000",
                help: "most constructs formed per definition before the pass gives up",
            },
            PassOptionInfo {
                name: "post-iteration-limit",
                default: "64",
                help: "most merge-less selections one forwarded exit may cross",
            },
        ],
        create: create,
        counters: RestructureCfgCounters {
            /// `loop` / `simple_loop` constructs formed.
            restructured_loop: ControlFlow,
            /// `if` constructs formed.
            restructured_if: ControlFlow,
            /// `switch` constructs formed.
            restructured_switch: ControlFlow,
            /// Auxiliary rewrites (trampolines, preheaders, merges, exit copies).
            canonicalized_cfg: ControlFlow,
            /// Guard (flag) variables created for exits taken one construct at a time.
            guard_variables: ControlFlow,
            /// Definitions transformed.
            definition_transform_invocation: Nothing,
            /// Candidate definitions verified.
            boundary_verifier: Nothing,
            /// Irreducible regions (refusal).
            irreducible_region: Nothing,
            /// Unstructured branches (refusal).
            unstructured_branch: Nothing,
            /// Invalid input or candidates (refusal).
            invalid_construct: Nothing,
            /// Exhausted bounds (refusal).
            iteration_limit: Nothing,
        }
    }
}

fn create(o: &PassOptions) -> Result<RestructureCfg, String> {
    let in_place = match o.get("mode") {
        None | Some("transactional") => false,
        Some("in-place-discardable") => true,
        Some(v) => {
            return Err(format!(
                "option 'mode' expects transactional or in-place-discardable, got '{v}'"
            ));
        }
    };
    Ok(RestructureCfg {
        in_place,
        limits: Limits {
            main: o.get_u64("main-iteration-limit", 10000)?,
            post: o.get_u64("post-iteration-limit", 64)?,
        },
    })
}

/// Safety bounds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Constructs formed per definition.
    pub main: u64,
    /// Merge-less selections one forwarded exit may cross.
    pub post: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            main: 10000,
            post: 64,
        }
    }
}

impl Pass for RestructureCfg {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = RestructureCfgCounters::default();
        let mut todo = Vec::new();
        let mut first: Option<(FuncId, Failure)> = None;
        for &f in &module.func_order {
            let func = module.func(f);
            if func.body.is_none() {
                continue;
            }
            match preflight(func) {
                Ok(true) => todo.push(f),
                Ok(false) => {}
                Err(e) => {
                    e.count(&mut c);
                    first.get_or_insert((f, e));
                }
            }
        }
        if let Some((f, e)) = first {
            return Ok(PassRun::refused(e.describe(module, f), c.report()));
        }
        let opts = VerifyOptions {
            require_unique_merge_blocks: true,
            require_canonical_break_continue_targets: true,
            ..VerifyOptions::default()
        };
        // Transactional mode edits each definition in place under an undo log
        // (`Function::begin_journal`) instead of editing a copy: on a 100k-block function
        // the copy and the drop of the original were most of the pass's cache misses.
        let mut journaled: Vec<FuncId> = Vec::new();
        #[cfg(debug_assertions)]
        let mut originals: Vec<String> = Vec::new();
        let constants_before = module.constants.len();
        for &f in &todo {
            c.definition_transform_invocation += 1;
            if !self.in_place {
                #[cfg(debug_assertions)]
                originals.push(format!("{:?}", module.func(f)));
                module.func_mut(f).begin_journal();
                journaled.push(f);
            }
            let (func, mut g) = module.split(f);
            let result = restructure_function(func, &mut g, self.limits).and_then(|n| {
                c.boundary_verifier += 1;
                match verify_function(module, f, &opts, None).first() {
                    None => Ok(n),
                    Some(d) => Err(Failure::Verifier(d.message.clone())),
                }
            });
            match result {
                Ok(n) => n.add_to(&mut c),
                Err(e) => {
                    e.count(&mut c);
                    if self.in_place {
                        return Err(PassError::new(format!(
                            "restructure-cfg (mode=in-place-discardable) failed after mutating: {}",
                            e.describe(module, f)
                        )));
                    }
                    // Roll back every definition edited so far and the guards'
                    // constants, then name the input's blocks.
                    for g in journaled.drain(..).rev() {
                        module.func_mut(g).rollback_journal();
                        #[cfg(debug_assertions)]
                        assert_eq!(
                            originals.pop().as_deref(),
                            Some(format!("{:?}", module.func(g)).as_str()),
                            "restructure-cfg's undo log did not restore {g:?}"
                        );
                    }
                    let new: Vec<_> = module.constants.iter().skip(constants_before).map(|(k, _)| k).collect();
                    for k in new {
                        module.remove_constant(k);
                    }
                    return Ok(PassRun::refused(e.describe(module, f), c.report()));
                }
            }
        }
        for f in journaled {
            module.func_mut(f).commit_journal();
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}

use exits::{duplicate_exit_joins, fold_equal_arms, seal_orphan_branches};
use loops::canonicalize_loops;
use guards::Guards;
use walk::Walker;

/// "No loop" in the loop-index maps.
const NONE: u32 = u32::MAX;

/// Restructures one definition that passed [`preflight`] with `Ok(true)`; guard
/// variables' types and constants are interned in `g`.
pub fn restructure_function(
    func: &mut Function,
    g: &mut Globals<'_>,
    limits: Limits,
) -> Result<Restructured, Failure> {
    let mut n = Restructured::default();
    let (regions, merges) = regions::lower(func);
    n.canonicalized += merges;
    n.canonicalized += fold_equal_arms(func);
    n.canonicalized += duplicate_exit_joins(func);
    let mut guards = Guards::default();
    let loops = canonicalize_loops(func, g, &mut guards, &mut n)?;
    let (copies, mut graph) = joins::unshare_extra_joins(func, &loops, limits)?;
    n.canonicalized += copies;
    // The walk reruns on the plain CFG with a guard added each time it asks for one. Each
    // guard reroutes one edge of the plain CFG, so more reruns than edges (plus slack for
    // the dispatch blocks guards add) is no progress: refuse then, not after
    // `main-iteration-limit` reruns (a random plain CFG took 10,000 reruns, 12 minutes
    // in a debug build, before this bound).
    let edges: u64 = func
        .block_order
        .iter()
        .map(|&b| func.successors(b).count() as u64)
        .sum();
    let rerun_limit = limits.main.min(2 * edges + 16);
    let mut attempts = 0u64;
    let cfg = loop {
        let mut walked = Restructured::default();
        let mut w = Walker::new(func, graph, loops.clone(), limits, guards.designated_merges());
        match w.run(&mut walked) {
            Ok(()) => {
                n.loops += walked.loops;
                n.ifs += walked.ifs;
                n.switches += walked.switches;
                break w.into_cfg();
            }
            Err(Failure::Guardable { request, otherwise }) => {
                // Back to the plain CFG the walk began with (its undo log, no copy).
                w.undo();
                attempts += 1;
                if attempts > rerun_limit {
                    return Err(Failure::IterationLimit {
                        which: "main-iteration-limit",
                    });
                }
                if !guards.apply(func, g, &request)? {
                    return Err(*otherwise);
                }
                graph = guards::graph(func);
            }
            Err(e) => return Err(e),
        }
    };
    n.guards = guards.count();
    regions::restore(func, &regions);
    n.canonicalized += seal_orphan_branches(func, |b| cfg.is_reachable(b));
    Ok(n)
}

//! `loop-unswitch` — clone a read-only loop around a loop-invariant branch.
//!
//! **What:** an innermost loop holding a `cond_br` on a value defined outside the loop
//! becomes two copies of the loop: the preheader tests the invariant condition once and
//! enters the original loop, in which that `cond_br` is now `br` to its true arm, or a
//! clone, in which it is `br` to its false arm. Each copy gets its own new preheader.
//! Values of the loop used after it are merged by a new phi at the top of the exit block
//! (one incoming per copy), and the exit block's phis gain an incoming from the clone.
//!
//! **Algorithm** (as upstream's `loop_unswitch.cpp`, read at LuisaCompute `7a290ff3`;
//! facts only): per function, up to `max-unswitched-loops` times, the natural loops are
//! recomputed and visited inner first ([`crate::util::loops::natural_loops`]); the first
//! loop that passes every check is rewritten. A loop qualifies when:
//! * it is innermost, with a preheader ending in `br header`, one latch, one exit block
//!   and one exit edge; the exit block is terminated and each of its phis has exactly one
//!   incoming from the exit edge's source;
//! * its trip count is a constant above 1 ([`crate::util::loops::analyze_bounds`]: a
//!   guard cannot pay for the copy otherwise), or unknown and `guarded-dynamic-trip` is
//!   on (below); without the guard the preheader's `br` carries no metadata;
//! * every block ends in `br` or `cond_br`, and no instruction writes, synchronises
//!   (barriers, warp operations, volatile accesses) or reads the clock (the loop is
//!   read-only and does not care which invocations run it together);
//! * it has at most `max-loop-instructions` instructions (phis and terminators counted);
//! * the candidate — the first `cond_br` in reverse post-order — branches on a scalar
//!   `bool` that is not a constant or undefined and is defined outside the loop, to two
//!   different loop blocks neither of which is the header, from a block that dominates
//!   the latch;
//! * every use of a loop value outside the loop is the exit-edge incoming of an exit
//!   phi, or an ordinary instruction in a block the exit dominates (not a phi of the
//!   exit) of a value that is not an lvalue.
//!
//! *Guarded dynamic trip* (option, off by default): a loop whose trip count is unknown
//! is unswitched only when it exits from its header's `cond_br`. A new *entry guard*
//! evaluates the header condition with each header phi replaced by its preheader value
//! (cloning the header `arithmetic` it needs) and leaves to the exit on the zero-trip
//! path, giving the exit phis and the merged live-outs their values on that edge (also
//! evaluated in the guard, so they must be clonable the same way); otherwise it goes to a
//! *dispatch* block that tests the invariant condition. So a loop that runs no iteration
//! never evaluates the invariant condition, as before.
//!
//! Cloning keeps metadata (blocks and instructions); the dispatch `cond_br` takes the
//! candidate's metadata, the guard's `cond_br` the header branch's. Blocks of the original
//! loop reachable only through the dropped arm stay (unreachable; `simplify-cfg` removes
//! them). Not taken from upstream: its target hook (`candidate_filter`), which only
//! narrows the candidates.
//!
//! **Preconditions:** plain CFG. **Refusals:** any function with structured control
//! flow refuses the whole module untouched, counting those functions in
//! `structured_cfg_error` (run `destructure-cfg` first).
//!
//! **Report keys** (upstream's `unswitched-loop`, `guarded-dynamic-loop`, … with `_` for
//! `-`, as every report key here is snake_case): `unswitched_loop`, `guarded_dynamic_loop`,
//! `cloned_block`, `cloned_instruction`, `created_preheader` (2 per loop),
//! `merged_live_out`, `structured_cfg_error`. **Changed:** a loop unswitched.
//!
//! **Example:**
//! ```text
//! %pre: br %h   … %b: cond_br %inv, %t, %f …
//! →  %pre: cond_br %inv, %pt, %pf   %pt: br %h   %pf: br %h'
//!    … %b: br %t …                  … %b': br %f' …
//! ```

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::registry::{PassOptionInfo, PassOptions};
use crate::util::effects::is_lvalue;
use crate::util::loops::{analyze_bounds, def_block, has_nested_loop, in_loop, loops_and_dom, structured_refusal};
use rustc_hash::FxHashMap;
use xir_ir::analysis::{DomTree, LoopData};
use xir_ir::edit::{InsertPoint, InstBuilder, Rewriter};
use xir_ir::inst::{InstData, InstKind};
use xir_ir::inst_table::Effects;
use xir_ir::types::ScalarKind;
use xir_ir::uses::UseMap;
use xir_ir::{BlockId, FuncId, Function, InstId, Module, Value};

/// The `loop-unswitch` pass.
#[derive(Copy, Clone, Debug)]
pub struct LoopUnswitch {
    /// Largest loop (instructions, phis and terminators included) that is cloned.
    pub max_loop_instructions: u64,
    /// Loops unswitched per function at most.
    pub max_unswitched_loops: u64,
    /// Unswitch loops of unknown trip count behind an entry guard.
    pub guarded_dynamic_trip: bool,
}

impl Default for LoopUnswitch {
    fn default() -> Self {
        LoopUnswitch {
            max_loop_instructions: 64,
            max_unswitched_loops: 1,
            guarded_dynamic_trip: false,
        }
    }
}

crate::declare_pass! {
    LoopUnswitch: module pass "loop-unswitch" {
        summary: "Clones a read-only innermost loop around a loop-invariant branch (opt-in, plain CFG only)",
        form: Either,
        options: [
            PassOptionInfo {
                name: "max-loop-instructions",
                default: "64",
                help: "largest loop cloned (phis and terminators counted)",
            },
            PassOptionInfo {
                name: "max-unswitched-loops",
                default: "1",
                help: "loops unswitched per function at most",
            },
            PassOptionInfo {
                name: "guarded-dynamic-trip",
                default: "false",
                help: "also unswitch loops of unknown trip count that exit from the header, behind an entry guard",
            },
        ],
        create: |o: &PassOptions| Ok::<_, String>(LoopUnswitch {
            max_loop_instructions: o.get_u64("max-loop-instructions", 64)?,
            max_unswitched_loops: o.get_u64("max-unswitched-loops", 1)?,
            guarded_dynamic_trip: o.get_bool("guarded-dynamic-trip", false)?,
        }),
        counters: LoopUnswitchCounters {
            /// Loops unswitched.
            unswitched_loop: ControlFlow,
            /// Of those, loops of unknown trip count behind an entry guard.
            guarded_dynamic_loop: Nothing,
            /// Blocks cloned.
            cloned_block: Nothing,
            /// Instructions cloned (phis and terminators included).
            cloned_instruction: Nothing,
            /// Preheaders created (two per loop).
            created_preheader: Nothing,
            /// Loop values used after the loop, merged by a new exit phi.
            merged_live_out: Nothing,
            /// Functions with structured control flow (the module is refused).
            structured_cfg_error: Nothing,
        }
    }
}

impl Pass for LoopUnswitch {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = LoopUnswitchCounters::default();
        if let Some((n, why)) = structured_refusal(module, "loop-unswitch") {
            c.structured_cfg_error = n;
            return Ok(PassRun::refused(why, c.report()));
        }
        for f in module.func_order.clone() {
            let mut done = 0;
            while done < self.max_unswitched_loops {
                let (loops, dom) = loops_and_dom(module.func(f));
                let Some(plan) = loops.iter().find_map(|l| self.plan(module, f, l, &loops, &dom))
                else {
                    break;
                };
                transform(module, f, &plan, &mut c);
                done += 1;
            }
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}

/// A loop that passed every check.
struct Plan {
    blocks: Vec<BlockId>,
    header: BlockId,
    preheader: BlockId,
    exit_source: BlockId,
    exit: BlockId,
    candidate: InstId,
    instructions: u64,
    /// Loop values used after the loop, with the uses to reroute.
    live_outs: Vec<(InstId, Vec<(InstId, usize)>)>,
    /// The entry guard: header `cond_br`, whether its true arm is the body, and each
    /// header phi's preheader value.
    guard: Option<(InstId, bool, FxHashMap<InstId, Value>)>,
}

/// Whether `v` can be evaluated before the loop: not defined in the header, a header phi
/// `subst` covers, or header arithmetic over such values (depth-bounded).
fn guard_clonable(func: &Function, v: Value, header: BlockId, subst: &FxHashMap<InstId, Value>, depth: u32) -> bool {
    let Value::Inst(i) = v else { return true };
    if func.insts[i].block != Some(header) {
        return true;
    }
    let d = &func.insts[i];
    if d.is_phi() {
        return subst.contains_key(&i);
    }
    depth < 64
        && matches!(d.kind, InstKind::Arithmetic(_))
        && d.operands.iter().all(|&o| guard_clonable(func, o, header, subst, depth + 1))
}

impl LoopUnswitch {
    /// The checks of the module docs; `None` leaves the loop alone.
    fn plan(&self, module: &Module, f: FuncId, l: &LoopData, all: &[LoopData], dom: &DomTree) -> Option<Plan> {
        let func = module.func(f);
        let preheader = l.preheader?;
        let [latch] = l.latches[..] else { return None };
        let ([_], [(exit_source, exit)]) = (&l.exits[..], &l.exiting_edges[..]) else { return None };
        let (exit_source, exit) = (*exit_source, *exit);
        if has_nested_loop(l, all) || func.terminator(exit).is_none() {
            return None;
        }
        let exit_phis: Vec<InstId> =
            func.blocks[exit].insts.iter().copied().take_while(|&i| func.insts[i].is_phi()).collect();
        if exit_phis.iter().any(|&p| func.insts[p].phi_incoming().filter(|(_, b)| *b == exit_source).count() != 1) {
            return None;
        }
        let pt = func.terminator(preheader)?;
        if !matches!(func.insts[pt].kind, InstKind::Branch) || func.insts[pt].operands[0] != Value::Block(l.header) {
            return None;
        }
        let guarded = match analyze_bounds(module, f, l).and_then(|b| b.trip_count) {
            None if self.guarded_dynamic_trip => true,
            Some(n) if n > 1 => false,
            _ => return None,
        };
        if !guarded && !func.insts[pt].metadata.is_empty() {
            return None;
        }
        // Read-only and cohort-insensitive; bounded.
        let mut instructions = 0u64;
        for &b in &l.blocks {
            let t = func.terminator(b)?;
            if !matches!(func.insts[t].kind, InstKind::Branch | InstKind::ConditionalBranch) {
                return None;
            }
            for &i in &func.blocks[b].insts {
                let k = &func.insts[i].kind;
                if !k.is_terminator()
                    && !func.insts[i].is_phi()
                    && (k.effects().intersects(Effects::WRITES.union(Effects::BARRIER))
                        || matches!(k, InstKind::Clock))
                {
                    return None;
                }
                instructions += 1;
                if instructions > self.max_loop_instructions {
                    return None;
                }
            }
        }
        let guard = if guarded {
            let ht = func.terminator(l.header)?;
            let hd = &func.insts[ht];
            if exit_source != l.header || !matches!(hd.kind, InstKind::ConditionalBranch) {
                return None;
            }
            let (cond, tt, ft) = (hd.operands[0], hd.operands[1].as_block()?, hd.operands[2].as_block()?);
            let t_body = tt != exit && in_loop(l, tt);
            let f_body = ft != exit && in_loop(l, ft);
            if t_body == f_body || (if t_body { ft } else { tt }) != exit || matches!(cond, Value::Undef(_)) {
                return None;
            }
            let mut subst = FxHashMap::default();
            for &p in func.blocks[l.header].insts.iter().take_while(|&&i| func.insts[i].is_phi()) {
                let (v, _) = func.insts[p].phi_incoming().find(|(_, b)| *b == preheader)?;
                subst.insert(p, v);
            }
            if !guard_clonable(func, cond, l.header, &subst, 0) {
                return None;
            }
            for &p in &exit_phis {
                let (v, _) = func.insts[p].phi_incoming().find(|(_, b)| *b == exit_source)?;
                if !guard_clonable(func, v, l.header, &subst, 0) {
                    return None;
                }
            }
            Some((ht, t_body, subst))
        } else {
            None
        };
        // The candidate: the first invariant two-way branch inside the loop.
        let candidate = l.blocks.iter().find_map(|&b| {
            let t = func.terminator(b)?;
            let d = &func.insts[t];
            if !matches!(d.kind, InstKind::ConditionalBranch) {
                return None;
            }
            let (cond, tt, ft) = (d.operands[0], d.operands[1].as_block()?, d.operands[2].as_block()?);
            let ok = module.value_type(f, cond).and_then(|t| module.types.scalar_kind(t)) == Some(ScalarKind::Bool)
                && !matches!(cond, Value::Const(_) | Value::Undef(_))
                && tt != ft
                && tt != l.header
                && ft != l.header
                && in_loop(l, tt)
                && in_loop(l, ft)
                && def_block(func, cond).is_none_or(|db| !in_loop(l, db))
                && dom.dominates(b, latch);
            ok.then_some(t)
        })?;
        // Live-outs.
        let uses = UseMap::compute(func);
        let mut live_outs = Vec::new();
        for &b in &l.blocks {
            for &i in &func.blocks[b].insts {
                if func.insts[i].ty.is_none() {
                    continue;
                }
                let mut ordinary = Vec::new();
                for u in uses.insts.get(i) {
                    let ud = &func.insts[u.inst];
                    let Some(ub) = ud.block else { return None };
                    if in_loop(l, ub) {
                        continue;
                    }
                    if ub == exit && ud.is_phi() {
                        let k = u.index as usize;
                        // The value slot of the exit edge's incoming.
                        if k % 2 == 0 && ud.operands.get(k + 1) == Some(&Value::Block(exit_source)) {
                            continue;
                        }
                        return None;
                    }
                    if is_lvalue(&func.insts[i].kind) || !dom.dominates(exit, ub) {
                        return None;
                    }
                    ordinary.push((u.inst, u.index as usize));
                }
                if !ordinary.is_empty() {
                    if let Some((_, _, subst)) = &guard
                        && !guard_clonable(func, Value::Inst(i), l.header, subst, 0)
                    {
                        return None;
                    }
                    live_outs.push((i, ordinary));
                }
            }
        }
        Some(Plan {
            blocks: l.blocks.clone(),
            header: l.header,
            preheader,
            exit_source,
            exit,
            candidate,
            instructions,
            live_outs,
            guard,
        })
    }
}

/// Evaluates `v` at the end of `at` with header phis replaced through `map` (which also
/// caches the header arithmetic already cloned there).
fn materialize(rw: &mut Rewriter<'_>, at: BlockId, header: BlockId, map: &mut FxHashMap<InstId, Value>, v: Value) -> Value {
    let Value::Inst(i) = v else { return v };
    if let Some(&m) = map.get(&i) {
        return m;
    }
    if rw.inst(i).block != Some(header) {
        return v;
    }
    let mut d = rw.inst(i).clone();
    let ops: Vec<Value> = d.operands.iter().copied().collect();
    for (k, o) in ops.into_iter().enumerate() {
        d.operands[k] = materialize(rw, at, header, map, o);
    }
    d.block = None;
    let c = Value::Inst(rw.insert(InsertPoint::End(at), d));
    map.insert(i, c);
    c
}

fn transform(module: &mut Module, f: FuncId, p: &Plan, c: &mut LoopUnswitchCounters) {
    let mut rw = Rewriter::for_module(module, f);
    // Blocks, then phis (empty), then every other instruction, then phi edges.
    let mut bmap: FxHashMap<BlockId, BlockId> = FxHashMap::default();
    for &b in &p.blocks {
        let nb = rw.create_block();
        let md = rw.func().blocks[b].metadata.clone();
        *rw.block_metadata_mut(nb) = md;
        bmap.insert(b, nb);
    }
    let mut vmap: FxHashMap<InstId, InstId> = FxHashMap::default();
    let mut phis = Vec::new();
    for &b in &p.blocks {
        for i in rw.phis(b) {
            let mut d = InstData::new(InstKind::Phi, rw.inst(i).ty, []);
            d.metadata = rw.inst(i).metadata.clone();
            let n = rw.insert(InsertPoint::End(bmap[&b]), d);
            vmap.insert(i, n);
            phis.push((i, n));
        }
    }
    let rv = |vmap: &FxHashMap<InstId, InstId>, bmap: &FxHashMap<BlockId, BlockId>, v: Value| match v {
        Value::Inst(i) => vmap.get(&i).map_or(v, |&n| Value::Inst(n)),
        Value::Block(b) => bmap.get(&b).map_or(v, |&n| Value::Block(n)),
        _ => v,
    };
    for &b in &p.blocks {
        let insts: Vec<InstId> = rw.insts(b).filter(|&i| !rw.inst(i).is_phi()).collect();
        for i in insts {
            let n = if i == p.candidate {
                let ft = rw.inst(i).operands[2].as_block().expect("checked by plan");
                rw.at(InsertPoint::End(bmap[&b])).br(bmap[&ft])
            } else {
                let mut d = rw.inst(i).clone();
                d.block = None;
                for o in d.operands.iter_mut() {
                    *o = rv(&vmap, &bmap, *o);
                }
                rw.insert(InsertPoint::End(bmap[&b]), d)
            };
            vmap.insert(i, n);
        }
    }
    for &(src, n) in &phis {
        for (v, b) in rw.phi_edges(src) {
            let nb = bmap.get(&b).copied().unwrap_or(b);
            let nv = rv(&vmap, &bmap, v);
            rw.add_phi_edge(n, nv, nb);
        }
    }
    let cand_block = rw.inst(p.candidate).block.expect("placed");
    let cand = rw.inst(p.candidate).clone();
    let (cond, tt, ft) = (
        cand.operands[0],
        cand.operands[1].as_block().expect("checked by plan"),
        cand.operands[2].as_block().expect("checked by plan"),
    );
    for ph in rw.phis(bmap[&tt]) {
        rw.remove_phi_edge(ph, bmap[&cand_block]);
    }
    // One preheader per copy.
    let cloned_header = bmap[&p.header];
    let pre_t = rw.create_block();
    let pre_f = rw.create_block();
    rw.at(InsertPoint::End(pre_t)).br(p.header);
    rw.at(InsertPoint::End(pre_f)).br(cloned_header);
    for ph in rw.phis(p.header) {
        rw.rename_phi_block(ph, p.preheader, pre_t);
    }
    for ph in rw.phis(cloned_header) {
        rw.rename_phi_block(ph, p.preheader, pre_f);
    }
    let old_br = rw.terminator(p.preheader).expect("checked by plan");
    let mut guard_map: FxHashMap<InstId, Value> = FxHashMap::default();
    let mut entry_guard = None;
    if let Some((hb, t_body, subst)) = &p.guard {
        let g = rw.create_block();
        let dispatch = rw.create_block();
        guard_map.clone_from(subst);
        let hcond = rw.inst(*hb).operands[0];
        let gc = materialize(&mut rw, g, p.header, &mut guard_map, hcond);
        for ph in rw.phis(p.exit) {
            let v = rw.phi_edges(ph).into_iter().find(|(_, b)| *b == p.exit_source).map(|e| e.0);
            if let Some(v) = v {
                materialize(&mut rw, g, p.header, &mut guard_map, v);
            }
        }
        for (v, _) in &p.live_outs {
            materialize(&mut rw, g, p.header, &mut guard_map, Value::Inst(*v));
        }
        let (a, b) = if *t_body { (dispatch, p.exit) } else { (p.exit, dispatch) };
        let gb = rw.at(InsertPoint::End(g)).cond_br(gc, a, b);
        let md = rw.inst(*hb).metadata.clone();
        *rw.metadata_mut(gb) = md;
        let db = rw.at(InsertPoint::End(dispatch)).cond_br(cond, pre_t, pre_f);
        *rw.metadata_mut(db) = cand.metadata.clone();
        rw.set_operand(old_br, 0, Value::Block(g));
        entry_guard = Some(g);
    } else {
        let db = rw.at(InsertPoint::Before(old_br)).cond_br(cond, pre_t, pre_f);
        *rw.metadata_mut(db) = cand.metadata.clone();
        rw.remove(old_br);
    }
    // The original copy always takes the true arm.
    rw.at(InsertPoint::Before(p.candidate)).br(tt);
    rw.remove(p.candidate);
    for ph in rw.phis(ft) {
        rw.remove_phi_edge(ph, cand_block);
    }
    // The exit: phis take the clone's (and the guard's) values; live-outs are merged.
    let cloned_source = bmap[&p.exit_source];
    let guard_value = |m: &FxHashMap<InstId, Value>, v: Value| match v {
        Value::Inst(i) => m.get(&i).copied().unwrap_or(v),
        _ => v,
    };
    for ph in rw.phis(p.exit) {
        let Some((v, _)) = rw.phi_edges(ph).into_iter().find(|(_, b)| *b == p.exit_source) else {
            continue;
        };
        let cv = rv(&vmap, &bmap, v);
        rw.add_phi_edge(ph, cv, cloned_source);
        if let Some(g) = entry_guard {
            rw.add_phi_edge(ph, guard_value(&guard_map, v), g);
        }
    }
    let first = rw.first_inst(p.exit).expect("the exit is terminated");
    for (v, uses) in &p.live_outs {
        let ty = rw.inst(*v).ty.expect("live-outs have a type");
        let mut edges = vec![(Value::Inst(*v), p.exit_source), (rv(&vmap, &bmap, Value::Inst(*v)), cloned_source)];
        if let Some(g) = entry_guard {
            edges.push((guard_value(&guard_map, Value::Inst(*v)), g));
        }
        let merged = rw.at(InsertPoint::Before(first)).phi(ty, &edges);
        for &(user, k) in uses {
            rw.set_operand(user, k, merged);
        }
        c.merged_live_out += 1;
    }
    c.unswitched_loop += 1;
    c.guarded_dynamic_loop += u64::from(entry_guard.is_some());
    c.cloned_block += p.blocks.len() as u64;
    c.cloned_instruction += p.instructions;
    c.created_preheader += 2;
}

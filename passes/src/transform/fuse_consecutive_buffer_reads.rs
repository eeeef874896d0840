//! `fuse-consecutive-buffer-reads` — coalesce adjacent byte-buffer accesses into vector ones.
//!
//! **What:** within a block, two to four `byte_buffer_read`s (two for 8-byte elements)
//! of one buffer at consecutive constant byte offsets, of the same 4- or 8-byte scalar
//! type, become one read of a vector plus one `extract` per lane; consecutive
//! `byte_buffer_write`s become one `aggregate` and one vector write. Typed buffers are
//! never touched (their access type must be their element type).
//!
//! **Algorithm** (as upstream's `fuse_consecutive_buffer_reads.cpp`, read at LuisaCompute
//! `16ba40f5`; facts only): one scan per block keeps a read run and a write run. An access
//! joins its run when it has the same buffer and type and its offset is the next lane's;
//! otherwise the run is flushed and a new one starts. A read run may span other reads but
//! ends at anything that writes memory, a volatile or barrier instruction, or a `clock`;
//! a write run ends at any memory access as well. A flushed run of two or more is fused
//! only when its first offset is a constant (without a no-wrap proof, `base` and
//! `base + 4` need not be adjacent), aligned to the vector type, and the vector's size is
//! exactly the lanes' (a three-lane vector's padding would be touched). The vector read
//! goes right after the first scalar read, each lane's `extract` taking that read's
//! metadata; the vector write goes right before the last scalar write, and annotated
//! writes are never fused (several side effects have no single metadata owner).
//!
//! **Preconditions:** none. **Refusals:** none.
//!
//! **Report keys** (upstream's): `fused_group_count`, `fused_read_count`,
//! `fused_write_count`. **Changed:** a group fused.
//!
//! **Example:**
//! ```text
//! %a: f32 = resource_read byte_buffer_read %b, %c0;    // %c0 = 0, %c4 = 4
//! %b: f32 = resource_read byte_buffer_read %b, %c4;
//! →  %v: vector<f32, 2> = resource_read byte_buffer_read %b, %c0;
//!    %a: f32 = arithmetic extract %v, 0u32; %b: f32 = arithmetic extract %v, 1u32;
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::constant::scalar_const;
use crate::util::edit::ValueSubst;
use xir_ir::constant::{ScalarValue, read_scalar};
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::{InstData, InstKind};
use xir_ir::op::{ArithmeticOp, BindlessAccess, ResourceReadOp, ResourceWriteOp};
use xir_ir::{BlockId, FuncId, InstId, Module, ScalarKind, Type, Value};

/// The `fuse-consecutive-buffer-reads` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct FuseConsecutiveBufferReads;

crate::declare_pass! {
    FuseConsecutiveBufferReads: function pass "fuse-consecutive-buffer-reads" {
        summary: "Coalesces byte-buffer reads/writes at consecutive constant offsets into vector accesses",
        form: Either,
        counters: FuseConsecutiveBufferReadsCounters {
            /// Runs fused into one vector access.
            fused_group_count: Instructions,
            /// Scalar reads replaced.
            fused_read_count: Nothing,
            /// Scalar writes replaced.
            fused_write_count: Nothing,
        }
    }
}

/// An access in a run: the instruction, its element type and constant byte offset.
#[derive(Copy, Clone)]
struct Access {
    inst: InstId,
    ty: Type,
    offset: Option<i64>,
}

/// A run of accesses of one buffer at consecutive offsets.
#[derive(Default)]
struct Run {
    items: Vec<Access>,
}

impl FunctionPass for FuseConsecutiveBufferReads {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        counters: &mut FuseConsecutiveBufferReadsCounters,
    ) -> Result<(), PassError> {
        let blocks: Vec<BlockId> = module.func(f).block_order.iter().copied().collect();
        for b in blocks {
            fuse_block(module, f, b, counters);
        }
        Ok(())
    }
}

/// The constant byte offset `v` stands for, or `None` for a non-constant index. Upstream
/// also splits `base + C`; a run with a non-constant base is never fused, so only
/// "constant or not" and the value matter here.
fn offset_of(module: &Module, v: Value) -> Option<i64> {
    let c = v.as_const()?;
    let d = &module.constants[c];
    match read_scalar(module.types.scalar_kind(d.ty)?, &d.bytes)? {
        ScalarValue::Int(i) => Some(i),
        ScalarValue::UInt(u) => i64::try_from(u).ok(),
        _ => None,
    }
}

/// Whether `ty` is a scalar of at least 4 bytes other than `bool`.
fn fusable(module: &Module, ty: Type) -> Option<ScalarKind> {
    let k = module.types.scalar_kind(ty)?;
    (k != ScalarKind::Bool && k.size() >= 4).then_some(k)
}

/// What kind of byte-buffer access `d` is: `Some(true)` read, `Some(false)` write.
fn byte_access(d: &InstData) -> Option<bool> {
    match d.kind {
        InstKind::ResourceRead(ResourceReadOp::ByteBufferRead, _) => Some(true),
        InstKind::ResourceWrite(ResourceWriteOp::ByteBufferWrite, _) => Some(false),
        _ => None,
    }
}

fn fuse_block(module: &mut Module, f: FuncId, b: BlockId, counters: &mut FuseConsecutiveBufferReadsCounters) {
    let insts = module.func(f).blocks[b].insts.clone();
    let mut reads = Run::default();
    let mut writes = Run::default();
    for i in insts {
        let func = module.func(f);
        let d = &func.insts[i];
        let mut joined_read = false;
        let mut joined_write = false;
        if let Some(is_read) = byte_access(d) {
            let ty = if is_read {
                d.ty
            } else {
                d.operands.get(2).and_then(|v| module.value_type(f, *v))
            };
            if let Some(ty) = ty.filter(|t| fusable(module, *t).is_some()) {
                let access = Access {
                    inst: i,
                    ty,
                    offset: d.operands.get(1).and_then(|v| offset_of(module, *v)),
                };
                let run = if is_read { &mut reads } else { &mut writes };
                let follows = run.items.first().is_some_and(|first| {
                    let fd = &func.insts[first.inst];
                    let lanes = run.items.len() as i64;
                    let size = module.types.size_of(ty) as i64;
                    let max = if size >= 8 { 2 } else { 4 };
                    fd.operands.first() == d.operands.first()
                        && first.ty == ty
                        && (run.items.len() as i64) < max
                        && match (first.offset, access.offset) {
                            (Some(a), Some(o)) => a.checked_add(size * lanes) == Some(o),
                            _ => false,
                        }
                });
                if !follows && !run.items.is_empty() {
                    let taken = std::mem::take(run);
                    flush(module, f, taken, is_read, counters);
                }
                let run = if is_read { &mut reads } else { &mut writes };
                run.items.push(access);
                if is_read {
                    joined_read = true;
                } else {
                    joined_write = true;
                }
            }
        }
        let func = module.func(f);
        let k = &func.insts[i].kind;
        let fx = k.effects();
        use xir_ir::inst_table::Effects;
        let ordered = fx.intersects(Effects::BARRIER) || matches!(k, InstKind::Clock);
        if !joined_read && !reads.items.is_empty() && (ordered || fx.intersects(Effects::WRITES)) {
            flush(module, f, std::mem::take(&mut reads), true, counters);
        }
        if !joined_write
            && !writes.items.is_empty()
            && (ordered || fx.intersects(Effects::WRITES | Effects::READS))
        {
            flush(module, f, std::mem::take(&mut writes), false, counters);
        }
    }
    flush(module, f, reads, true, counters);
    flush(module, f, writes, false, counters);
}

/// Fuses `run` if it qualifies (see the module docs).
fn flush(module: &mut Module, f: FuncId, run: Run, is_read: bool, counters: &mut FuseConsecutiveBufferReadsCounters) {
    let lanes = run.items.len();
    if lanes < 2 {
        return;
    }
    let first = run.items[0];
    let Some(offset) = first.offset else { return };
    let elem = first.ty;
    let vty = module.types.vector(elem, lanes as u8);
    let (vsize, valign) = (module.types.size_of(vty), module.types.align_of(vty));
    let span = module.types.size_of(elem) * lanes as u64;
    if vsize != span || valign == 0 || offset < 0 || !(offset as u64).is_multiple_of(valign) {
        return;
    }
    if !is_read
        && run
            .items
            .iter()
            .any(|a| !module.func(f).insts[a.inst].metadata.is_empty())
    {
        return;
    }
    let u32_ty = module.types.u32();
    let lane_consts: Vec<Value> = (0..lanes)
        .map(|k| Value::Const(scalar_const(module, u32_ty, ScalarValue::UInt(k as u64)).expect("u32 lane")))
        .collect();
    let func = module.func_mut(f);
    let (buffer, index) = {
        let d = &func.insts[first.inst];
        (d.operands[0], d.operands[1])
    };
    let dead: Vec<InstId> = run.items.iter().map(|a| a.inst).collect();
    if is_read {
        let after = func.position(first.inst).expect("placed") + 1;
        let b = func.insts[first.inst].block.expect("placed");
        let next = func.blocks[b].insts[after];
        let mut at = Cursor::before(func, next);
        let wide = at.resource_read(ResourceReadOp::ByteBufferRead, BindlessAccess::default(), vty, &[buffer, index]);
        let mut subst = ValueSubst::new();
        for (a, lane) in run.items.iter().zip(&lane_consts) {
            let e = Cursor::before(func, next).arith(ArithmeticOp::Extract, elem, &[wide, *lane]);
            let md = func.insts[a.inst].metadata.clone();
            if let Value::Inst(e) = e {
                func.insts[e].metadata = md;
            }
            subst.replace(a.inst, e);
        }
        subst.apply(func);
        func.remove_insts(&dead);
        counters.fused_read_count += lanes as u64;
    } else {
        let last = run.items[lanes - 1].inst;
        let values: Vec<Value> = run.items.iter().map(|a| func.insts[a.inst].operands[2]).collect();
        let mut at = Cursor::before(func, last);
        let agg = at.arith(ArithmeticOp::Aggregate, vty, &values);
        Cursor::before(func, last).resource_write(ResourceWriteOp::ByteBufferWrite, BindlessAccess::default(), &[buffer, index, agg]);
        func.remove_insts(&dead);
        counters.fused_write_count += lanes as u64;
    }
    counters.fused_group_count += 1;
}

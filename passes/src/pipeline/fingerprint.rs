//! A structural fingerprint of a module: equal for modules that print the same.
//!
//! Entities are numbered by position (functions in module order, blocks in owned order,
//! instructions in program order, arguments in signature order), so a pass that rebuilds
//! an identical instruction under a new arena id leaves the fingerprint alone, while any
//! change to kinds, operands, types, metadata, constants or layout changes it. Used by
//! `--verify-each` to catch passes that change the module but report no change (or
//! refuse after mutating), and by fixed points to detect oscillation.
//!
//! [`cfg_fingerprint`] covers only the control-flow graph: per function, the blocks (by
//! position), the body, and each block's terminator kind with its side blocks and
//! successor edges. `--verify-each` uses it to hold a pass that reports
//! [`Changed::Instructions`](crate::pass::Changed::Instructions) to its claim.

use rustc_hash::FxHasher;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use xir_ir::entity::SecondaryMap;
use xir_ir::{BlockId, EntityRef, FuncId, InstId, InstKind, Module, Value};

/// Feeds `Debug` output straight into a hasher (no allocation).
struct HashWriter<'h>(&'h mut FxHasher);

impl std::fmt::Write for HashWriter<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.write(s.as_bytes());
        Ok(())
    }
}

fn debug_hash(h: &mut FxHasher, v: &impl std::fmt::Debug) {
    let _ = write!(HashWriter(h), "{v:?}");
    h.write_u8(0xff);
}

/// The fingerprint of `m`.
pub fn fingerprint(m: &Module) -> u64 {
    let mut h = FxHasher::default();
    debug_hash(&mut h, &m.metadata);
    for c in m.live_constants() {
        let d = &m.constants[c];
        (d.ty, &d.bytes).hash(&mut h);
        debug_hash(&mut h, &d.metadata);
    }
    for u in m.live_undefs() {
        m.undefs[u].ty.hash(&mut h);
    }
    debug_hash(&mut h, &m.special_registers);
    let mut func_pos: SecondaryMap<FuncId, u32> = SecondaryMap::with_default(u32::MAX);
    for (k, &f) in m.func_order.iter().enumerate() {
        func_pos[f] = k as u32;
    }
    for &f in &m.func_order {
        hash_function(&mut h, m, f, &func_pos);
    }
    h.finish()
}

fn hash_function(h: &mut FxHasher, m: &Module, f: FuncId, func_pos: &SecondaryMap<FuncId, u32>) {
    let func = m.func(f);
    debug_hash(h, &(func.kind, func.ret, &func.metadata));
    let mut arg_pos = SecondaryMap::with_default(u32::MAX);
    for (k, &a) in func.arg_order.iter().enumerate() {
        arg_pos[a] = k as u32;
        let d = &func.args[a];
        debug_hash(h, &(d.kind, d.ty, &d.metadata));
    }
    let mut block_pos = SecondaryMap::with_default(u32::MAX);
    for (k, &b) in func.block_order.iter().enumerate() {
        block_pos[b] = k as u32;
    }
    let mut inst_pos: SecondaryMap<InstId, u32> = SecondaryMap::with_default(u32::MAX);
    for (k, i) in func.placed_insts().enumerate() {
        inst_pos[i] = k as u32;
    }
    h.write_u32(func.body.map_or(u32::MAX, |b| block_pos[b]));
    let val = |v: Value| -> (u8, u64) {
        match v {
            Value::Inst(i) => (0, u64::from(inst_pos[i])),
            Value::Block(b) => (1, u64::from(block_pos[b])),
            Value::Arg(a) => (2, u64::from(arg_pos[a])),
            Value::Const(c) => (3, c.index() as u64),
            Value::Undef(u) => (4, u.index() as u64),
            Value::Special(r) => (5, r as u64),
            Value::Func(g) => (6, u64::from(func_pos[g])),
        }
    };
    for &b in &func.block_order {
        h.write_u8(0xb0);
        hash_metadata(h, &func.blocks[b].metadata);
        for &i in &func.blocks[b].insts {
            let d = func.inst(i);
            hash_kind(h, &d.kind, &|b| block_pos[b]);
            d.ty.hash(h);
            h.write_usize(d.operands.len());
            for &op in &d.operands {
                val(op).hash(h);
            }
            hash_metadata(h, &d.metadata);
        }
    }
}

/// The control-flow fingerprint of `m` (see the module docs): equal for modules whose
/// functions have the same blocks, body, terminator kinds and successor edges, whatever
/// their instructions, operands and metadata.
pub fn cfg_fingerprint(m: &Module) -> u64 {
    let mut h = FxHasher::default();
    for &f in &m.func_order {
        let func = m.func(f);
        h.write_u8(0xf0);
        h.write_usize(func.block_order.len());
        let mut block_pos = SecondaryMap::with_default(u32::MAX);
        for (k, &b) in func.block_order.iter().enumerate() {
            block_pos[b] = k as u32;
        }
        h.write_u32(func.body.map_or(u32::MAX, |b| block_pos[b]));
        for &b in &func.block_order {
            h.write_u8(0xb0);
            let Some(t) = func.terminator(b) else {
                continue;
            };
            let d = func.inst(t);
            hash_kind(&mut h, &d.kind, &|b| block_pos[b]);
            for op in &d.operands {
                if let Value::Block(s) = op {
                    h.write_u32(block_pos[*s]);
                }
            }
        }
    }
    h.finish()
}

/// Hashes an instruction kind structurally, side blocks by position (no formatting on
/// the common paths; the rare coroutine payload goes through `Debug`).
fn hash_kind(h: &mut FxHasher, k: &InstKind, pos: &dyn Fn(BlockId) -> u32) {
    std::mem::discriminant(k).hash(h);
    let opt = |h: &mut FxHasher, b: &Option<BlockId>| b.map_or(u32::MAX, pos).hash(h);
    match k {
        InstKind::If { merge }
        | InstKind::SimpleLoop { merge }
        | InstKind::Outline { merge }
        | InstKind::RayQueryLoop { merge } => opt(h, merge),
        InstKind::Switch { labels, merge } => {
            labels.hash(h);
            opt(h, merge);
        }
        InstKind::IndexedBranch { labels } => labels.hash(h),
        InstKind::Loop {
            body,
            update,
            merge,
        } => {
            opt(h, body);
            opt(h, update);
            opt(h, merge);
        }
        InstKind::AutodiffScope {
            merge,
            forward,
            n_forward_grads,
        } => {
            opt(h, merge);
            (forward, n_forward_grads).hash(h);
        }
        InstKind::Unreachable { message }
        | InstKind::Assert { message }
        | InstKind::Assume { message } => message.hash(h),
        InstKind::Print { format } => format.hash(h),
        InstKind::CoroSuspend(data) => debug_hash(h, data),
        InstKind::CoroResume { token, has_frame } => (token, has_frame).hash(h),
        // Its incoming blocks are operands, hashed with the others.
        InstKind::Phi => {}
        InstKind::Alloca(op) => op.hash(h),
        InstKind::Atomic(op) => op.hash(h),
        InstKind::Arithmetic(op) => op.hash(h),
        InstKind::ThreadGroup(op) => op.hash(h),
        InstKind::ResourceQuery(op, a) => (op, a).hash(h),
        InstKind::ResourceRead(op, a) => (op, a).hash(h),
        InstKind::ResourceWrite(op, a) => (op, a).hash(h),
        InstKind::RayQueryObjectRead(op) => op.hash(h),
        InstKind::RayQueryObjectWrite(op) => op.hash(h),
        InstKind::AutodiffIntrinsic(op) => op.hash(h),
        InstKind::Cast(op) => op.hash(h),
        InstKind::DebugBreak { callback } => callback.hash(h),
        InstKind::RayQueryDispatch
        | InstKind::Branch
        | InstKind::ConditionalBranch
        | InstKind::Break
        | InstKind::Continue
        | InstKind::Return
        | InstKind::RasterDiscard
        | InstKind::CoroTerminate
        | InstKind::RayQueryPipeline
        | InstKind::Load
        | InstKind::Store
        | InstKind::Gep
        | InstKind::Call
        | InstKind::Clock => {}
    }
}

/// Hashes a metadata list (empty lists, the common case, cost one word).
fn hash_metadata(h: &mut FxHasher, md: &[xir_ir::Metadata]) {
    h.write_usize(md.len());
    if !md.is_empty() {
        debug_hash(h, &md);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xir_ir::edit::{Cursor, InstBuilder};
    use xir_ir::{Function, FunctionKind, InstData, InstKind, Metadata};

    fn module() -> Module {
        let mut m = Module::new();
        let mut f = Function::new(FunctionKind::kernel(), None);
        let b = f.ensure_body();
        Cursor::at_end(&mut f, b).ret(None);
        m.add_function(f);
        m
    }

    #[test]
    fn equal_structure_equal_fingerprint() {
        let a = module();
        let mut b = module();
        assert_eq!(fingerprint(&a), fingerprint(&b));
        // Rebuilding the terminator under a new id keeps the fingerprint.
        let f = b.func_order[0];
        let func = b.func_mut(f);
        let blk = func.body.unwrap();
        let t = func.terminator(blk).unwrap();
        func.remove_inst(t);
        func.append_inst(blk, InstData::new(InstKind::Return, None, []));
        assert_eq!(fingerprint(&a), fingerprint(&b));
        b.metadata.push(Metadata::Comment("x".into()));
        assert_ne!(fingerprint(&a), fingerprint(&b));
    }

    #[test]
    fn cfg_fingerprint_ignores_instructions_but_not_blocks() {
        let a = module();
        let mut b = module();
        b.metadata.push(Metadata::Comment("x".into()));
        let f = b.func_order[0];
        let func = b.func_mut(f);
        let blk = func.body.unwrap();
        let t = func.terminator(blk).unwrap();
        func.insert_inst_before(t, InstData::new(InstKind::Clock, None, []));
        assert_ne!(fingerprint(&a), fingerprint(&b));
        assert_eq!(cfg_fingerprint(&a), cfg_fingerprint(&b));
        let extra = b.func_mut(f).create_block();
        let mut u = Cursor::at_end(b.func_mut(f), extra);
        u.ret(None);
        assert_ne!(cfg_fingerprint(&a), cfg_fingerprint(&b));
    }

    #[test]
    fn removing_a_terminator_changes_it() {
        let a = module();
        let mut b = module();
        let f = b.func_order[0];
        let func = b.func_mut(f);
        let t = func.terminator(func.body.unwrap()).unwrap();
        func.remove_inst(t);
        assert_ne!(fingerprint(&a), fingerprint(&b));
    }
}

//! A structural fingerprint of a module: equal for modules that print the same.
//!
//! Entities are numbered by position (functions in module order, blocks in owned order,
//! instructions in program order, arguments in signature order), so a pass that rebuilds
//! an identical instruction under a new arena id leaves the fingerprint alone, while any
//! change to kinds, operands, types, metadata, constants or layout changes it. Used by
//! `--verify-each` to catch passes that change the module but report no change (or
//! refuse after mutating), and by fixed points to detect oscillation.

use rustc_hash::FxHasher;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use xir_ir::entity::SecondaryMap;
use xir_ir::{EntityRef, FuncId, InstId, Module, Value};

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
        debug_hash(h, &func.blocks[b].metadata);
        for &i in &func.blocks[b].insts {
            let d = func.inst(i);
            let mut kind = d.kind.clone();
            kind.map_side_blocks(|sb| xir_ir::BlockId::new(block_pos[sb] as usize));
            debug_hash(h, &kind);
            d.ty.hash(h);
            h.write_usize(d.operands.len());
            for &op in &d.operands {
                val(op).hash(h);
            }
            debug_hash(h, &d.metadata);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xir_ir::builder::Cursor;
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

//! Memory-effect classification of instructions, used to decide what DCE may delete and
//! what is an lvalue. Both are read from the instruction table in `xir_ir::inst_table`
//! (its effects and roles columns); these wrappers keep the passes' names.

use xir_ir::inst::InstKind;
use xir_ir::inst_table::Effects;

/// Whether an instruction may be deleted when its result is unused: not a terminator, it
/// writes no memory, synchronises with nothing (volatile reads included) and cannot trap
/// ([`InstKind::is_removable_if_unused`]).
pub fn is_removable_if_unused(kind: &InstKind) -> bool {
    kind.is_removable_if_unused()
}

/// Whether the instruction's result is an lvalue (a pointer): the table's `LVALUE` role.
pub fn is_lvalue(kind: &InstKind) -> bool {
    kind.tag().is_lvalue()
}

/// Whether the instruction may write memory it is given a pointer to: the table's
/// `WRITES` effect (a `store`, an atomic, a call, a cooperative store, a ray-query
/// update, …). The local memory passes treat a use of a variable's address by such an
/// instruction as a write of the whole variable.
pub fn may_write(kind: &InstKind) -> bool {
    kind.effects().contains(Effects::WRITES)
}

/// Whether the instruction may read memory it is given a pointer to: the table's `READS`
/// effect. `dead-store-elimination` treats a use of a variable's address by such an
/// instruction as a read of the whole variable.
pub fn may_read(kind: &InstKind) -> bool {
    kind.effects().contains(Effects::READS)
}

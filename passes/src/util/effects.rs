//! Memory-effect classification of instructions, used to decide what DCE may delete and
//! what is an lvalue. Both are read from the instruction table in `xir_ir::inst_table`
//! (its effects and roles columns); these wrappers keep the passes' names.

use xir_ir::inst::InstKind;

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

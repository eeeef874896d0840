//! Memory-effect classification of instructions (upstream's `get_memory_info`), used to
//! decide what DCE may delete and what is an lvalue.
//!
//! Every instruction kind is matched explicitly, so a new kind fails to compile here until
//! someone decides how it behaves.

use xir_ir::inst::InstKind;
use xir_ir::op::{AutodiffIntrinsicOp, ResourceReadOp};

/// Whether an instruction may be deleted when its result is unused: it writes no memory
/// and is not volatile. Upstream's rule, plus `autodiff_gradient` (which DCE treats as
/// removable). Volatile buffer reads are kept, which is stricter than upstream.
pub fn is_removable_if_unused(kind: &InstKind) -> bool {
    match kind {
        InstKind::Arithmetic(_)
        | InstKind::Cast(_)
        | InstKind::Gep
        | InstKind::Phi { .. }
        | InstKind::Clock
        | InstKind::ResourceQuery(..)
        | InstKind::RayQueryObjectRead(_)
        | InstKind::Alloca(_)
        | InstKind::Load => true,
        InstKind::ResourceRead(op, _) => !matches!(
            op,
            ResourceReadOp::BufferVolatileRead | ResourceReadOp::ByteBufferVolatileRead
        ),
        InstKind::AutodiffIntrinsic(op) => *op == AutodiffIntrinsicOp::Gradient,
        InstKind::Store
        | InstKind::ResourceWrite(..)
        | InstKind::Atomic(_)
        | InstKind::RayQueryObjectWrite(_)
        | InstKind::ThreadGroup(_)
        | InstKind::Call
        | InstKind::Print { .. }
        | InstKind::DebugBreak { .. }
        | InstKind::Assert { .. }
        | InstKind::Assume { .. }
        | InstKind::RayQueryPipeline
        | InstKind::CoroResume { .. }
        | InstKind::If { .. }
        | InstKind::Switch { .. }
        | InstKind::IndexedBranch { .. }
        | InstKind::Loop { .. }
        | InstKind::SimpleLoop { .. }
        | InstKind::Outline { .. }
        | InstKind::AutodiffScope { .. }
        | InstKind::RayQueryLoop { .. }
        | InstKind::RayQueryDispatch
        | InstKind::Branch
        | InstKind::ConditionalBranch
        | InstKind::Unreachable { .. }
        | InstKind::Break
        | InstKind::Continue
        | InstKind::Return
        | InstKind::RasterDiscard
        | InstKind::CoroSuspend(_)
        | InstKind::CoroTerminate => false,
    }
}

/// Whether the instruction's result is an lvalue (a pointer): allocas and GEPs.
pub fn is_lvalue(kind: &InstKind) -> bool {
    matches!(kind, InstKind::Alloca(_) | InstKind::Gep)
}

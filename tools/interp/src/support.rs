//! What the interpreter executes: every instruction kind × sub-op, executed or refused.
//!
//! The table is derived from [`InstTag::ALL`] and the op enums' `ALL` lists, so a new
//! tag or op appears here (as refused, until someone decides otherwise) without anyone
//! remembering to add it. [`classify`] is the one decision the lowering consults before
//! anything runs; `docs/semantics.md` prints [`markdown`] (a test keeps it current).

use xir_ir::InstKind;
use xir_ir::InstTag;
use xir_ir::op::*;

/// Executed, or refused with the reason.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Support {
    /// The interpreter executes it.
    Executed,
    /// A located error before anything runs.
    Refused(&'static str),
}

/// One row: a tag, a sub-op spelling where the tag has sub-ops, and the decision.
#[derive(Clone, Debug)]
pub struct Row {
    /// Instruction kind.
    pub tag: InstTag,
    /// Sub-op spelling.
    pub sub: Option<&'static str>,
    /// The decision.
    pub support: Support,
}

const GRAPHICS: &str = "raster stages are not compute kernels";
const RAY: &str = "ray tracing is not executed";
const AUTODIFF: &str = "autodiff must be lowered before execution";
const CORO: &str = "coroutines are not executed";
const OUTLINE: &str = "outline is not executed (upstream marks it unsupported)";
const TEXTURE: &str = "textures are not executed";
const BINDLESS: &str = "bindless arrays are not executed";
const DEVICE_ADDR: &str = "device addresses are not executed";
const COOP: &str = "cooperative vector/matrix ops are not executed";
const INDIRECT: &str = "indirect dispatch is not executed";
const CLOCK: &str = "clock has no deterministic value";
const DEBUG_BREAK: &str = "debug_break is a host callback";
const SER: &str = "shader execution reorder is not executed";

/// The decision for a tag without sub-ops.
fn tag_support(tag: InstTag) -> Support {
    use InstTag as T;
    use Support::*;
    match tag {
        T::If
        | T::Switch
        | T::Loop
        | T::SimpleLoop
        | T::Branch
        | T::ConditionalBranch
        | T::Unreachable
        | T::Break
        | T::Continue
        | T::Return
        | T::Phi
        | T::Load
        | T::Store
        | T::Gep
        | T::Call
        | T::Print
        | T::Assert
        | T::Assume
        | T::IndexedBranch => Executed,
        T::RasterDiscard => Refused(GRAPHICS),
        T::CoroSuspend | T::CoroResume | T::CoroTerminate => Refused(CORO),
        T::RayQueryLoop
        | T::RayQueryDispatch
        | T::RayQueryObjectRead
        | T::RayQueryObjectWrite
        | T::RayQueryPipeline => Refused(RAY),
        T::AutodiffScope | T::AutodiffIntrinsic => Refused(AUTODIFF),
        T::Clock => Refused(CLOCK),
        T::DebugBreak => Refused(DEBUG_BREAK),
        T::Outline => Refused(OUTLINE),
        // Tags with sub-ops are decided per op.
        T::Alloca
        | T::Atomic
        | T::Arithmetic
        | T::ThreadGroup
        | T::ResourceQuery
        | T::ResourceRead
        | T::ResourceWrite
        | T::Cast => Executed,
    }
}

fn resource_name(name: &str) -> Support {
    use Support::*;
    match name {
        "buffer_size"
        | "byte_buffer_size"
        | "buffer_read"
        | "buffer_volatile_read"
        | "byte_buffer_read"
        | "byte_buffer_volatile_read"
        | "buffer_write"
        | "buffer_volatile_write"
        | "byte_buffer_write"
        | "byte_buffer_volatile_write" => Executed,
        n if n.starts_with("bindless_") => Refused(BINDLESS),
        n if n.contains("texture") => Refused(TEXTURE),
        n if n.contains("device_address") => Refused(DEVICE_ADDR),
        n if n.starts_with("ray_tracing") => Refused(RAY),
        n if n.contains("cooperative") => Refused(COOP),
        n if n.starts_with("indirect_dispatch") => Refused(INDIRECT),
        _ => Refused("not executed"),
    }
}

fn thread_group(op: ThreadGroupOp) -> Support {
    use ThreadGroupOp as G;
    match op {
        G::ShaderExecutionReorder => Support::Refused(SER),
        G::RasterQuadDdx
        | G::RasterQuadDdy
        | G::RasterSetZDepth
        | G::RasterSetZDepthGreaterEqual
        | G::RasterSetZDepthLessEqual => Support::Refused(GRAPHICS),
        _ => Support::Executed,
    }
}

/// The decision for one instruction.
pub fn classify(kind: &InstKind) -> Support {
    match kind {
        InstKind::ThreadGroup(op) => thread_group(*op),
        InstKind::ResourceQuery(op, _) => resource_name(op.name()),
        InstKind::ResourceRead(op, _) => resource_name(op.name()),
        InstKind::ResourceWrite(op, _) => resource_name(op.name()),
        other => tag_support(other.tag()),
    }
}

/// Every row: tags in frozen order; for tags with sub-ops, every op in upstream order.
pub fn table() -> Vec<Row> {
    let mut rows = Vec::new();
    let mut push = |tag, sub: Option<&'static str>, support| rows.push(Row { tag, sub, support });
    for &tag in InstTag::ALL {
        match tag {
            InstTag::Alloca => AllocaOp::ALL
                .iter()
                .for_each(|o| push(tag, Some(o.name()), Support::Executed)),
            InstTag::Cast => CastOp::ALL
                .iter()
                .for_each(|o| push(tag, Some(o.name()), Support::Executed)),
            InstTag::Atomic => AtomicOp::ALL
                .iter()
                .for_each(|o| push(tag, Some(o.name()), Support::Executed)),
            InstTag::Arithmetic => ArithmeticOp::ALL
                .iter()
                .for_each(|o| push(tag, Some(o.name()), Support::Executed)),
            InstTag::ThreadGroup => ThreadGroupOp::ALL
                .iter()
                .for_each(|o| push(tag, Some(o.name()), thread_group(*o))),
            InstTag::ResourceQuery => ResourceQueryOp::ALL
                .iter()
                .for_each(|o| push(tag, Some(o.name()), resource_name(o.name()))),
            InstTag::ResourceRead => ResourceReadOp::ALL
                .iter()
                .for_each(|o| push(tag, Some(o.name()), resource_name(o.name()))),
            InstTag::ResourceWrite => ResourceWriteOp::ALL
                .iter()
                .for_each(|o| push(tag, Some(o.name()), resource_name(o.name()))),
            InstTag::RayQueryObjectRead => RayQueryObjectReadOp::ALL
                .iter()
                .for_each(|o| push(tag, Some(o.name()), Support::Refused(RAY))),
            InstTag::RayQueryObjectWrite => RayQueryObjectWriteOp::ALL
                .iter()
                .for_each(|o| push(tag, Some(o.name()), Support::Refused(RAY))),
            InstTag::AutodiffIntrinsic => AutodiffIntrinsicOp::ALL
                .iter()
                .for_each(|o| push(tag, Some(o.name()), Support::Refused(AUTODIFF))),
            _ => push(tag, None, tag_support(tag)),
        }
    }
    rows
}

/// The table as Markdown, one row per line (generated into `docs/semantics.md`).
pub fn markdown() -> String {
    let mut s = String::from("| instruction | sub-op | interpreter |\n|---|---|---|\n");
    for r in table() {
        let what = match r.support {
            Support::Executed => "executed".to_string(),
            Support::Refused(why) => format!("refused: {why}"),
        };
        s.push_str(&format!(
            "| `{}` | {} | {} |\n",
            r.tag.text_keyword(),
            r.sub
                .map(|s| format!("`{s}`"))
                .unwrap_or_else(|| "—".into()),
            what
        ));
    }
    s.push_str(
        "\nTypes refused wherever they occur: `f8e4m3`, `f8e5m2`, `f4e2m1`, `i4`, \
         textures, bindless arrays, acceleration structures, opaque (custom) types, \
         cooperative vectors and their references.\n",
    );
    s
}

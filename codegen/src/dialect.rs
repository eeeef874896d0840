//! The SPIR-V backend's input dialect: one table saying, for every XIR instruction kind,
//! sub-op and type class, whether the backend emits it ([`Support::Supported`]), drops it
//! with no observable effect ([`Support::NoOp`]) or rejects it ([`Support::Unsupported`]).
//!
//! "Supported" means exactly what `emit/` lowers: a row is changed here and in the
//! emitter together, with a codegen corpus file. [`validate_dialect`] is the fail-closed
//! handoff (the last step of the `spirv-final` pipeline and the first of the backend): it
//! walks every kernel's reachable call graph and each function's structural closure and
//! reports every violation with its location. Unused callables and orphan blocks are
//! outside its scope, as they are outside emission's.

use crate::error::{Loc, Located};
use crate::plan::{self, structural_closure};
use xir_ir::diag::Diagnostic;
use xir_ir::op::*;
use xir_ir::types::TypeData;
use xir_ir::{FuncId, Function, FunctionKind, InstKind, Metadata, Module, ScalarKind, Type, Value};

/// How the backend treats one construct.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Support {
    /// Emitted as SPIR-V.
    Supported,
    /// Accepted and dropped: it has no observable effect in a Vulkan compute kernel.
    NoOp,
    /// Rejected at the handoff, with the reason.
    Unsupported(&'static str),
}

const RUN_FINAL: &str =
    "run `xir-opt --pipeline=spirv-final` to bring the module into the SPIR-V backend's dialect";

/// Arithmetic ops.
pub fn arithmetic_support(op: ArithmeticOp) -> Support {
    use ArithmeticOp as A;
    match op {
        A::PowInt => Support::Unsupported("pow_int has no exact GLSL.std.450 lowering yet"),
        A::OuterProduct => Support::Supported,
        _ => Support::Supported,
    }
}

/// Thread-group (barrier and subgroup) ops.
pub fn thread_group_support(op: ThreadGroupOp) -> Support {
    use ThreadGroupOp as T;
    match op {
        T::SynchronizeBlock
        | T::WarpIsFirstActiveLane
        | T::WarpFirstActiveLane
        | T::WarpActiveAllEqual
        | T::WarpActiveBitAnd
        | T::WarpActiveBitOr
        | T::WarpActiveBitXor
        | T::WarpActiveCountBits
        | T::WarpActiveMax
        | T::WarpActiveMin
        | T::WarpActiveProduct
        | T::WarpActiveSum
        | T::WarpActiveAll
        | T::WarpActiveAny
        | T::WarpActiveBitMask
        | T::WarpPrefixCountBits
        | T::WarpPrefixSum
        | T::WarpPrefixProduct
        | T::WarpReadLane
        | T::WarpReadFirstActiveLane => Support::Supported,
        T::ShaderExecutionReorder => Support::NoOp,
        T::RasterQuadDdx
        | T::RasterQuadDdy
        | T::RasterSetZDepth
        | T::RasterSetZDepthGreaterEqual
        | T::RasterSetZDepthLessEqual => {
            Support::Unsupported("raster-stage op in a compute kernel")
        }
    }
}

/// Resource queries.
pub fn resource_query_support(op: ResourceQueryOp) -> Support {
    match op {
        ResourceQueryOp::BufferSize | ResourceQueryOp::ByteBufferSize => Support::Supported,
        _ => Support::Unsupported(
            "textures, bindless arrays, device addresses and ray tracing are not emitted by this backend yet",
        ),
    }
}

/// Resource reads.
pub fn resource_read_support(op: ResourceReadOp) -> Support {
    match op {
        ResourceReadOp::BufferRead
        | ResourceReadOp::BufferVolatileRead
        | ResourceReadOp::ByteBufferRead
        | ResourceReadOp::ByteBufferVolatileRead => Support::Supported,
        _ => Support::Unsupported(
            "textures, bindless arrays, device addresses and cooperative ops are not emitted by this backend yet",
        ),
    }
}

/// Resource writes.
pub fn resource_write_support(op: ResourceWriteOp) -> Support {
    match op {
        ResourceWriteOp::BufferWrite
        | ResourceWriteOp::BufferVolatileWrite
        | ResourceWriteOp::ByteBufferWrite
        | ResourceWriteOp::ByteBufferVolatileWrite => Support::Supported,
        _ => Support::Unsupported(
            "textures, bindless arrays, device addresses, ray tracing and cooperative ops are not emitted by this backend yet",
        ),
    }
}

/// Instruction kinds (sub-ops delegate to the per-op tables above).
pub fn inst_support(kind: &InstKind) -> Support {
    match kind {
        InstKind::If { .. }
        | InstKind::Switch { .. }
        | InstKind::Loop { .. }
        | InstKind::SimpleLoop { .. }
        | InstKind::Branch
        | InstKind::ConditionalBranch
        | InstKind::Unreachable { .. }
        | InstKind::Break
        | InstKind::Continue
        | InstKind::Return
        | InstKind::Phi
        | InstKind::Alloca(_)
        | InstKind::Load
        | InstKind::Store
        | InstKind::Gep
        | InstKind::Atomic(_)
        | InstKind::Call
        | InstKind::Cast(_) => Support::Supported,
        InstKind::Arithmetic(op) => arithmetic_support(*op),
        InstKind::ThreadGroup(op) => thread_group_support(*op),
        InstKind::ResourceQuery(op, _) => resource_query_support(*op),
        InstKind::ResourceRead(op, _) => resource_read_support(*op),
        InstKind::ResourceWrite(op, _) => resource_write_support(*op),
        InstKind::Assume { .. } => Support::NoOp,
        InstKind::IndexedBranch { .. } => {
            Support::Unsupported("indexed_branch is raw CFG; the backend needs structured switch")
        }
        InstKind::Outline { .. } => {
            Support::Unsupported("outline regions are not lowered by any backend")
        }
        InstKind::AutodiffScope { .. } | InstKind::AutodiffIntrinsic(_) => {
            Support::Unsupported("autodiff must be lowered before code generation")
        }
        InstKind::RayQueryLoop { .. }
        | InstKind::RayQueryDispatch
        | InstKind::RayQueryObjectRead(_)
        | InstKind::RayQueryObjectWrite(_)
        | InstKind::RayQueryPipeline => {
            Support::Unsupported("ray queries are not emitted by this backend yet")
        }
        InstKind::CoroSuspend(_) | InstKind::CoroResume { .. } | InstKind::CoroTerminate => {
            Support::Unsupported("coroutines must be lowered before code generation")
        }
        InstKind::RasterDiscard => Support::Unsupported("raster_discard in a compute kernel"),
        InstKind::Print { .. } => Support::Unsupported(
            "print needs a debug-printf channel the Vulkan runtime does not provide",
        ),
        InstKind::Clock => Support::Unsupported(
            "clock needs VK_KHR_shader_clock, not part of this backend's feature set",
        ),
        InstKind::DebugBreak { .. } => Support::Unsupported("debug_break has no SPIR-V equivalent"),
        InstKind::Assert { .. } => Support::Unsupported(
            "assert needs a host-visible abort channel the Vulkan runtime does not provide",
        ),
    }
}

/// Scalar kinds.
pub fn scalar_support(k: ScalarKind) -> Support {
    match k {
        ScalarKind::F8E4M3 | ScalarKind::F8E5M2 => {
            Support::Unsupported("FP8 needs SPV_EXT_float8, not emitted yet")
        }
        ScalarKind::I4 | ScalarKind::F4E2M1 => {
            Support::Unsupported("4-bit types have no SPIR-V representation")
        }
        _ => Support::Supported,
    }
}

/// Type classes (recursively for composites).
pub fn type_support(module: &Module, t: Type) -> Support {
    type_support_depth(module, t, 0)
}

fn type_support_depth(module: &Module, t: Type, depth: usize) -> Support {
    if depth > 64 {
        return Support::Unsupported("type nested too deeply");
    }
    let ts = &module.types;
    match ts.get(t) {
        TypeData::Scalar(k) => scalar_support(*k),
        TypeData::Vector { elem, .. } | TypeData::Matrix { elem, .. } => {
            type_support_depth(module, *elem, depth + 1)
        }
        TypeData::Array { elem, len } => {
            if *len == 0 {
                return Support::Unsupported(
                    "zero-length arrays have no SPIR-V type (OpTypeArray length must be positive)",
                );
            }
            if *len > u32::MAX as u64 {
                return Support::Unsupported("array length does not fit a 32-bit SPIR-V literal");
            }
            type_support_depth(module, *elem, depth + 1)
        }
        TypeData::Struct { members, .. } => {
            if members.is_empty() {
                return Support::Unsupported("empty structures have no SPIR-V type");
            }
            for m in members {
                let s = type_support_depth(module, *m, depth + 1);
                if s != Support::Supported {
                    return s;
                }
            }
            Support::Supported
        }
        TypeData::Buffer { elem: Some(e) } => {
            // The element's own rejection (a zero-length array, FP8, …) is the more
            // specific diagnostic, so it is checked before the buffer layout.
            let elem = type_support_depth(module, *e, depth + 1);
            if elem != Support::Supported {
                elem
            } else {
                // Elements without a byte-exact typed layout use the word-storage ABI.
                Support::Supported
            }
        }
        TypeData::Buffer { elem: None } => Support::Supported,
        TypeData::Texture { .. } => {
            Support::Unsupported("textures are not emitted by this backend yet")
        }
        TypeData::BindlessArray => {
            Support::Unsupported("bindless arrays are not emitted by this backend yet")
        }
        TypeData::Accel => {
            Support::Unsupported("acceleration structures are not emitted by this backend yet")
        }
        TypeData::Custom { .. } => {
            Support::Unsupported("opaque custom types have no SPIR-V representation")
        }
        _ => Support::Unsupported(
            "cooperative vector/matrix types are not emitted by this backend yet",
        ),
    }
}

/// One row of the documented table.
#[derive(Clone, Debug)]
pub struct Row {
    /// The construct (`arithmetic binary_add`, `type f64`, …).
    pub construct: String,
    /// Its classification.
    pub support: Support,
}

/// The whole table, row per instruction kind × sub-op and per type class (for docs and the
/// opcode-matrix test).
pub fn table() -> Vec<Row> {
    let mut rows = Vec::new();
    let mut push = |c: String, s: Support| {
        rows.push(Row {
            construct: c,
            support: s,
        })
    };
    for op in ArithmeticOp::ALL {
        push(format!("arithmetic {}", op.name()), arithmetic_support(*op));
    }
    for op in ThreadGroupOp::ALL {
        push(
            format!("thread_group {}", op.name()),
            thread_group_support(*op),
        );
    }
    for op in ResourceQueryOp::ALL {
        push(
            format!("resource_query {}", op.name()),
            resource_query_support(*op),
        );
    }
    for op in ResourceReadOp::ALL {
        push(
            format!("resource_read {}", op.name()),
            resource_read_support(*op),
        );
    }
    for op in ResourceWriteOp::ALL {
        push(
            format!("resource_write {}", op.name()),
            resource_write_support(*op),
        );
    }
    for op in AtomicOp::ALL {
        push(
            format!("atomic {} (integer)", op.name()),
            Support::Supported,
        );
        let f = if matches!(
            op,
            AtomicOp::FetchAnd | AtomicOp::FetchOr | AtomicOp::FetchXor
        ) {
            Support::Unsupported("bitwise atomics are integer-only")
        } else {
            // Without a native op: compare-exchange on the bit pattern in word storage.
            Support::Supported
        };
        push(format!("atomic {} (f32)", op.name()), f);
    }
    for &tag in xir_ir::InstTag::ALL.iter() {
        let s = match tag {
            xir_ir::InstTag::Arithmetic
            | xir_ir::InstTag::ThreadGroup
            | xir_ir::InstTag::ResourceQuery
            | xir_ir::InstTag::ResourceRead
            | xir_ir::InstTag::ResourceWrite
            | xir_ir::InstTag::Atomic => continue,
            _ => inst_support(&sample_kind(tag)),
        };
        push(format!("instruction {}", tag.text_keyword()), s);
    }
    for k in ScalarKind::ALL {
        push(format!("type {}", k.text_name()), scalar_support(*k));
    }
    rows
}

fn sample_kind(tag: xir_ir::InstTag) -> InstKind {
    use xir_ir::InstTag as T;
    match tag {
        T::If => InstKind::If { merge: None },
        T::Switch => InstKind::Switch {
            labels: vec![],
            merge: None,
        },
        T::Loop => InstKind::Loop {
            body: None,
            update: None,
            merge: None,
        },
        T::SimpleLoop => InstKind::SimpleLoop { merge: None },
        T::Branch => InstKind::Branch,
        T::ConditionalBranch => InstKind::ConditionalBranch,
        T::Unreachable => InstKind::Unreachable {
            message: String::new(),
        },
        T::Break => InstKind::Break,
        T::Continue => InstKind::Continue,
        T::Return => InstKind::Return,
        T::RasterDiscard => InstKind::RasterDiscard,
        T::CoroSuspend => InstKind::CoroSuspend(Box::default()),
        T::CoroResume => InstKind::CoroResume {
            token: 0,
            has_frame: false,
        },
        T::CoroTerminate => InstKind::CoroTerminate,
        T::Phi => InstKind::Phi,
        T::Alloca => InstKind::Alloca(AllocaOp::Local),
        T::Load => InstKind::Load,
        T::Store => InstKind::Store,
        T::Gep => InstKind::Gep,
        T::RayQueryLoop => InstKind::RayQueryLoop { merge: None },
        T::RayQueryDispatch => InstKind::RayQueryDispatch,
        T::RayQueryObjectRead => InstKind::RayQueryObjectRead(RayQueryObjectReadOp::ALL[0]),
        T::RayQueryObjectWrite => InstKind::RayQueryObjectWrite(RayQueryObjectWriteOp::ALL[0]),
        T::RayQueryPipeline => InstKind::RayQueryPipeline,
        T::AutodiffScope => InstKind::AutodiffScope {
            merge: None,
            forward: false,
            n_forward_grads: 0,
        },
        T::AutodiffIntrinsic => InstKind::AutodiffIntrinsic(AutodiffIntrinsicOp::ALL[0]),
        T::Call => InstKind::Call,
        T::Cast => InstKind::Cast(CastOp::StaticCast),
        T::Print => InstKind::Print {
            format: String::new(),
        },
        T::Clock => InstKind::Clock,
        T::DebugBreak => InstKind::DebugBreak { callback: None },
        T::Assert => InstKind::Assert {
            message: String::new(),
        },
        T::Assume => InstKind::Assume {
            message: String::new(),
        },
        T::Outline => InstKind::Outline { merge: None },
        T::IndexedBranch => InstKind::IndexedBranch { labels: vec![] },
        T::Arithmetic => InstKind::Arithmetic(ArithmeticOp::BinaryAdd),
        T::ThreadGroup => InstKind::ThreadGroup(ThreadGroupOp::SynchronizeBlock),
        T::ResourceQuery => {
            InstKind::ResourceQuery(ResourceQueryOp::BufferSize, BindlessAccess::default())
        }
        T::ResourceRead => {
            InstKind::ResourceRead(ResourceReadOp::BufferRead, BindlessAccess::default())
        }
        T::ResourceWrite => {
            InstKind::ResourceWrite(ResourceWriteOp::BufferWrite, BindlessAccess::default())
        }
        T::Atomic => InstKind::Atomic(AtomicOp::Exchange),
    }
}

/// The handoff check over every kernel of the module, as plain diagnostics (no source
/// spans: messages name the function). For the `spirv-final` pipeline's last step.
pub fn validate_dialect(module: &Module) -> Result<(), Vec<Diagnostic>> {
    check_dialect(module)
        .map_err(|errs| crate::error::CodegenError::user(errs).to_diagnostics(module, None))
}

/// The handoff check over every kernel, as located diagnostics.
pub fn check_dialect(module: &Module) -> Result<(), Vec<Located>> {
    let mut errors = Vec::new();
    let mut done = rustc_hash::FxHashSet::default();
    for (k, _) in plan::kernels(module) {
        match plan::call_graph(module, k) {
            Ok(graph) => {
                for f in graph {
                    if done.insert(f) {
                        check_function(module, f, &mut errors);
                    }
                }
            }
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// The handoff check over one kernel's graph (callee before caller, as planned).
pub fn check_graph(module: &Module, graph: &[FuncId]) -> Result<(), Vec<Located>> {
    let mut errors = Vec::new();
    for &f in graph {
        check_function(module, f, &mut errors);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn unsupported(loc: Loc, what: &str, why: &str) -> Located {
    Located::new(
        loc,
        format!("{what} is not in the SPIR-V backend's dialect: {why}"),
    )
    .help(RUN_FINAL)
}

fn check_type(module: &Module, t: Type, loc: Loc, what: &str, errors: &mut Vec<Located>) -> bool {
    if let Support::Unsupported(why) = type_support(module, t) {
        errors.push(Located::new(
            loc,
            format!(
                "{what} has type {} that the SPIR-V backend cannot represent: {why}",
                crate::reflect::type_name(module, t)
            ),
        ));
        false
    } else {
        true
    }
}

/// Per-instruction-word limits of variable-length SPIR-V instructions (16-bit word count).
pub const MAX_WORDS: usize = 65535;

fn check_function(module: &Module, f: FuncId, errors: &mut Vec<Located>) {
    let func = module.func(f);
    let is_kernel = matches!(func.kind, FunctionKind::Kernel { .. });
    if let Some(r) = func.ret {
        check_type(module, r, Loc::Func(f), "the return value", errors);
    }
    for &a in &func.arg_order {
        let arg = &func.args[a];
        if arg.kind == xir_ir::ArgKind::Resource && !is_kernel && plan::arg_is_used(func, a) {
            errors.push(
                Located::new(Loc::Arg(f, a), "a used resource formal of a callable cannot be a SPIR-V function parameter")
                    .help("spirv-final's inline-spirv-pointer-args specializes such calls into the caller"),
            );
            continue;
        }
        if arg.kind == xir_ir::ArgKind::Resource && !is_kernel {
            continue;
        }
        check_type(module, arg.ty, Loc::Arg(f, a), "the argument", errors);
    }
    let closure = structural_closure(func);
    let Some(body) = func.body else {
        errors.push(Located::new(Loc::Func(f), "function has no body"));
        return;
    };
    for &b in &closure {
        let insts = &func.blocks[b].insts;
        if insts.is_empty() || func.terminator(b).is_none() {
            errors.push(Located::new(Loc::Block(f, b), "block has no terminator"));
            continue;
        }
        for &i in insts {
            let inst = func.inst(i);
            let loc = Loc::Inst(f, i);
            if let Support::Unsupported(why) = inst_support(&inst.kind) {
                errors.push(unsupported(
                    loc,
                    &format!("`{}`", describe(&inst.kind)),
                    why,
                ));
                continue;
            }
            if let Some(t) = inst.ty
                && !check_type(module, t, loc, "the result", errors)
            {
                continue;
            }
            check_inst(module, func, f, i, b, body, is_kernel, errors);
        }
    }
    check_form(func, f, errors);
}

/// Structured control flow exactly as `xir_ir::analysis::form` defines it (SPIR-V's
/// loop-header forms and structured-exit rules). Only executable edges count, so true
/// orphans and inactive role payloads (emitted in the canonical unreachable form) are
/// not judged; `indexed_branch` is reported by the dialect table.
fn check_form(func: &Function, f: FuncId, errors: &mut Vec<Located>) {
    use xir_ir::analysis::form::{self, Form, ViolationKind};
    let closure: rustc_hash::FxHashSet<_> = structural_closure(func).into_iter().collect();
    for v in form::violations(func, Form::Structured) {
        if !closure.contains(&v.block) || v.keyword() == "indexed_branch" {
            continue;
        }
        let msg = match v.kind {
            ViolationKind::UnstructuredBranch => {
                "cond_br outside a loop's prepare block is unstructured control flow".to_string()
            }
            ViolationKind::BadLoopPrepare => {
                "a loop's prepare block must end with `br body` or `cond_br %c, body, merge`"
                    .to_string()
            }
            _ => v.message(),
        };
        errors.push(Located::new(Loc::Inst(f, v.inst), msg).help(RUN_FINAL));
    }
}

fn describe(kind: &InstKind) -> String {
    match kind {
        InstKind::Arithmetic(op) => format!("arithmetic {}", op.name()),
        InstKind::ThreadGroup(op) => format!("thread_group {}", op.name()),
        InstKind::ResourceQuery(op, _) => format!("resource_query {}", op.name()),
        InstKind::ResourceRead(op, _) => format!("resource_read {}", op.name()),
        InstKind::ResourceWrite(op, _) => format!("resource_write {}", op.name()),
        InstKind::Atomic(op) => format!("atomic {}", op.name()),
        InstKind::RayQueryObjectRead(op) => format!("ray_query_object_read {}", op.name()),
        InstKind::RayQueryObjectWrite(op) => format!("ray_query_object_write {}", op.name()),
        InstKind::AutodiffIntrinsic(op) => format!("@{}", op.name()),
        other => other.tag().text_keyword().to_string(),
    }
}

#[allow(clippy::too_many_arguments)]
fn check_inst(
    module: &Module,
    func: &Function,
    f: FuncId,
    i: xir_ir::InstId,
    b: xir_ir::BlockId,
    body: xir_ir::BlockId,
    is_kernel: bool,
    errors: &mut Vec<Located>,
) {
    let inst = func.inst(i);
    let loc = Loc::Inst(f, i);
    let ts = &module.types;
    match &inst.kind {
        InstKind::Phi => {
            let incoming = inst.phi_len();
            if b == body {
                errors.push(Located::new(
                    loc,
                    "phi in the function's entry block: the SPIR-V entry has no predecessor",
                ));
            }
            if 3 + 2 * incoming > MAX_WORDS {
                errors.push(Located::new(
                    loc,
                    format!(
                        "phi with {incoming} incoming values exceeds SPIR-V's 65535-word instruction limit"
                    ),
                ));
            }
        }
        InstKind::Switch { labels, .. } => {
            let sel = inst.operands.first().and_then(|v| module.value_type(f, *v));
            let wide = sel
                .and_then(|t| ts.scalar_kind(t))
                .is_some_and(|k| k.size() == 8);
            let per = if wide { 3 } else { 2 };
            if 3 + per * labels.len() > MAX_WORDS {
                errors.push(Located::new(
                    loc,
                    format!(
                        "switch with {} cases exceeds SPIR-V's 65535-word instruction limit",
                        labels.len()
                    ),
                ));
            }
        }
        InstKind::Loop {
            body: lb,
            update,
            merge,
        } if (lb.is_none() || update.is_none() || merge.is_none()) => {
            errors.push(
                Located::new(loc, "loop without body, update or merge block").help(RUN_FINAL),
            );
        }
        InstKind::SimpleLoop { merge } if merge.is_none() => {
            errors.push(Located::new(loc, "simple_loop without a merge block").help(RUN_FINAL));
        }
        InstKind::Alloca(AllocaOp::Shared) if !is_kernel => {
            errors.push(
                Located::new(
                    loc,
                    "shared alloca in a callable: Workgroup storage must be declared by the kernel",
                )
                .help(RUN_FINAL),
            );
        }
        InstKind::Alloca(AllocaOp::Local)
            if inst
                .metadata
                .iter()
                .any(|m| matches!(m, Metadata::Reg2MemSpill(_))) =>
        {
            errors.push(
                Located::new(
                    loc,
                    "reg2mem spill slot survived to code generation (mem2reg must consume it)",
                )
                .help(RUN_FINAL),
            );
        }
        InstKind::Atomic(_) => {
            let base = inst.operands.first().copied();
            let ok_base = match base {
                Some(Value::Arg(a)) => func.args[a].kind == xir_ir::ArgKind::Resource,
                Some(Value::Inst(j)) => {
                    matches!(func.inst(j).kind, InstKind::Alloca(AllocaOp::Shared))
                }
                _ => false,
            };
            if !ok_base {
                errors.push(Located::new(
                    loc,
                    "atomic base must be a buffer argument or a shared alloca",
                ));
            }
        }
        InstKind::Call => {
            let Some(callee) = inst.operands.first().and_then(|v| v.as_func()) else {
                return;
            };
            let cf = module.func(callee);
            for (k, v) in inst.operands[1..].iter().enumerate() {
                let Some(&formal) = cf.arg_order.get(k) else {
                    continue;
                };
                if cf.args[formal].kind != xir_ir::ArgKind::Reference {
                    continue;
                }
                let ok = match v {
                    Value::Inst(j) => {
                        matches!(func.inst(*j).kind, InstKind::Alloca(AllocaOp::Local))
                    }
                    Value::Arg(a) => func.args[*a].kind == xir_ir::ArgKind::Reference,
                    _ => false,
                };
                if !ok {
                    errors.push(
                        Located::new(loc, format!("reference argument {k} must be a local alloca or a reference argument (a SPIR-V memory object declaration)"))
                            .help("spirv-final's inline-spirv-pointer-args specializes calls that pass element pointers or shared memory"),
                    );
                }
            }
        }
        InstKind::Gep => {
            if let Some(Value::Arg(a)) = inst.operands.first()
                && func.args[*a].kind == xir_ir::ArgKind::Resource
            {
                errors.push(Located::new(loc, "getelementptr into a resource"));
            }
        }
        _ => {}
    }
}

/// The table as the Markdown section of `docs/codegen.md` (kept current by a test).
pub fn table_markdown() -> String {
    let mut s = String::from("| Construct | Backend |\n|---|---|\n");
    for r in table() {
        let what = match r.support {
            Support::Supported => "supported".to_string(),
            Support::NoOp => "semantic no-op".to_string(),
            Support::Unsupported(why) => format!("unsupported: {why}"),
        };
        s.push_str(&format!("| `{}` | {} |\n", r.construct, what));
    }
    s
}

/// The rows of [`table`] that `m` exercises: per placed instruction its construct
/// (`arithmetic binary_add`, `atomic fetch_add (f32)`, `instruction loop`, …) and per
/// scalar kind of the types its functions use, `type <kind>`. The coverage table of
/// docs/codegen.md maps supported rows to the kernels that exercise them.
pub fn constructs_used(m: &Module) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut types = Vec::new();
    for &fid in &m.func_order {
        let f = m.func(fid);
        types.extend(f.args.values().map(|a| a.ty));
        types.extend(f.ret);
        for i in f.placed_insts() {
            let d = &f.insts[i];
            types.extend(d.ty);
            out.insert(match &d.kind {
                InstKind::Arithmetic(op) => format!("arithmetic {}", op.name()),
                InstKind::ThreadGroup(op) => format!("thread_group {}", op.name()),
                InstKind::ResourceQuery(op, _) => format!("resource_query {}", op.name()),
                InstKind::ResourceRead(op, _) => format!("resource_read {}", op.name()),
                InstKind::ResourceWrite(op, _) => format!("resource_write {}", op.name()),
                InstKind::Atomic(op) => {
                    let float = d.ty.and_then(|t| m.types.scalar_kind(t)) == Some(ScalarKind::F32);
                    let class = if float { "f32" } else { "integer" };
                    format!("atomic {} ({class})", op.name())
                }
                k => format!("instruction {}", k.tag().text_keyword()),
            });
        }
    }
    let mut seen = std::collections::HashSet::new();
    while let Some(t) = types.pop() {
        if !seen.insert(t) {
            continue;
        }
        match m.types.get(t) {
            TypeData::Scalar(k) => {
                out.insert(format!("type {}", k.text_name()));
            }
            TypeData::Vector { elem, .. }
            | TypeData::Matrix { elem, .. }
            | TypeData::Array { elem, .. }
            | TypeData::Buffer { elem: Some(elem) } => types.push(*elem),
            TypeData::Struct { members, .. } => types.extend(members.iter().copied()),
            _ => {}
        }
    }
    out
}

//! Frozen plans computed before any SPIR-V is emitted: the kernel-reachable call graph
//! (callee before caller), each function's structural closure, the typed-buffer layout
//! decision and the fixed-point argument usage.
//!
//! Emission only reads these plans; it never rediscovers edges or usages.

use crate::error::{Loc, Located};
use rustc_hash::FxHashMap;
use xir_ir::entity::EntityRef as _;
use xir_ir::op::{AtomicOp, ResourceReadOp, ResourceWriteOp};
use xir_ir::types::{TypeData, vector_layout};
use xir_ir::{
    ArgId, ArgKind, BlockId, FuncId, Function, FunctionKind, InstKind, Metadata, Module, Type,
    Value,
};

/// Calls nested deeper than this are rejected (bounds the planner's work on hostile input).
pub const MAX_CALL_DEPTH: usize = 1024;

/// The display name of a function: its `name` metadata, else `%` and its position.
pub fn function_name(module: &Module, f: FuncId) -> String {
    let func = module.func(f);
    for md in &func.metadata {
        if let Metadata::Name(n) = md {
            return n.clone();
        }
    }
    let pos = module.func_order.iter().position(|&g| g == f).unwrap_or(0);
    format!("{}_{}", func.kind.keyword(), pos)
}

/// Kernels of the module in order, with their names.
pub fn kernels(module: &Module) -> Vec<(FuncId, String)> {
    module
        .func_order
        .iter()
        .copied()
        .filter(|&f| matches!(module.func(f).kind, FunctionKind::Kernel { .. }))
        .map(|f| (f, function_name(module, f)))
        .collect()
}

/// Blocks of `func` in its structural closure: the ordinary CFG from the body plus every
/// structured role block (merge, loop body/update) it owns, recursively.
///
/// Linear in the function's size (`Function::has_block` is one table read).
pub fn structural_closure(func: &Function) -> Vec<BlockId> {
    let mut order = Vec::new();
    let Some(body) = func.body else { return order };
    let mut visited = vec![false; func.blocks.len()];
    let mut stack = vec![body];
    while let Some(b) = stack.pop() {
        if !func.has_block(b) {
            continue;
        }
        match visited.get_mut(b.index()) {
            Some(v @ false) => *v = true,
            _ => continue,
        }
        order.push(b);
        if let Some(t) = func.terminator(b) {
            let inst = func.inst(t);
            let mut succ: Vec<BlockId> = inst.operand_blocks().collect();
            if !matches!(inst.kind, InstKind::Phi) {
                succ.extend(inst.kind.side_blocks());
            }
            stack.extend(succ.into_iter().rev());
        }
    }
    order
}

/// Direct callees of the instructions of `func`'s closure, in first-call order.
/// A function's call sites: (callee, call instruction).
type CallSites = Vec<(FuncId, xir_ir::InstId)>;

fn callees(func: &Function) -> CallSites {
    let mut out = Vec::new();
    for b in structural_closure(func) {
        for &i in &func.blocks[b].insts {
            let inst = func.inst(i);
            if matches!(inst.kind, InstKind::Call)
                && let Some(f) = inst.operands.first().and_then(|v| v.as_func())
            {
                out.push((f, i));
            }
        }
    }
    out
}

/// The kernel-reachable call graph, callee before caller (the kernel last). Recursion,
/// calls of kernels and of external declarations are rejected.
pub fn call_graph(module: &Module, kernel: FuncId) -> Result<Vec<FuncId>, Vec<Located>> {
    // Iterative DFS with an explicit path for cycle detection.
    let mut order = Vec::new();
    let mut state: FxHashMap<FuncId, u8> = FxHashMap::default(); // 1 = on path, 2 = done
    let mut errors = Vec::new();
    // (function, its call sites, the next one to visit)
    let mut stack: Vec<(FuncId, CallSites, usize)> = Vec::new();
    state.insert(kernel, 1);
    stack.push((kernel, callees(module.func(kernel)), 0));
    while let Some((f, calls, next)) = stack.last_mut() {
        if *next == calls.len() {
            state.insert(*f, 2);
            order.push(*f);
            stack.pop();
            continue;
        }
        let (callee, site) = calls[*next];
        let caller = *f;
        *next += 1;
        let cf = module.func(callee);
        match cf.kind {
            FunctionKind::Callable => {}
            FunctionKind::External => {
                errors.push(
                    Located::new(
                        Loc::Inst(caller, site),
                        format!(
                            "call of external function {} has no SPIR-V definition",
                            function_name(module, callee)
                        ),
                    )
                    .help("the SPIR-V backend needs a definition of every reachable callable"),
                );
                continue;
            }
            _ => {
                errors.push(Located::new(
                    Loc::Inst(caller, site),
                    format!(
                        "call of {} {}: only callables can be called",
                        cf.kind.keyword(),
                        function_name(module, callee)
                    ),
                ));
                continue;
            }
        }
        match state.get(&callee) {
            Some(1) => {
                errors.push(Located::new(
                    Loc::Inst(caller, site),
                    format!(
                        "recursive call of {}: SPIR-V has no recursion",
                        function_name(module, callee)
                    ),
                ));
            }
            Some(_) => {}
            None => {
                if stack.len() >= MAX_CALL_DEPTH {
                    errors.push(Located::new(
                        Loc::Inst(caller, site),
                        format!("call graph deeper than {MAX_CALL_DEPTH}"),
                    ));
                    continue;
                }
                state.insert(callee, 1);
                stack.push((callee, callees(cf), 0));
            }
        }
    }
    if errors.is_empty() {
        Ok(order)
    } else {
        Err(errors)
    }
}

/// How a buffer's elements are stored.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BufferRepr {
    /// A runtime array of the laid-out element type (Vulkan standard layout matches the
    /// host layout exactly).
    Typed,
    /// The byte-exact uint32 word ABI: a runtime array of `uint` (ArrayStride 4) holding
    /// the host bytes; element `i` starts at byte `i * stride` (`emit/words.rs`).
    Words,
}

/// Scalars one word-storage access may expand to (bounds the emitted code per access).
pub const MAX_WORD_SCALARS: u64 = 4096;

/// The storage representation of every buffer argument of `kernel`, decided once before
/// type conversion (the seed's layout decision, consumed by atomic analysis):
///
/// * byte buffers, and elements without a byte-exact typed layout
///   ([`typed_layout_problem`]), use [`BufferRepr::Words`];
/// * so does a buffer with a float atomic SPIR-V has no native op for (compare-exchange:
///   `OpAtomicCompareExchange` takes integers, so the bit pattern is compared on a word);
///   its other float atomics then become compare-exchange loops on the word;
/// * refused at this handoff: a 64-bit integer atomic or any 64-bit or sub-word atomic
///   on word storage (a word holds 32 bits), an atomic on a byte buffer, and an element
///   whose word accesses would expand to more than [`MAX_WORD_SCALARS`] scalars.
pub fn buffer_reprs(
    module: &Module,
    kernel: FuncId,
    graph: &[FuncId],
) -> Result<FxHashMap<ArgId, BufferRepr>, Vec<Located>> {
    let ts = &module.types;
    let func = module.func(kernel);
    let mut reprs = FxHashMap::default();
    for &a in &func.arg_order {
        if func.args[a].kind != ArgKind::Resource {
            continue;
        }
        let r = match ts.get(func.args[a].ty) {
            TypeData::Buffer { elem: None } => BufferRepr::Words,
            TypeData::Buffer { elem: Some(e) } if typed_layout_problem(module, *e).is_some() => {
                BufferRepr::Words
            }
            _ => BufferRepr::Typed,
        };
        reprs.insert(a, r);
    }
    let mut errors = Vec::new();
    // Float atomics without a native op force word storage on their buffer.
    let atomics: Vec<(FuncId, xir_ir::InstId, ArgId, AtomicOp, Type)> = graph
        .iter()
        .filter(|&&f| f == kernel)
        .flat_map(|&f| {
            let func = module.func(f);
            structural_closure(func)
                .into_iter()
                .flat_map(move |b| func.blocks[b].insts.iter().copied())
                .filter_map(move |i| {
                    let inst = func.inst(i);
                    match (&inst.kind, inst.operands.first(), inst.ty) {
                        (InstKind::Atomic(op), Some(Value::Arg(a)), Some(t)) => {
                            Some((f, i, *a, *op, t))
                        }
                        _ => None,
                    }
                })
        })
        .collect();
    for &(_, _, a, op, t) in &atomics {
        if ts.scalar_kind(t).is_some_and(|k| k.is_float()) && !float_atomic_native(op) {
            reprs.insert(a, BufferRepr::Words);
        }
    }
    for &(f, i, a, op, t) in &atomics {
        if reprs.get(&a) != Some(&BufferRepr::Words) {
            continue;
        }
        let loc = Loc::Inst(f, i);
        let k = ts.scalar_kind(t);
        if matches!(ts.get(func.args[a].ty), TypeData::Buffer { elem: None }) {
            errors.push(Located::new(
                loc,
                "atomic on a byte buffer: the word-storage ABI has no byte-addressed atomics",
            ));
        } else if k.is_some_and(|k| k.size() == 8 && !k.is_float()) {
            errors.push(Located::new(loc, format!("64-bit integer atomic {} needs typed storage, but this buffer uses the uint32 word-storage ABI", op.name()))
                .help("a buffer with a float compare-exchange, bool or 64-bit 3/4-vector elements, or an incompatible stride is stored as 32-bit words"));
        } else if k.is_none_or(|k| k.size() != 4) {
            errors.push(Located::new(loc, format!("atomic {} on a {}-byte value: the uint32 word-storage ABI has only 32-bit atomics", op.name(), ts.size_of(t))));
        }
    }
    for &a in &func.arg_order {
        if let (Some(BufferRepr::Words), TypeData::Buffer { elem: Some(e) }) =
            (reprs.get(&a), ts.get(func.args[a].ty))
        {
            let n = scalar_count(module, *e, 0);
            if n > MAX_WORD_SCALARS {
                errors.push(Located::new(Loc::Arg(kernel, a), format!("a word-storage buffer element of {n} scalars exceeds the backend's limit of {MAX_WORD_SCALARS} per access")));
            }
        }
    }
    if errors.is_empty() {
        Ok(reprs)
    } else {
        Err(errors)
    }
}

/// Scalars in a value of type `t` (saturating; nesting deeper than 64 counts as too many).
pub fn scalar_count(module: &Module, t: Type, depth: usize) -> u64 {
    let ts = &module.types;
    if depth > 64 {
        return u64::MAX;
    }
    match ts.get(t) {
        TypeData::Vector { len, .. } => *len as u64,
        TypeData::Matrix { n, .. } => (*n as u64) * (*n as u64),
        TypeData::Array { elem, len } => len.saturating_mul(scalar_count(module, *elem, depth + 1)),
        TypeData::Struct { members, .. } => members.iter().fold(0u64, |acc, m| {
            acc.saturating_add(scalar_count(module, *m, depth + 1))
        }),
        _ => 1,
    }
}

/// Why a host layout has no typed-SSBO equivalent (the seed's word-storage cases).
pub fn typed_layout_problem(module: &Module, t: Type) -> Option<String> {
    let ts = &module.types;
    // (std430 base alignment, problem)
    fn walk(module: &Module, t: Type, depth: usize) -> Result<u64, String> {
        let ts = &module.types;
        if depth > 64 {
            return Err("type nesting too deep for a buffer layout".into());
        }
        match ts.get(t) {
            TypeData::Scalar(k) => {
                if *k == xir_ir::ScalarKind::Bool {
                    return Err("bool has no storage-buffer representation".into());
                }
                Ok(k.size())
            }
            TypeData::Vector { elem, len } => {
                let es = ts.scalar_kind(*elem).map(|k| k.size()).unwrap_or(4);
                walk(module, *elem, depth + 1)?;
                let vk_align = es * if *len == 2 { 2 } else { 4 };
                let (_, host_align) = vector_layout(es, *len);
                if vk_align != host_align {
                    return Err(format!(
                        "a {}-byte {len}-component vector is {vk_align}-byte aligned in Vulkan but {host_align}-byte aligned on the host",
                        es
                    ));
                }
                Ok(vk_align)
            }
            TypeData::Matrix { elem, n } => {
                let es = ts.scalar_kind(*elem).map(|k| k.size()).unwrap_or(4);
                let vk_align = es * if *n == 2 { 2 } else { 4 };
                let (_, host_align) = vector_layout(es, *n);
                if vk_align != host_align {
                    return Err(
                        "matrix column alignment differs between Vulkan and the host".into(),
                    );
                }
                Ok(vk_align)
            }
            TypeData::Array { elem, len } => {
                if *len == 0 {
                    return Err("zero-length array".into());
                }
                let a = walk(module, *elem, depth + 1)?;
                let stride = ts.size_of(*elem);
                if stride == 0 || !stride.is_multiple_of(a) {
                    return Err(format!(
                        "array stride {stride} is not a multiple of the element's Vulkan alignment {a}"
                    ));
                }
                Ok(a)
            }
            TypeData::Struct { members, .. } => {
                let offs = ts.struct_offsets(t);
                let mut al = 1;
                for (m, off) in members.iter().zip(offs) {
                    let a = walk(module, *m, depth + 1)?;
                    if off % a != 0 {
                        return Err(format!(
                            "member offset {off} is not a multiple of its Vulkan alignment {a}"
                        ));
                    }
                    al = al.max(a);
                }
                if members.is_empty() {
                    return Err("empty structure".into());
                }
                Ok(al)
            }
            _ => Err("not a plain data type".into()),
        }
    }
    match walk(module, t, 0) {
        Err(e) => Some(e),
        Ok(a) => {
            let stride = ts.size_of(t);
            if stride == 0 {
                Some("zero-sized element".into())
            } else if !stride.is_multiple_of(a) {
                Some(format!(
                    "element stride {stride} is not a multiple of its Vulkan alignment {a}"
                ))
            } else {
                None
            }
        }
    }
}

/// Per-argument usage bits.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Read (loads, buffer reads, atomics).
    pub read: bool,
    /// Written (stores, buffer writes, atomics).
    pub write: bool,
    /// Accessed by an atomic.
    pub atomic: bool,
    /// Accessed with a volatile read or write (needs Coherent).
    pub volatile: bool,
}

impl Usage {
    fn merge(&mut self, o: Usage) -> bool {
        let before = *self;
        self.read |= o.read;
        self.write |= o.write;
        self.atomic |= o.atomic;
        self.volatile |= o.volatile;
        before != *self
    }
    /// The reflection spelling.
    pub fn name(self) -> &'static str {
        match (self.read, self.write) {
            (false, false) => "none",
            (true, false) => "read",
            (false, true) => "write",
            (true, true) => "read_write",
        }
    }
}

/// Argument usage of every function of the graph, to a fixed point through calls.
pub fn argument_usage(module: &Module, graph: &[FuncId]) -> FxHashMap<(FuncId, ArgId), Usage> {
    let mut usage: FxHashMap<(FuncId, ArgId), Usage> = FxHashMap::default();
    // Callee before caller means one sweep reaches the fixed point for an acyclic graph;
    // the loop keeps the contract explicit should the order ever change.
    loop {
        let mut changed = false;
        for &f in graph {
            let func = module.func(f);
            for b in structural_closure(func) {
                for &i in &func.blocks[b].insts {
                    let inst = func.inst(i);
                    let base = inst.operands.first().and_then(|v| v.as_arg());
                    let mut add =
                        |a: ArgId, u: Usage, usage: &mut FxHashMap<(FuncId, ArgId), Usage>| {
                            changed |= usage.entry((f, a)).or_default().merge(u);
                        };
                    match &inst.kind {
                        InstKind::ResourceRead(op, _) => {
                            if let Some(a) = base {
                                let volatile = matches!(
                                    op,
                                    ResourceReadOp::BufferVolatileRead
                                        | ResourceReadOp::ByteBufferVolatileRead
                                );
                                add(
                                    a,
                                    Usage {
                                        read: true,
                                        volatile,
                                        ..Usage::default()
                                    },
                                    &mut usage,
                                );
                            }
                        }
                        InstKind::ResourceWrite(op, _) => {
                            if let Some(a) = base {
                                let volatile = matches!(
                                    op,
                                    ResourceWriteOp::BufferVolatileWrite
                                        | ResourceWriteOp::ByteBufferVolatileWrite
                                );
                                add(
                                    a,
                                    Usage {
                                        write: true,
                                        volatile,
                                        ..Usage::default()
                                    },
                                    &mut usage,
                                );
                            }
                        }
                        InstKind::ResourceQuery(..) => {
                            if let Some(a) = base {
                                add(a, Usage::default(), &mut usage);
                            }
                        }
                        InstKind::Atomic(_) => {
                            if let Some(a) = base {
                                add(
                                    a,
                                    Usage {
                                        read: true,
                                        write: true,
                                        atomic: true,
                                        volatile: false,
                                    },
                                    &mut usage,
                                );
                            }
                        }
                        InstKind::Load => {
                            if let Some(a) = base {
                                add(
                                    a,
                                    Usage {
                                        read: true,
                                        ..Usage::default()
                                    },
                                    &mut usage,
                                );
                            }
                        }
                        InstKind::Store => {
                            if let Some(a) = base {
                                add(
                                    a,
                                    Usage {
                                        write: true,
                                        ..Usage::default()
                                    },
                                    &mut usage,
                                );
                            }
                        }
                        InstKind::Call => {
                            let Some(callee) = inst.operands.first().and_then(|v| v.as_func())
                            else {
                                continue;
                            };
                            let cf = module.func(callee);
                            for (k, v) in inst.operands[1..].iter().enumerate() {
                                if let (Value::Arg(a), Some(&formal)) = (v, cf.arg_order.get(k)) {
                                    let u =
                                        usage.get(&(callee, formal)).copied().unwrap_or_default();
                                    add(*a, u, &mut usage);
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        if !changed {
            return usage;
        }
    }
}

/// Whether argument `a` of `f` is used at all (as any operand) in its closure.
pub fn arg_is_used(func: &Function, a: ArgId) -> bool {
    structural_closure(func).iter().any(|&b| {
        func.blocks[b]
            .insts
            .iter()
            .any(|&i| func.inst(i).operands.contains(&Value::Arg(a)))
    })
}

/// Kernel argument kinds, for the ABI.
pub fn is_resource_arg(func: &Function, a: ArgId) -> bool {
    func.args[a].kind == ArgKind::Resource
}

/// Which atomic ops exist for floats natively (SPV_EXT_shader_atomic_float_add / _min_max);
/// compare-exchange on floats would need word storage.
pub fn float_atomic_native(op: AtomicOp) -> bool {
    matches!(
        op,
        AtomicOp::Exchange
            | AtomicOp::FetchAdd
            | AtomicOp::FetchSub
            | AtomicOp::FetchMin
            | AtomicOp::FetchMax
    )
}

//! What a set of modules exercises: instruction kinds, every op of every op enum, type
//! kinds (scalar kinds, type variants, struct alignments), metadata kinds, special
//! registers, function and argument kinds and structural features.

use std::collections::BTreeMap;
use xir_ir::analysis::Cfg;
use xir_ir::function::{ArgKind, FunctionKind};
use xir_ir::inst::{InstKind, InstTag};
use xir_ir::metadata::{Metadata, MetadataKind};
use xir_ir::module::Module;
use xir_ir::op::*;
use xir_ir::types::{ScalarKind, Type, TypeData};
use xir_ir::value::{SpecialRegister, Value};

/// Counts of every coverage item seen, and the expected items never seen.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    /// Item name (`"arith:binary_add"`, `"type:struct"`, `"feature:phi"`, …) → count.
    pub seen: BTreeMap<String, usize>,
    /// Expected items that no module exercised, in expectation order.
    pub missing: Vec<String>,
}

impl Coverage {
    /// Whether every expected item was seen.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty()
    }
}

fn type_variant(d: &TypeData) -> &'static str {
    match d {
        TypeData::Scalar(_) => "scalar",
        TypeData::Vector { .. } => "vector",
        TypeData::Matrix { .. } => "matrix",
        TypeData::Array { .. } => "array",
        TypeData::Struct { .. } => "struct",
        TypeData::Buffer { .. } => "buffer",
        TypeData::Texture { .. } => "texture",
        TypeData::BindlessArray => "bindless_array",
        TypeData::Accel => "accel",
        TypeData::Custom { .. } => "custom",
        TypeData::CoopVector { .. } => "coopvec",
        TypeData::CoopVectorRef { .. } => "coopvec_ref",
        TypeData::CoopMatrixRef { .. } => "coopmat_ref",
    }
}

/// The type variants coverage names (`type:<variant>`), one per [`TypeData`] variant.
pub const TYPE_VARIANTS: [&str; 13] = [
    "scalar",
    "vector",
    "matrix",
    "array",
    "struct",
    "buffer",
    "texture",
    "bindless_array",
    "accel",
    "custom",
    "coopvec",
    "coopvec_ref",
    "coopmat_ref",
];

const FEATURES: [&str; 17] = [
    "undefined_value",
    "kernel_custom_block_size",
    "arg_value",
    "arg_reference",
    "arg_resource",
    "coro_export",
    "coro_extension",
    "unreachable_block",
    "bindless_typed",
    "bindless_uniform",
    "debug_break_callback",
    "doubled_edge",
    "if_without_else",
    "phi_loop",
    "forward_autodiff",
    "unreachable_message",
    "nested_structured",
];

/// Every expected coverage item, in a stable order.
pub fn expected_items() -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    v.extend(
        InstTag::ALL
            .iter()
            .map(|t| format!("inst:{}", t.interchange_name())),
    );
    v.extend(AllocaOp::ALL.iter().map(|o| format!("alloca:{o}")));
    v.extend(CastOp::ALL.iter().map(|o| format!("cast:{o}")));
    v.extend(AtomicOp::ALL.iter().map(|o| format!("atomic:{o}")));
    v.extend(
        AutodiffIntrinsicOp::ALL
            .iter()
            .map(|o| format!("autodiff:{o}")),
    );
    v.extend(
        RayQueryObjectReadOp::ALL
            .iter()
            .map(|o| format!("rq_read:{o}")),
    );
    v.extend(
        RayQueryObjectWriteOp::ALL
            .iter()
            .map(|o| format!("rq_write:{o}")),
    );
    v.extend(ArithmeticOp::ALL.iter().map(|o| format!("arith:{o}")));
    v.extend(
        ResourceQueryOp::ALL
            .iter()
            .map(|o| format!("resource_query:{o}")),
    );
    v.extend(
        ResourceReadOp::ALL
            .iter()
            .filter(|o| !o.is_cooperative_vector_math())
            .map(|o| format!("resource_read:{o}")),
    );
    v.extend(
        ResourceWriteOp::ALL
            .iter()
            .map(|o| format!("resource_write:{o}")),
    );
    v.extend(
        ThreadGroupOp::ALL
            .iter()
            .map(|o| format!("thread_group:{o}")),
    );
    v.extend(
        ScalarKind::ALL
            .iter()
            .map(|k| format!("scalar:{}", k.text_name())),
    );
    v.extend(TYPE_VARIANTS.iter().map(|t| format!("type:{t}")));
    v.extend([1, 4, 8, 16].iter().map(|a| format!("struct_align:{a}")));
    v.extend(
        MetadataKind::ALL
            .iter()
            .map(|k| format!("metadata:{}", k.name())),
    );
    v.extend(
        SpecialRegister::ALL
            .iter()
            .map(|r| format!("special:{}", r.name())),
    );
    v.extend(
        [
            "kernel",
            "callable",
            "external",
            "raster_vertex",
            "raster_fragment",
        ]
        .iter()
        .map(|k| format!("function:{k}")),
    );
    v.extend(FEATURES.iter().map(|f| format!("feature:{f}")));
    v
}

struct Acc<'m> {
    m: &'m Module,
    seen: BTreeMap<String, usize>,
    types: Vec<Type>,
}

impl Acc<'_> {
    fn hit(&mut self, item: String) {
        *self.seen.entry(item).or_default() += 1;
    }
    fn md(&mut self, list: &[Metadata]) {
        for m in list {
            self.hit(format!("metadata:{}", m.kind().name()));
        }
    }
    fn ty(&mut self, t: Type) {
        self.types.push(t);
    }
}

/// Scans `modules` and reports what they cover (see [`expected_items`]).
pub fn coverage(modules: &[Module]) -> Coverage {
    let mut seen = BTreeMap::new();
    for m in modules {
        let mut a = Acc {
            m,
            seen: std::mem::take(&mut seen),
            types: Vec::new(),
        };
        scan_module(&mut a);
        seen = a.seen;
    }
    let missing = expected_items()
        .into_iter()
        .filter(|e| !seen.contains_key(e))
        .collect();
    Coverage { seen, missing }
}

fn scan_module(a: &mut Acc<'_>) {
    let m = a.m;
    a.md(&m.metadata);
    for c in m.live_constants() {
        a.md(&m.constants[c].metadata);
        a.ty(m.constants[c].ty);
    }
    for &fid in &m.func_order {
        let f = &m.functions[fid];
        a.md(&f.metadata);
        let kind = match f.kind {
            FunctionKind::Kernel { block_size } => {
                if block_size != FunctionKind::DEFAULT_BLOCK_SIZE {
                    a.hit("feature:kernel_custom_block_size".into());
                }
                "kernel"
            }
            k => k.keyword(),
        };
        a.hit(format!("function:{kind}"));
        if let Some(r) = f.ret {
            a.ty(r);
        }
        for &arg in &f.arg_order {
            let d = &f.args[arg];
            a.md(&d.metadata);
            a.ty(d.ty);
            let k = match d.kind {
                ArgKind::Value => "arg_value",
                ArgKind::Reference => "arg_reference",
                ArgKind::Resource => "arg_resource",
            };
            a.hit(format!("feature:{k}"));
        }
        if f.body.is_none() {
            continue;
        }
        let cfg = Cfg::compute(f);
        // Blocks entered through a structured construct's operand.
        let mut nested = xir_ir::entity::SecondaryMap::with_default(false);
        for i in f.placed_insts() {
            if f.insts[i].kind.tag().is_structured() {
                for t in f.insts[i].operand_blocks() {
                    nested[t] = true;
                }
            }
        }
        for &b in &f.block_order {
            a.md(&f.blocks[b].metadata);
            if !cfg.is_reachable(b) {
                a.hit("feature:unreachable_block".into());
            }
            for &i in &f.blocks[b].insts {
                scan_inst(a, f, i, &nested, b);
            }
        }
    }
    // Type closure (iterative).
    let mut stack = std::mem::take(&mut a.types);
    let mut visited = vec![false; m.types.len()];
    while let Some(t) = stack.pop() {
        let Some(flag) = visited.get_mut(xir_ir::entity::EntityRef::index(t)) else {
            continue;
        };
        if std::mem::replace(flag, true) {
            continue;
        }
        let d = m.types.get(t);
        a.hit(format!("type:{}", type_variant(d)));
        match d {
            TypeData::Scalar(k) => a.hit(format!("scalar:{}", k.text_name())),
            TypeData::Struct { align, members } => {
                a.hit(format!("struct_align:{align}"));
                stack.extend(members.iter().copied());
            }
            TypeData::Vector { elem, .. }
            | TypeData::Matrix { elem, .. }
            | TypeData::Array { elem, .. }
            | TypeData::Texture { elem, .. }
            | TypeData::CoopVector { elem, .. }
            | TypeData::CoopVectorRef { elem, .. }
            | TypeData::CoopMatrixRef { elem, .. } => stack.push(*elem),
            TypeData::Buffer { elem } => stack.extend(elem.iter().copied()),
            _ => {}
        }
    }
}

fn scan_inst(
    a: &mut Acc<'_>,
    f: &xir_ir::function::Function,
    i: xir_ir::inst::InstId,
    nested: &xir_ir::entity::SecondaryMap<xir_ir::value::BlockId, bool>,
    b: xir_ir::value::BlockId,
) {
    let d = &f.insts[i];
    a.md(&d.metadata);
    a.hit(format!("inst:{}", d.kind.tag().interchange_name()));
    if let Some(t) = d.ty {
        a.ty(t);
    }
    for v in &d.operands {
        match v {
            Value::Undef(u) => {
                a.hit("feature:undefined_value".into());
                a.ty(a.m.undefs[*u].ty);
            }
            Value::Special(r) => a.hit(format!("special:{}", r.name())),
            _ => {}
        }
    }
    let item = match &d.kind {
        InstKind::Alloca(o) => format!("alloca:{o}"),
        InstKind::Cast(o) => format!("cast:{o}"),
        InstKind::Atomic(o) => format!("atomic:{o}"),
        InstKind::AutodiffIntrinsic(o) => format!("autodiff:{o}"),
        InstKind::RayQueryObjectRead(o) => format!("rq_read:{o}"),
        InstKind::RayQueryObjectWrite(o) => format!("rq_write:{o}"),
        InstKind::Arithmetic(o) => format!("arith:{o}"),
        InstKind::ThreadGroup(o) => format!("thread_group:{o}"),
        InstKind::ResourceQuery(o, acc) => {
            bindless(a, *acc);
            format!("resource_query:{o}")
        }
        InstKind::ResourceRead(o, acc) => {
            bindless(a, *acc);
            format!("resource_read:{o}")
        }
        InstKind::ResourceWrite(o, acc) => {
            bindless(a, *acc);
            format!("resource_write:{o}")
        }
        InstKind::CoroSuspend(s) => {
            if !s.exports.is_empty() {
                a.hit("feature:coro_export".into());
            }
            if !s.extensions.is_empty() {
                a.hit("feature:coro_extension".into());
            }
            return;
        }
        InstKind::DebugBreak { callback: Some(_) } => "feature:debug_break_callback".into(),
        InstKind::ConditionalBranch if d.operands.get(1) == d.operands.get(2) => {
            "feature:doubled_edge".into()
        }
        InstKind::If { merge } if d.operands.get(2).and_then(|v| v.as_block()) == *merge => {
            "feature:if_without_else".into()
        }
        InstKind::Phi
            if d.operands.iter().any(
                |v| matches!(v, Value::Inst(x) if f.insts[*x].operands.contains(&Value::Inst(i))),
            ) =>
        {
            "feature:phi_loop".into()
        }
        InstKind::AutodiffScope { forward: true, .. } => "feature:forward_autodiff".into(),
        InstKind::Unreachable { message } if !message.is_empty() => {
            "feature:unreachable_message".into()
        }
        k if k.tag().is_structured() && nested[b] => "feature:nested_structured".into(),
        _ => return,
    };
    a.hit(item);
}

fn bindless(a: &mut Acc<'_>, acc: BindlessAccess) {
    if acc.typed {
        a.hit("feature:bindless_typed".into());
    }
    if acc.uniform {
        a.hit("feature:bindless_uniform".into());
    }
}

//! SPIR-V emission from the frozen plans, one module per concern: [`types`] (laid-out
//! types, constants), [`cfg`] (the control-flow plan and function bodies), [`arith`]
//! (arithmetic, GLSL.std.450, casts), [`mem`] (locals, aggregates, buffers, atomics,
//! shared memory), [`group`] (barriers, subgroup ops, special registers).

mod arith;
mod cfg;
mod group;
mod mem;
mod types;
mod words;

use crate::error::{CodegenError, Loc};
use crate::plan::{BufferRepr, Usage};
use crate::reflect::{ArgReflection, Reflection};
use rspirv::dr::{Builder, InsertPoint, Instruction, Operand};
use rspirv::spirv::{
    self, AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel,
    MemoryModel, Op, StorageClass, Word,
};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use xir_ir::types::TypeData;
use xir_ir::{
    ArgId, ArgKind, ConstId, FuncId, FunctionKind, InstId, Metadata, Module, ScalarKind, Type,
};

pub(crate) type R<T> = Result<T, CodegenError>;

/// Id operands.
pub(crate) fn ids(v: &[Word]) -> Vec<Operand> {
    v.iter().map(|&x| Operand::IdRef(x)).collect()
}

/// One kernel buffer argument's declaration.
#[derive(Clone, Debug)]
pub(crate) struct BufferVar {
    pub var: Word,
    /// Element type (XIR); `None` for a byte buffer.
    pub elem: Option<Type>,
    /// Whether the element is wrapped in a one-member struct (matrices need MatrixStride).
    pub wrapped: bool,
    /// Typed SSBO or uint32 words.
    pub repr: BufferRepr,
}

/// The whole module under construction.
pub(crate) struct Emitter<'m> {
    pub m: &'m Module,
    pub b: Builder,
    pub kernel: FuncId,
    pub block_size: [u32; 3],
    caps: BTreeSet<u32>,
    exts: BTreeSet<&'static str>,
    glsl: Option<Word>,
    void: Option<Word>,
    scalars: FxHashMap<ScalarKind, Word>,
    vectors: FxHashMap<(ScalarKind, u8), Word>,
    logical_types: FxHashMap<Type, Word>,
    laid_types: FxHashMap<Type, Word>,
    pointers: FxHashMap<(StorageClass, Word), Word>,
    scalar_consts: FxHashMap<(ScalarKind, u64), Word>,
    composite_consts: FxHashMap<(Word, Vec<Word>), Word>,
    xir_consts: FxHashMap<ConstId, Word>,
    undefs: FxHashMap<Word, Word>,
    fn_types: FxHashMap<(Word, Vec<Word>), Word>,
    builtins: FxHashMap<u32, Word>,
    strings: FxHashMap<String, Word>,
    pub interface: Vec<Word>,
    pub func_ids: FxHashMap<FuncId, Word>,
    pub buffers: FxHashMap<ArgId, BufferVar>,
    /// The argument block variable, its struct type, and member index per value argument.
    pub arg_block: Word,
    pub arg_members: FxHashMap<ArgId, u32>,
    pub dispatch_size_member: u32,
    pub kernel_id_member: u32,
    pub shared: FxHashMap<InstId, Word>,
}

impl<'m> Emitter<'m> {
    fn new(m: &'m Module, kernel: FuncId) -> Self {
        let block_size = match m.func(kernel).kind {
            FunctionKind::Kernel { block_size } => block_size,
            _ => [1, 1, 1],
        };
        let mut b = Builder::new();
        b.set_version(1, 5);
        Emitter {
            m,
            b,
            kernel,
            block_size,
            caps: BTreeSet::new(),
            exts: BTreeSet::new(),
            glsl: None,
            void: None,
            scalars: FxHashMap::default(),
            vectors: FxHashMap::default(),
            logical_types: FxHashMap::default(),
            laid_types: FxHashMap::default(),
            pointers: FxHashMap::default(),
            scalar_consts: FxHashMap::default(),
            composite_consts: FxHashMap::default(),
            xir_consts: FxHashMap::default(),
            undefs: FxHashMap::default(),
            fn_types: FxHashMap::default(),
            builtins: FxHashMap::default(),
            strings: FxHashMap::default(),
            interface: Vec::new(),
            func_ids: FxHashMap::default(),
            buffers: FxHashMap::default(),
            arg_block: 0,
            arg_members: FxHashMap::default(),
            dispatch_size_member: 0,
            kernel_id_member: 0,
            shared: FxHashMap::default(),
        }
    }

    /// Whether the module declares scalar type `k`.
    fn has_scalar(&self, k: ScalarKind) -> bool {
        self.scalars.contains_key(&k)
    }

    pub(crate) fn cap(&mut self, c: Capability) {
        self.caps.insert(c as u32);
    }
    pub(crate) fn ext(&mut self, e: &'static str) {
        self.exts.insert(e);
    }

    pub(crate) fn glsl(&mut self) -> Word {
        if let Some(g) = self.glsl {
            return g;
        }
        let g = self.b.ext_inst_import("GLSL.std.450");
        self.glsl = Some(g);
        g
    }

    /// Appends a value-producing instruction to the current block.
    pub(crate) fn op(&mut self, op: Op, ty: Word, ops: Vec<Operand>) -> Word {
        let id = self.b.id();
        self.op_to(op, ty, id, ops);
        id
    }
    /// Appends a value-producing instruction with a preallocated result id.
    ///
    /// Float add, subtract and multiply are decorated `NoContraction`: XIR rounds every
    /// step (docs/semantics.md), and without the decoration SPIR-V lets a driver fuse
    /// `a * b + c` into one rounding.
    pub(crate) fn op_to(&mut self, op: Op, ty: Word, id: Word, ops: Vec<Operand>) {
        if matches!(op, Op::FAdd | Op::FSub | Op::FMul) {
            self.b.decorate(id, Decoration::NoContraction, []);
        }
        self.b
            .insert_into_block(
                InsertPoint::End,
                Instruction::new(op, Some(ty), Some(id), ops),
            )
            .expect("emission always has a selected block");
    }
    /// Appends an instruction without a result.
    pub(crate) fn op_void(&mut self, op: Op, ops: Vec<Operand>) {
        self.b
            .insert_into_block(InsertPoint::End, Instruction::new(op, None, None, ops))
            .expect("emission always has a selected block");
    }
    /// A GLSL.std.450 extended instruction.
    pub(crate) fn glsl_op(&mut self, ty: Word, inst: spirv::GlslStd450Op, args: &[Word]) -> Word {
        let set = self.glsl();
        let mut ops = vec![
            Operand::IdRef(set),
            Operand::LiteralExtInstInteger(inst as u32),
        ];
        ops.extend(args.iter().map(|&a| Operand::IdRef(a)));
        self.op(Op::ExtInst, ty, ops)
    }

    pub(crate) fn fn_ty(&mut self, ret: Word, params: Vec<Word>) -> Word {
        let key = (ret, params.clone());
        if let Some(&w) = self.fn_types.get(&key) {
            return w;
        }
        let id = self.b.id();
        let mut ops = vec![Operand::IdRef(ret)];
        ops.extend(params.into_iter().map(Operand::IdRef));
        self.b
            .module_mut()
            .types_global_values
            .push(Instruction::new(Op::TypeFunction, None, Some(id), ops));
        self.fn_types.insert(key, id);
        id
    }

    /// The Input variable of a builtin (declared on first use, added to the interface).
    pub(crate) fn builtin_var(&mut self, bi: BuiltIn, ty: Word) -> Word {
        if let Some(&v) = self.builtins.get(&(bi as u32)) {
            return v;
        }
        let pt = self.ptr_ty(StorageClass::Input, ty);
        let id = self.b.id();
        self.b
            .module_mut()
            .types_global_values
            .push(Instruction::new(
                Op::Variable,
                Some(pt),
                Some(id),
                vec![Operand::StorageClass(StorageClass::Input)],
            ));
        self.b
            .decorate(id, Decoration::BuiltIn, [Operand::BuiltIn(bi)]);
        self.interface.push(id);
        self.builtins.insert(bi as u32, id);
        id
    }

    pub(crate) fn string_id(&mut self, s: &str) -> Word {
        if let Some(&w) = self.strings.get(s) {
            return w;
        }
        let w = self.b.string(s);
        self.strings.insert(s.to_string(), w);
        w
    }

    /// Names `id` after the `name` metadata in `md`, if any.
    pub(crate) fn name_from(&mut self, id: Word, md: &[Metadata]) {
        for x in md {
            if let Metadata::Name(n) = x {
                self.b.name(id, n.clone());
                return;
            }
        }
    }
}

/// Declares descriptors: the internal argument block (set 0, binding 0) and one typed
/// SSBO per buffer argument (set 0, bindings 1…, in argument order).
fn declare_descriptors(
    e: &mut Emitter,
    usage: &FxHashMap<(FuncId, ArgId), Usage>,
    reprs: &FxHashMap<ArgId, BufferRepr>,
) -> R<Vec<ArgReflection>> {
    let m = e.m;
    let k = e.kernel;
    let func = m.func(k);
    let mut refl = Vec::new();
    // Value arguments packed in host layout, then dispatch_size and kernel_id.
    let mut members: Vec<(Word, u32, Option<Type>)> = Vec::new();
    let mut offset: u64 = 0;
    let mut abi_errors = Vec::new();
    for (index, &a) in func.arg_order.iter().enumerate() {
        let arg = &func.args[a];
        match arg.kind {
            ArgKind::Value => {
                if let Some(p) = crate::plan::typed_layout_problem(m, arg.ty) {
                    abi_errors.push(crate::error::Located::new(Loc::Arg(k, a), format!("kernel value argument of type {} cannot be passed in the argument block: {p}", crate::reflect::type_name(m, arg.ty))));
                    continue;
                }
                let align = m.types.align_of(arg.ty).max(1);
                offset = offset.div_ceil(align) * align;
                let ty = e.laid(arg.ty);
                e.arg_members.insert(a, members.len() as u32);
                members.push((ty, offset as u32, Some(arg.ty)));
                refl.push(ArgReflection {
                    index,
                    kind: "value",
                    ty: crate::reflect::type_name(m, arg.ty),
                    offset: Some(offset),
                    size: Some(m.types.size_of(arg.ty)),
                    binding: None,
                    usage: "read",
                    role: "argument_block",
                    element_stride: None,
                    storage: None,
                });
                offset += m.types.size_of(arg.ty);
            }
            ArgKind::Reference => {
                abi_errors.push(
                    crate::error::Located::new(
                        Loc::Arg(k, a),
                        "kernel reference arguments are not part of the Vulkan descriptor ABI",
                    )
                    .help("pass the value, or a buffer, instead"),
                );
            }
            ArgKind::Resource => {}
        }
    }
    if !abi_errors.is_empty() {
        return Err(CodegenError::user(abi_errors));
    }
    offset = offset.div_ceil(16) * 16;
    let u3 = e.vec_ty(ScalarKind::U32, 3);
    let u1 = e.u32_ty();
    e.dispatch_size_member = members.len() as u32;
    members.push((u3, offset as u32, None));
    e.kernel_id_member = members.len() as u32;
    members.push((u1, offset as u32 + 12, None));
    let block_size = offset + 16;
    let st = e.b.id();
    e.b.module_mut().types_global_values.push(Instruction::new(
        Op::TypeStruct,
        None,
        Some(st),
        members.iter().map(|m| Operand::IdRef(m.0)).collect(),
    ));
    e.b.decorate(st, Decoration::Block, []);
    let value_args: Vec<ArgId> = func
        .arg_order
        .iter()
        .copied()
        .filter(|a| func.args[*a].kind == ArgKind::Value)
        .collect();
    for (i, (_, off, t)) in members.iter().enumerate() {
        e.b.member_decorate(
            st,
            i as u32,
            Decoration::Offset,
            [Operand::LiteralBit32(*off)],
        );
        if let Some(t) = t {
            e.decorate_matrix_member(st, i as u32, *t);
        }
    }
    e.b.name(st, "ArgumentBlock");
    for (i, a) in value_args.iter().enumerate() {
        let mut named = false;
        for md in &func.args[*a].metadata {
            if let Metadata::Name(n) = md {
                e.b.member_name(st, i as u32, n.clone());
                named = true;
            }
        }
        if !named {
            e.b.member_name(
                st,
                i as u32,
                format!(
                    "arg{}",
                    func.arg_order.iter().position(|x| x == a).unwrap_or(0)
                ),
            );
        }
    }
    e.b.member_name(st, e.dispatch_size_member, "dispatch_size");
    e.b.member_name(st, e.kernel_id_member, "kernel_id");
    let pt = e.ptr_ty(StorageClass::StorageBuffer, st);
    let var = e.b.id();
    e.b.module_mut().types_global_values.push(Instruction::new(
        Op::Variable,
        Some(pt),
        Some(var),
        vec![Operand::StorageClass(StorageClass::StorageBuffer)],
    ));
    e.b.decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
    e.b.decorate(var, Decoration::Binding, [Operand::LiteralBit32(0)]);
    e.b.decorate(var, Decoration::NonWritable, []);
    e.b.name(var, "_Global");
    e.interface.push(var);
    e.arg_block = var;

    // Buffers.
    let buffer_args: Vec<(usize, ArgId)> = func
        .arg_order
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, a)| func.args[*a].kind == ArgKind::Resource)
        .collect();
    let any_written = buffer_args
        .iter()
        .any(|(_, a)| usage.get(&(k, *a)).is_some_and(|u| u.write));
    let aliased = buffer_args.len() > 1;
    let mut block_types: FxHashMap<Type, (Word, bool)> = FxHashMap::default();
    let mut word_block: Option<Word> = None;
    for (binding, (index, a)) in buffer_args.iter().enumerate() {
        let arg = &func.args[*a];
        let TypeData::Buffer { elem } = *m.types.get(arg.ty) else {
            return Err(CodegenError::user(vec![crate::error::Located::new(
                Loc::Arg(k, *a),
                "only buffers are supported as kernel resources",
            )]));
        };
        let repr = reprs.get(a).copied().unwrap_or(BufferRepr::Words);
        let u = usage.get(&(k, *a)).copied().unwrap_or_default();
        let (st, wrapped) = match (repr, elem) {
            (BufferRepr::Words, _) | (_, None) => match word_block {
                Some(w) => (w, false),
                None => {
                    let w = e.word_block_type();
                    word_block = Some(w);
                    (w, false)
                }
            },
            (BufferRepr::Typed, Some(elem)) => match block_types.get(&elem) {
                Some(&x) => x,
                None => {
                    let wrapped = e.is_matrixish(elem);
                    let laid = e.laid(elem);
                    let el = if wrapped {
                        let w = e.b.id();
                        e.b.module_mut().types_global_values.push(Instruction::new(
                            Op::TypeStruct,
                            None,
                            Some(w),
                            vec![Operand::IdRef(laid)],
                        ));
                        e.b.member_decorate(w, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
                        e.decorate_matrix_member(w, 0, elem);
                        w
                    } else {
                        laid
                    };
                    let st = e.runtime_block(el, m.types.size_of(elem) as u32);
                    block_types.insert(elem, (st, wrapped));
                    (st, wrapped)
                }
            },
        };
        let pt = e.ptr_ty(StorageClass::StorageBuffer, st);
        let var = e.b.id();
        e.b.module_mut().types_global_values.push(Instruction::new(
            Op::Variable,
            Some(pt),
            Some(var),
            vec![Operand::StorageClass(StorageClass::StorageBuffer)],
        ));
        e.b.decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        e.b.decorate(
            var,
            Decoration::Binding,
            [Operand::LiteralBit32(binding as u32 + 1)],
        );
        if aliased {
            e.b.decorate(var, Decoration::Aliased, []);
        }
        if !any_written && !u.write {
            e.b.decorate(var, Decoration::NonWritable, []);
        }
        if u.volatile {
            e.b.decorate(var, Decoration::Coherent, []);
        }
        e.name_from(var, &arg.metadata);
        e.interface.push(var);
        e.buffers.insert(
            *a,
            BufferVar {
                var,
                elem,
                wrapped,
                repr,
            },
        );
        refl.push(ArgReflection {
            index: *index,
            kind: "resource",
            ty: crate::reflect::type_name(m, arg.ty),
            offset: None,
            size: None,
            binding: Some(binding as u32 + 1),
            usage: u.name(),
            role: "storage_buffer",
            element_stride: Some(elem.map_or(1, |t| m.types.size_of(t))),
            storage: Some(match repr {
                BufferRepr::Typed => "typed",
                BufferRepr::Words => "words",
            }),
        });
    }
    refl.sort_by_key(|r| r.index);
    let _ = block_size;
    Ok(refl)
}

/// Emits the module for one kernel; returns the words and the reflection (capabilities
/// are reconciled from the final binary by the caller).
pub(crate) fn emit_kernel(
    m: &Module,
    kernel: FuncId,
    graph: &[FuncId],
    usage: &FxHashMap<(FuncId, ArgId), Usage>,
    reprs: &FxHashMap<ArgId, BufferRepr>,
    denorm: crate::Denorm,
) -> R<(Vec<u32>, Reflection)> {
    let mut e = Emitter::new(m, kernel);
    e.cap(Capability::Shader);
    let args = declare_descriptors(&mut e, usage, reprs)?;
    for &f in graph {
        let id = e.b.id();
        e.func_ids.insert(f, id);
    }
    for &f in graph {
        cfg::emit_function(&mut e, f)?;
    }
    let kid = e.func_ids[&kernel];
    let interface = e.interface.clone();
    e.b.entry_point(ExecutionModel::GLCompute, kid, "main", interface);
    let bs = e.block_size;
    e.b.execution_mode(kid, ExecutionMode::LocalSize, bs);
    // XIR keeps the sign of zero, infinities and NaNs (docs/semantics.md); without
    // SignedZeroInfNanPreserve Vulkan lets a driver ignore them (lavapipe folds
    // fma(0, 0, -0) to -0). One mode per float width the module declares.
    for (k, bits) in [
        (ScalarKind::F16, 16u32),
        (ScalarKind::F32, 32),
        (ScalarKind::F64, 64),
    ] {
        if e.has_scalar(k) {
            e.cap(Capability::SignedZeroInfNanPreserve);
            e.b.execution_mode(kid, ExecutionMode::SignedZeroInfNanPreserve, [bits]);
            // Subnormals kept only on request: the device must report
            // shaderDenormPreserveFloat<bits> (docs/codegen.md, Float controls).
            if denorm == crate::Denorm::Preserve {
                e.cap(Capability::DenormPreserve);
                e.b.execution_mode(kid, ExecutionMode::DenormPreserve, [bits]);
            }
        }
    }
    e.b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let arg_block_size = {
        // The size of the argument block struct: kernel_id member offset + 4, rounded to 16.
        let off = args
            .iter()
            .filter_map(|a| a.offset.zip(a.size))
            .map(|(o, s)| o + s)
            .max()
            .unwrap_or(0);
        off.div_ceil(16) * 16 + 16
    };
    let dispatch_size_offset = arg_block_size - 16;
    // Capabilities and extensions in a fixed order (deterministic output).
    let caps: Vec<u32> = e.caps.iter().copied().collect();
    let exts: Vec<&str> = e.exts.iter().copied().collect();
    let mut module = e.b.module();
    module.capabilities = caps
        .into_iter()
        .map(|c| {
            Instruction::new(
                Op::Capability,
                None,
                None,
                vec![Operand::Capability(capability_from(c))],
            )
        })
        .collect();
    module.extensions = exts
        .into_iter()
        .map(|x| {
            Instruction::new(
                Op::Extension,
                None,
                None,
                vec![Operand::LiteralString(x.to_string())],
            )
        })
        .collect();
    use rspirv::binary::Assemble;
    let words = module.assemble();
    let refl = Reflection {
        kernel: crate::plan::function_name(m, kernel),
        block_size: bs,
        arguments: args,
        argument_block_size: arg_block_size,
        dispatch_size_offset,
        kernel_id_offset: dispatch_size_offset + 12,
        capabilities: Vec::new(),
        feature_mask: 0,
    };
    Ok((words, refl))
}

fn capability_from(c: u32) -> Capability {
    // Every value in the set came from a `Capability` discriminant.
    Capability::from_u32(c).expect("capability round trip")
}

//! Reflection: what a runtime needs to bind and dispatch the compiled kernel. Written as
//! JSON (schema: `docs/spirv-reflection.schema.json`).

use serde_json::{Value as Json, json};
use xir_ir::types::TypeData;
use xir_ir::{Module, Type};

/// The schema identifier written into every reflection document.
pub const SCHEMA_ID: &str = "xir-spirv-reflection/1";

/// One kernel argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgReflection {
    /// Position in the kernel's argument list.
    pub index: usize,
    /// `value` (packed in the argument block) or `resource` (own descriptor).
    pub kind: &'static str,
    /// XIR type spelling.
    pub ty: String,
    /// Byte offset in the argument block (value arguments).
    pub offset: Option<u64>,
    /// Byte size in the argument block (value arguments).
    pub size: Option<u64>,
    /// Binding in descriptor set 0 (resources).
    pub binding: Option<u32>,
    /// `none`, `read`, `write` or `read_write`.
    pub usage: &'static str,
    /// `argument_block` or `storage_buffer`.
    pub role: &'static str,
    /// Element stride in bytes (buffers; 1 for a byte buffer).
    pub element_stride: Option<u64>,
    /// How a buffer is stored: `typed` (a runtime array of the element type) or `words`
    /// (the byte-exact uint32 word ABI: the runtime binds a whole number of words).
    pub storage: Option<&'static str>,
}

/// The reflection of one compiled kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reflection {
    /// Kernel name.
    pub kernel: String,
    /// LocalSize.
    pub block_size: [u32; 3],
    /// Arguments in order.
    pub arguments: Vec<ArgReflection>,
    /// Size of the argument block in bytes (set 0, binding 0).
    pub argument_block_size: u64,
    /// Offset of `dispatch_size` (uint3) in the argument block.
    pub dispatch_size_offset: u64,
    /// Offset of `kernel_id` (uint) in the argument block.
    pub kernel_id_offset: u64,
    /// Capabilities of the final binary.
    pub capabilities: Vec<String>,
    /// Required-feature mask ([`crate::features`]).
    pub feature_mask: u64,
}

impl Reflection {
    /// The JSON document.
    pub fn to_json(&self) -> Json {
        let args: Vec<Json> = self
            .arguments
            .iter()
            .map(|a| {
                let mut o = json!({
                    "index": a.index,
                    "kind": a.kind,
                    "type": a.ty,
                    "usage": a.usage,
                    "role": a.role,
                });
                let map = o.as_object_mut().expect("object");
                if let Some(x) = a.offset {
                    map.insert("offset".into(), json!(x));
                }
                if let Some(x) = a.size {
                    map.insert("size".into(), json!(x));
                }
                if let Some(x) = a.binding {
                    map.insert("set".into(), json!(0));
                    map.insert("binding".into(), json!(x));
                    map.insert("descriptor_type".into(), json!("storage_buffer"));
                }
                if let Some(x) = a.element_stride {
                    map.insert("element_stride".into(), json!(x));
                }
                if let Some(x) = a.storage {
                    map.insert("storage".into(), json!(x));
                }
                o
            })
            .collect();
        json!({
            "schema": SCHEMA_ID,
            "kernel": self.kernel,
            "entry_point": "main",
            "spirv_version": "1.5",
            "target_env": "vulkan1.2",
            "block_size": self.block_size,
            "argument_block": {
                "set": 0,
                "binding": 0,
                "descriptor_type": "storage_buffer",
                "size": self.argument_block_size,
                "dispatch_size_offset": self.dispatch_size_offset,
                "kernel_id_offset": self.kernel_id_offset,
            },
            "arguments": args,
            "required_features": {
                "mask": self.feature_mask,
                "names": crate::features::names(self.feature_mask),
            },
            "capabilities": self.capabilities,
        })
    }

    /// Pretty-printed JSON with a final newline.
    pub fn to_json_string(&self) -> String {
        let mut s = serde_json::to_string_pretty(&self.to_json()).expect("JSON of plain data");
        s.push('\n');
        s
    }
}

/// The xir2text spelling of a type (structures spelled structurally).
pub fn type_name(m: &Module, t: Type) -> String {
    let ts = &m.types;
    match ts.get(t) {
        TypeData::Scalar(k) => k.text_name().to_string(),
        TypeData::Vector { elem, len } => format!("vector<{}, {len}>", type_name(m, *elem)),
        TypeData::Matrix { elem, n } => format!("matrix<{}, {n}>", type_name(m, *elem)),
        TypeData::Array { elem, len } => format!("array<{}, {len}>", type_name(m, *elem)),
        TypeData::Struct { align, members } => {
            let ms: Vec<String> = members.iter().map(|x| type_name(m, *x)).collect();
            format!("struct<{align}: {}>", ms.join(", "))
        }
        TypeData::Buffer { elem: Some(e) } => format!("buffer<{}>", type_name(m, *e)),
        TypeData::Buffer { elem: None } => "buffer<void>".into(),
        TypeData::Texture { dim, elem } => format!(
            "texture{}d<{}>",
            if *dim == xir_ir::types::TextureDim::D2 {
                2
            } else {
                3
            },
            type_name(m, *elem)
        ),
        TypeData::BindlessArray => "bindless_array".into(),
        TypeData::Accel => "accel".into(),
        TypeData::Custom { name } => name.clone(),
        // Spelled as the xir2text printer spells them.
        TypeData::CoopVector { elem, len } => match ts.get(*elem) {
            TypeData::Scalar(k) => {
                format!("coopvec<{},{len}>", k.ast_name().unwrap_or(k.text_name()))
            }
            _ => format!("coopvec<{},{len}>", type_name(m, *elem)),
        },
        TypeData::CoopVectorRef { len, elem } => {
            format!("coopvec_ref<{len}, {}>", type_name(m, *elem))
        }
        TypeData::CoopMatrixRef { rows, cols, elem } => {
            format!("coopmat_ref<{rows}, {cols}, {}>", type_name(m, *elem))
        }
    }
}

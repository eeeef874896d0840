//! Module-level checks: well-formed types, constants, undefined values, special
//! registers and the function list.

use super::names::Names;
use super::tyutil::Tys;
use crate::diag::Diagnostic;
use crate::entity::SecondaryMap;
use crate::module::Module;
use crate::source_map::SourceMap;
use crate::text::numbering::Key;
use crate::types::{ScalarKind, Type, TypeData};

pub(super) fn check_module(
    m: &Module,
    tys: &Tys<'_>,
    opts: &super::VerifyOptions,
    sm: Option<&SourceMap>,
    names: &Names<'_>,
    out: &mut Vec<Diagnostic>,
) {
    for (t, d) in m.types.iter() {
        if let Err(why) = type_wellformed(tys, t, d) {
            out.push(Diagnostic::error(
                format!("type `{}` is malformed: {why}", tys.name(Some(t))),
                None,
            ));
        }
    }
    for c in m.live_constants() {
        let d = &m.constants[c];
        let span = sm.and_then(|s| s.constant(c));
        let name = tys.name(Some(d.ty));
        let msg = if !tys.valid(d.ty) {
            Some("has an invalid type handle".to_string())
        } else if tys.is_resource(d.ty) || tys.is_custom(d.ty) || is_coop(tys, d.ty) {
            Some(format!(
                "has type `{name}`; constants of resource, custom and cooperative types are not allowed"
            ))
        } else {
            match tys.size(d.ty) {
                Some(s) if s == d.bytes.len() as u64 => None,
                Some(s) => Some(format!(
                    "of type `{name}` has {} bytes but the type's size is {s}",
                    d.bytes.len()
                )),
                None => Some(format!("has type `{name}`, which has no size")),
            }
        };
        if let Some(msg) = msg {
            out.push(Diagnostic::error(
                format!("constant {}: constant {msg}", name_of(names, Key::Const(c))),
                span,
            ));
        }
    }
    for u in m.live_undefs() {
        let d = &m.undefs[u];
        let span = sm
            .map(|s| *s.undefs.get(u))
            .filter(|s| *s != crate::diag::Span::default());
        if !tys.valid(d.ty) {
            out.push(Diagnostic::error(
                format!(
                    "undefined value {}: undefined value has an invalid type handle",
                    name_of(names, Key::Undef(u))
                ),
                span,
            ));
        } else if opts.require_non_resource_undefined && tys.is_resource(d.ty) {
            out.push(Diagnostic::error(
                format!(
                    "undefined value {}: undefined value of resource type `{}` is not allowed (require-non-resource-undefined)",
                    name_of(names, Key::Undef(u)),
                    tys.name(Some(d.ty))
                ),
                span,
            ));
        }
    }
    let mut seen = Vec::new();
    for (r, _) in &m.special_registers {
        if seen.contains(r) {
            out.push(Diagnostic::error(
                format!(
                    "special register `{}` is listed more than once in the module",
                    r.name()
                ),
                None,
            ));
        }
        seen.push(*r);
    }
    let mut listed: SecondaryMap<crate::value::FuncId, bool> = SecondaryMap::with_default(false);
    for &f in &m.func_order {
        if !m.functions.is_valid(f) {
            out.push(Diagnostic::error(
                "the module's function list names a function that does not exist".to_string(),
                None,
            ));
        } else if listed[f] {
            out.push(Diagnostic::error(
                format!(
                    "function {}: function is listed more than once in the module",
                    name_of(names, Key::Func(f))
                ),
                sm.and_then(|s| s.func(f)),
            ));
        } else {
            listed[f] = true;
        }
    }
}

/// The text's name of a module-level entity (`?` when the text would not show it).
fn name_of(names: &Names<'_>, k: Key) -> String {
    names.get(k).unwrap_or_else(|| "?".into())
}

fn is_coop(tys: &Tys<'_>, t: Type) -> bool {
    matches!(
        tys.data(t),
        Some(
            TypeData::CoopVector { .. }
                | TypeData::CoopVectorRef { .. }
                | TypeData::CoopMatrixRef { .. }
        )
    )
}

/// Structural rules every interned type must satisfy.
fn type_wellformed(tys: &Tys<'_>, t: Type, d: &TypeData) -> Result<(), String> {
    let valid = |e: Type| -> Result<(), String> {
        if tys.valid(e) {
            Ok(())
        } else {
            Err("an element type handle is out of range".to_string())
        }
    };
    match d {
        TypeData::Scalar(_) | TypeData::BindlessArray | TypeData::Accel => {}
        TypeData::Vector { elem, len } => {
            valid(*elem)?;
            if !tys.is_scalar(*elem) {
                return Err("vector elements must be scalars".into());
            }
            if !(2..=4).contains(len) {
                return Err("vectors have 2, 3 or 4 elements".into());
            }
        }
        TypeData::Matrix { elem, n } => {
            valid(*elem)?;
            if !tys.is_float(*elem) {
                return Err("matrix elements must be floats".into());
            }
            if !(2..=4).contains(n) {
                return Err("matrices are 2×2, 3×3 or 4×4".into());
            }
        }
        TypeData::Array { elem, .. } => {
            valid(*elem)?;
            if tys.is_resource(*elem) {
                return Err("array elements cannot be resources".into());
            }
        }
        TypeData::Struct { align, members } => {
            if ![1, 4, 8, 16].contains(align) {
                return Err(format!("structure alignment {align} is not 1, 4, 8 or 16"));
            }
            for m in members {
                valid(*m)?;
                if tys.is_resource(*m) {
                    return Err("structure members cannot be resources".into());
                }
                if tys.align(*m).is_some_and(|a| a > *align as u64) {
                    return Err(format!(
                        "member `{}` needs alignment {} but the structure is aligned to {align}",
                        tys.name(Some(*m)),
                        tys.align(*m).unwrap_or(0)
                    ));
                }
            }
        }
        TypeData::Buffer { elem } => {
            if let Some(e) = elem {
                valid(*e)?;
                if tys.is_resource(*e) || is_coop(tys, *e) {
                    return Err("buffer elements cannot be resources or cooperative types".into());
                }
            }
        }
        TypeData::Texture { elem, .. } => {
            valid(*elem)?;
            let k = tys.scalar(*elem);
            if !matches!(k, Some(ScalarKind::I32 | ScalarKind::U32 | ScalarKind::F32)) {
                return Err("texture elements are i32, u32 or f32".into());
            }
        }
        TypeData::Custom { name } => {
            if name.is_empty() {
                return Err("custom types need a name".into());
            }
        }
        TypeData::CoopVector { elem, .. }
        | TypeData::CoopVectorRef { elem, .. }
        | TypeData::CoopMatrixRef { elem, .. } => {
            valid(*elem)?;
            if !tys.is_scalar(*elem) {
                return Err("cooperative elements must be scalars".into());
            }
        }
    }
    if tys.size(t).is_none() {
        return Err("the type has no layout (it is cyclic or too large)".into());
    }
    Ok(())
}

//! Form preconditions: what a pass declares through [`FormRequirement`], checked by the
//! pipeline before the pass runs; a violated precondition turns the invocation into a
//! refusal. The forms themselves are defined once, in [`xir_ir::analysis::form`]; this
//! file only turns a module scan into the refusal's words.

use crate::registry::FormRequirement;
use xir_ir::analysis::form::{self, Form, ViolationKind};
use xir_ir::metadata::find_name;
use xir_ir::{FuncId, Module};

/// The first function breaking each form, computed in one scan (with the offending
/// instruction's keyword). The forms are [`xir_ir::analysis::form`]'s.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FormSummary {
    /// First function that is not plain CFG (and the construct's keyword).
    pub first_structured: Option<(FuncId, &'static str)>,
    /// First function that is not in structured form (and the branch's keyword).
    pub first_unstructured: Option<(FuncId, &'static str, ViolationKind)>,
}

impl FormSummary {
    /// Scans every function with a body.
    pub fn of(m: &Module) -> Self {
        let mut s = FormSummary::default();
        for &f in &m.func_order {
            let func = m.func(f);
            if func.body.is_none() {
                continue;
            }
            if s.first_structured.is_none()
                && let Some(v) = form::first_violation(func, Form::Plain)
            {
                s.first_structured = Some((f, v.keyword()));
            }
            if s.first_unstructured.is_none()
                && let Some(v) = form::first_violation(func, Form::Structured)
            {
                s.first_unstructured = Some((f, v.keyword(), v.kind));
            }
            if s.first_structured.is_some() && s.first_unstructured.is_some() {
                break;
            }
        }
        s
    }

    /// `Err(reason)` when `req` does not hold.
    pub fn check(&self, m: &Module, req: FormRequirement) -> Result<(), String> {
        match req {
            FormRequirement::Either => Ok(()),
            FormRequirement::Plain => match self.first_structured {
                None => Ok(()),
                Some((f, k)) => Err(format!(
                    "requires plain CFG, but {} contains structured control flow ({k})",
                    describe_function(m, f)
                )),
            },
            FormRequirement::Structured => match self.first_unstructured {
                None => Ok(()),
                Some((f, k, ViolationKind::BadLoopPrepare)) => Err(format!(
                    "requires structured control flow, but {} has a loop prepare block ending in {k} that is not `br body` or `cond_br c, body, merge`",
                    describe_function(m, f)
                )),
                Some((f, k, _)) => Err(format!(
                    "requires structured control flow, but {} contains an unstructured branch ({k})",
                    describe_function(m, f)
                )),
            },
        }
    }
}

/// `function #k` (module order) plus its name when it has one.
pub fn describe_function(m: &Module, f: FuncId) -> String {
    let k = m.func_order.iter().position(|x| *x == f).unwrap_or(0);
    match find_name(&m.func(f).metadata) {
        Some(n) => format!("function #{k} ('{n}')"),
        None => format!("function #{k}"),
    }
}

/// Whether `func` holds structured control flow (upstream's `contains_structured_control_flow`:
/// a structured construct, `break`/`continue`, a ray-query dispatch), in any owned block.
/// With `allow_autodiff`, autodiff scopes do not count (inlining's caller-side option).
pub fn has_structured_control_flow(func: &xir_ir::Function, allow_autodiff: bool) -> bool {
    use xir_ir::inst::InstKind;
    func.placed_insts().any(|i| {
        let k = &func.insts[i].kind;
        let structured = k.tag().is_structured()
            || matches!(
                k,
                InstKind::Break | InstKind::Continue | InstKind::RayQueryDispatch
            );
        structured && !(allow_autodiff && matches!(k, InstKind::AutodiffScope { .. }))
    })
}

/// `Some((functions, message))` when a function of `module` holds structured control
/// flow: upstream's plain-CFG passes (the loop passes, if-conversion) then leave the whole module untouched and count each
/// such function in `structured_cfg_error_count`.
pub fn structured_refusal(module: &Module, pass: &str) -> Option<(u64, String)> {
    let structured: Vec<FuncId> = module
        .func_order
        .iter()
        .copied()
        .filter(|f| has_structured_control_flow(module.func(*f), false))
        .collect();
    let first = *structured.first()?;
    Some((
        structured.len() as u64,
        format!(
            "{pass} needs plain control flow: {} (and {} function(s) in all) has structured \
             control flow; run destructure-cfg first",
            describe_function(module, first),
            structured.len()
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use xir_ir::edit::{Cursor, InstBuilder};
    use xir_ir::function::Function;
    use xir_ir::{FunctionKind, Value};

    fn module_with(plain: bool) -> Module {
        let mut m = Module::new();
        let b = m.types.bool();
        let t = m.constant(b, &[1]);
        let mut f = Function::new(FunctionKind::kernel(), None);
        let entry = f.ensure_body();
        let x = f.create_block();
        let y = f.create_block();
        let mut c = Cursor::at_end(&mut f, entry);
        if plain {
            c.cond_br(Value::Const(t), x, y);
        } else {
            c.if_(Value::Const(t), x, y, y);
        }
        Cursor::at_end(&mut f, x).br(y);
        Cursor::at_end(&mut f, y).ret(None);
        m.add_function(f);
        m
    }

    #[test]
    fn plain_and_structured_are_told_apart() {
        let plain = module_with(true);
        let s = FormSummary::of(&plain);
        assert!(s.check(&plain, FormRequirement::Plain).is_ok());
        let e = s.check(&plain, FormRequirement::Structured).unwrap_err();
        assert!(e.contains("cond_br"), "{e}");
        let structured = module_with(false);
        let s = FormSummary::of(&structured);
        assert!(s.check(&structured, FormRequirement::Structured).is_ok());
        let e = s.check(&structured, FormRequirement::Plain).unwrap_err();
        assert_eq!(
            e,
            "requires plain CFG, but function #0 contains structured control flow (if)"
        );
    }
}

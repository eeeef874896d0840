//! Pipeline parameters (decided while loading) and module predicates (decided when
//! execution reaches them).
//!
//! A parameter's value is, in order of precedence: `--pipeline-param NAME=VALUE`, the
//! environment (`LUISA_XIR_DISABLE_OPTIMIZATION=1` → `optimize=false`,
//! `LUISA_XIR_ENABLE_SCALARIZER` set → `scalarizer` is true exactly when it is `1`), the
//! default of its declaration (built in, or `param NAME = VALUE` in a pipeline file).

use xir_ir::{InstKind, Module};

/// Built-in parameters: `(name, default, help)`.
pub const BUILTIN_PARAMS: &[(&str, bool, &str)] = &[
    (
        "optimize",
        true,
        "Run the optional optimization phases (off: LUISA_XIR_DISABLE_OPTIMIZATION=1).",
    ),
    (
        "scalarizer",
        false,
        "Run the scalarizer in structured optimization (on: LUISA_XIR_ENABLE_SCALARIZER=1).",
    ),
    (
        "fast-math",
        false,
        "Let algebraic simplification assume no NaN/Inf/signed zeros.",
    ),
    (
        "ray-query-pipeline",
        false,
        "Outline ray-query handlers into ray-query pipelines (Metal).",
    ),
];

/// Whether `name` is a built-in parameter.
pub fn is_builtin(name: &str) -> bool {
    BUILTIN_PARAMS.iter().any(|b| b.0 == name)
}

/// Parameter values supplied from outside the pipeline text.
#[derive(Clone, Debug, Default)]
pub struct Params {
    /// `--pipeline-param` values, in order (the last one wins).
    pub overrides: Vec<(String, bool)>,
    /// Values derived from the environment.
    pub env: Vec<(String, bool)>,
}

impl Params {
    /// Reads `LUISA_XIR_DISABLE_OPTIMIZATION` and `LUISA_XIR_ENABLE_SCALARIZER` through
    /// `get` (pass `|k| std::env::var(k).ok()` for the process environment).
    pub fn with_env(mut self, get: impl Fn(&str) -> Option<String>) -> Self {
        if get("LUISA_XIR_DISABLE_OPTIMIZATION").as_deref() == Some("1") {
            self.env.push(("optimize".to_string(), false));
        }
        if let Some(v) = get("LUISA_XIR_ENABLE_SCALARIZER") {
            self.env.push(("scalarizer".to_string(), v == "1"));
        }
        self
    }

    /// Parses `NAME=true|false` (as `--pipeline-param` takes it) and adds it.
    pub fn push_override(&mut self, text: &str) -> Result<(), String> {
        let (k, v) = text
            .split_once('=')
            .ok_or_else(|| format!("--pipeline-param expects NAME=true|false, got '{text}'"))?;
        let b = super::parse::parse_bool_text(v.trim()).ok_or_else(|| {
            format!("--pipeline-param {k}: '{v}' is not a boolean (true or false)")
        })?;
        self.overrides.push((k.trim().to_string(), b));
        Ok(())
    }

    /// The value of parameter `name` given its declared default (`None` when it is
    /// neither built in nor declared).
    pub fn value(&self, name: &str, declared: Option<bool>) -> Option<bool> {
        let default = BUILTIN_PARAMS
            .iter()
            .find(|b| b.0 == name)
            .map(|b| b.1)
            .or(declared)?;
        let pick =
            |list: &[(String, bool)]| list.iter().rev().find(|(k, _)| k == name).map(|e| e.1);
        Some(
            pick(&self.overrides)
                .or_else(|| pick(&self.env))
                .unwrap_or(default),
        )
    }
}

/// A predicate over the module, evaluated when execution reaches the condition.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ModuleCond {
    /// Some function contains an `autodiff` scope.
    HasAutodiffScope,
}

impl ModuleCond {
    /// Every predicate.
    pub const ALL: [ModuleCond; 1] = [ModuleCond::HasAutodiffScope];

    /// Its spelling in pipeline text.
    pub fn name(self) -> &'static str {
        match self {
            ModuleCond::HasAutodiffScope => "has-autodiff-scope",
        }
    }

    /// Looks a predicate up by spelling.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == s)
    }

    /// Evaluates the predicate on `m`.
    pub fn eval(self, m: &Module) -> bool {
        match self {
            ModuleCond::HasAutodiffScope => m.func_order.iter().any(|&f| {
                let func = m.func(f);
                func.placed_insts()
                    .any(|i| matches!(func.inst(i).kind, InstKind::AutodiffScope { .. }))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_is_flag_then_env_then_default() {
        let env = |k: &str| match k {
            "LUISA_XIR_DISABLE_OPTIMIZATION" => Some("1".to_string()),
            "LUISA_XIR_ENABLE_SCALARIZER" => Some("yes".to_string()),
            _ => None,
        };
        let mut p = Params::default().with_env(env);
        assert_eq!(p.value("optimize", None), Some(false));
        // Any value other than exactly "1" turns the scalarizer off.
        assert_eq!(p.value("scalarizer", None), Some(false));
        p.push_override("optimize=true").unwrap();
        assert_eq!(p.value("optimize", None), Some(true));
        assert_eq!(p.value("mine", Some(true)), Some(true));
        assert_eq!(p.value("nope", None), None);
        assert!(p.push_override("optimize").is_err());
        assert!(p.push_override("optimize=maybe").is_err());
    }
}

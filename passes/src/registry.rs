//! The pass registry: every pass by its upstream kebab-case name, with a one-line summary,
//! its options, its control-flow-form precondition and the report keys it publishes.

use crate::pass::Pass;

/// The control-flow form a pass requires (checked by the pipeline before it runs; if it
/// does not hold, the pass is reported as refused and the module is left untouched).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FormRequirement {
    /// Only structured control flow (If/Switch/Loop/…; no raw `cond_br` graphs required).
    Structured,
    /// Plain CFG only: no structured constructs, break or continue anywhere.
    Plain,
    /// Either form.
    Either,
}

/// Declaration of one pass option (`sroa{decompose-vectors=true}`).
#[derive(Copy, Clone, Debug)]
pub struct PassOptionInfo {
    /// Kebab-case option name.
    pub name: &'static str,
    /// Default value, as text.
    pub default: &'static str,
    /// One-line help.
    pub help: &'static str,
}

/// Option values given to a pass (already validated against its [`PassOptionInfo`]s).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassOptions {
    /// `(name, value)` pairs in the order written.
    pub values: Vec<(String, String)>,
}

impl PassOptions {
    /// The raw value of option `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    /// A boolean option (`true`/`false`), or `default`.
    pub fn get_bool(&self, name: &str, default: bool) -> Result<bool, String> {
        match self.get(name) {
            None => Ok(default),
            Some("true") | Some("1") => Ok(true),
            Some("false") | Some("0") => Ok(false),
            Some(v) => Err(format!("option '{name}' expects true or false, got '{v}'")),
        }
    }
    /// An unsigned option, or `default`.
    pub fn get_u64(&self, name: &str, default: u64) -> Result<u64, String> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("option '{name}' expects an unsigned integer, got '{v}'")),
        }
    }
}

/// A registered pass.
pub struct PassInfo {
    /// Upstream name in kebab-case (`mem2reg`, `simplify-cfg`).
    pub name: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// Control-flow form precondition.
    pub form: FormRequirement,
    /// Accepted options.
    pub options: &'static [PassOptionInfo],
    /// Report keys, in upstream order (the same key set upstream publishes).
    pub report_keys: &'static [&'static str],
    /// Builds the pass from validated options.
    pub create: fn(&PassOptions) -> Result<Box<dyn Pass>, String>,
    /// Registered only under `--enable-test-passes`.
    pub test_only: bool,
}

impl std::fmt::Debug for PassInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassInfo")
            .field("name", &self.name)
            .finish()
    }
}

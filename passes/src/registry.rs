//! The pass registry: every pass by its upstream kebab-case name, with a one-line summary,
//! its options, its control-flow-form precondition and the report keys it publishes.
//!
//! The passes themselves are listed once, in `transform/mod.rs` (and the test-only ones
//! in `test_passes.rs`); each entry's [`PassInfo`] comes from the pass's
//! [`declare_pass!`](crate::declare_pass).

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

/// Why a name did not resolve to a runnable pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LookupError {
    /// A test-only pass asked for without `--enable-test-passes`.
    TestOnlyDisabled,
    /// An upstream pass this toolkit does not implement yet.
    Unimplemented,
    /// No such pass; the closest registered names (possibly none).
    Unknown {
        /// Closest names by edit distance, best first.
        suggestions: Vec<&'static str>,
    },
}

impl LookupError {
    /// A one-line explanation for pass `name`.
    pub fn describe(&self, name: &str) -> String {
        match self {
            LookupError::TestOnlyDisabled => {
                format!("'{name}' is a test-only pass; pass --enable-test-passes to use it")
            }
            LookupError::Unimplemented => {
                format!("pass '{name}' is an upstream pass that is not implemented yet")
            }
            LookupError::Unknown { suggestions } => match suggestions.as_slice() {
                [] => format!("unknown pass '{name}' (see --list-passes)"),
                [one] => format!("unknown pass '{name}'; did you mean '{one}'?"),
                many => format!(
                    "unknown pass '{name}'; did you mean one of: {}?",
                    many.join(", ")
                ),
            },
        }
    }
}

/// An option that a pass does not accept, or an ill-formed value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError {
    /// The option as written.
    pub option: String,
    /// What is wrong.
    pub message: String,
}

/// The set of passes a tool may run: every implemented pass, plus the test-only passes
/// when enabled. Names are kept sorted.
pub struct Registry {
    passes: Vec<&'static PassInfo>,
    test_passes_enabled: bool,
}

impl Registry {
    /// The registry of implemented passes (and test passes if `enable_test_passes`).
    pub fn new(enable_test_passes: bool) -> Self {
        Self::with_passes(crate::transform::PASSES, enable_test_passes)
    }

    /// A registry over an explicit list of real passes (tests use this).
    pub fn with_passes(real: &[&'static PassInfo], enable_test_passes: bool) -> Self {
        let mut passes: Vec<&'static PassInfo> = real.to_vec();
        if enable_test_passes {
            passes.extend(crate::test_passes::TEST_PASSES.iter().copied());
        }
        passes.sort_by_key(|p| p.name);
        Self {
            passes,
            test_passes_enabled: enable_test_passes,
        }
    }

    /// Whether test-only passes are available.
    pub fn test_passes_enabled(&self) -> bool {
        self.test_passes_enabled
    }

    /// Every available pass, sorted by name.
    pub fn list(&self) -> &[&'static PassInfo] {
        &self.passes
    }

    /// The pass called `name`, if available.
    pub fn get(&self, name: &str) -> Option<&'static PassInfo> {
        self.passes
            .binary_search_by(|p| p.name.cmp(name))
            .ok()
            .map(|i| self.passes[i])
    }

    /// Resolves `name`, explaining a failure (test-only, unimplemented or unknown with
    /// suggestions).
    pub fn lookup(&self, name: &str) -> Result<&'static PassInfo, LookupError> {
        if let Some(p) = self.get(name) {
            return Ok(p);
        }
        if crate::test_passes::TEST_PASSES
            .iter()
            .any(|p| p.name == name)
        {
            return Err(LookupError::TestOnlyDisabled);
        }
        if crate::catalogue::is_upstream_pass(name) {
            return Err(LookupError::Unimplemented);
        }
        Err(LookupError::Unknown {
            suggestions: self.suggest(name),
        })
    }

    /// Up to three available or catalogued pass names closest to `name` (edit distance at
    /// most a third of the longer name, and at least 1 edit allowed).
    pub fn suggest(&self, name: &str) -> Vec<&'static str> {
        let candidates = self
            .passes
            .iter()
            .map(|p| p.name)
            .chain(crate::catalogue::upstream_names());
        closest(name, candidates, 3)
    }

    /// Checks `opts` against the options `info` declares: an unknown option or a repeated
    /// one is an error (with the closest declared name suggested).
    pub fn validate_options(info: &PassInfo, opts: &PassOptions) -> Result<(), OptionError> {
        for (i, (k, _)) in opts.values.iter().enumerate() {
            if !info.options.iter().any(|o| o.name == k) {
                let hint = match closest(k, info.options.iter().map(|o| o.name), 1).first() {
                    Some(s) => format!("; did you mean '{s}'?"),
                    None if info.options.is_empty() => "; it takes no options".to_string(),
                    None => format!(
                        "; it accepts: {}",
                        info.options
                            .iter()
                            .map(|o| o.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                return Err(OptionError {
                    option: k.clone(),
                    message: format!("pass '{}' has no option '{k}'{hint}", info.name),
                });
            }
            if opts.values[..i].iter().any(|(kk, _)| kk == k) {
                return Err(OptionError {
                    option: k.clone(),
                    message: format!("option '{k}' of pass '{}' is given twice", info.name),
                });
            }
        }
        Ok(())
    }

    /// Validates `opts` and builds the pass.
    pub fn instantiate(info: &PassInfo, opts: &PassOptions) -> Result<Box<dyn Pass>, OptionError> {
        Self::validate_options(info, opts)?;
        (info.create)(opts).map_err(|message| OptionError {
            option: String::new(),
            message: format!("pass '{}': {message}", info.name),
        })
    }

    /// `--list-passes`: one line per pass, `name  summary`, sorted, then the upstream
    /// passes not implemented yet.
    pub fn list_text(&self) -> String {
        let width = self.passes.iter().map(|p| p.name.len()).max().unwrap_or(0);
        let mut out = String::from("Available passes:\n");
        for p in &self.passes {
            let tag = if p.test_only { " [test-only]" } else { "" };
            out.push_str(&format!("  {:width$}  {}{tag}\n", p.name, p.summary));
        }
        let missing = self.unimplemented();
        if !missing.is_empty() {
            out.push_str(&format!(
                "Upstream passes not implemented yet ({}): {}\n",
                missing.len(),
                missing.join(", ")
            ));
        }
        out
    }

    /// Catalogued upstream passes that are not available here, sorted.
    pub fn unimplemented(&self) -> Vec<&'static str> {
        let mut v: Vec<&'static str> = crate::catalogue::upstream_names()
            .filter(|n| self.get(n).is_none())
            .collect();
        v.sort_unstable();
        v
    }

    /// `--list-passes=markdown`: the content of `docs/passes.md`.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        out.push_str("# Passes\n\n");
        out.push_str(
            "<!-- Generated by `xir-opt --list-passes=markdown --enable-test-passes`; \
             do not edit. A test checks that this file is up to date. -->\n\n",
        );
        out.push_str("| Pass | Form | Summary |\n|---|---|---|\n");
        for p in self.passes.iter().filter(|p| !p.test_only) {
            out.push_str(&format!(
                "| [`{}`](#{}) | {} | {} |\n",
                p.name,
                p.name,
                form_name(p.form),
                p.summary
            ));
        }
        for p in self.passes.iter().filter(|p| !p.test_only) {
            pass_section(&mut out, p);
        }
        let tests: Vec<_> = self.passes.iter().filter(|p| p.test_only).collect();
        if !tests.is_empty() {
            out.push_str("\n## Test-only passes\n\nAvailable under `--enable-test-passes`; ");
            out.push_str("they exist to exercise the pipeline framework.\n\n");
            out.push_str("| Pass | Summary |\n|---|---|\n");
            for p in tests {
                out.push_str(&format!("| `{}` | {} |\n", p.name, p.summary));
            }
        }
        let missing = self.unimplemented();
        if !missing.is_empty() {
            out.push_str("\n## Upstream passes not implemented yet\n\n");
            out.push_str("A pipeline that names one of these fails to load.\n\n");
            for n in missing {
                let summary = crate::catalogue::summary(n).unwrap_or("");
                out.push_str(&format!("* `{n}` — {summary}\n"));
            }
        }
        out
    }
}

fn pass_section(out: &mut String, p: &PassInfo) {
    out.push_str(&format!("\n## {}\n\n{}\n\n", p.name, p.summary));
    out.push_str(&format!("* Form: {}\n", form_name(p.form)));
    if p.options.is_empty() {
        out.push_str("* Options: none\n");
    } else {
        out.push_str("* Options:\n");
        for o in p.options {
            out.push_str(&format!(
                "  * `{}` (default `{}`): {}\n",
                o.name, o.default, o.help
            ));
        }
    }
    if p.report_keys.is_empty() {
        out.push_str("* Report keys: none\n");
    } else {
        let keys: Vec<String> = p.report_keys.iter().map(|k| format!("`{k}`")).collect();
        out.push_str(&format!(
            "* Report keys ({}): {}\n",
            keys.len(),
            keys.join(", ")
        ));
    }
}

/// Human name of a form requirement.
pub fn form_name(f: FormRequirement) -> &'static str {
    match f {
        FormRequirement::Structured => "structured",
        FormRequirement::Plain => "plain CFG",
        FormRequirement::Either => "any",
    }
}

/// Edit distance between names (shared with the text parser's suggestions).
pub use xir_ir::text::edit_distance;

/// The `limit` candidates closest to `name`, best first (ties by name); a candidate
/// qualifies when its distance is at most `max(1, len/3)`, or when one name contains the
/// other.
pub fn closest<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a str>,
    limit: usize,
) -> Vec<&'a str> {
    let budget = (name.chars().count() / 3).max(1);
    let mut scored: Vec<(usize, &'a str)> = candidates
        .filter(|c| *c != name)
        .filter_map(|c| {
            let d = edit_distance(name, c);
            let contains = name.len() >= 3 && (c.contains(name) || name.contains(c));
            (d <= budget || contains).then_some((d, c))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(limit).map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_transpositions_once() {
        assert_eq!(edit_distance("licm", "lcim"), 1);
        assert_eq!(edit_distance("dce", "dce"), 0);
        assert_eq!(edit_distance("", "gvn"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn lookup_explains_failures() {
        let r = Registry::new(false);
        assert_eq!(r.lookup("outline").unwrap_err(), LookupError::Unimplemented);
        assert_eq!(
            r.lookup("test-panic").unwrap_err(),
            LookupError::TestOnlyDisabled
        );
        match r.lookup("lcim").unwrap_err() {
            LookupError::Unknown { suggestions } => assert_eq!(suggestions[0], "licm"),
            e => panic!("{e:?}"),
        }
        let t = Registry::new(true);
        assert_eq!(t.lookup("test-panic").unwrap().name, "test-panic");
        let names: Vec<&str> = t.list().iter().map(|p| p.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
    }

    #[test]
    fn listing_marks_test_passes_and_unimplemented_ones() {
        let t = Registry::new(true);
        let text = t.list_text();
        assert!(text.contains("test-panic"));
        assert!(text.contains("[test-only]"));
        assert!(text.contains("Upstream passes not implemented yet"));
        let md = t.markdown();
        assert!(md.starts_with("# Passes\n"));
        assert!(md.contains("## Test-only passes"));
    }
}

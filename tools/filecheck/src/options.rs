//! Options of a FileCheck run (LLVM's `FileCheckRequest` plus the utility's dump flags).

/// `--dump-input` mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum DumpInput {
    /// `never`
    Never,
    /// `fail` (default)
    #[default]
    Fail,
    /// `always`
    Always,
    /// `help`
    Help,
}

/// `--dump-input-filter` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DumpFilter {
    /// `error`
    Error,
    /// `annotation`
    Annotation,
    /// `annotation-full`
    AnnotationFull,
    /// `all`
    All,
}

/// All options.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--check-prefix(es)`; empty means `CHECK`.
    pub check_prefixes: Vec<String>,
    /// `--comment-prefixes`; empty means `COM,RUN`.
    pub comment_prefixes: Vec<String>,
    /// `--implicit-check-not`.
    pub implicit_check_not: Vec<String>,
    /// `-D` definitions (without the `-D`).
    pub defines: Vec<String>,
    /// `--strict-whitespace`
    pub strict_whitespace: bool,
    /// `--match-full-lines`
    pub match_full_lines: bool,
    /// `--ignore-case`
    pub ignore_case: bool,
    /// `--allow-empty`
    pub allow_empty: bool,
    /// `--allow-unused-prefixes`
    pub allow_unused_prefixes: bool,
    /// `--enable-var-scope`
    pub enable_var_scope: bool,
    /// `--allow-deprecated-dag-overlap`
    pub allow_deprecated_dag_overlap: bool,
    /// `-v`
    pub verbose: bool,
    /// `-vv`
    pub verbose_verbose: bool,
    /// `--dump-input` (most informative wins when repeated).
    pub dump_input: Option<DumpInput>,
    /// `--dump-input-filter`.
    pub dump_input_filter: Option<DumpFilter>,
    /// `--dump-input-context`.
    pub dump_input_context: Option<usize>,
    /// Disable the xir extras (near-miss diff) for byte-exact LLVM output.
    pub no_near_miss_diff: bool,
}

impl Options {
    /// Check prefixes with the default applied.
    pub fn prefixes(&self) -> Vec<String> {
        if self.check_prefixes.is_empty() {
            vec!["CHECK".into()]
        } else {
            self.check_prefixes.clone()
        }
    }

    /// Comment prefixes with the default applied.
    pub fn comments(&self) -> Vec<String> {
        if self.comment_prefixes.is_empty() {
            vec!["COM".into(), "RUN".into()]
        } else {
            self.comment_prefixes.clone()
        }
    }
}

//! Pass-list and pipeline handling for `xir-opt`.
//!
//! All of it sits behind [`check_pipeline`] (run once, before any input is read, so a
//! misspelt pass fails fast) and [`run_pipeline`] (run once per module). The pass
//! framework is being written on another branch; until it is merged an empty pass list
//! is accepted (parse, verify, re-print) and any pass or pipeline name is reported as
//! unknown.

use crate::cli::Cli;
use xir_ir::Module;
use xir_ir::diag::Diagnostic;

/// Why a pipeline could not be built or run.
#[derive(Debug)]
pub enum PipelineError {
    /// A command-line problem (unknown pass, unreadable pipeline file); printed as
    /// `error: <message>`.
    Usage(String),
    /// Problems located in the module (a pass refusal, a verifier failure after a pass).
    Diagnostics(Vec<Diagnostic>),
}

/// The pass names of `--passes=LIST`: comma-separated, with `{…}` option groups kept
/// intact (`a{x=1,y=2},b` is two entries). Blank entries are dropped.
pub fn split_pass_list(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    for c in list.chars() {
        match c {
            '{' | '(' => {
                depth += 1;
                cur.push(c);
            }
            '}' | ')' => {
                depth = depth.saturating_sub(1);
                cur.push(c);
            }
            ',' if depth == 0 => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Checks `--passes` / `--pipeline` before any input is read.
pub fn check_pipeline(cli: &Cli) -> Result<(), PipelineError> {
    if let Some(list) = &cli.passes
        && let Some(first) = split_pass_list(list).first()
    {
        let name = first.split(['{', '(']).next().unwrap_or(first).trim();
        return Err(PipelineError::Usage(format!(
            "pass framework not available: unknown pass '{name}'"
        )));
    }
    if let Some(p) = &cli.pipeline {
        return Err(PipelineError::Usage(format!(
            "pass framework not available: unknown pipeline '{p}'"
        )));
    }
    Ok(())
}

/// Runs the requested passes on `module`, verifying after each one with
/// `--verify-each`. Without the framework only the empty pipeline exists.
pub fn run_pipeline(module: &mut Module, cli: &Cli) -> Result<(), PipelineError> {
    let _ = module;
    check_pipeline(cli)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_lists_keeping_option_groups() {
        assert_eq!(split_pass_list("a, b ,c"), vec!["a", "b", "c"]);
        assert_eq!(split_pass_list("a{x=1,y=2},b"), vec!["a{x=1,y=2}", "b"]);
        assert!(split_pass_list(" , ").is_empty());
    }

    #[test]
    fn empty_list_is_accepted_and_names_are_unknown() {
        let cli = Cli::try_parse_args(&["--passes=".to_string()]).unwrap();
        assert!(check_pipeline(&cli).is_ok());
        let cli = Cli::try_parse_args(&["--passes=dce{x=1},gvn".to_string()]).unwrap();
        match check_pipeline(&cli) {
            Err(PipelineError::Usage(m)) => {
                assert_eq!(m, "pass framework not available: unknown pass 'dce'")
            }
            other => panic!("{other:?}"),
        }
    }
}

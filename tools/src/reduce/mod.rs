//! `xir-reduce`: shrink a module while an interestingness test still holds.
//!
//! A round runs every [`strategies::Strategy`] in turn. A strategy lists its sites on
//! the current module and tries to apply chunks of them, starting with all of them and
//! halving the chunk size down to single sites (delta debugging). A candidate is kept
//! only if, in this order:
//!
//! 1. every site of the chunk applies;
//! 2. the verifier accepts it (**every kept candidate is verifier-clean**);
//! 3. it is smaller by [`edit::size`] (so reduction always terminates);
//! 4. it prints, and the print parses back (what the test sees is what we keep);
//! 5. the interestingness test says it is still interesting.
//!
//! Rounds repeat until one changes nothing or the round limit is reached.

pub mod cli;
pub mod edit;
pub mod strategies;

use crate::predicate::Undecided;
use strategies::{Strategy, sites};
use xir_ir::Module;
use xir_ir::diag::Severity;
use xir_ir::verify::VerifyOptions;

/// Reduction switches.
#[derive(Clone, Debug)]
pub struct ReduceOptions {
    /// Strategies, in the order a round runs them.
    pub strategies: Vec<Strategy>,
    /// Maximum rounds.
    pub max_rounds: usize,
    /// Verifier requirements every candidate must meet.
    pub verify: VerifyOptions,
}

impl Default for ReduceOptions {
    fn default() -> Self {
        ReduceOptions {
            strategies: Strategy::ALL.to_vec(),
            max_rounds: 10,
            verify: VerifyOptions::default(),
        }
    }
}

/// How `xir-reduce` turns modules into text and back.
pub trait Codec {
    /// Prints a module.
    fn print(&self, m: &Module) -> Result<String, String>;
    /// Parses text (to check that a candidate survives the round trip).
    fn parse(&self, text: &str) -> Result<Module, String>;
}

/// The driver's parser and printer (`xir_driver::frontend`).
pub struct DriverCodec;

impl Codec for DriverCodec {
    fn print(&self, m: &Module) -> Result<String, String> {
        Ok(xir_driver::frontend::print_module(m, Default::default()))
    }
    fn parse(&self, text: &str) -> Result<Module, String> {
        xir_driver::frontend::parse_module(text)
            .map(|(m, _)| m)
            .map_err(|d| xir_ir::diag::render("<input>", text, &d))
    }
}

/// Verifier errors of `m`, rendered; empty when it is clean.
pub fn verify_errors(m: &Module, opts: &VerifyOptions) -> Vec<String> {
    xir_ir::verify::verify_module(m, opts, None)
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message)
        .collect()
}

/// What a reduction did.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// The reduced module.
    pub module: Module,
    /// Its text (as the test last saw it).
    pub text: String,
    /// Interestingness tests run.
    pub tests: usize,
    /// Candidates rejected before testing (not applicable, invalid, not smaller).
    pub rejected: usize,
    /// Accepted candidates per strategy name.
    pub accepted: Vec<(&'static str, usize)>,
    /// Rounds run.
    pub rounds: usize,
}

/// The reducer state.
pub struct Reducer<'a> {
    codec: &'a dyn Codec,
    test: &'a mut dyn FnMut(&str) -> Result<bool, Undecided>,
    opts: ReduceOptions,
    cur: Module,
    text: String,
    size: (usize, usize),
    tests: usize,
    rejected: usize,
    accepted: Vec<(&'static str, usize)>,
    log: Option<&'a mut dyn FnMut(&str)>,
}

impl<'a> Reducer<'a> {
    /// A reducer starting from `m`, whose printed text must be interesting.
    pub fn new(
        m: Module,
        codec: &'a dyn Codec,
        test: &'a mut dyn FnMut(&str) -> Result<bool, Undecided>,
        opts: ReduceOptions,
    ) -> Result<Reducer<'a>, String> {
        let errors = verify_errors(&m, &opts.verify);
        if !errors.is_empty() {
            return Err(format!("the input does not verify: {}", errors.join("; ")));
        }
        let text = codec.print(&m)?;
        let size = edit::size(&m);
        Ok(Reducer {
            codec,
            test,
            opts,
            cur: m,
            text,
            size,
            tests: 0,
            rejected: 0,
            accepted: Vec::new(),
            log: None,
        })
    }

    /// Reports every candidate's fate to `log` (`--verbose`).
    pub fn with_log(mut self, log: &'a mut dyn FnMut(&str)) -> Self {
        self.log = Some(log);
        self
    }

    fn note(&mut self, msg: &str) {
        if let Some(l) = self.log.as_mut() {
            l(msg);
        }
    }

    /// The current text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Tests the current module (used once, before reducing).
    pub fn check_start(&mut self) -> Result<bool, Undecided> {
        self.tests += 1;
        (self.test)(&self.text)
    }

    fn try_candidate(&mut self, cand: Module, what: &str) -> Result<bool, Undecided> {
        let size = edit::size(&cand);
        let verdict = if size >= self.size {
            Some("not smaller".to_string())
        } else {
            let errors = verify_errors(&cand, &self.opts.verify);
            (!errors.is_empty()).then(|| format!("invalid: {}", errors.join("; ")))
        };
        if let Some(why) = verdict {
            self.rejected += 1;
            self.note(&format!("{what}: rejected ({why})"));
            return Ok(false);
        }
        let text = match self.codec.print(&cand) {
            Ok(t) => t,
            Err(e) => {
                self.rejected += 1;
                self.note(&format!("{what}: rejected (does not print: {e})"));
                return Ok(false);
            }
        };
        if text == self.text {
            self.rejected += 1;
            self.note(&format!("{what}: rejected (prints the same)"));
            return Ok(false);
        }
        if let Err(e) = self.codec.parse(&text) {
            self.rejected += 1;
            self.note(&format!("{what}: rejected (does not parse back: {e})"));
            return Ok(false);
        }
        self.tests += 1;
        if !(self.test)(&text)? {
            self.note(&format!("{what}: not interesting"));
            return Ok(false);
        }
        self.note(&format!(
            "{what}: accepted ({} -> {} lines)",
            self.text.lines().count(),
            text.lines().count()
        ));
        self.cur = cand;
        self.text = text;
        self.size = size;
        Ok(true)
    }

    /// Runs one strategy to its end. Returns the number of accepted candidates.
    pub fn run_strategy(&mut self, s: Strategy) -> Result<usize, Undecided> {
        let mut list = sites(s, &self.cur);
        let mut accepted = 0;
        let mut chunk = list.len().max(1);
        loop {
            let mut i = 0;
            while i < list.len() {
                let end = (i + chunk).min(list.len());
                let mut cand = self.cur.clone();
                let applied = strategies::apply(&mut cand, &list[i..end]);
                let what = format!("{} [{}..{}) of {}", s.name(), i, end, list.len());
                if !applied {
                    self.note(&format!("{what}: rejected (does not apply)"));
                }
                if applied && self.try_candidate(cand, &what)? {
                    accepted += 1;
                    list = sites(s, &self.cur);
                } else {
                    if !applied {
                        self.rejected += 1;
                    }
                    i = end;
                }
            }
            if chunk == 1 {
                break;
            }
            chunk = chunk.div_ceil(2);
        }
        if accepted > 0 {
            match self.accepted.iter_mut().find(|(n, _)| *n == s.name()) {
                Some(e) => e.1 += accepted,
                None => self.accepted.push((s.name(), accepted)),
            }
        }
        Ok(accepted)
    }

    /// Runs rounds until nothing changes or the limit is reached.
    pub fn run(mut self) -> Result<Reduction, Undecided> {
        let mut rounds = 0;
        while rounds < self.opts.max_rounds {
            rounds += 1;
            let mut changed = 0;
            for s in self.opts.strategies.clone() {
                changed += self.run_strategy(s)?;
            }
            if changed == 0 {
                break;
            }
        }
        Ok(Reduction {
            module: self.cur,
            text: self.text,
            tests: self.tests,
            rejected: self.rejected,
            accepted: self.accepted,
            rounds,
        })
    }
}

#[cfg(test)]
mod tests;

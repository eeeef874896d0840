//! `xir-bisect --minimize-pipeline`: delta debugging over the pass list.
//!
//! The pipeline is read in its inline form ([`crate::pipeline_text`]), expanded by
//! `xir-opt --print-pipeline` when the driver supports it. A candidate is *still
//! failing* when the oracle says bad **and** `xir-opt` ends the same way as with the
//! original pipeline (a CHECK failure stays a CHECK failure, a crash stays a crash), so
//! the search cannot wander off to a different bug.
//!
//! Steps: (1) `ddmin` over the leaves (entries of emptied groups disappear); (2) each
//! remaining fixed point is replaced by one run of its body, or else unrolled into the
//! fewest copies (up to its budget, at most [`MAX_UNROLL`]) that still fail; after a
//! successful reshape `ddmin` runs again over the new leaves; (3) one-shot sequences
//! are flattened away when that still fails. The result is 1-minimal: removing any
//! single remaining entry makes the run good (or fail differently).

use crate::opt::{FailureClass, flag_value};
use crate::oracle::Oracle;
use crate::pipeline_text::{self, Node};
use crate::predicate::{Edit, Undecided};
use std::collections::HashMap;

/// The largest number of copies a fixed point is unrolled into.
pub const MAX_UNROLL: u32 = 8;

/// The result of a minimization.
#[derive(Clone, Debug)]
pub struct Minimized {
    /// The original pipeline (inline form).
    pub original: String,
    /// The minimal pipeline (inline form).
    pub minimal: String,
    /// How `xir-opt` ends with it.
    pub class: FailureClass,
    /// Oracle evaluations made.
    pub tests: usize,
    /// A log of accepted steps.
    pub log: Vec<String>,
}

/// Why minimization did not happen.
#[derive(Clone, Debug)]
pub enum MinimizeError {
    /// The original pipeline is not bad.
    NotFailing,
    /// The pipeline text could not be obtained or read.
    Pipeline(String),
    /// An evaluation could not decide.
    Undecided(Undecided),
}

impl From<Undecided> for MinimizeError {
    fn from(u: Undecided) -> Self {
        MinimizeError::Undecided(u)
    }
}

/// The inline pipeline of `xir-opt ARGS`: `xir-opt --print-pipeline ARGS` when it
/// succeeds, otherwise the `--passes` text itself.
pub fn pipeline_of(oracle: &dyn Oracle) -> Result<String, String> {
    let args = oracle.opt_args();
    let mut a = args.clone();
    a.push("--print-pipeline".into());
    let out = oracle.runner().run(&a, b"");
    if out.code == 0 {
        let text = out.stdout_text();
        if let Some(line) = text.lines().rev().find(|l| !l.trim().is_empty()) {
            let line = line.trim();
            let line = line.strip_prefix("--passes=").unwrap_or(line);
            return Ok(line.trim_matches('\'').to_string());
        }
    }
    match flag_value(&xir_driver::cli::canonical_args(&args), "--passes") {
        Some(p) => Ok(p),
        None => Err(format!(
            "cannot expand the pipeline: `xir-opt --print-pipeline` failed ({})",
            out.stderr_text().trim()
        )),
    }
}

struct Tester<'a> {
    oracle: &'a dyn Oracle,
    input: &'a [u8],
    class: FailureClass,
    cache: HashMap<String, bool>,
    tests: usize,
}

impl Tester<'_> {
    fn fails(&mut self, list: &[Node]) -> Result<bool, Undecided> {
        let text = pipeline_text::print(list);
        if let Some(&b) = self.cache.get(&text) {
            return Ok(b);
        }
        self.tests += 1;
        let v = self.oracle.eval(self.input, &Edit::passes(&text))?;
        let b = v.bad && v.class == self.class;
        self.cache.insert(text, b);
        Ok(b)
    }
}

/// Classic ddmin over `0..n`: the returned subset still satisfies `test` and no
/// single element can be removed from it (given `test(all)` holds).
pub fn ddmin<E>(
    n: usize,
    mut test: impl FnMut(&[usize]) -> Result<bool, E>,
) -> Result<Vec<usize>, E> {
    let mut cur: Vec<usize> = (0..n).collect();
    if test(&[])? {
        return Ok(Vec::new());
    }
    let mut gran = 2usize;
    while cur.len() >= 2 {
        let chunks = split(&cur, gran);
        let mut reduced = false;
        for c in &chunks {
            if c.len() < cur.len() && test(c)? {
                cur = c.clone();
                gran = 2;
                reduced = true;
                break;
            }
        }
        if !reduced && gran > 2 {
            for k in 0..chunks.len() {
                let comp: Vec<usize> = chunks
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != k)
                    .flat_map(|(_, c)| c.iter().copied())
                    .collect();
                if test(&comp)? {
                    cur = comp;
                    gran = (gran - 1).max(2);
                    reduced = true;
                    break;
                }
            }
        }
        if !reduced {
            if gran >= cur.len() {
                break;
            }
            gran = (gran * 2).min(cur.len());
        }
    }
    Ok(cur)
}

fn split(v: &[usize], parts: usize) -> Vec<Vec<usize>> {
    let parts = parts.min(v.len()).max(1);
    let mut out = Vec::new();
    let mut start = 0;
    for k in 0..parts {
        let end = start + (v.len() - start) / (parts - k);
        out.push(v[start..end].to_vec());
        start = end;
    }
    out
}

fn ddmin_tree(t: &mut Tester<'_>, list: &[Node]) -> Result<Vec<Node>, Undecided> {
    let n = pipeline_text::count_leaves(list);
    let keep = ddmin(n, |subset| {
        let cand = pipeline_text::retain_leaves(list, &|k| subset.contains(&k));
        t.fails(&cand)
    })?;
    Ok(pipeline_text::retain_leaves(list, &|k| keep.contains(&k)))
}

/// Minimizes the pipeline of `oracle` on `input`.
pub fn minimize(oracle: &dyn Oracle, input: &[u8]) -> Result<Minimized, MinimizeError> {
    let original = pipeline_of(oracle).map_err(MinimizeError::Pipeline)?;
    let tree = pipeline_text::parse(&original)
        .map_err(|e| MinimizeError::Pipeline(format!("cannot read '{original}': {e}")))?;
    let reference = oracle.eval(input, &Edit::passes(&original))?;
    if !reference.bad {
        return Err(MinimizeError::NotFailing);
    }
    let mut t = Tester {
        oracle,
        input,
        class: reference.class,
        cache: HashMap::new(),
        tests: 1,
    };
    t.cache.insert(pipeline_text::print(&tree), true);
    let mut log = Vec::new();
    let mut cur = ddmin_tree(&mut t, &tree)?;
    log.push(format!(
        "ddmin: {} -> {} entries: {}",
        pipeline_text::count_leaves(&tree),
        pipeline_text::count_leaves(&cur),
        pipeline_text::print(&cur)
    ));
    // Reshape fixed points, outermost first; numbering shifts after each change, so
    // rescan from the start each time.
    let mut k = 0;
    loop {
        let fps = pipeline_text::fixed_points(&cur);
        let Some((id, name, max)) = fps.get(k).cloned() else {
            break;
        };
        let limit = max.unwrap_or(MAX_UNROLL).clamp(1, MAX_UNROLL);
        let mut done = false;
        for copies in 1..=limit {
            let cand = pipeline_text::reshape_fixed_point(&cur, id, copies);
            if t.fails(&cand)? {
                log.push(format!(
                    "fixed point '{name}': replaced by {copies} run(s) of its body"
                ));
                cur = ddmin_tree(&mut t, &cand)?;
                log.push(format!(
                    "ddmin: {} -> {} entries: {}",
                    pipeline_text::count_leaves(&cand),
                    pipeline_text::count_leaves(&cur),
                    pipeline_text::print(&cur)
                ));
                done = true;
                break;
            }
        }
        if !done {
            k += 1;
        }
    }
    let flat = pipeline_text::flatten_sequences(&cur);
    if flat != cur && t.fails(&flat)? {
        log.push("sequences flattened".into());
        cur = flat;
    }
    Ok(Minimized {
        original,
        minimal: pipeline_text::print(&cur),
        class: reference.class,
        tests: t.tests,
        log,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ddmin_finds_needed_pairs() {
        // Fails iff both 3 and 7 are present.
        let mut calls = 0;
        let r = ddmin::<()>(10, |s| {
            calls += 1;
            Ok(s.contains(&3) && s.contains(&7))
        })
        .unwrap();
        assert_eq!(r, vec![3, 7]);
        assert!(calls < 40, "{calls}");
    }

    #[test]
    fn ddmin_single_and_empty() {
        assert_eq!(ddmin::<()>(5, |s| Ok(s.contains(&4))).unwrap(), vec![4]);
        assert_eq!(ddmin::<()>(5, |_| Ok(true)).unwrap(), Vec::<usize>::new());
        // Needs everything.
        assert_eq!(
            ddmin::<()>(4, |s| Ok(s.len() == 4)).unwrap(),
            vec![0, 1, 2, 3]
        );
    }

    #[test]
    fn split_is_even() {
        assert_eq!(split(&[1, 2, 3, 4, 5], 2), vec![vec![1, 2], vec![3, 4, 5]]);
        assert_eq!(split(&[1, 2], 4), vec![vec![1], vec![2]]);
    }
}

//! The binary search over pass invocations.
//!
//! `bad(N)` is "the predicate holds when `xir-opt` runs with `--bisect-limit=N`". The
//! search needs `bad(0)` false and `bad(T)` true (T = invocations of the full run) and
//! finds the smallest `N` with `bad(N)` and not `bad(N - 1)` along the bisection path: if
//! `bad` is monotone that is *the* first bad invocation, otherwise it is still a real
//! good→bad transition (both ends were observed), which is what the regression test
//! pins.

use std::collections::BTreeMap;

/// One probe of the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The limit tried.
    pub limit: u64,
    /// Whether it was bad.
    pub bad: bool,
}

/// Where the search ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchResult {
    /// `bad(first_bad)` and not `bad(first_bad - 1)`.
    Found {
        /// The first bad invocation.
        first_bad: u64,
    },
    /// Already bad with no invocation at all.
    BadAtZero,
    /// Not bad even with every invocation.
    GoodAtEnd,
}

/// Binary-searches `0..=total` with the memoising oracle `probe`. Probes `total` first,
/// then `0`, then halves. Returns the result and every probe made, in order.
pub fn search<E>(
    total: u64,
    mut probe: impl FnMut(u64) -> Result<bool, E>,
) -> Result<(SearchResult, Vec<Step>), E> {
    let mut seen: BTreeMap<u64, bool> = BTreeMap::new();
    let mut steps = Vec::new();
    let mut ask = |n: u64, steps: &mut Vec<Step>| -> Result<bool, E> {
        if let Some(&b) = seen.get(&n) {
            return Ok(b);
        }
        let b = probe(n)?;
        seen.insert(n, b);
        steps.push(Step { limit: n, bad: b });
        Ok(b)
    };
    if !ask(total, &mut steps)? {
        return Ok((SearchResult::GoodAtEnd, steps));
    }
    if ask(0, &mut steps)? {
        return Ok((SearchResult::BadAtZero, steps));
    }
    let (mut lo, mut hi) = (0u64, total);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ask(mid, &mut steps)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok((SearchResult::Found { first_bad: hi }, steps))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(total: u64, bad: impl Fn(u64) -> bool) -> (SearchResult, usize) {
        let (r, steps) = search::<()>(total, |n| Ok(bad(n))).unwrap();
        (r, steps.len())
    }

    #[test]
    fn finds_every_threshold() {
        for total in 1..40u64 {
            for t in 1..=total {
                let (r, probes) = run(total, |n| n >= t);
                assert_eq!(r, SearchResult::Found { first_bad: t });
                // ⌈log2(total)⌉ + the two end probes.
                assert!(probes as u32 <= 2 + (64 - (total - 1).leading_zeros()) + 1);
            }
        }
    }

    #[test]
    fn ends() {
        assert_eq!(run(10, |_| false).0, SearchResult::GoodAtEnd);
        assert_eq!(run(10, |_| true).0, SearchResult::BadAtZero);
        assert_eq!(run(0, |_| true).0, SearchResult::BadAtZero);
        assert_eq!(run(0, |_| false).0, SearchResult::GoodAtEnd);
    }

    #[test]
    fn non_monotone_still_gives_a_transition() {
        // Bad on 3..=4 and 8..; the search lands on an observed good→bad edge.
        let bad = |n: u64| (3..=4).contains(&n) || n >= 8;
        let (r, _) = run(12, bad);
        let SearchResult::Found { first_bad } = r else {
            panic!()
        };
        assert!(bad(first_bad) && !bad(first_bad - 1));
    }

    #[test]
    fn errors_propagate() {
        let r = search(8, |n| if n == 4 { Err("no") } else { Ok(n > 5) });
        assert_eq!(r.unwrap_err(), "no");
    }
}

//! Compiled regexes with POSIX leftmost-longest match semantics.
//!
//! The leftmost start position is found with `regex-automata`'s meta engine (fast,
//! literal prefilters). From that start, a lazy DFA built with `MatchKind::All` runs an
//! anchored search whose last reported end is the longest match, as POSIX requires.
//! Capture groups (variable definitions) are then resolved by an anchored search that is
//! forced to end exactly at that position.

use regex_automata::{
    Anchored, Input, MatchKind, PatternID,
    hybrid::dfa::{Cache as DfaCache, DFA},
    meta::{self, Regex},
    nfa::thompson,
    util::syntax,
};
use std::cell::RefCell;
use std::sync::OnceLock;

/// A compiled pattern regex.
pub struct Re {
    find: Regex,
    longest: OnceLock<Option<DFA>>,
    caps: OnceLock<Option<Regex>>,
    src: String,
    icase: bool,
    dfa_cache: RefCell<Option<DfaCache>>,
    caps_cache: RefCell<Option<meta::Cache>>,
}

/// The meta engine's configuration. No fully compiled DFA: building one costs far more
/// than the few searches a CHECK pattern usually gets (most regexes are searched a handful
/// of times on a small output), while the lazy DFA it falls back to is about as fast on
/// big inputs and only builds the states a search visits.
fn meta_config() -> meta::Config {
    meta::Config::new().utf8_empty(false).dfa(false)
}

fn syn(icase: bool) -> syntax::Config {
    syntax::Config::new()
        .multi_line(true)
        .case_insensitive(icase)
        .unicode(false)
        .utf8(false)
}

impl Re {
    /// Compiles a Rust-syntax regex (as produced by [`crate::ere`]).
    pub fn new(src: &str, icase: bool) -> Result<Re, String> {
        let find = Regex::builder()
            .syntax(syn(icase))
            .configure(meta_config())
            .build(src)
            .map_err(|e| e.to_string())?;
        Ok(Re {
            find,
            longest: OnceLock::new(),
            caps: OnceLock::new(),
            src: src.to_string(),
            icase,
            dfa_cache: RefCell::new(None),
            caps_cache: RefCell::new(None),
        })
    }

    fn longest_dfa(&self) -> Option<&DFA> {
        self.longest
            .get_or_init(|| {
                DFA::builder()
                    .configure(DFA::config().match_kind(MatchKind::All))
                    .syntax(syn(self.icase))
                    .thompson(thompson::Config::new().utf8(false))
                    .build(&self.src)
                    .ok()
            })
            .as_ref()
    }

    /// The longest match end for a match known to start at `start`; `fallback` is the
    /// leftmost-first end.
    fn longest_end(&self, hay: &[u8], start: usize, fallback: usize) -> usize {
        let Some(dfa) = self.longest_dfa() else {
            return fallback;
        };
        let mut slot = self.dfa_cache.borrow_mut();
        let cache = slot.get_or_insert_with(|| dfa.create_cache());
        let input = Input::new(hay).range(start..).anchored(Anchored::Yes);
        match dfa.try_search_fwd(cache, &input) {
            Ok(Some(hm)) => hm.offset().max(fallback),
            _ => fallback,
        }
    }

    /// Leftmost-longest match in `hay` starting the search at `from`.
    pub fn find(&self, hay: &[u8], from: usize) -> Option<(usize, usize)> {
        let m = self.find.find(Input::new(hay).range(from..))?;
        let end = self.longest_end(hay, m.start(), m.end());
        Some((m.start(), end))
    }

    /// Leftmost-longest match that starts exactly at `at`.
    pub fn find_anchored(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        let m = self
            .find
            .find(Input::new(hay).range(at..).anchored(Anchored::Yes))?;
        let end = self.longest_end(hay, m.start(), m.end());
        Some((m.start(), end))
    }

    /// Capture spans of the named groups for the match `[s, e)`.
    pub fn captures(
        &self,
        hay: &[u8],
        s: usize,
        e: usize,
        names: &[String],
    ) -> Vec<Option<(usize, usize)>> {
        let caps_re = self
            .caps
            .get_or_init(|| {
                Regex::builder()
                    .syntax(syn(self.icase))
                    .configure(meta_config())
                    .build(&format!("(?:{})\\z", self.src))
                    .ok()
            })
            .as_ref();
        let Some(re) = caps_re else {
            return vec![None; names.len()];
        };
        let mut slot = self.caps_cache.borrow_mut();
        let cache = slot.get_or_insert_with(|| re.create_cache());
        let mut caps = re.create_captures();
        let input = Input::new(&hay[..e]).range(s..e).anchored(Anchored::Yes);
        re.search_captures_with(cache, &input, &mut caps);
        let gi = re.group_info();
        names
            .iter()
            .map(|n| {
                let idx = gi.to_index(PatternID::ZERO, n)?;
                caps.get_group(idx).map(|sp| (sp.start, sp.end))
            })
            .collect()
    }
}

//! Compiled regexes with POSIX leftmost-longest match semantics.
//!
//! The leftmost start position is found with `regex-automata`'s meta engine (fast,
//! literal prefilters). From that start, a lazy DFA built with `MatchKind::All` runs an
//! anchored search whose last reported end is the longest match, as POSIX requires.
//! Capture groups (variable definitions) are then resolved by an anchored search that is
//! forced to end exactly at that position.
//!
//! A regex that is only a literal string, perhaps between `^` and `$` (what a pattern
//! with substituted variables, a `--match-full-lines` line or `CHECK-EMPTY` becomes), is
//! never compiled: it is searched for with `memchr::memmem` and its anchors are checked
//! by hand. Compiling costs far more than the few searches most patterns get.

use memchr::memmem;
use regex_automata::{
    Anchored, Input, MatchKind, PatternID,
    hybrid::dfa::{Cache as DfaCache, DFA},
    meta::{self, Regex},
    nfa::thompson,
    util::syntax,
};
use regex_syntax::hir::{Hir, HirKind, Look};
use std::cell::RefCell;
use std::sync::OnceLock;

/// A regex that is one non-empty literal string, optionally anchored to a line start
/// (`^`) and a line end (`$`), with multi-line meaning as in the compiled regexes.
struct Literal {
    finder: memmem::Finder<'static>,
    len: usize,
    line_start: bool,
    line_end: bool,
}

impl Literal {
    /// The literal form of `hir`, if it has one.
    fn of(hir: &Hir) -> Option<Literal> {
        let parts: &[Hir] = match hir.kind() {
            HirKind::Concat(v) => v,
            _ => std::slice::from_ref(hir),
        };
        let (line_start, parts) = match parts.split_first() {
            Some((h, rest)) if matches!(h.kind(), HirKind::Look(Look::StartLF)) => (true, rest),
            _ => (false, parts),
        };
        let (line_end, parts) = match parts.split_last() {
            Some((h, rest)) if matches!(h.kind(), HirKind::Look(Look::EndLF)) => (true, rest),
            _ => (false, parts),
        };
        let [lit] = parts else { return None };
        let HirKind::Literal(regex_syntax::hir::Literal(bytes)) = lit.kind() else {
            return None;
        };
        (!bytes.is_empty()).then(|| Literal {
            finder: memmem::Finder::new(bytes).into_owned(),
            len: bytes.len(),
            line_start,
            line_end,
        })
    }

    /// Whether the literal, found at `at`, satisfies its anchors in `hay`.
    fn anchors_hold(&self, hay: &[u8], at: usize) -> bool {
        let end = at + self.len;
        (!self.line_start || at == 0 || hay[at - 1] == b'\n')
            && (!self.line_end || end == hay.len() || hay[end] == b'\n')
    }

    fn find(&self, hay: &[u8], from: usize) -> Option<(usize, usize)> {
        let mut pos = from;
        while pos <= hay.len() {
            let at = pos + self.finder.find(&hay[pos..])?;
            if self.anchors_hold(hay, at) {
                return Some((at, at + self.len));
            }
            pos = at + 1;
        }
        None
    }

    fn find_anchored(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        (hay.get(at..)?.starts_with(self.finder.needle()) && self.anchors_hold(hay, at))
            .then_some((at, at + self.len))
    }
}

/// How a [`Re`] searches.
enum Engine {
    /// A literal string (no compiled regex at all).
    Literal(Box<Literal>),
    /// The meta engine (leftmost-first start; see the module comment for the rest).
    Regex(Regex),
}

/// A compiled pattern regex.
pub struct Re {
    find: Engine,
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

/// An error with its chain of causes (`regex-automata`'s top-level message alone,
/// "error building NFA", does not say that a size limit was exceeded).
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut msg = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        msg.push_str(": ");
        msg.push_str(&c.to_string());
        cause = c.source();
    }
    msg
}

impl Re {
    /// Compiles a Rust-syntax regex (as produced by [`crate::ere`]).
    pub fn new(src: &str, icase: bool) -> Result<Re, String> {
        let hir = syntax::parse_with(src, &syn(icase)).map_err(|e| e.to_string())?;
        let find = match Literal::of(&hir) {
            Some(lit) => Engine::Literal(Box::new(lit)),
            None => Engine::Regex(
                Regex::builder()
                    .syntax(syn(icase))
                    .configure(meta_config())
                    .build_from_hir(&hir)
                    .map_err(|e| with_causes(&e))?,
            ),
        };
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
        let re = match &self.find {
            Engine::Literal(lit) => return lit.find(hay, from),
            Engine::Regex(re) => re,
        };
        let m = re.find(Input::new(hay).range(from..))?;
        let end = self.longest_end(hay, m.start(), m.end());
        Some((m.start(), end))
    }

    /// Leftmost-longest match that starts exactly at `at`.
    pub fn find_anchored(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        let re = match &self.find {
            Engine::Literal(lit) => return lit.find_anchored(hay, at),
            Engine::Regex(re) => re,
        };
        let m = re.find(Input::new(hay).range(at..).anchored(Anchored::Yes))?;
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
        if matches!(self.find, Engine::Literal(_)) {
            // A literal has no groups.
            return vec![None; names.len()];
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The same search done by the meta engine, for comparison.
    fn by_regex(src: &str, hay: &[u8], from: usize) -> Option<(usize, usize)> {
        let re = Regex::builder()
            .syntax(syn(false))
            .configure(meta_config())
            .build(src)
            .unwrap();
        re.find(Input::new(hay).range(from..))
            .map(|m| (m.start(), m.end()))
    }

    #[test]
    fn literal_regexes_skip_the_regex_engine() {
        for src in ["abc", "^abc$", "^abc", "abc$", "(?:\\n$)", "a\\x2Eb"] {
            let re = Re::new(src, false).unwrap();
            assert!(matches!(re.find, Engine::Literal(_)), "{src}");
        }
        for src in ["a.c", "^$", "(?P<d0>abc)", "a|b", "(?:[0-9])+"] {
            let re = Re::new(src, false).unwrap();
            assert!(matches!(re.find, Engine::Regex(_)), "{src}");
        }
        // Case-insensitive letters are classes, not literals.
        assert!(matches!(
            Re::new("abc", true).unwrap().find,
            Engine::Regex(_)
        ));
    }

    #[test]
    fn literal_search_agrees_with_the_regex_engine() {
        let hays: [&[u8]; 5] = [
            b"abc",
            b"xabc\nabc\nabcx\n",
            b"abcabc\n\n",
            b"\nabc",
            b"ab\nc",
        ];
        for src in ["abc", "^abc$", "^abc", "abc$", "(?:\\n$)", "c\\n"] {
            let re = Re::new(src, false).unwrap();
            for hay in hays {
                for from in 0..=hay.len() {
                    assert_eq!(
                        re.find(hay, from),
                        by_regex(src, hay, from),
                        "{src} in {hay:?} from {from}"
                    );
                }
            }
        }
    }

    #[test]
    fn literal_anchored_search() {
        let re = Re::new("^ab$", false).unwrap();
        assert_eq!(re.find_anchored(b"x\nab\n", 2), Some((2, 4)));
        assert_eq!(re.find_anchored(b"x\nabc\n", 2), None);
        assert_eq!(re.find_anchored(b"xab\n", 1), None);
        assert_eq!(re.find_anchored(b"ab", 5), None);
        assert_eq!(re.captures(b"ab", 0, 2, &["d0".into()]), vec![None]);
    }
}

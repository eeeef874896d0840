//! How diagnostics name functions, blocks, instructions, arguments and module values:
//! the way the text does, never by arena index.
//!
//! * When the module was parsed and its source text is at hand, an entity with a source
//!   span is named by the identifier the user wrote there (`%entry`, `%x`, `%7`): the
//!   parser's [`SourceMap`] spans start at (or, for function headers and constants,
//!   shortly before) the identifier, so the label is read back from the text.
//! * Otherwise (built in memory, read from interchange, or no text given) the name is the
//!   id the default printer would show (`%12`), from the printer's own numbering, which
//!   is computed on the first diagnostic, so that verifying a valid module costs nothing
//!   extra. Numbering is in two stages: upstream's pre-pass (constants, functions,
//!   arguments, and the blocks reached from each body through operand blocks, with their
//!   instructions) names almost everything a diagnostic mentions and costs a fraction of
//!   printing; the printer numbers the rest lazily as it prints, so only a name the
//!   pre-pass left out (an undefined value, a special register, a block the traversal
//!   misses) runs the whole printer. A uid, once given, never changes, so both stages
//!   spell every entity the same.
//!
//! Entities that the printed text would not show (unplaced instructions, blocks outside
//! the owned list) have no name; callers describe them in words instead.

use crate::diag::Span;
use crate::module::Module;
use crate::source_map::SourceMap;
use crate::text::numbering::{Key, Namer};
use crate::text::print::{PrintOptions, printed_ids};
use std::cell::OnceCell;

/// Names for the entities of one module.
pub(crate) struct Names<'a> {
    m: &'a Module,
    sm: Option<&'a SourceMap>,
    src: Option<&'a str>,
    /// Upstream's pre-pass numbering alone.
    pre: OnceCell<Namer>,
    /// The numbering of a whole default print.
    printed: OnceCell<Namer>,
}

impl<'a> Names<'a> {
    /// Names for `m`; user labels come from `src` through the spans of `sm`.
    pub(crate) fn new(m: &'a Module, sm: Option<&'a SourceMap>, src: Option<&'a str>) -> Self {
        Self {
            m,
            sm,
            src,
            pre: OnceCell::new(),
            printed: OnceCell::new(),
        }
    }

    /// The identifier of `k`, if the text shows one.
    pub(crate) fn get(&self, k: Key) -> Option<String> {
        if let Some(l) = self.user_label(k) {
            return Some(l.to_string());
        }
        let pre = self.pre.get_or_init(|| {
            let mut n = Namer::new(PrintOptions::default().ids);
            n.pre_pass(self.m);
            n
        });
        if let Some(s) = pre.spelled(k) {
            return Some(s);
        }
        self.printed
            .get_or_init(|| printed_ids(self.m, &PrintOptions::default()))
            .spelled(k)
    }

    /// The label the user wrote for `k`, read from the source at its span.
    fn user_label(&self, k: Key) -> Option<&'a str> {
        let (sm, src) = (self.sm?, self.src?);
        let span = match k {
            Key::Func(f) => sm.func(f),
            Key::Arg(f, a) => sm.arg(f, a),
            Key::Block(f, b) => sm.block(f, b),
            Key::Inst(f, i) => sm.inst(f, i),
            Key::Const(c) => sm.constant(c),
            Key::Undef(u) => Some(*sm.undefs.get(u)).filter(|s| *s != Span::default()),
            Key::Special(_) => None,
        }?;
        let text = src.get(span.range())?;
        // Function headers and constants start with their keyword; nothing before the
        // identifier contains `%`.
        let rest = &text[text.find('%')?..];
        let len = rest[1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .map_or(rest.len(), |n| n + 1);
        (len > 1).then(|| &rest[..len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Constants, undefined values, special registers, a phi, a block reached only
    /// through the terminator and an orphan block no operand names.
    const TEXT: &str = "module;

const %0: u32 = 00000000;
undef %20.undefined: vector<u32, 3>;

kernel %1 (
    %2: buffer<u32>;
) = define %3: {
    %4: u32 = arithmetic extract %23.thread_id, %0;
    %5: u32 = arithmetic binary_add %4, %18.undefined;
    %6: void = br %7;
}
%7: {
    %8: u32 = phi (%5, %3), (%0, %9);
    %10: void = resource_write buffer_write %2, %8, %8;
    %11: void = return;
}
%9: {
    %12: void = br %7;
};
";

    /// Every name the two-stage numbering gives is the one a whole print gives, and the
    /// pre-pass alone leaves some names to the print (so both stages are exercised).
    #[test]
    fn pre_pass_names_match_the_printer() {
        let (m, _) = crate::text::parse_module(TEXT).expect("parses");
        let mut keys: Vec<Key> = m.live_constants().map(Key::Const).collect();
        keys.extend(m.live_undefs().map(Key::Undef));
        keys.extend(m.special_registers.iter().map(|(r, _)| Key::Special(*r)));
        for &fid in &m.func_order {
            let f = &m.functions[fid];
            keys.push(Key::Func(fid));
            keys.extend(f.arg_order.iter().map(|a| Key::Arg(fid, *a)));
            for &b in &f.block_order {
                keys.push(Key::Block(fid, b));
                keys.extend(f.blocks[b].insts.iter().map(|i| Key::Inst(fid, *i)));
            }
        }
        let printed = printed_ids(&m, &PrintOptions::default());
        let mut pre = Namer::new(PrintOptions::default().ids);
        pre.pre_pass(&m);
        let names = Names::new(&m, None, None);
        let mut left_to_print = 0;
        for &k in &keys {
            let want = printed.spelled(k);
            assert!(want.is_some(), "{k:?} has no printed name");
            match pre.spelled(k) {
                Some(p) => assert_eq!(Some(p), want, "{k:?}"),
                None => left_to_print += 1,
            }
            assert_eq!(names.get(k), want, "{k:?}");
        }
        assert!(left_to_print > 0);
    }
}

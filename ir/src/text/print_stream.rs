//! Streaming output: [`print_module_to`] writes the text of
//! [`print_module`](super::print_module) to a
//! writer function by function through one reused buffer, so a large module's text is
//! never held whole.
//!
//! The prelude comes first in the text but grows while main is printed (struct and
//! opaque types are declared at first use, undefined values and special registers at
//! their first print, unseen ones after the last function). [`PreludeWatch`] tells when
//! nothing more can be added to it: from then on every function is written out as soon
//! as it is printed; before, main is kept (in the worst case all of it, as
//! `print_module` does).

use super::numbering::Key;
use super::print::{PrintOptions, Printer, Target};
use crate::entity::EntityRef;
use crate::module::Module;
use crate::types::{Type, TypeData};
use crate::value::UndefId;
use std::io;

/// Writes `m` in xir2text syntax to `w`: exactly the bytes of
/// [`print_module`](super::print_module), written
/// per function (the driver need not hold the whole text). Fails only if `w` does.
pub fn print_module_to<W: io::Write>(m: &Module, opts: &PrintOptions, w: &mut W) -> io::Result<()> {
    let mut p = Printer::for_module(m, opts);
    p.module(&mut Target::Stream(w))
}

/// Tells when the prelude is final. Each check is monotone (a type once declared, a
/// value once seen, stays so), so every list is walked once with a cursor.
pub(crate) struct PreludeWatch {
    /// Struct and opaque types that may still be declared: at first every one in the
    /// type table (no pass over the instructions: usually all are in use and declared
    /// by the end of the first functions); if one is still missing after a function,
    /// the ones the text of main can spell (see [`spellable_named_types`]).
    types: Vec<Type>,
    next_type: usize,
    /// Whether `types` is the exact list already.
    scanned: bool,
    /// Every undefined value (declared, if at all, at its first print or at the end).
    undefs: Vec<UndefId>,
    next_undef: usize,
    /// Special registers seen so far, of `Module::special_registers`.
    next_special: usize,
}

impl PreludeWatch {
    /// The watch for `m`.
    pub(crate) fn new(m: &Module) -> Self {
        let types = (0..m.types.len())
            .map(Type::new)
            .filter(|t| is_named(m, *t))
            .collect();
        Self {
            types,
            next_type: 0,
            scanned: false,
            undefs: m.undefs.keys().collect(),
            next_undef: 0,
            next_special: 0,
        }
    }

    /// Whether nothing can be added to `p`'s prelude any more: every type main could
    /// spell is declared, every undefined value and special register has been printed.
    pub(crate) fn is_final(&mut self, p: &Printer<'_>) -> bool {
        while let Some(t) = self.types.get(self.next_type) {
            if !p.type_names.contains_key(t) {
                if self.scanned {
                    return false;
                }
                // A type of the table not declared yet may be one no text spells.
                self.types = spellable_named_types(p.m);
                self.next_type = 0;
                self.scanned = true;
                continue;
            }
            self.next_type += 1;
        }
        while let Some(&u) = self.undefs.get(self.next_undef) {
            if !p.namer.is_seen(Key::Undef(u)) {
                return false;
            }
            self.next_undef += 1;
        }
        while let Some((r, _)) = p.m.special_registers.get(self.next_special) {
            if !p.namer.is_seen(Key::Special(*r)) {
                return false;
            }
            self.next_special += 1;
        }
        true
    }
}

/// Whether `t` is a struct or opaque type (declared in the prelude at first use).
fn is_named(m: &Module, t: Type) -> bool {
    matches!(
        m.types.get(t),
        TypeData::Struct { .. } | TypeData::Custom { .. }
    )
}

/// Every struct and opaque type the text of main can spell, an over-estimate: those
/// reachable from the type of any function, argument, instruction or undefined value.
fn spellable_named_types(m: &Module) -> Vec<Type> {
    let n = m.types.len();
    let mut used = vec![false; n];
    let mut stack: Vec<Type> = Vec::new();
    let mut mark = |t: Option<Type>, stack: &mut Vec<Type>| {
        if let Some(t) = t
            && t.index() < n
            && !used[t.index()]
        {
            used[t.index()] = true;
            stack.push(t);
        }
    };
    for f in m.functions.values() {
        mark(f.ret, &mut stack);
        for a in f.args.values() {
            mark(Some(a.ty), &mut stack);
        }
        for d in f.insts.values() {
            mark(d.ty, &mut stack);
        }
    }
    for u in m.undefs.values() {
        mark(Some(u.ty), &mut stack);
    }
    let mut types = Vec::new();
    while let Some(t) = stack.pop() {
        match m.types.get(t) {
            TypeData::Struct { members, .. } => {
                types.push(t);
                for &x in members {
                    mark(Some(x), &mut stack);
                }
            }
            TypeData::Custom { .. } => types.push(t),
            TypeData::Vector { elem, .. }
            | TypeData::Matrix { elem, .. }
            | TypeData::Array { elem, .. }
            | TypeData::Buffer { elem: Some(elem) }
            | TypeData::Texture { elem, .. }
            | TypeData::CoopVector { elem, .. }
            | TypeData::CoopVectorRef { elem, .. }
            | TypeData::CoopMatrixRef { elem, .. } => mark(Some(*elem), &mut stack),
            TypeData::Scalar(_)
            | TypeData::Buffer { elem: None }
            | TypeData::BindlessArray
            | TypeData::Accel => {}
        }
    }
    types
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{parse_module, print_module};

    /// Keeps the bytes and counts the writes.
    #[derive(Default)]
    struct Recorder(Vec<u8>, usize);

    impl io::Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.1 += 1;
            self.0.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Three functions; the struct type is first used in the second.
    const SRC: &str = "module;\n\n\
        callable %0: u32 (\n    %1: u32;\n) = define %2: {\n    %3: void = return %1;\n};\n\n\
        type T0 = struct { f32, u32 };\n\n\
        callable %4: T0 () = define %5: {\n    %6: T0 = alloca local;\n    %7: void = return %6;\n};\n\n\
        callable %8: u32 (\n    %9: u32;\n) = define %10: {\n    %11: void = return %9;\n};\n\n";

    fn check(m: &Module) -> usize {
        let mut writes = 0;
        for debug_info in [false, true] {
            let opts = PrintOptions {
                debug_info,
                ..PrintOptions::default()
            };
            let mut w = Recorder::default();
            print_module_to(m, &opts, &mut w).unwrap();
            assert_eq!(String::from_utf8(w.0).unwrap(), print_module(m, &opts));
            writes = w.1;
        }
        writes
    }

    #[test]
    fn streams_once_the_late_struct_type_is_declared() {
        let (m, _) = parse_module(SRC).expect("parses");
        // Prelude, the first two functions, the third.
        assert_eq!(check(&m), 3);
    }

    #[test]
    fn a_struct_type_no_text_spells_does_not_hold_the_stream() {
        let (mut m, _) = parse_module(SRC).expect("parses");
        let u = m.types.u32();
        m.types.intern(TypeData::Struct {
            align: 4,
            members: vec![u, u, u],
        });
        assert_eq!(check(&m), 3);
    }

    #[test]
    fn an_undefined_value_never_printed_holds_the_stream_to_the_end() {
        let (mut m, _) = parse_module(SRC).expect("parses");
        let u = m.types.u32();
        m.undef(u);
        // Prelude and main at the end (the declaration goes after the functions).
        assert_eq!(check(&m), 2);
    }
}

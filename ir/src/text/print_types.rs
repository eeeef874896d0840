//! Type spellings for the printer: `vector<f32, 4>`, `T3`, ... Struct and opaque types
//! are declared in the prelude at their first use (members first) and named then; every
//! spelling is cached by type index after its first use.

use super::escape::escaped;
use super::print::{IdStyle, Printer};
use crate::entity::EntityRef;
use crate::module::Module;
use crate::types::{Type, TypeData};
use std::fmt::Write as _;

impl<'m> Printer<'m> {
    /// Appends the spelling of `t` to main (see [`Self::type_ident`]), from the cache of
    /// spellings after the first time.
    #[inline]
    pub(crate) fn push_type(&mut self, t: Option<Type>) {
        match t {
            None => self.main.push_str("void"),
            Some(ty) => match self.type_text.get(ty.index()) {
                Some(Some(text)) => self.main.push_str(text),
                _ => self.push_new_type(ty),
            },
        }
    }

    /// [`Self::push_type`] for a type not spelled yet: spells and caches it.
    #[cold]
    fn push_new_type(&mut self, ty: Type) {
        let i = ty.index();
        let text = self.type_ident(Some(ty));
        self.main.push_str(&text);
        if i < self.m.types.len() {
            if self.type_text.len() <= i {
                self.type_text.resize(i + 1, None);
            }
            self.type_text[i] = Some(text.into_boxed_str());
        }
    }

    /// The spelling of a type (`void` for `None`), declaring struct and opaque types in
    /// the prelude at first use (members first). Iterative: types may nest deeply.
    pub(crate) fn type_ident(&mut self, t: Option<Type>) -> String {
        enum Task {
            Ty(Type),
            Text(&'static str),
            Num(u64),
            EndStruct(Type),
        }
        fn push_generic(tasks: &mut Vec<Task>, head: &'static str, elem: Type, n: Option<u64>) {
            tasks.push(Task::Text(">"));
            if let Some(n) = n {
                tasks.push(Task::Num(n));
                tasks.push(Task::Text(", "));
            }
            tasks.push(Task::Ty(elem));
            tasks.push(Task::Text(head));
        }
        let Some(t) = t else {
            return "void".to_string();
        };
        let m: &'m Module = self.m;
        let types = &m.types;
        let mut bufs: Vec<String> = vec![String::new()];
        let mut tasks = vec![Task::Ty(t)];
        while let Some(task) = tasks.pop() {
            let Some(out) = bufs.last_mut() else {
                break;
            };
            match task {
                Task::Text(s) => out.push_str(s),
                Task::Num(n) => {
                    let _ = write!(out, "{n}");
                }
                Task::Ty(t) if t.index() >= types.len() => out.push_str("<invalid type>"),
                Task::Ty(t) => match types.get(t) {
                    TypeData::Scalar(k) => out.push_str(k.text_name()),
                    TypeData::Vector { elem, len } => {
                        push_generic(&mut tasks, "vector<", *elem, Some(*len as u64))
                    }
                    TypeData::Matrix { elem, n } => {
                        push_generic(&mut tasks, "matrix<", *elem, Some(*n as u64))
                    }
                    TypeData::Array { elem, len } => {
                        push_generic(&mut tasks, "array<", *elem, Some(*len))
                    }
                    TypeData::Buffer { elem: Some(e) } => {
                        push_generic(&mut tasks, "buffer<", *e, None)
                    }
                    TypeData::Buffer { elem: None } => out.push_str("buffer<void>"),
                    TypeData::Texture { dim, elem } => {
                        let kw = match dim {
                            crate::types::TextureDim::D2 => "texture2d<",
                            crate::types::TextureDim::D3 => "texture3d<",
                        };
                        push_generic(&mut tasks, kw, *elem, None)
                    }
                    TypeData::BindlessArray => out.push_str("bindless_array"),
                    TypeData::Accel => out.push_str("accel"),
                    TypeData::CoopVector { elem, len } => {
                        let e = match types.get(*elem) {
                            TypeData::Scalar(k) => k.ast_name().unwrap_or(k.text_name()),
                            _ => "?",
                        };
                        let _ = write!(out, "coopvec<{e},{len}>");
                    }
                    TypeData::CoopVectorRef { len, elem } => {
                        let _ = write!(out, "coopvec_ref<{len}, ");
                        tasks.push(Task::Text(">"));
                        tasks.push(Task::Ty(*elem));
                    }
                    TypeData::CoopMatrixRef { rows, cols, elem } => {
                        let _ = write!(out, "coopmat_ref<{rows}, {cols}, ");
                        tasks.push(Task::Text(">"));
                        tasks.push(Task::Ty(*elem));
                    }
                    TypeData::Custom { name } => {
                        let k = match self.type_names.get(&t) {
                            Some(k) => *k,
                            None => {
                                let k = self.new_type_name(t);
                                let _ = write!(
                                    self.prelude,
                                    "type T{k} = opaque {};\n\n",
                                    escaped(name)
                                );
                                k
                            }
                        };
                        let _ = write!(out, "T{k}");
                    }
                    TypeData::Struct { members, .. } => {
                        if let Some(k) = self.type_names.get(&t) {
                            let _ = write!(out, "T{k}");
                        } else {
                            bufs.push(String::new());
                            tasks.push(Task::EndStruct(t));
                            for (j, m) in members.iter().enumerate().rev() {
                                tasks.push(Task::Ty(*m));
                                if j > 0 {
                                    tasks.push(Task::Text(", "));
                                }
                            }
                        }
                    }
                },
                Task::EndStruct(t) => {
                    let desc = bufs.pop().unwrap_or_default();
                    let k = match self.type_names.get(&t) {
                        Some(k) => *k,
                        None => {
                            let k = self.new_type_name(t);
                            let p = &mut self.prelude;
                            let _ = write!(p, "type T{k} = struct ");
                            if let TypeData::Struct { align, members } = types.get(t)
                                && members.iter().all(|m| m.index() < types.len())
                                && *align != types.natural_struct_align(members)
                            {
                                let _ = write!(p, "align({align}) ");
                            }
                            let _ = write!(p, "{{ {desc} }};\n\n");
                            k
                        }
                    };
                    if let Some(out) = bufs.last_mut() {
                        let _ = write!(out, "T{k}");
                    }
                }
            }
        }
        bufs.pop().unwrap_or_default()
    }

    fn new_type_name(&mut self, t: Type) -> u32 {
        let k = match self.opts.ids {
            IdStyle::Upstream => self.type_names.len() as u32,
            IdStyle::Stable => t.index() as u32,
        };
        self.type_names.insert(t, k);
        k
    }
}

//! IR printing around passes: `--print-before[-all]`, `--print-after[-all]`,
//! `--print-changed`, `--print-module-scope`, `--filter-print-funcs` and `--dump-dir`.
//!
//! Everything is written to one shared log (the runner's warnings and `BISECT:` lines go
//! there too, so the order on standard error is the order of events). Banners follow
//! mlir-opt: `// -----// IR Dump After dce (cleanup[iter 1]/dce) #3 //----- //`.
//!
//! Without `--print-module-scope` only the functions are printed (filtered by
//! `--filter-print-funcs`); with it, the whole module. `--print-changed` prints a unified
//! diff of that text computed with stable ids (so unrelated ids do not churn) and is
//! coloured only when asked to or when standard error is a terminal. `--dump-dir` always
//! writes whole modules (they can be fed back to `xir-opt`).

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use xir_ir::Module;
use xir_ir::metadata::find_name;
use xir_ir::text::{IdStyle, PrintOptions, print_module};
use xir_passes::pipeline::{Failure, FailureKind, Instrumentation, Invocation};

/// A log shared by the runner and the instrumentation.
#[derive(Clone, Default)]
pub struct SharedLog(pub Rc<RefCell<String>>);

impl std::io::Write for SharedLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().push_str(&String::from_utf8_lossy(buf));
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl SharedLog {
    fn push(&self, s: &str) {
        self.0.borrow_mut().push_str(s);
    }
}

/// What to print.
#[derive(Clone, Debug, Default)]
pub struct PrintFlags {
    /// `--print-before-all`.
    pub before_all: bool,
    /// `--print-after-all`.
    pub after_all: bool,
    /// `--print-before=`.
    pub before: Vec<String>,
    /// `--print-after=`.
    pub after: Vec<String>,
    /// `--print-changed`.
    pub changed: bool,
    /// `--print-module-scope`.
    pub module_scope: bool,
    /// `--filter-print-funcs=`.
    pub filter: Vec<String>,
    /// `--dump-dir=`.
    pub dump_dir: Option<PathBuf>,
    /// Colour the diffs.
    pub color: bool,
}

impl PrintFlags {
    /// Whether any printing is requested.
    pub fn any(&self) -> bool {
        self.before_all
            || self.after_all
            || !self.before.is_empty()
            || !self.after.is_empty()
            || self.changed
            || self.dump_dir.is_some()
    }
}

/// The printing instrumentation.
pub struct IrPrinter {
    flags: PrintFlags,
    log: SharedLog,
    before_text: Option<String>,
    /// First error writing a dump file (reported after the run).
    pub dump_error: Option<String>,
}

fn print(m: &Module, ids: IdStyle) -> String {
    print_module(
        m,
        &PrintOptions {
            flat: false,
            debug_info: false,
            ids,
        },
    )
}

const FUNCTION_KEYWORDS: [&str; 5] = [
    "kernel ",
    "callable ",
    "external ",
    "raster_vertex ",
    "raster_fragment ",
];

/// Splits printed module text into its top-level items (separated by blank lines; a
/// `//` comment item belongs to the item before it).
fn split_items(text: &str) -> Vec<&str> {
    let mut items: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(k) = text[i..].find("\n\n") {
        let end = i + k + 2;
        let mut next = end;
        while next < bytes.len() && bytes[next] == b'\n' {
            next += 1;
        }
        if next < bytes.len() && !bytes[next].is_ascii_whitespace() {
            items.push((start, end));
            start = next;
        }
        i = end;
        if i >= bytes.len() {
            break;
        }
    }
    if start < text.len() {
        items.push((start, text.len()));
    }
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (s, e) in items {
        match out.last_mut() {
            Some(last) if text[s..].starts_with("//") => last.1 = e,
            _ => out.push((s, e)),
        }
    }
    out.into_iter().map(|(s, e)| &text[s..e]).collect()
}

fn is_function_item(item: &str) -> bool {
    let body = item
        .lines()
        .find(|l| !l.starts_with('['))
        .unwrap_or_default();
    FUNCTION_KEYWORDS.iter().any(|k| body.starts_with(k))
}

fn header_id(item: &str) -> Option<&str> {
    let line = item.lines().find(|l| !l.starts_with('['))?;
    let mut words = line.split_whitespace();
    words.next()?;
    words.next().map(|w| w.trim_end_matches(':'))
}

impl IrPrinter {
    /// A printer writing to `log`.
    pub fn new(flags: PrintFlags, log: SharedLog) -> Self {
        Self {
            flags,
            log,
            before_text: None,
            dump_error: None,
        }
    }

    fn wants(list: &[String], inv: &Invocation<'_>) -> bool {
        list.iter()
            .any(|p| p == inv.pass || p == inv.display || p == inv.path)
    }

    /// The printed text in scope: the whole module, or its (filtered) functions.
    fn scoped(&self, m: &Module, ids: IdStyle) -> String {
        let text = print(m, ids);
        if self.flags.module_scope {
            return text;
        }
        let items = split_items(&text);
        let funcs: Vec<&str> = items.into_iter().filter(|i| is_function_item(i)).collect();
        if funcs.len() != m.func_order.len() {
            return text;
        }
        let mut out = String::new();
        for (item, &f) in funcs.iter().zip(&m.func_order) {
            let keep = self.flags.filter.is_empty()
                || self.flags.filter.iter().any(|want| {
                    find_name(&m.func(f).metadata) == Some(want.as_str())
                        || header_id(item) == Some(want.as_str())
                });
            if keep {
                out.push_str(item);
            }
        }
        out
    }

    fn banner(&self, what: &str, inv: &Invocation<'_>) {
        self.log.push(&format!(
            "// -----// IR Dump {what} {} ({}) #{} //----- //\n",
            inv.display, inv.path, inv.index
        ));
    }

    fn dump(&mut self, inv: &Invocation<'_>, m: &Module) {
        let Some(dir) = &self.flags.dump_dir else {
            return;
        };
        let path = dir.join(format!("{:03}-{}.xir", inv.index, sanitize(inv.path)));
        if let Err(e) =
            crate::output::write_atomically(&path, print(m, IdStyle::Upstream).as_bytes())
            && self.dump_error.is_none()
        {
            self.dump_error = Some(format!("cannot write '{}': {e}", path.display()));
        }
    }

    fn after(&mut self, inv: &Invocation<'_>, m: &Module, changed: bool, what: &str) {
        if self.flags.after_all || Self::wants(&self.flags.after, inv) {
            self.banner(what, inv);
            self.log.push(&self.scoped(m, IdStyle::Upstream));
        }
        if let Some(before) = self.before_text.take()
            && changed
        {
            let after = self.scoped(m, IdStyle::Stable);
            self.banner("Changed By", inv);
            if before == after {
                self.log.push("(no change in the printed functions)\n");
            } else {
                let diff = similar::TextDiff::from_lines(&before, &after);
                let text = diff
                    .unified_diff()
                    .context_radius(3)
                    .header("before", "after")
                    .to_string();
                self.log.push(&if self.flags.color {
                    colorize(&text)
                } else {
                    text
                });
            }
        }
        self.dump(inv, m);
    }
}

/// `spirv-final/cleanup[iter 2]/dce#2` → `spirv-final.cleanup.iter2.dce-2`.
pub fn sanitize(path: &str) -> String {
    path.replace("[iter ", ".iter")
        .replace(']', "")
        .replace('/', ".")
        .replace('#', "-")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn colorize(diff: &str) -> String {
    let mut out = String::new();
    for line in diff.split_inclusive('\n') {
        let code = if line.starts_with("+++") || line.starts_with("---") {
            "\x1b[1m"
        } else if line.starts_with('+') {
            "\x1b[32m"
        } else if line.starts_with('-') {
            "\x1b[31m"
        } else if line.starts_with("@@") {
            "\x1b[36m"
        } else {
            ""
        };
        if code.is_empty() {
            out.push_str(line);
        } else {
            let body = line.strip_suffix('\n').unwrap_or(line);
            out.push_str(&format!("{code}{body}\x1b[0m"));
            if line.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    out
}

impl Instrumentation for IrPrinter {
    fn before_pass(&mut self, inv: &Invocation<'_>, m: &Module) {
        if self.flags.before_all || Self::wants(&self.flags.before, inv) {
            self.banner("Before", inv);
            self.log.push(&self.scoped(m, IdStyle::Upstream));
        }
        if self.flags.changed {
            self.before_text = Some(self.scoped(m, IdStyle::Stable));
        }
    }
    fn after_pass(&mut self, inv: &Invocation<'_>, m: &Module, changed: bool) {
        self.after(inv, m, changed, "After");
    }
    fn refused(&mut self, inv: &Invocation<'_>, m: &Module, _reason: &str) {
        self.after(inv, m, false, "After (refused)");
    }
    fn failed(&mut self, inv: &Invocation<'_>, m: &Module, f: &Failure) {
        // After a panic the module may be half-edited; do not print it.
        if f.kind != FailureKind::Panic && f.kind != FailureKind::Stopped {
            self.after(inv, m, true, "After (failed)");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_split_at_blank_lines() {
        let text = "module;\n\nconst %0: u32 = 00000000;\n\n[name = f]\ncallable %1: u32 (\n) = define %2: {\n    %3: void = return %0;\n};\n\nkernel %4 (\n) = define %5: {\n};\n\n// CFG = {}\n";
        let items = split_items(text);
        assert_eq!(items.len(), 4);
        assert!(is_function_item(items[2]));
        assert_eq!(header_id(items[2]), Some("%1"));
        assert!(items[3].starts_with("kernel %4"));
        assert!(items[3].ends_with("// CFG = {}\n"));
    }

    #[test]
    fn paths_become_file_names() {
        assert_eq!(
            sanitize("spirv-final/cleanup[iter 2]/dce#2"),
            "spirv-final.cleanup.iter2.dce-2"
        );
    }
}

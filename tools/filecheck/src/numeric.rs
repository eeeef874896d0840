//! Numeric variables, formats and expressions (`[[#%x,VAR:]]`, `[[#VAR+1]]`, `@LINE`).
//!
//! Values are `i128` with checked arithmetic (LLVM uses growing `APInt`s; any value that
//! does not fit 64 bits ends in an overflow error when printed, which `i128` reproduces).

use crate::source::Loc;
use std::collections::{HashMap, HashSet};

/// Kind of a numeric format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FmtKind {
    /// No explicit or implicit format.
    None,
    /// `%u`
    Unsigned,
    /// `%d`
    Signed,
    /// `%X`
    HexUpper,
    /// `%x`
    HexLower,
}

/// The largest `.N` precision a numeric format may have. LLVM's regex engine refuses a
/// counted repetition over 255 (`RE_DUP_MAX`), so its wildcard for a larger precision
/// never matches; its substituted value is a string of that many digits. A bound keeps
/// both finite: `[[#%.100000000x,N:0]]` would otherwise render, escape and compile a
/// 100 MB regex. 4096 digits is far beyond any real check.
pub const MAX_PRECISION: u32 = 4096;

/// A numeric format: kind, `.N` precision and `#` alternate form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// The kind.
    pub kind: FmtKind,
    /// Minimum number of digits.
    pub precision: u32,
    /// `0x` prefix (hex only).
    pub alt: bool,
}

impl Format {
    /// A format of the given kind without precision or alternate form.
    pub const fn of(kind: FmtKind) -> Format {
        Format {
            kind,
            precision: 0,
            alt: false,
        }
    }

    /// `%u`-style name used in conflict messages.
    pub fn name(&self) -> &'static str {
        match self.kind {
            FmtKind::None => "<none>",
            FmtKind::Unsigned => "%u",
            FmtKind::Signed => "%d",
            FmtKind::HexUpper => "%X",
            FmtKind::HexLower => "%x",
        }
    }

    /// The regex matching any value in this format (same text in POSIX and Rust syntax,
    /// but the Rust version uses non-capturing groups).
    pub fn wildcard(&self) -> (String, String) {
        let alt = if self.alt { "0x" } else { "" };
        let prec = |s: &str| {
            (
                format!("{alt}{s}{{{}}}", self.precision),
                format!("{alt}{}{{{}}}", s.replace('(', "(?:"), self.precision),
            )
        };
        let plain = |s: String| (s.clone(), s);
        match self.kind {
            FmtKind::Unsigned | FmtKind::None if self.precision > 0 => prec("([1-9][0-9]*)?[0-9]"),
            FmtKind::Unsigned | FmtKind::None => plain("[0-9]+".into()),
            FmtKind::Signed if self.precision > 0 => prec("-?([1-9][0-9]*)?[0-9]"),
            FmtKind::Signed => plain("-?[0-9]+".into()),
            FmtKind::HexUpper if self.precision > 0 => prec("([1-9A-F][0-9A-F]*)?[0-9A-F]"),
            FmtKind::HexUpper => plain(format!("{alt}[0-9A-F]+")),
            FmtKind::HexLower if self.precision > 0 => prec("([1-9a-f][0-9a-f]*)?[0-9a-f]"),
            FmtKind::HexLower => plain(format!("{alt}[0-9a-f]+")),
        }
    }

    /// Text of a value in this format; `None` on overflow (negative value for an
    /// unsigned format, or a value outside 64 bits).
    pub fn render(&self, v: i128) -> Option<String> {
        if v < 0 && self.kind != FmtKind::Signed {
            return None;
        }
        if v > u64::MAX as i128 || v < i64::MIN as i128 {
            return None;
        }
        let abs = v.unsigned_abs();
        let digits = match self.kind {
            FmtKind::HexUpper => format!("{abs:X}"),
            FmtKind::HexLower => format!("{abs:x}"),
            _ => format!("{abs}"),
        };
        let sign = if v < 0 { "-" } else { "" };
        let alt = if self.alt { "0x" } else { "" };
        let zeros = (self.precision as usize).saturating_sub(digits.len());
        Some(format!("{sign}{alt}{}{digits}", "0".repeat(zeros)))
    }

    /// Parses a matched value (guaranteed to match [`Format::wildcard`]).
    pub fn parse_value(&self, s: &[u8]) -> Option<i128> {
        let (neg, mut s) = match s.first() {
            Some(b'-') => (true, &s[1..]),
            _ => (false, s),
        };
        let hex = matches!(self.kind, FmtKind::HexUpper | FmtKind::HexLower);
        if self.alt && hex && s.starts_with(b"0x") {
            s = &s[2..];
        }
        let txt = std::str::from_utf8(s).ok()?;
        let v = i128::from_str_radix(txt, if hex { 16 } else { 10 }).ok()?;
        Some(if neg { -v } else { v })
    }
}

/// A binary operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `+` / `add`
    Add,
    /// `-` / `sub`
    Sub,
    /// `mul`
    Mul,
    /// `div`
    Div,
    /// `min`
    Min,
    /// `max`
    Max,
}

/// Expression tree.
#[derive(Clone, Debug)]
pub enum Ast {
    /// Literal.
    Lit(i128),
    /// Use of numeric variable `id`, written at `loc` as `name`.
    Var {
        /// Index in [`Vars::num`].
        id: usize,
        /// Name as written.
        name: String,
        /// Location of the name.
        loc: Loc,
    },
    /// Binary operation; `text` is the source text for conflict messages.
    Bin(Op, Box<Ast>, Box<Ast>, Loc, String),
}

/// Why an evaluation failed.
#[derive(Debug, Clone)]
pub enum EvalError {
    /// Uses of undefined variables (name, location).
    Undef(Vec<(String, Loc)>),
    /// Overflow or division by zero.
    Overflow,
}

/// A numeric variable.
#[derive(Debug, Clone)]
pub struct NumVar {
    /// Name.
    pub name: String,
    /// Implicit format.
    pub fmt: Format,
    /// Current value.
    pub value: Option<i128>,
    /// Line of the defining directive, if any.
    pub def_line: Option<usize>,
    /// Where the value was captured in the input (start, end), for `-v` notes.
    pub captured: Option<(usize, usize)>,
}

/// All variables of a FileCheck run.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    /// String variables with values.
    pub strs: HashMap<String, Vec<u8>>,
    /// Names of string variables that are defined somewhere (collision checks).
    pub str_defined: HashSet<String>,
    /// Numeric variable storage.
    pub num: Vec<NumVar>,
    /// Name to numeric variable.
    pub num_table: HashMap<String, usize>,
}

impl Vars {
    /// Creates a numeric variable (not registered in the table).
    pub fn make_num(&mut self, name: &str, fmt: Format, def_line: Option<usize>) -> usize {
        self.num.push(NumVar {
            name: name.to_string(),
            fmt,
            value: None,
            def_line,
            captured: None,
        });
        self.num.len() - 1
    }

    /// `--enable-var-scope`: forget all variables whose name does not start with `$`.
    pub fn clear_locals(&mut self) {
        self.strs.retain(|k, _| k.starts_with('$'));
        let locals: Vec<String> = self
            .num_table
            .keys()
            .filter(|k| !k.starts_with('$'))
            .cloned()
            .collect();
        for k in locals {
            if let Some(id) = self.num_table.remove(&k) {
                self.num[id].value = None;
            }
        }
    }
}

fn checked(op: Op, a: i128, b: i128) -> Option<i128> {
    match op {
        Op::Add => a.checked_add(b),
        Op::Sub => a.checked_sub(b),
        Op::Mul => a.checked_mul(b),
        Op::Div => {
            if b == 0 {
                None
            } else {
                a.checked_div(b)
            }
        }
        Op::Min => Some(a.min(b)),
        Op::Max => Some(a.max(b)),
    }
}

impl Ast {
    /// Evaluates the expression.
    pub fn eval(&self, vars: &Vars) -> Result<i128, EvalError> {
        match self {
            Ast::Lit(v) => Ok(*v),
            Ast::Var { id, name, loc } => vars.num[*id]
                .value
                .ok_or_else(|| EvalError::Undef(vec![(name.clone(), *loc)])),
            Ast::Bin(op, l, r, _, _) => {
                let a = l.eval(vars);
                let b = r.eval(vars);
                match (a, b) {
                    (Ok(a), Ok(b)) => checked(*op, a, b).ok_or(EvalError::Overflow),
                    (Err(EvalError::Undef(mut x)), Err(EvalError::Undef(y))) => {
                        x.extend(y);
                        Err(EvalError::Undef(x))
                    }
                    (Err(e), _) | (_, Err(e)) => Err(e),
                }
            }
        }
    }

    /// Implicit format, or a conflict error message at a location.
    pub fn implicit_format(&self, vars: &Vars) -> Result<Format, (Loc, String)> {
        match self {
            Ast::Lit(_) => Ok(Format::of(FmtKind::None)),
            Ast::Var { id, .. } => Ok(vars.num[*id].fmt),
            Ast::Bin(_, l, r, loc, _) => {
                let lf = l.implicit_format(vars)?;
                let rf = r.implicit_format(vars)?;
                if lf.kind != FmtKind::None && rf.kind != FmtKind::None && lf != rf {
                    return Err((
                        *loc,
                        format!(
                            "implicit format conflict between '{}' ({}) and '{}' ({}), need an explicit format specifier",
                            l.text(),
                            lf.name(),
                            r.text(),
                            rf.name()
                        ),
                    ));
                }
                Ok(if lf.kind != FmtKind::None { lf } else { rf })
            }
        }
    }

    fn text(&self) -> String {
        match self {
            Ast::Lit(v) => v.to_string(),
            Ast::Var { name, .. } => name.clone(),
            Ast::Bin(_, _, _, _, t) => t.clone(),
        }
    }
}

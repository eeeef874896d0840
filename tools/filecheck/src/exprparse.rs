//! Parser for numeric substitution blocks (`[[#%.3x,VAR:EXPR]]`) and variable names.
//!
//! A faithful port of LLVM's grammar and error messages: format specifier before the
//! first `,` (if it comes before any `(`), optional `NAME:` definition, optional `==`
//! constraint, then an expression of `+`/`-` binary operations over literals, variables,
//! parenthesised expressions and calls of `add sub mul div min max`.

use crate::numeric::{Ast, FmtKind, Format, MAX_PRECISION, Op, Vars};
use crate::source::Loc;

/// A parse error at a location.
#[derive(Debug, Clone)]
pub struct PErr {
    /// Where.
    pub loc: Loc,
    /// Message (LLVM wording).
    pub msg: String,
}

/// A half-open byte range `[p, e)` of the parser's text.
#[derive(Clone, Copy, Debug)]
pub struct S {
    /// Start.
    pub p: usize,
    /// End.
    pub e: usize,
}

impl S {
    /// Is the range empty?
    pub fn is_empty(&self) -> bool {
        self.p >= self.e
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Allowed {
    LineVar,
    LegacyLiteral,
    Any,
}

type R<T> = Result<T, PErr>;

/// Result of parsing a numeric block.
pub struct NumBlock {
    /// Expression, if any.
    pub ast: Option<Ast>,
    /// Selected format.
    pub fmt: Format,
    /// Variable defined by the block.
    pub def: Option<usize>,
}

/// Parser over one buffer's text.
pub struct ExprParser<'a> {
    /// The whole buffer.
    pub t: &'a [u8],
    /// Buffer id for locations.
    pub buf: usize,
    /// Variables.
    pub vars: &'a mut Vars,
    /// Check-file line of the directive (None for command-line definitions).
    pub line: Option<usize>,
}

fn is_word(c: u8) -> bool {
    c == b'_' || c.is_ascii_alphanumeric()
}

impl<'a> ExprParser<'a> {
    fn err<T>(&self, p: usize, msg: impl Into<String>) -> R<T> {
        Err(PErr {
            loc: Loc {
                buf: self.buf,
                off: p,
            },
            msg: msg.into(),
        })
    }
    fn loc(&self, p: usize) -> Loc {
        Loc {
            buf: self.buf,
            off: p,
        }
    }
    fn ltrim(&self, mut s: S) -> S {
        while s.p < s.e && (self.t[s.p] == b' ' || self.t[s.p] == b'\t') {
            s.p += 1;
        }
        s
    }
    fn rtrim(&self, mut s: S) -> S {
        while s.e > s.p && (self.t[s.e - 1] == b' ' || self.t[s.e - 1] == b'\t') {
            s.e -= 1;
        }
        s
    }
    fn starts(&self, s: S, pat: &[u8]) -> bool {
        self.t[s.p..s.e].starts_with(pat)
    }
    fn eat(&self, s: &mut S, pat: &[u8]) -> bool {
        if self.starts(*s, pat) {
            s.p += pat.len();
            true
        } else {
            false
        }
    }
    fn text(&self, s: S) -> String {
        String::from_utf8_lossy(&self.t[s.p..s.e]).into_owned()
    }
    fn find(&self, s: S, c: u8) -> Option<usize> {
        memchr::memchr(c, &self.t[s.p..s.e]).map(|i| s.p + i)
    }

    /// LLVM's `parseVariable`: returns the name range and whether it is a pseudo (`@`)
    /// variable; advances `s` past the name.
    pub fn parse_variable(&self, s: &mut S) -> R<(S, bool)> {
        if s.is_empty() {
            return self.err(s.p, "empty variable name");
        }
        let mut i = s.p;
        let pseudo = self.t[i] == b'@';
        if self.t[i] == b'$' || pseudo {
            i += 1;
        }
        if i == s.e {
            return self.err(
                i,
                format!(
                    "empty {}variable name",
                    if pseudo { "pseudo " } else { "global " }
                ),
            );
        }
        let c = self.t[i];
        if !(c == b'_' || c.is_ascii_alphabetic()) {
            return self.err(s.p, "invalid variable name");
        }
        i += 1;
        while i < s.e && is_word(self.t[i]) {
            i += 1;
        }
        let name = S { p: s.p, e: i };
        s.p = i;
        Ok((name, pseudo))
    }

    fn consume_integer(&self, s: &mut S, radix: u32) -> Option<i128> {
        let mut r = radix;
        let mut p = s.p;
        if r == 0 {
            let rest = &self.t[p..s.e];
            if rest.starts_with(b"0x") || rest.starts_with(b"0X") {
                r = 16;
                p += 2;
            } else if rest.starts_with(b"0b") || rest.starts_with(b"0B") {
                r = 2;
                p += 2;
            } else if rest.starts_with(b"0o") {
                r = 8;
                p += 2;
            } else if rest.len() > 1 && rest[0] == b'0' && rest[1].is_ascii_digit() {
                r = 8;
                p += 1;
            } else {
                r = 10;
            }
        }
        let start = p;
        let mut v: i128 = 0;
        while p < s.e {
            let d = match (self.t[p] as char).to_digit(36) {
                Some(d) if d < r => d,
                _ => break,
            };
            v = v.checked_mul(r as i128)?.checked_add(d as i128)?;
            p += 1;
        }
        if p == start {
            return None;
        }
        s.p = p;
        Some(v)
    }

    fn parse_var_use(&mut self, name: S, pseudo: bool) -> R<Ast> {
        let n = self.text(name);
        if pseudo && n != "@LINE" {
            return self.err(name.p, format!("invalid pseudo numeric variable '{n}'"));
        }
        let id = match self.vars.num_table.get(&n) {
            Some(&id) => id,
            None => {
                let id = self.vars.make_num(&n, Format::of(FmtKind::Unsigned), None);
                self.vars.num_table.insert(n.clone(), id);
                id
            }
        };
        if let (Some(d), Some(l)) = (self.vars.num[id].def_line, self.line)
            && d == l
        {
            return self.err(
                name.p,
                format!("numeric variable '{n}' defined earlier in the same CHECK directive"),
            );
        }
        Ok(Ast::Var {
            id,
            name: n,
            loc: self.loc(name.p),
        })
    }

    fn parse_operand(&mut self, s: &mut S, ao: Allowed, maybe_constraint: bool) -> R<Ast> {
        if self.starts(*s, b"(") {
            if ao != Allowed::Any {
                return self.err(s.p, "parenthesized expression not permitted here");
            }
            return self.parse_paren(s);
        }
        if ao == Allowed::LineVar || ao == Allowed::Any {
            let mut t = *s;
            match self.parse_variable(&mut t) {
                Ok((name, pseudo)) => {
                    *s = t;
                    if self.starts(self.ltrim(*s), b"(") {
                        if ao != Allowed::Any {
                            return self.err(name.p, "unexpected function call");
                        }
                        return self.parse_call(s, name);
                    }
                    return self.parse_var_use(name, pseudo);
                }
                Err(e) => {
                    if ao == Allowed::LineVar {
                        return Err(e);
                    }
                }
            }
        }
        let save = *s;
        let neg = self.eat(s, b"-");
        let radix = if ao == Allowed::LegacyLiteral { 10 } else { 0 };
        if let Some(v) = self.consume_integer(s, radix) {
            return Ok(Ast::Lit(if neg { -v } else { v }));
        }
        *s = save;
        self.err(
            save.p,
            format!(
                "invalid {}operand format",
                if maybe_constraint {
                    "matching constraint or "
                } else {
                    ""
                }
            ),
        )
    }

    fn parse_paren(&mut self, s: &mut S) -> R<Ast> {
        *s = self.ltrim(*s);
        self.eat(s, b"(");
        *s = self.ltrim(*s);
        if s.is_empty() {
            return self.err(s.p, "missing operand in expression");
        }
        let mut sub = self.parse_operand(s, Allowed::Any, false)?;
        *s = self.ltrim(*s);
        while !s.is_empty() && !self.starts(*s, b")") {
            let orig = *s;
            sub = self.parse_binop(orig, s, sub, false)?;
            *s = self.ltrim(*s);
        }
        if !self.eat(s, b")") {
            return self.err(s.p, "missing ')' at end of nested expression");
        }
        Ok(sub)
    }

    fn parse_binop(&mut self, expr: S, rem: &mut S, left: Ast, legacy: bool) -> R<Ast> {
        *rem = self.ltrim(*rem);
        if rem.is_empty() {
            return Ok(left);
        }
        let op_p = rem.p;
        let op = match self.t[rem.p] {
            b'+' => Op::Add,
            b'-' => Op::Sub,
            c => {
                return self.err(op_p, format!("unsupported operation '{}'", c as char));
            }
        };
        rem.p += 1;
        *rem = self.ltrim(*rem);
        if rem.is_empty() {
            return self.err(rem.p, "missing operand in expression");
        }
        let ao = if legacy {
            Allowed::LegacyLiteral
        } else {
            Allowed::Any
        };
        let right = self.parse_operand(rem, ao, false)?;
        let text = self.text(S {
            p: expr.p,
            e: rem.p,
        });
        Ok(Ast::Bin(
            op,
            Box::new(left),
            Box::new(right),
            self.loc(expr.p),
            text,
        ))
    }

    fn parse_call(&mut self, s: &mut S, fname: S) -> R<Ast> {
        *s = self.ltrim(*s);
        let name = self.text(fname);
        let op = match name.as_str() {
            "add" => Op::Add,
            "div" => Op::Div,
            "max" => Op::Max,
            "min" => Op::Min,
            "mul" => Op::Mul,
            "sub" => Op::Sub,
            _ => {
                return self.err(fname.p, format!("call to undefined function '{name}'"));
            }
        };
        self.eat(s, b"(");
        *s = self.ltrim(*s);
        let mut args = Vec::new();
        while !s.is_empty() && !self.starts(*s, b")") {
            if self.starts(*s, b",") {
                return self.err(s.p, "missing argument");
            }
            let outer = *s;
            let mut arg = self.parse_operand(s, Allowed::Any, false)?;
            while !s.is_empty() {
                *s = self.ltrim(*s);
                if self.starts(*s, b",") || self.starts(*s, b")") {
                    break;
                }
                arg = self.parse_binop(outer, s, arg, false)?;
            }
            args.push(arg);
            *s = self.ltrim(*s);
            if !self.eat(s, b",") {
                break;
            }
            *s = self.ltrim(*s);
            if self.starts(*s, b")") {
                return self.err(s.p, "missing argument");
            }
        }
        if !self.eat(s, b")") {
            return self.err(s.p, "missing ')' at end of call expression");
        }
        if args.len() == 2 {
            let r = args.pop().unwrap();
            let l = args.pop().unwrap();
            return Ok(Ast::Bin(
                op,
                Box::new(l),
                Box::new(r),
                self.loc(fname.p),
                name,
            ));
        }
        self.err(
            fname.p,
            format!(
                "function '{name}' takes 2 arguments but {} given",
                args.len()
            ),
        )
    }

    /// LLVM's `parseNumericSubstitutionBlock`.
    pub fn parse_block(&mut self, mut expr: S, legacy: bool) -> R<NumBlock> {
        let mut explicit = Format::of(FmtKind::None);
        let mut precision = 0u32;
        let comma = self.find(expr, b',');
        let paren = self.find(expr, b'(');
        if let Some(c) = comma
            && paren.is_none_or(|p| c < p)
        {
            let mut f = S { p: expr.p, e: c };
            expr.p = c + 1;
            f = self.rtrim(self.ltrim(f));
            if !self.eat(&mut f, b"%") {
                return self.err(f.p, "invalid matching format specification in expression");
            }
            let alt_p = f.p;
            let alt = self.eat(&mut f, b"#");
            if self.eat(&mut f, b".") {
                match self.consume_integer(&mut f, 10) {
                    Some(v) if v <= MAX_PRECISION as i128 => precision = v as u32,
                    Some(v) if v <= u32::MAX as i128 => {
                        return self.err(
                            f.p,
                            format!(
                                "precision {v} in format specifier exceeds the limit of {MAX_PRECISION}"
                            ),
                        );
                    }
                    _ => return self.err(f.p, "invalid precision in format specifier"),
                }
            }
            if !f.is_empty() {
                let kind = match self.t[f.p] {
                    b'u' => FmtKind::Unsigned,
                    b'd' => FmtKind::Signed,
                    b'x' => FmtKind::HexLower,
                    b'X' => FmtKind::HexUpper,
                    _ => return self.err(f.p, "invalid format specifier in expression"),
                };
                f.p += 1;
                let hex = matches!(kind, FmtKind::HexLower | FmtKind::HexUpper);
                explicit = Format {
                    kind,
                    precision,
                    alt: alt && hex,
                };
            }
            if alt && !matches!(explicit.kind, FmtKind::HexLower | FmtKind::HexUpper) {
                return self.err(alt_p, "alternate form only supported for hex values");
            }
            f = self.ltrim(f);
            if !f.is_empty() {
                return self.err(f.p, "invalid matching format specification in expression");
            }
        }
        let mut def_expr = None;
        if let Some(d) = self.find(expr, b':') {
            def_expr = Some(S { p: expr.p, e: d });
            expr.p = d + 1;
        }
        expr = self.ltrim(expr);
        let constraint = self.eat(&mut expr, b"==");
        expr = self.ltrim(expr);
        let mut ast = None;
        if expr.is_empty() {
            if constraint {
                return self.err(
                    expr.p,
                    "empty numeric expression should not have a constraint",
                );
            }
        } else {
            expr = self.rtrim(expr);
            let outer = expr;
            let ao = if legacy {
                Allowed::LineVar
            } else {
                Allowed::Any
            };
            let mut res = self.parse_operand(&mut expr, ao, !constraint)?;
            while !expr.is_empty() {
                res = self.parse_binop(outer, &mut expr, res, legacy)?;
                if legacy && !expr.is_empty() {
                    let t = self.text(expr);
                    return self.err(
                        expr.p,
                        format!("unexpected characters at end of expression '{t}'"),
                    );
                }
            }
            ast = Some(res);
        }
        let mut fmt = explicit;
        if fmt.kind == FmtKind::None
            && let Some(a) = &ast
        {
            fmt = a
                .implicit_format(self.vars)
                .map_err(|(loc, msg)| PErr { loc, msg })?;
        }
        if fmt.kind == FmtKind::None {
            fmt = Format {
                kind: FmtKind::Unsigned,
                precision,
                alt: false,
            };
        }
        let mut def = None;
        if let Some(d) = def_expr {
            let mut d = self.ltrim(d);
            let (name, pseudo) = self.parse_variable(&mut d)?;
            let n = self.text(name);
            if pseudo {
                return self.err(name.p, "definition of pseudo numeric variable unsupported");
            }
            if self.vars.str_defined.contains(&n) {
                return self.err(
                    name.p,
                    format!("string variable with name '{n}' already exists"),
                );
            }
            d = self.ltrim(d);
            if !d.is_empty() {
                return self.err(d.p, "unexpected characters after numeric variable name");
            }
            let id = match self.vars.num_table.get(&n) {
                Some(&id) => {
                    if self.vars.num[id].fmt != fmt {
                        return self.err(d.p, "format different from previous variable definition");
                    }
                    id
                }
                None => self.vars.make_num(&n, fmt, self.line),
            };
            def = Some(id);
        }
        Ok(NumBlock { ast, fmt, def })
    }
}

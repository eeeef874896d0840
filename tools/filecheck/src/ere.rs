//! Translation of LLVM's POSIX extended regular expressions into Rust `regex` syntax.
//!
//! LLVM's `Regex` is Henry Spencer's engine compiled with `REG_EXTENDED | REG_NEWLINE`.
//! This module parses that dialect with the same rules and error messages (`\c` is a
//! literal `c`, `{` is literal unless a digit follows, stacked repetitions are errors,
//! brackets with POSIX classes, `[[:<:]]`/`[[:>:]]` word boundaries, negated brackets
//! never match a newline) and emits an equivalent Rust regex. Matching semantics
//! (leftmost-longest) are handled by [`crate::re`].

/// Result of a translation: the Rust regex and the number of capture groups the POSIX
/// regex has (LLVM counts them to number back-references).
#[derive(Debug, Clone)]
pub struct Translated {
    /// Rust syntax (groups are non-capturing).
    pub rust: String,
    /// Number of POSIX groups.
    pub groups: usize,
}

const EPAREN: &str = "parentheses not balanced";
const EBRACK: &str = "brackets ([ ]) not balanced";
const EBRACE: &str = "braces not balanced";
const BADBR: &str = "invalid repetition count(s)";
const BADRPT: &str = "repetition-operator operand invalid";
const EMPTY: &str = "empty (sub)expression";
const ERANGE: &str = "invalid character range";
const ECTYPE: &str = "invalid character class";
const ECOLLATE: &str = "invalid collating element";
const EESCAPE: &str = "trailing backslash (\\)";
const ESUBREG: &str = "invalid backreference number";

struct P<'a> {
    s: &'a [u8],
    i: usize,
    out: String,
    nsub: usize,
    closed: Vec<bool>,
}

type R = Result<(), &'static str>;

/// Appends a literal byte in Rust regex syntax.
pub fn push_literal(out: &mut String, b: u8) {
    if b.is_ascii() && !b.is_ascii_control() && !regex_syntax::is_meta_character(b as char) {
        out.push(b as char);
    } else {
        out.push_str(&format!("\\x{b:02X}"));
    }
}

/// Escapes a byte string as a Rust regex literal.
pub fn escape(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        push_literal(&mut s, b);
    }
    s
}

/// LLVM's `Regex::escape` (used for the fuzzy-match example string).
pub fn llvm_escape(bytes: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(bytes.len());
    for &b in bytes {
        if b"()^$|*+?.[]\\{}".contains(&b) {
            v.push(b'\\');
        }
        v.push(b);
    }
    v
}

impl<'a> P<'a> {
    fn more(&self) -> bool {
        self.i < self.s.len()
    }
    fn peek(&self) -> u8 {
        self.s[self.i]
    }
    fn peek2(&self) -> Option<u8> {
        self.s.get(self.i + 1).copied()
    }
    fn see(&self, c: u8) -> bool {
        self.more() && self.peek() == c
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.see(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn seetwo(&self, a: u8, b: u8) -> bool {
        self.see(a) && self.peek2() == Some(b)
    }
    fn eattwo(&mut self, a: u8, b: u8) -> bool {
        if self.seetwo(a, b) {
            self.i += 2;
            true
        } else {
            false
        }
    }

    fn ere(&mut self, stop: Option<u8>) -> R {
        loop {
            let conc = self.out.len();
            while self.more() && self.peek() != b'|' && Some(self.peek()) != stop {
                self.exp()?;
            }
            if self.out.len() == conc {
                return Err(EMPTY);
            }
            if !self.eat(b'|') {
                break;
            }
            self.out.push('|');
        }
        Ok(())
    }

    fn is_rep(&self) -> bool {
        if !self.more() {
            return false;
        }
        let c = self.peek();
        c == b'*'
            || c == b'+'
            || c == b'?'
            || (c == b'{' && self.peek2().is_some_and(|d| d.is_ascii_digit()))
    }

    fn count(&mut self) -> Result<u32, &'static str> {
        let mut n: u32 = 0;
        let mut nd = 0;
        while self.more() && self.peek().is_ascii_digit() && n <= 255 {
            n = n * 10 + (self.peek() - b'0') as u32;
            self.i += 1;
            nd += 1;
        }
        if nd == 0 || n > 255 {
            return Err(BADBR);
        }
        Ok(n)
    }

    fn exp(&mut self) -> R {
        let c = self.peek();
        self.i += 1;
        let pos = self.out.len();
        let mut wascaret = false;
        match c {
            b'(' => {
                if !self.more() {
                    return Err(EPAREN);
                }
                self.nsub += 1;
                let sub = self.nsub;
                self.closed.push(false);
                self.out.push_str("(?:");
                if !self.see(b')') {
                    self.ere(Some(b')'))?;
                }
                self.out.push(')');
                if !self.eat(b')') {
                    return Err(EPAREN);
                }
                self.closed[sub - 1] = true;
            }
            b')' => return Err(EPAREN),
            b'^' => {
                self.out.push('^');
                wascaret = true;
            }
            b'$' => self.out.push('$'),
            b'|' => return Err(EMPTY),
            b'*' | b'+' | b'?' => return Err(BADRPT),
            b'.' => self.out.push('.'),
            b'[' => self.bracket()?,
            b'\\' => {
                if !self.more() {
                    return Err(EESCAPE);
                }
                let d = self.peek();
                self.i += 1;
                if (b'1'..=b'9').contains(&d) {
                    let n = (d - b'0') as usize;
                    if n > self.closed.len() || !self.closed[n - 1] {
                        return Err(ESUBREG);
                    }
                    return Err(
                        "back-references inside {{...}} are not supported by xir-filecheck",
                    );
                }
                push_literal(&mut self.out, d);
            }
            b'{' => {
                if self.more() && self.peek().is_ascii_digit() {
                    return Err(BADRPT);
                }
                push_literal(&mut self.out, c);
            }
            _ => push_literal(&mut self.out, c),
        }
        if !self.is_rep() {
            return Ok(());
        }
        let r = self.peek();
        self.i += 1;
        if wascaret {
            return Err(BADRPT);
        }
        let atom = self.out.split_off(pos);
        self.out.push_str("(?:");
        self.out.push_str(&atom);
        self.out.push(')');
        match r {
            b'*' => self.out.push('*'),
            b'+' => self.out.push('+'),
            b'?' => self.out.push('?'),
            _ => {
                let lo = self.count()?;
                let hi = if self.eat(b',') {
                    if self.more() && self.peek().is_ascii_digit() {
                        let hi = self.count()?;
                        if lo > hi {
                            return Err(BADBR);
                        }
                        Some(hi)
                    } else {
                        None
                    }
                } else {
                    Some(lo)
                };
                if !self.eat(b'}') {
                    while self.more() && self.peek() != b'}' {
                        self.i += 1;
                    }
                    if !self.more() {
                        return Err(EBRACE);
                    }
                    return Err(BADBR);
                }
                match hi {
                    Some(h) if h == lo => self.out.push_str(&format!("{{{lo}}}")),
                    Some(h) => self.out.push_str(&format!("{{{lo},{h}}}")),
                    None => self.out.push_str(&format!("{{{lo},}}")),
                }
            }
        }
        if self.is_rep() {
            return Err(BADRPT);
        }
        Ok(())
    }

    fn symbol(&mut self) -> Result<u8, &'static str> {
        if self.eattwo(b'[', b'.') {
            let c = self.coll_elem(b'.')?;
            if !self.eattwo(b'.', b']') {
                return Err(ECOLLATE);
            }
            return Ok(c);
        }
        if !self.more() {
            return Err(EBRACK);
        }
        let c = self.peek();
        self.i += 1;
        Ok(c)
    }

    fn coll_elem(&mut self, end: u8) -> Result<u8, &'static str> {
        let start = self.i;
        while self.more() && !self.seetwo(end, b']') {
            self.i += 1;
        }
        if !self.more() {
            return Err(EBRACK);
        }
        let name = &self.s[start..self.i];
        if name.len() == 1 {
            return Ok(name[0]);
        }
        let named: &[(&[u8], u8)] = &[
            (b"space", b' '),
            (b"tab", b'\t'),
            (b"newline", b'\n'),
            (b"period", b'.'),
            (b"hyphen", b'-'),
            (b"hyphen-minus", b'-'),
            (b"comma", b','),
            (b"slash", b'/'),
            (b"underscore", b'_'),
            (b"left-square-bracket", b'['),
            (b"right-square-bracket", b']'),
            (b"backslash", b'\\'),
            (b"circumflex", b'^'),
            (b"NUL", 0),
        ];
        named
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, c)| c)
            .ok_or(ECOLLATE)
    }

    fn bracket(&mut self) -> R {
        if self.s[self.i..].starts_with(b"[:<:]]") {
            self.i += 6;
            self.out.push_str("\\b{start}");
            return Ok(());
        }
        if self.s[self.i..].starts_with(b"[:>:]]") {
            self.i += 6;
            self.out.push_str("\\b{end}");
            return Ok(());
        }
        let mut set = [false; 256];
        let invert = self.eat(b'^');
        if self.eat(b']') {
            set[b']' as usize] = true;
        } else if self.eat(b'-') {
            set[b'-' as usize] = true;
        }
        while self.more() && self.peek() != b']' && !self.seetwo(b'-', b']') {
            self.term(&mut set)?;
        }
        if self.eat(b'-') {
            set[b'-' as usize] = true;
        }
        if !self.eat(b']') {
            return Err(EBRACK);
        }
        if invert {
            for b in set.iter_mut() {
                *b = !*b;
            }
            set[b'\n' as usize] = false;
        }
        emit_set(&mut self.out, &set);
        Ok(())
    }

    fn term(&mut self, set: &mut [bool; 256]) -> R {
        let c = match self.peek() {
            b'[' => self.peek2().unwrap_or(0),
            b'-' => return Err(ERANGE),
            _ => 0,
        };
        match c {
            b':' => {
                self.i += 2;
                if !self.more() {
                    return Err(EBRACK);
                }
                let c = self.peek();
                if c == b'-' || c == b']' {
                    return Err(ECTYPE);
                }
                let st = self.i;
                while self.more() && self.peek().is_ascii_alphabetic() {
                    self.i += 1;
                }
                let name = &self.s[st..self.i];
                let f: fn(u8) -> bool = match name {
                    b"alnum" => |c| c.is_ascii_alphanumeric(),
                    b"digit" => |c| c.is_ascii_digit(),
                    b"punct" => |c| c.is_ascii_punctuation(),
                    b"alpha" => |c| c.is_ascii_alphabetic(),
                    b"graph" => |c| c.is_ascii_graphic(),
                    b"space" => |c| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
                    b"blank" => |c| c == b' ' || c == b'\t',
                    b"lower" => |c| c.is_ascii_lowercase(),
                    b"print" => |c| c.is_ascii_graphic() || c == b' ',
                    b"upper" => |c| c.is_ascii_uppercase(),
                    b"cntrl" => |c| c.is_ascii_control(),
                    b"xdigit" => |c| c.is_ascii_hexdigit(),
                    _ => return Err(ECTYPE),
                };
                for (b, slot) in set.iter_mut().enumerate() {
                    if f(b as u8) {
                        *slot = true;
                    }
                }
                if !self.more() {
                    return Err(EBRACK);
                }
                if !self.eattwo(b':', b']') {
                    return Err(ECTYPE);
                }
            }
            b'=' => {
                self.i += 2;
                if !self.more() {
                    return Err(EBRACK);
                }
                let c = self.peek();
                if c == b'-' || c == b']' {
                    return Err(ECOLLATE);
                }
                let c = self.coll_elem(b'=')?;
                set[c as usize] = true;
                if !self.eattwo(b'=', b']') {
                    return Err(ECOLLATE);
                }
            }
            _ => {
                let start = self.symbol()?;
                let finish = if self.see(b'-') && self.peek2().is_some_and(|d| d != b']') {
                    self.i += 1;
                    if self.eat(b'-') { b'-' } else { self.symbol()? }
                } else {
                    start
                };
                // Spencer compares and iterates plain (signed) chars, and `CHadd` indexes
                // the set with the char cast to unsigned: `[\x80-9]` is -128..=57, so it
                // holds the bytes 0x80..=0xFF and 0x00..=0x39.
                let (start, finish) = (start as i8, finish as i8);
                if start > finish {
                    return Err(ERANGE);
                }
                for b in start..=finish {
                    set[b as u8 as usize] = true;
                }
            }
        }
        Ok(())
    }
}

fn emit_set(out: &mut String, set: &[bool; 256]) {
    let count = set.iter().filter(|&&b| b).count();
    if count == 0 {
        out.push_str("[^\\x00-\\xFF]");
        return;
    }
    if count == 1 {
        let b = set.iter().position(|&b| b).unwrap() as u8;
        push_literal(out, b);
        return;
    }
    out.push('[');
    let mut i = 0;
    while i < 256 {
        if !set[i] {
            i += 1;
            continue;
        }
        let s = i;
        while i + 1 < 256 && set[i + 1] {
            i += 1;
        }
        out.push_str(&class_byte(s as u8));
        if i > s {
            out.push('-');
            out.push_str(&class_byte(i as u8));
        }
        i += 1;
    }
    out.push(']');
}

fn class_byte(b: u8) -> String {
    if b.is_ascii_alphanumeric() {
        (b as char).to_string()
    } else {
        format!("\\x{b:02X}")
    }
}

/// Translates one `{{...}}` body (or a variable-definition regex).
pub fn translate(re: &[u8]) -> Result<Translated, &'static str> {
    let mut p = P {
        s: re,
        i: 0,
        out: String::new(),
        nsub: 0,
        closed: Vec::new(),
    };
    p.ere(None)?;
    if p.more() {
        // A stray ')' at top level.
        return Err(EPAREN);
    }
    Ok(Translated {
        rust: p.out,
        groups: p.nsub,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basics() {
        assert_eq!(translate(b"a|b").unwrap().rust, "a|b");
        assert_eq!(translate(b"\\d").unwrap().rust, "d");
        assert_eq!(translate(b"a{").unwrap().rust, "a\\x7B");
        assert_eq!(translate(b"x{2,3}").unwrap().rust, "(?:x){2,3}");
        assert_eq!(translate(b"a+?").unwrap_err(), BADRPT);
        assert_eq!(translate(b"").unwrap_err(), EMPTY);
        assert_eq!(translate(b"(a").unwrap_err(), EPAREN);
        assert_eq!(translate(b"[a").unwrap_err(), EBRACK);
        assert_eq!(translate(b"*a").unwrap_err(), BADRPT);
        assert_eq!(translate(b"()").unwrap().groups, 1);
    }

    #[test]
    fn ranges_compare_and_iterate_signed_chars() {
        // -128..=57 wraps: 0x00-0x39 and 0x80-0xFF.
        assert_eq!(translate(b"[\x80-9]").unwrap().rust, "[\\x00-9\\x80-\\xFF]");
        assert_eq!(translate(b"[\x80-\xff]").unwrap().rust, "[\\x80-\\xFF]");
        assert_eq!(translate(b"[9-\x80]").unwrap_err(), ERANGE);
        assert_eq!(translate(b"[\xff-\x80]").unwrap_err(), ERANGE);
    }
}

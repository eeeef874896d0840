//! Token reader for the interchange text: whitespace is space/tab/CR/LF, `;` starts a
//! comment to end of line, a *word* is a maximal run of `[A-Za-z0-9_.-]`, strings are
//! double-quoted with the escapes `\\ \" \n \r \t \xHH` (raw control characters are
//! rejected), and integers are decimal (signed ones may start with `-`).
//!
//! Every method records the first failure as a [`LexError`] carrying a byte span.

use super::MAX_RECORD_COUNT;
use super::records::Bytes;
use std::borrow::Cow;

/// A located error (byte span into the text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LexError {
    pub start: usize,
    pub end: usize,
    pub message: String,
}

pub(crate) type LResult<T> = Result<T, LexError>;

/// The reader state.
pub(crate) struct Lexer<'a> {
    pub src: &'a [u8],
    pub pos: usize,
    budget: usize,
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-')
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        Self {
            src: src.as_bytes(),
            pos: 0,
            budget: MAX_RECORD_COUNT,
        }
    }

    pub fn err<T>(&self, start: usize, end: usize, message: impl Into<String>) -> LResult<T> {
        Err(LexError {
            start,
            end: end.max(start),
            message: message.into(),
        })
    }

    pub fn skip(&mut self) {
        loop {
            while self.pos < self.src.len()
                && matches!(self.src[self.pos], b' ' | b'\t' | b'\r' | b'\n')
            {
                self.pos += 1;
            }
            if self.pos < self.src.len() && self.src[self.pos] == b';' {
                while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                    self.pos += 1;
                }
                continue;
            }
            break;
        }
    }

    fn raw_word(&mut self) -> (usize, &'a [u8]) {
        self.skip();
        let b = self.pos;
        while self.pos < self.src.len() && is_word_byte(self.src[self.pos]) {
            self.pos += 1;
        }
        (b, &self.src[b..self.pos])
    }

    /// A word token.
    pub fn word(&mut self, what: &str) -> LResult<(usize, &'a [u8])> {
        let (b, w) = self.raw_word();
        if w.is_empty() {
            return self.err(b, b + 1, format!("expected {what}"));
        }
        Ok((b, w))
    }

    /// A required keyword.
    pub fn keyword(&mut self, kw: &str) -> LResult<usize> {
        let (b, w) = self.raw_word();
        if w != kw.as_bytes() {
            self.pos = b;
            let end = if w.is_empty() { b + 1 } else { b + w.len() };
            return self.err(b, end, format!("expected `{kw}`"));
        }
        Ok(b)
    }

    /// An optional keyword.
    pub fn try_keyword(&mut self, kw: &str) -> bool {
        let (b, w) = self.raw_word();
        if w != kw.as_bytes() {
            self.pos = b;
            return false;
        }
        true
    }

    pub fn punct(&mut self, c: u8) -> LResult<usize> {
        self.skip();
        if self.src.get(self.pos) == Some(&c) {
            self.pos += 1;
            return Ok(self.pos - 1);
        }
        self.err(self.pos, self.pos + 1, format!("expected `{}`", c as char))
    }

    /// A quoted string (escapes decoded; borrowed when there are none).
    pub fn string(&mut self) -> LResult<(usize, Bytes<'a>)> {
        self.skip();
        let b = self.pos;
        if self.src.get(b) != Some(&b'"') {
            return self.err(b, b + 1, "expected a quoted string");
        }
        let mut i = b + 1;
        let mut owned: Option<Vec<u8>> = None;
        while i < self.src.len() {
            let c = self.src[i];
            match c {
                b'"' => {
                    self.pos = i + 1;
                    let s = match owned {
                        Some(v) => Cow::Owned(v),
                        None => Cow::Borrowed(&self.src[b + 1..i]),
                    };
                    return Ok((b, s));
                }
                b'\\' => {
                    let buf = owned.get_or_insert_with(|| self.src[b + 1..i].to_vec());
                    let Some(&e) = self.src.get(i + 1) else {
                        return self.err(i, i + 1, "truncated string escape");
                    };
                    let v = match e {
                        b'\\' => b'\\',
                        b'"' => b'"',
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'x' => {
                            let h = self.src.get(i + 2..i + 4);
                            let Some(h) = h else {
                                return self.err(
                                    i,
                                    self.src.len(),
                                    "truncated hexadecimal string escape",
                                );
                            };
                            match (hex_value(h[0]), hex_value(h[1])) {
                                (Some(hi), Some(lo)) => {
                                    buf.push(hi << 4 | lo);
                                    i += 4;
                                    continue;
                                }
                                _ => {
                                    return self.err(i, i + 4, "invalid hexadecimal string escape");
                                }
                            }
                        }
                        _ => return self.err(i, i + 2, "unknown string escape"),
                    };
                    buf.push(v);
                    i += 2;
                }
                c if c < 0x20 => {
                    return self.err(i, i + 1, "unescaped control character in quoted string");
                }
                _ => {
                    if let Some(buf) = owned.as_mut() {
                        buf.push(c);
                    }
                    i += 1;
                }
            }
        }
        self.err(b, self.src.len(), "unterminated quoted string")
    }

    /// An unsigned decimal.
    pub fn uint(&mut self) -> LResult<(usize, u64)> {
        self.skip();
        let b = self.pos;
        let mut v: u64 = 0;
        while let Some(c) = self.src.get(self.pos).filter(|c| c.is_ascii_digit()) {
            let Some(nv) = v
                .checked_mul(10)
                .and_then(|x| x.checked_add(u64::from(c - b'0')))
            else {
                return self.err(b, self.pos + 1, "unsigned integer is out of range");
            };
            v = nv;
            self.pos += 1;
        }
        if self.pos == b {
            return self.err(b, b + 1, "expected an unsigned integer");
        }
        Ok((b, v))
    }

    /// A signed decimal.
    pub fn int(&mut self) -> LResult<(usize, i64)> {
        self.skip();
        let b = self.pos;
        let neg = self.src.get(self.pos) == Some(&b'-');
        if neg {
            self.pos += 1;
        }
        let d = self.pos;
        let limit: u64 = if neg { 1 << 63 } else { (1 << 63) - 1 };
        let mut mag: u64 = 0;
        while let Some(c) = self.src.get(self.pos).filter(|c| c.is_ascii_digit()) {
            match mag
                .checked_mul(10)
                .and_then(|x| x.checked_add(u64::from(c - b'0')))
            {
                Some(m) if m <= limit => mag = m,
                _ => return self.err(b, self.pos + 1, "signed integer is out of range"),
            }
            self.pos += 1;
        }
        if self.pos == d {
            return self.err(b, b + 1, "expected a signed integer");
        }
        Ok((
            b,
            if neg {
                (mag as i64).wrapping_neg()
            } else {
                mag as i64
            },
        ))
    }

    /// A record count: at most 2^20, within the cumulative budget and no larger than the
    /// remaining input (every record needs at least one byte).
    pub fn count(&mut self) -> LResult<(usize, usize)> {
        let (b, v) = self.uint()?;
        let end = self.pos;
        if v > MAX_RECORD_COUNT as u64 {
            return self.err(b, end, "record count exceeds the supported limit (2^20)");
        }
        let n = v as usize;
        if n > self.budget || n > self.src.len() - self.pos {
            return self.err(
                b,
                end,
                "cumulative record count exceeds the supported input budget",
            );
        }
        self.budget -= n;
        Ok((b, n))
    }

    /// True when only whitespace and comments remain.
    pub fn at_end(&mut self) -> bool {
        self.skip();
        self.pos == self.src.len()
    }
}

/// Value of a hex digit (either case).
pub(crate) fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

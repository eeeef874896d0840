//! Lexical helpers shared by the printer and the parser: {fmt}-style string escaping
//! (`{:?}` debug format), {fmt}'s shortest `{}` formatting of doubles, and the identifier
//! rule that decides whether a name may be printed raw.

use std::fmt::Write as _;

/// Whether `s` is an identifier (`[A-Za-z_][A-Za-z0-9_]*`), i.e. may be printed unquoted
/// after `name = ` and used as a symbolic value label.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether a non-ASCII code point is printable by Unicode's tables. Rust's `escape_debug`
/// uses the same printable table {fmt} derives its own from; a grapheme extender is only
/// escaped by Rust at the start of a string, so the probe puts an `a` in front.
fn is_printable(c: char) -> bool {
    let mut buf = [0u8; 8];
    buf[0] = b'a';
    let n = c.encode_utf8(&mut buf[1..]).len();
    let Ok(probe) = std::str::from_utf8(&buf[..1 + n]) else {
        return false;
    };
    let mut it = probe.escape_debug();
    it.next();
    it.next() == Some(c) && it.next().is_none()
}

/// Appends `s` as a double-quoted string in {fmt}'s `{:?}` debug format.
pub fn write_escaped(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_ascii() || is_printable(c) => out.push(c),
            c => {
                let cp = c as u32;
                let _ = if cp < 0x100 {
                    write!(out, "\\x{cp:02x}")
                } else if cp < 0x10000 {
                    write!(out, "\\u{cp:04x}")
                } else {
                    write!(out, "\\U{cp:08x}")
                };
            }
        }
    }
    out.push('"');
}

/// `s` as a {fmt} debug string.
pub fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_escaped(&mut out, s);
    out
}

/// Formats a double like {fmt}'s `{}`: the shortest round-tripping digits, fixed notation
/// for decimal exponents in `[-4, 16)`, otherwise `d.ddde±XX` (at least two exponent
/// digits); no trailing `.0`; `nan`, `inf` with sign.
pub fn format_double(x: f64) -> String {
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_nan() {
        return format!("{sign}nan");
    }
    if x.is_infinite() {
        return format!("{sign}inf");
    }
    if x == 0.0 {
        return format!("{sign}0");
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `-1.2345e-7`.
    let sci = format!("{:e}", x.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut out = String::from(sign);
    if !(-4..16).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(
            out,
            "e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.unsigned_abs()
        );
    } else if exp >= 0 {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', int_len - digits.len()));
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
        out.push_str(&digits);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        assert!(is_identifier("i"));
        assert!(is_identifier("_tmp3"));
        assert!(!is_identifier(""));
        assert!(!is_identifier("3x"));
        assert!(!is_identifier("a.b"));
        assert!(!is_identifier("a b"));
        assert!(!is_identifier("a,b"));
    }

    #[test]
    fn fmt_debug_escapes() {
        assert_eq!(escaped("hi"), "\"hi\"");
        assert_eq!(escaped("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(escaped("\n\r\t"), "\"\\n\\r\\t\"");
        assert_eq!(escaped("\0\x1b\x7f"), "\"\\x00\\x1b\\x7f\"");
        assert_eq!(escaped("it's"), "\"it's\"");
        // Printable non-ASCII stays raw, unprintable gets \x / \u / \U by size.
        assert_eq!(escaped("é→😀"), "\"é→😀\"");
        assert_eq!(escaped("\u{a0}"), "\"\\xa0\"");
        assert_eq!(escaped("\u{200b}"), "\"\\u200b\"");
        assert_eq!(escaped("\u{e0001}"), "\"\\U000e0001\"");
        // A combining mark is printable (only Rust escapes it at string start).
        assert_eq!(escaped("\u{301}"), "\"\u{301}\"");
    }

    #[test]
    fn fmt_doubles() {
        assert_eq!(format_double(1.0), "1");
        assert_eq!(format_double(-0.5), "-0.5");
        assert_eq!(format_double(1234.5), "1234.5");
        assert_eq!(format_double(1e15), "1000000000000000");
        assert_eq!(format_double(1e16), "1e+16");
        assert_eq!(format_double(1.5e20), "1.5e+20");
        assert_eq!(format_double(0.0001), "0.0001");
        assert_eq!(format_double(0.00001), "1e-05");
        assert_eq!(format_double(-2.5e-7), "-2.5e-07");
        assert_eq!(format_double(1e100), "1e+100");
        assert_eq!(format_double(0.0), "0");
        assert_eq!(format_double(-0.0), "-0");
        assert_eq!(format_double(f64::INFINITY), "inf");
        assert_eq!(format_double(f64::NEG_INFINITY), "-inf");
        assert_eq!(format_double(f64::NAN), "nan");
    }
}

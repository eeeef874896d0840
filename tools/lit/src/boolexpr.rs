//! Feature expressions of `REQUIRES:`, `UNSUPPORTED:` and `XFAIL:` lines, as lit reads
//! them: identifiers combined with `!`, `&&`, `||` and parentheses; `true` and `false`;
//! an identifier may embed `{{regex}}` parts and then matches any feature that the
//! whole pattern matches. (`XFAIL: *` is handled by the directive reader.)

use regex::Regex;
use std::collections::BTreeSet;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Not,
    And,
    Or,
    LParen,
    RParen,
}

fn tokenize(s: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if s[i..].starts_with("&&") {
            out.push(Tok::And);
            i += 2;
        } else if s[i..].starts_with("||") {
            out.push(Tok::Or);
            i += 2;
        } else if c == b'!' {
            out.push(Tok::Not);
            i += 1;
        } else if c == b'(' {
            out.push(Tok::LParen);
            i += 1;
        } else if c == b')' {
            out.push(Tok::RParen);
            i += 1;
        } else {
            let start = i;
            while i < b.len() {
                if s[i..].starts_with("{{") {
                    let close = s[i + 2..]
                        .find("}}")
                        .ok_or_else(|| format!("unterminated '{{{{' in '{s}'"))?;
                    i += close + 4;
                    continue;
                }
                let c = b[i];
                if c.is_ascii_alphanumeric() || b"-+=._".contains(&c) {
                    i += 1;
                } else {
                    break;
                }
            }
            if i == start {
                return Err(format!("unexpected character '{}' in '{s}'", c as char));
            }
            out.push(Tok::Ident(s[start..i].to_string()));
        }
    }
    Ok(out)
}

/// A parsed feature expression.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A feature name or pattern.
    Ident(String),
    /// `!e`
    Not(Box<Expr>),
    /// `a && b`
    And(Box<Expr>, Box<Expr>),
    /// `a || b`
    Or(Box<Expr>, Box<Expr>),
}

struct P {
    toks: Vec<Tok>,
    pos: usize,
}

impl P {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn or(&mut self) -> Result<Expr, String> {
        let mut l = self.and()?;
        while self.peek() == Some(&Tok::Or) {
            self.pos += 1;
            l = Expr::Or(Box::new(l), Box::new(self.and()?));
        }
        Ok(l)
    }
    fn and(&mut self) -> Result<Expr, String> {
        let mut l = self.not()?;
        while self.peek() == Some(&Tok::And) {
            self.pos += 1;
            l = Expr::And(Box::new(l), Box::new(self.not()?));
        }
        Ok(l)
    }
    fn not(&mut self) -> Result<Expr, String> {
        let t = self.peek().cloned();
        self.pos += 1;
        match t {
            Some(Tok::Not) => Ok(Expr::Not(Box::new(self.not()?))),
            Some(Tok::LParen) => {
                let e = self.or()?;
                if self.peek() != Some(&Tok::RParen) {
                    return Err("expected ')'".into());
                }
                self.pos += 1;
                Ok(e)
            }
            Some(Tok::Ident(s)) => Ok(Expr::Ident(s)),
            Some(t) => Err(format!("unexpected {t:?}")),
            None => Err("expression ends too early".into()),
        }
    }
}

/// Parses one expression (one comma-separated item of a directive).
pub fn parse(s: &str) -> Result<Expr, String> {
    let toks = tokenize(s)?;
    if toks.is_empty() {
        return Err("empty feature expression".into());
    }
    let mut p = P { toks, pos: 0 };
    let e = p.or().map_err(|m| format!("{m} in '{s}'"))?;
    if p.pos != p.toks.len() {
        return Err(format!("unexpected trailing text in '{s}'"));
    }
    Ok(e)
}

fn ident_matches(name: &str, features: &BTreeSet<String>) -> bool {
    match name {
        "true" => return true,
        "false" => return false,
        _ => {}
    }
    if !name.contains("{{") {
        return features.contains(name);
    }
    let mut pat = String::from("^(?:");
    let mut rest = name;
    while let Some(o) = rest.find("{{") {
        pat.push_str(&regex::escape(&rest[..o]));
        let after = &rest[o + 2..];
        let c = after.find("}}").unwrap_or(after.len());
        pat.push('(');
        pat.push_str(&after[..c]);
        pat.push(')');
        rest = after.get(c + 2..).unwrap_or("");
    }
    pat.push_str(&regex::escape(rest));
    pat.push_str(")$");
    match Regex::new(&pat) {
        Ok(re) => features.iter().any(|f| re.is_match(f)),
        Err(_) => false,
    }
}

impl Expr {
    /// Evaluates against the available features.
    pub fn eval(&self, features: &BTreeSet<String>) -> bool {
        match self {
            Expr::Ident(n) => ident_matches(n, features),
            Expr::Not(e) => !e.eval(features),
            Expr::And(a, b) => a.eval(features) && b.eval(features),
            Expr::Or(a, b) => a.eval(features) || b.eval(features),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feats(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn evaluates_operators_and_precedence() {
        let f = feats(&["vulkan", "spirv-tools"]);
        let t = |s: &str| parse(s).unwrap().eval(&f);
        assert!(t("vulkan"));
        assert!(!t("llvm-filecheck"));
        assert!(t("!llvm-filecheck"));
        assert!(t("vulkan && spirv-tools"));
        assert!(t("llvm-filecheck || vulkan"));
        assert!(t("llvm-filecheck && x || vulkan"));
        assert!(!t("llvm-filecheck && (x || vulkan)"));
        assert!(t("true") && !t("false"));
        assert!(t("spirv-{{.*}}"));
        assert!(!t("spirv-{{x.*}}"));
    }

    #[test]
    fn rejects_bad_expressions() {
        for bad in ["", "a &&", "(a", "a b", "a )", "x{{y", "a # b", "*"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}

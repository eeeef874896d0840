//! The inline pipeline form (`--passes=` text, as `xir-opt --print-pipeline` prints it)
//! as a tree the pipeline minimizer can edit.
//!
//! This is deliberately a *shallow* reader: it only knows what it needs to delete
//! entries and reshape groups, and keeps every leaf's text verbatim (options, `as`
//! labels, markers). The real grammar lives in `xir_passes::pipeline::parse`; whatever
//! this module prints goes back through that parser, which has the last word.
//!
//! ```text
//! list   := elem (',' elem)*
//! elem   := 'fixed-point' HEADER '{' list '}'         (HEADER: name, (max=N,…), markers)
//!         | 'sequence' HEADER '{' list '}'
//!         | 'if' '(' COND ')' '{' list '}' ('else' '{' list '}')?
//!         | LEAF                                      (anything else, up to a top-level ',')
//! ```

use std::fmt;

/// One entry of an inline pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// A pass (or `verify`) entry, kept verbatim: `dce`, `sroa{decompose-vectors=true} as x`.
    Leaf(String),
    /// A `fixed-point …{…}` or `sequence …{…}` group.
    Group(Group),
    /// `if(cond){…}else{…}`.
    If(IfNode),
}

/// A group entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// Everything before the body's `{`: `fixed-point cleanup(max=8) required`.
    pub header: String,
    /// Body.
    pub body: Vec<Node>,
}

/// A conditional entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IfNode {
    /// The condition between the parentheses (`fast-math`, `!has-autodiff-scope`).
    pub cond: String,
    /// Entries when it holds.
    pub then_body: Vec<Node>,
    /// Entries otherwise (empty = no `else`).
    pub else_body: Vec<Node>,
}

impl Group {
    /// Whether this is a `fixed-point` group.
    pub fn is_fixed_point(&self) -> bool {
        self.header.trim_start().starts_with("fixed-point")
    }

    /// The group's name (`fixed-point` for an unnamed fixed point).
    pub fn name(&self) -> String {
        let h = self.header.trim();
        let rest = h
            .strip_prefix("fixed-point")
            .or_else(|| h.strip_prefix("sequence"))
            .unwrap_or(h)
            .trim_start();
        let name: String = rest
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '(')
            .collect();
        if name.is_empty() || name == "required" {
            "fixed-point".to_string()
        } else {
            name
        }
    }

    /// The `max=N` budget of a fixed point.
    pub fn max(&self) -> Option<u32> {
        let p = self.header.find("max=")?;
        let digits: String = self.header[p + 4..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    }
}

/// Why a pipeline text could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads an inline pipeline.
pub fn parse(text: &str) -> Result<Vec<Node>, ParseError> {
    let mut p = Reader {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    let list = p.list()?;
    p.skip_ws();
    if p.i < p.s.len() {
        return Err(ParseError(format!(
            "unexpected '{}' at byte {}",
            p.s[p.i] as char, p.i
        )));
    }
    Ok(list)
}

struct Reader<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl Reader<'_> {
    fn skip_ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn peek_word(&self) -> &str {
        let start = self.i;
        let mut j = start;
        while j < self.s.len() && (self.s[j].is_ascii_alphanumeric() || self.s[j] == b'-') {
            j += 1;
        }
        &self.text[start..j]
    }

    /// Reads until a top-level byte in `stops` (not consumed); strings and bracket
    /// nesting are skipped over.
    fn until(&mut self, stops: &[u8]) -> Result<String, ParseError> {
        let start = self.i;
        let mut depth: Vec<u8> = Vec::new();
        while self.i < self.s.len() {
            let b = self.s[self.i];
            if depth.is_empty() && stops.contains(&b) {
                break;
            }
            match b {
                b'"' => {
                    self.i += 1;
                    while self.i < self.s.len() && self.s[self.i] != b'"' {
                        if self.s[self.i] == b'\\' {
                            self.i += 1;
                        }
                        self.i += 1;
                    }
                    if self.i >= self.s.len() {
                        return Err(ParseError("unterminated string".into()));
                    }
                }
                b'(' => depth.push(b')'),
                b'{' => depth.push(b'}'),
                b')' | b'}' if depth.pop() != Some(b) => {
                    return Err(ParseError(format!(
                        "unbalanced '{}' at byte {}",
                        b as char, self.i
                    )));
                }
                _ => {}
            }
            self.i += 1;
        }
        if !depth.is_empty() {
            return Err(ParseError("unbalanced brackets".into()));
        }
        Ok(self.text[start..self.i].trim().to_string())
    }

    fn expect(&mut self, b: u8) -> Result<(), ParseError> {
        self.skip_ws();
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            Ok(())
        } else {
            Err(ParseError(format!(
                "expected '{}' at byte {}",
                b as char, self.i
            )))
        }
    }

    fn list(&mut self) -> Result<Vec<Node>, ParseError> {
        let mut out = Vec::new();
        loop {
            self.skip_ws();
            if self.i >= self.s.len() || self.s[self.i] == b'}' {
                return Ok(out);
            }
            if self.s[self.i] == b',' || self.s[self.i] == b';' {
                self.i += 1;
                continue;
            }
            out.push(self.elem()?);
        }
    }

    fn body(&mut self) -> Result<Vec<Node>, ParseError> {
        self.expect(b'{')?;
        let l = self.list()?;
        self.expect(b'}')?;
        Ok(l)
    }

    fn elem(&mut self) -> Result<Node, ParseError> {
        match self.peek_word() {
            "fixed-point" | "sequence" => {
                let header = self.until(b"{,}")?;
                let body = self.body()?;
                Ok(Node::Group(Group { header, body }))
            }
            "if" => {
                self.i += 2;
                self.expect(b'(')?;
                let cond = self.until(b")")?;
                self.expect(b')')?;
                let then_body = self.body()?;
                self.skip_ws();
                let else_body = if self.peek_word() == "else" {
                    self.i += 4;
                    self.body()?
                } else {
                    Vec::new()
                };
                Ok(Node::If(IfNode {
                    cond,
                    then_body,
                    else_body,
                }))
            }
            _ => {
                let leaf = self.until(b",;}")?;
                if leaf.is_empty() {
                    return Err(ParseError(format!("empty entry at byte {}", self.i)));
                }
                Ok(Node::Leaf(leaf))
            }
        }
    }
}

/// Prints a list in the inline form.
pub fn print(list: &[Node]) -> String {
    let mut out = String::new();
    print_into(list, &mut out);
    out
}

fn print_into(list: &[Node], out: &mut String) {
    for (k, n) in list.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        match n {
            Node::Leaf(s) => out.push_str(s),
            Node::Group(g) => {
                out.push_str(&g.header);
                out.push('{');
                print_into(&g.body, out);
                out.push('}');
            }
            Node::If(i) => {
                out.push_str(&format!("if({}){{", i.cond));
                print_into(&i.then_body, out);
                out.push('}');
                if !i.else_body.is_empty() {
                    out.push_str("else{");
                    print_into(&i.else_body, out);
                    out.push('}');
                }
            }
        }
    }
}

/// Number of leaves.
pub fn count_leaves(list: &[Node]) -> usize {
    list.iter()
        .map(|n| match n {
            Node::Leaf(_) => 1,
            Node::Group(g) => count_leaves(&g.body),
            Node::If(i) => count_leaves(&i.then_body) + count_leaves(&i.else_body),
        })
        .sum()
}

/// The leaves' texts in order.
pub fn leaves(list: &[Node]) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(l: &[Node], out: &mut Vec<String>) {
        for n in l {
            match n {
                Node::Leaf(s) => out.push(s.clone()),
                Node::Group(g) => walk(&g.body, out),
                Node::If(i) => {
                    walk(&i.then_body, out);
                    walk(&i.else_body, out);
                }
            }
        }
    }
    walk(list, &mut out);
    out
}

/// Keeps the leaves whose (pre-order) number satisfies `keep`, dropping groups and
/// conditionals left empty. An `if` whose `then` part empties but whose `else` part
/// does not becomes `if(!cond){else part}`.
pub fn retain_leaves(list: &[Node], keep: &dyn Fn(usize) -> bool) -> Vec<Node> {
    let mut counter = 0;
    retain_in(list, keep, &mut counter)
}

fn retain_in(list: &[Node], keep: &dyn Fn(usize) -> bool, k: &mut usize) -> Vec<Node> {
    let mut out = Vec::new();
    for n in list {
        match n {
            Node::Leaf(s) => {
                if keep(*k) {
                    out.push(Node::Leaf(s.clone()));
                }
                *k += 1;
            }
            Node::Group(g) => {
                let body = retain_in(&g.body, keep, k);
                if !body.is_empty() {
                    out.push(Node::Group(Group {
                        header: g.header.clone(),
                        body,
                    }));
                }
            }
            Node::If(i) => {
                let then_body = retain_in(&i.then_body, keep, k);
                let else_body = retain_in(&i.else_body, keep, k);
                match (then_body.is_empty(), else_body.is_empty()) {
                    (true, true) => {}
                    (true, false) => out.push(Node::If(IfNode {
                        cond: negate(&i.cond),
                        then_body: else_body,
                        else_body: Vec::new(),
                    })),
                    _ => out.push(Node::If(IfNode {
                        cond: i.cond.clone(),
                        then_body,
                        else_body,
                    })),
                }
            }
        }
    }
    out
}

fn negate(cond: &str) -> String {
    match cond.trim().strip_prefix('!') {
        Some(c) => c.trim().to_string(),
        None => format!("!{}", cond.trim()),
    }
}

/// Pre-order positions of every fixed-point group (as indices into a walk that counts
/// only groups), for [`reshape_fixed_point`].
pub fn fixed_points(list: &[Node]) -> Vec<(usize, String, Option<u32>)> {
    let mut out = Vec::new();
    let mut k = 0;
    fn walk(l: &[Node], k: &mut usize, out: &mut Vec<(usize, String, Option<u32>)>) {
        for n in l {
            match n {
                Node::Leaf(_) => {}
                Node::Group(g) => {
                    if g.is_fixed_point() {
                        out.push((*k, g.name(), g.max()));
                    }
                    *k += 1;
                    walk(&g.body, k, out);
                }
                Node::If(i) => {
                    walk(&i.then_body, k, out);
                    walk(&i.else_body, k, out);
                }
            }
        }
    }
    walk(list, &mut k, &mut out);
    out
}

/// Replaces group number `target` (in the numbering of [`fixed_points`]) by `copies`
/// one-shot `sequence` groups holding its body (`copies = 1` runs the body once; more
/// unrolls the fixed point). Sequence names are `NAME.1`, `NAME.2`, ….
pub fn reshape_fixed_point(list: &[Node], target: usize, copies: u32) -> Vec<Node> {
    let mut k = 0;
    reshape_in(list, target, copies, &mut k)
}

fn reshape_in(list: &[Node], target: usize, copies: u32, k: &mut usize) -> Vec<Node> {
    let mut out = Vec::new();
    for n in list {
        match n {
            Node::Leaf(_) => out.push(n.clone()),
            Node::Group(g) => {
                let me = *k;
                *k += 1;
                let body = reshape_in(&g.body, target, copies, k);
                if me == target {
                    let name = g.name();
                    for c in 1..=copies {
                        out.push(Node::Group(Group {
                            header: format!("sequence {name}.{c}"),
                            body: body.clone(),
                        }));
                    }
                } else {
                    out.push(Node::Group(Group {
                        header: g.header.clone(),
                        body,
                    }));
                }
            }
            Node::If(i) => out.push(Node::If(IfNode {
                cond: i.cond.clone(),
                then_body: reshape_in(&i.then_body, target, copies, k),
                else_body: reshape_in(&i.else_body, target, copies, k),
            })),
        }
    }
    out
}

/// Replaces every one-shot `sequence` group by its body (sequences only name things;
/// flattening them gives the shortest text).
pub fn flatten_sequences(list: &[Node]) -> Vec<Node> {
    let mut out = Vec::new();
    for n in list {
        match n {
            Node::Leaf(_) => out.push(n.clone()),
            Node::Group(g) if !g.is_fixed_point() => out.extend(flatten_sequences(&g.body)),
            Node::Group(g) => out.push(Node::Group(Group {
                header: g.header.clone(),
                body: flatten_sequences(&g.body),
            })),
            Node::If(i) => out.push(Node::If(IfNode {
                cond: i.cond.clone(),
                then_body: flatten_sequences(&i.then_body),
                else_body: flatten_sequences(&i.else_body),
            })),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str = "verify,dce,fixed-point cleanup(max=8,allow-nonconvergence) required{const-fold,dce{x=1} as d2,sequence s{phi-cleanup}},if(!fast-math){a}else{b,c},sroa as \"x y\"";

    #[test]
    fn round_trips() {
        let l = parse(P).unwrap();
        assert_eq!(print(&l), P);
        assert_eq!(count_leaves(&l), 9);
        assert_eq!(
            leaves(&l),
            vec![
                "verify",
                "dce",
                "const-fold",
                "dce{x=1} as d2",
                "phi-cleanup",
                "a",
                "b",
                "c",
                "sroa as \"x y\""
            ]
        );
    }

    #[test]
    fn group_accessors() {
        let l = parse(P).unwrap();
        let Node::Group(g) = &l[2] else { panic!() };
        assert!(g.is_fixed_point());
        assert_eq!(g.name(), "cleanup");
        assert_eq!(g.max(), Some(8));
        let g2 = Group {
            header: "fixed-point(max=3)".into(),
            body: vec![],
        };
        assert_eq!(g2.name(), "fixed-point");
        assert_eq!(fixed_points(&l), vec![(0, "cleanup".to_string(), Some(8))]);
    }

    #[test]
    fn retain_drops_empty_groups_and_negates_ifs() {
        let l = parse(P).unwrap();
        let keep = [1usize, 6, 7];
        let r = retain_leaves(&l, &|k| keep.contains(&k));
        assert_eq!(print(&r), "dce,if(fast-math){b,c}");
        let r = retain_leaves(&l, &|k| k == 4 || k == 5);
        assert_eq!(
            print(&r),
            "fixed-point cleanup(max=8,allow-nonconvergence) required{sequence s{phi-cleanup}},if(!fast-math){a}"
        );
    }

    #[test]
    fn reshape_and_flatten() {
        let l = parse("a,fixed-point f(max=4){b,c},d").unwrap();
        assert_eq!(
            print(&reshape_fixed_point(&l, 0, 2)),
            "a,sequence f.1{b,c},sequence f.2{b,c},d"
        );
        assert_eq!(
            print(&flatten_sequences(&reshape_fixed_point(&l, 0, 2))),
            "a,b,c,b,c,d"
        );
    }

    #[test]
    fn errors() {
        assert!(parse("a,{b").is_err());
        assert!(parse("fixed-point(max=2){a").is_err());
        assert!(parse("a)").is_err());
        assert!(parse("x \"unterminated").is_err());
        assert_eq!(parse("").unwrap(), vec![]);
        assert_eq!(parse(" a , b ").unwrap().len(), 2);
    }
}

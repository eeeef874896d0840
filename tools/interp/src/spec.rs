//! `SPEC.json`: the buffers and values a kernel runs on, and the printed results.
//!
//! Engine-neutral: a bound specification is one [`ArgValue`] per kernel argument,
//! buffers as native-layout bytes (LuisaCompute's layout, as `TypeStore::size_of`
//! computes it), so any engine (the interpreter, Vulkan) can take it, and results are
//! printed from bytes the same way.
//!
//! ```json
//! {"dispatch": [4, 1, 1], "block_size": [4, 1, 1],
//!  "buffers": [{"arg": 0, "type": "f32", "init": [1.5, "nan", "0x3f800000"]},
//!              {"arg": 1, "value": 2}]}
//! ```
//! Integers are exact to 64 bits; floats are JSON numbers (read with one correct
//! rounding from the decimal text), `"nan"`, `"inf"`, `"-inf"`, or a hex bit pattern
//! string; vectors, arrays and structs (member order) are arrays; matrices are arrays of
//! columns.

use crate::exec::ArgValue;
use crate::layout::write_scalar;
use crate::scalar::{self, int_range};
use serde_json::Value as J;
use xir_ir::{ArgKind, FuncId, Module, ScalarKind, Type, TypeData, TypeStore};

/// A parsed specification.
#[derive(Clone, Debug, Default)]
pub struct Spec {
    /// Entries in file order.
    pub entries: Vec<Entry>,
    /// `dispatch`, when given.
    pub dispatch: Option<[u32; 3]>,
    /// `block_size`, when given.
    pub block_size: Option<[u32; 3]>,
}

/// One entry.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Argument index.
    pub arg: usize,
    /// Declared element (buffer) or value type, as written.
    pub ty: Option<String>,
    /// `init` (buffers) or `value` (value arguments).
    pub data: EntryData,
}

/// Buffer contents or a value.
#[derive(Clone, Debug)]
pub enum EntryData {
    /// `init`: one JSON element per buffer element.
    Init(Vec<J>),
    /// `value`.
    Value(J),
}

/// Parses `SPEC.json` text.
pub fn parse(text: &str) -> Result<Spec, String> {
    let j: J =
        serde_json::from_str(text).map_err(|e| format!("SPEC.json is not valid JSON: {e}"))?;
    let mut spec = Spec::default();
    let list = match &j {
        J::Array(a) => a.clone(),
        J::Object(o) => {
            if let Some(d) = o.get("dispatch") {
                spec.dispatch = Some(triple(d, "dispatch")?);
            }
            if let Some(d) = o.get("block_size") {
                spec.block_size = Some(triple(d, "block_size")?);
            }
            match o.get("buffers") {
                Some(J::Array(a)) => a.clone(),
                Some(_) => return Err("SPEC.json: `buffers` must be a list".into()),
                None => return Err("SPEC.json: an object needs a `buffers` list".into()),
            }
        }
        _ => {
            return Err(
                "SPEC.json must be a list of buffers or an object with a `buffers` list".into(),
            );
        }
    };
    for (k, e) in list.iter().enumerate() {
        let J::Object(o) = e else {
            return Err(format!("SPEC.json: entry {k} is not an object"));
        };
        let arg = o.get("arg").and_then(|a| a.as_u64()).ok_or_else(|| {
            format!("SPEC.json: entry {k} needs an `arg` index (a non-negative integer)")
        })? as usize;
        let ty = match o.get("type") {
            Some(J::String(s)) => Some(s.clone()),
            Some(_) => {
                return Err(format!(
                    "SPEC.json: argument {arg}: `type` must be a string"
                ));
            }
            None => None,
        };
        let data = match (o.get("init"), o.get("value")) {
            (Some(J::Array(a)), None) => EntryData::Init(a.clone()),
            (Some(_), None) => {
                return Err(format!("SPEC.json: argument {arg}: `init` must be a list"));
            }
            (None, Some(v)) => EntryData::Value(v.clone()),
            (Some(_), Some(_)) => {
                return Err(format!(
                    "SPEC.json: argument {arg}: give `init` or `value`, not both"
                ));
            }
            (None, None) => {
                return Err(format!(
                    "SPEC.json: argument {arg}: needs `init` (a buffer) or `value`"
                ));
            }
        };
        spec.entries.push(Entry { arg, ty, data });
    }
    Ok(spec)
}

/// Reads `X,Y,Z` (or `X` / `X,Y`; missing axes are 1). An axis may be 0: such a dispatch
/// runs no thread (as `vkCmdDispatch` with a zero count does); block sizes are checked
/// where they are used.
pub fn parse_triple(s: &str, what: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("{what} must be X,Y,Z"));
    }
    let mut out = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        out[i] = p
            .parse()
            .map_err(|_| format!("{what}: '{p}' is not a non-negative integer"))?;
    }
    Ok(out)
}

fn triple(j: &J, what: &str) -> Result<[u32; 3], String> {
    let bad = || format!("SPEC.json: `{what}` must be a number or a list of up to three numbers");
    let mut out = [1u32; 3];
    match j {
        J::Number(n) => {
            out[0] = n
                .as_u64()
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(bad)?
        }
        J::Array(a) if !a.is_empty() && a.len() <= 3 => {
            for (i, v) in a.iter().enumerate() {
                out[i] = v
                    .as_u64()
                    .and_then(|v| u32::try_from(v).ok())
                    .ok_or_else(bad)?;
            }
        }
        _ => return Err(bad()),
    }
    Ok(out)
}

/// Binds a specification to `kernel`'s arguments: one [`ArgValue`] per argument.
pub fn bind(spec: &Spec, m: &Module, kernel: FuncId) -> Result<Vec<ArgValue>, String> {
    let f = m.func(kernel);
    let mut out: Vec<Option<ArgValue>> = vec![None; f.arg_order.len()];
    for e in &spec.entries {
        let Some(&a) = f.arg_order.get(e.arg) else {
            return Err(format!(
                "SPEC.json: argument {} does not exist (the kernel has {} arguments)",
                e.arg,
                f.arg_order.len()
            ));
        };
        if out[e.arg].is_some() {
            return Err(format!("SPEC.json: argument {} is given twice", e.arg));
        }
        let ad = &f.args[a];
        let ts = &m.types;
        let v = match (&ad.kind, ts.get(ad.ty), &e.data) {
            (ArgKind::Resource, TypeData::Buffer { elem }, EntryData::Init(items)) => {
                let what = format!("buffer argument {}", e.arg);
                let elem_t = match elem {
                    Some(t) => *t,
                    None => {
                        // A byte buffer: `type` names the element type of the initial contents.
                        let Some(s) = &e.ty else {
                            return Err(format!(
                                "SPEC.json: {what} is a byte buffer; give the `type` of its `init` elements"
                            ));
                        };
                        let want = parse_type(s)
                            .map_err(|err| format!("SPEC.json: {what}: type '{s}': {err}"))?;
                        let mut bytes = Vec::new();
                        for (i, item) in items.iter().enumerate() {
                            write_desc(&want, item, &mut bytes, &format!("{what}, element {i}"))?;
                        }
                        out[e.arg] = Some(ArgValue::Buffer(bytes));
                        continue;
                    }
                };
                if let Some(s) = &e.ty {
                    check_type(ts, elem_t, s, &what)?;
                }
                let size = ts.size_of(elem_t) as usize;
                let mut bytes = vec![0u8; size * items.len()];
                for (i, item) in items.iter().enumerate() {
                    write_value(
                        ts,
                        elem_t,
                        item,
                        &mut bytes[i * size..],
                        &format!("{what}, element {i}"),
                    )?;
                }
                ArgValue::Buffer(bytes)
            }
            (ArgKind::Value, _, EntryData::Value(j)) => {
                let what = format!("value argument {}", e.arg);
                if let Some(s) = &e.ty {
                    check_type(ts, ad.ty, s, &what)?;
                }
                let mut bytes = vec![0u8; ts.size_of(ad.ty) as usize];
                write_value(ts, ad.ty, j, &mut bytes, &what)?;
                ArgValue::Value(bytes)
            }
            (ArgKind::Resource, TypeData::Buffer { .. }, EntryData::Value(_)) => {
                return Err(format!(
                    "SPEC.json: argument {} is a buffer; give `init`, not `value`",
                    e.arg
                ));
            }
            (ArgKind::Value, _, EntryData::Init(_)) => {
                return Err(format!(
                    "SPEC.json: argument {} is a value; give `value`, not `init`",
                    e.arg
                ));
            }
            _ => {
                return Err(format!(
                    "SPEC.json: argument {} is a {} argument, which xir-run cannot bind",
                    e.arg,
                    ad.kind.name()
                ));
            }
        };
        out[e.arg] = Some(v);
    }
    out.into_iter()
        .enumerate()
        .map(|(i, v)| {
            v.ok_or_else(|| format!("SPEC.json: argument {i} of the kernel has no entry"))
        })
        .collect()
}

/// A type written in a specification.
#[derive(Clone, Debug, PartialEq)]
pub enum Desc {
    /// A scalar.
    Scalar(ScalarKind),
    /// `vector<T, N>`.
    Vector(ScalarKind, u8),
    /// `matrix<T, N>`.
    Matrix(ScalarKind, u8),
    /// `array<T, N>`.
    Array(Box<Desc>, u64),
    /// `struct { T, … }`.
    Struct(Vec<Desc>),
}

/// Parses a type in XIR text spelling.
pub fn parse_type(s: &str) -> Result<Desc, String> {
    let toks = tokenize(s);
    let mut pos = 0;
    let d = parse_desc(&toks, &mut pos, 0)?;
    if pos != toks.len() {
        return Err(format!("unexpected '{}'", toks[pos]));
    }
    Ok(d)
}

fn tokenize(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in s.chars() {
        if c.is_alphanumeric() || c == '_' {
            cur.push(c);
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn parse_desc(t: &[String], pos: &mut usize, depth: usize) -> Result<Desc, String> {
    if depth > 64 {
        return Err("type nested too deeply".into());
    }
    let next = |pos: &mut usize| -> Result<String, String> {
        let s = t.get(*pos).cloned().ok_or("unexpected end of type")?;
        *pos += 1;
        Ok(s)
    };
    let expect = |pos: &mut usize, want: &str| -> Result<(), String> {
        let s = t.get(*pos).cloned().unwrap_or_default();
        if s != want {
            return Err(format!("expected '{want}', found '{s}'"));
        }
        *pos += 1;
        Ok(())
    };
    let word = next(pos)?;
    match word.as_str() {
        "vector" | "matrix" | "array" => {
            expect(pos, "<")?;
            let elem = parse_desc(t, pos, depth + 1)?;
            expect(pos, ",")?;
            let n: u64 = next(pos)?
                .parse()
                .map_err(|_| "expected a count".to_string())?;
            expect(pos, ">")?;
            match (word.as_str(), elem) {
                ("array", e) => Ok(Desc::Array(Box::new(e), n)),
                ("vector", Desc::Scalar(k)) if (2..=4).contains(&n) => Ok(Desc::Vector(k, n as u8)),
                ("matrix", Desc::Scalar(k)) if (2..=4).contains(&n) => Ok(Desc::Matrix(k, n as u8)),
                _ => Err(format!("bad {word} type")),
            }
        }
        "struct" => {
            expect(pos, "{")?;
            let mut members = Vec::new();
            loop {
                members.push(parse_desc(t, pos, depth + 1)?);
                match next(pos)?.as_str() {
                    "," => continue,
                    "}" => break,
                    other => return Err(format!("expected ',' or '}}', found '{other}'")),
                }
            }
            Ok(Desc::Struct(members))
        }
        w => ScalarKind::from_text_name(w)
            .map(Desc::Scalar)
            .ok_or_else(|| format!("unknown type '{w}'")),
    }
}

/// The specification spelling of a module type.
pub fn describe(ts: &TypeStore, t: Type) -> Option<Desc> {
    Some(match ts.get(t) {
        TypeData::Scalar(k) => Desc::Scalar(*k),
        TypeData::Vector { elem, len } => Desc::Vector(ts.scalar_kind(*elem)?, *len),
        TypeData::Matrix { elem, n } => Desc::Matrix(ts.scalar_kind(*elem)?, *n),
        TypeData::Array { elem, len } => Desc::Array(Box::new(describe(ts, *elem)?), *len),
        TypeData::Struct { members, .. } => Desc::Struct(
            members
                .iter()
                .map(|m| describe(ts, *m))
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

impl std::fmt::Display for Desc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Desc::Scalar(k) => write!(f, "{}", k.text_name()),
            Desc::Vector(k, n) => write!(f, "vector<{}, {n}>", k.text_name()),
            Desc::Matrix(k, n) => write!(f, "matrix<{}, {n}>", k.text_name()),
            Desc::Array(e, n) => write!(f, "array<{e}, {n}>"),
            Desc::Struct(ms) => {
                write!(f, "struct {{ ")?;
                for (i, m) in ms.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{m}")?;
                }
                write!(f, " }}")
            }
        }
    }
}

fn check_type(ts: &TypeStore, t: Type, s: &str, what: &str) -> Result<(), String> {
    let want = parse_type(s).map_err(|e| format!("SPEC.json: {what}: type '{s}': {e}"))?;
    let have = describe(ts, t).ok_or_else(|| {
        format!("SPEC.json: {what}: the kernel's type cannot be given in SPEC.json")
    })?;
    if want != have {
        return Err(format!(
            "SPEC.json: {what}: type '{s}' does not match the kernel's '{have}'"
        ));
    }
    Ok(())
}

/// Writes one JSON element of type `t` into its native image `out`.
fn write_value(ts: &TypeStore, t: Type, j: &J, out: &mut [u8], what: &str) -> Result<(), String> {
    match ts.get(t) {
        TypeData::Scalar(k) => write_scalar(out, 0, *k, scalar_from_json(*k, j, what)?),
        TypeData::Vector { elem, len } => {
            let items = list(j, *len as usize, what)?;
            let k = ts.scalar_kind(*elem).expect("vector element");
            for (i, it) in items.iter().enumerate() {
                write_scalar(
                    out,
                    i * k.size() as usize,
                    k,
                    scalar_from_json(k, it, &format!("{what}[{i}]"))?,
                );
            }
        }
        TypeData::Matrix { elem, n } => {
            let cols = list(j, *n as usize, what)?;
            let k = ts.scalar_kind(*elem).expect("matrix element");
            let col = k.size() as usize * if *n == 2 { 2 } else { 4 };
            for (c, cj) in cols.iter().enumerate() {
                let rows = list(cj, *n as usize, &format!("{what} column {c}"))?;
                for (r, rj) in rows.iter().enumerate() {
                    let v = scalar_from_json(k, rj, &format!("{what} column {c}[{r}]"))?;
                    write_scalar(out, c * col + r * k.size() as usize, k, v);
                }
            }
        }
        TypeData::Array { elem, len } => {
            let items = list(j, *len as usize, what)?;
            let s = ts.size_of(*elem) as usize;
            for (i, it) in items.iter().enumerate() {
                write_value(ts, *elem, it, &mut out[i * s..], &format!("{what}[{i}]"))?;
            }
        }
        TypeData::Struct { members, .. } => {
            let items = list(j, members.len(), what)?;
            for ((m, off), it) in members.iter().zip(ts.struct_offsets(t)).zip(items) {
                write_value(
                    ts,
                    *m,
                    it,
                    &mut out[off as usize..],
                    &format!("{what} member"),
                )?;
            }
        }
        _ => {
            return Err(format!(
                "SPEC.json: {what}: this type cannot be given in SPEC.json"
            ));
        }
    }
    Ok(())
}

/// Appends a byte-buffer element of a written type (packed, natural alignment).
fn write_desc(d: &Desc, j: &J, out: &mut Vec<u8>, what: &str) -> Result<(), String> {
    match d {
        Desc::Scalar(k) => {
            let at = out.len();
            out.resize(at + k.size() as usize, 0);
            write_scalar(out, at, *k, scalar_from_json(*k, j, what)?);
        }
        Desc::Vector(k, n) => {
            for (i, it) in list(j, *n as usize, what)?.iter().enumerate() {
                write_desc(&Desc::Scalar(*k), it, out, &format!("{what}[{i}]"))?;
            }
        }
        Desc::Array(e, n) => {
            for (i, it) in list(j, *n as usize, what)?.iter().enumerate() {
                write_desc(e, it, out, &format!("{what}[{i}]"))?;
            }
        }
        Desc::Matrix(..) | Desc::Struct(_) => {
            return Err(format!(
                "SPEC.json: {what}: byte-buffer contents are scalars, vectors or arrays"
            ));
        }
    }
    Ok(())
}

fn list<'j>(j: &'j J, n: usize, what: &str) -> Result<&'j Vec<J>, String> {
    match j {
        J::Array(a) if a.len() == n => Ok(a),
        J::Array(a) => Err(format!(
            "SPEC.json: {what}: expected {n} items, found {}",
            a.len()
        )),
        other => Err(format!(
            "SPEC.json: {what}: expected a list of {n} items, found {other}"
        )),
    }
}

/// One scalar lane from JSON.
pub fn scalar_from_json(k: ScalarKind, j: &J, what: &str) -> Result<u64, String> {
    use ScalarKind as K;
    let bad = |why: String| format!("SPEC.json: {what}: {why}");
    match k {
        K::Bool => j
            .as_bool()
            .map(|b| b as u64)
            .ok_or_else(|| bad(format!("expected true or false, found {j}"))),
        K::F16 | K::F32 | K::F64 => match j {
            J::String(s) => {
                let bits = (k.size() * 8) as u32;
                match s.as_str() {
                    "nan" => Ok(float_bits(k, f64::NAN)),
                    "inf" => Ok(float_bits(k, f64::INFINITY)),
                    "-inf" => Ok(float_bits(k, f64::NEG_INFINITY)),
                    h if h.starts_with("0x") => {
                        let v = u64::from_str_radix(&h[2..], 16)
                            .map_err(|_| bad(format!("'{h}' is not a hex bit pattern")))?;
                        if bits < 64 && v >> bits != 0 {
                            return Err(bad(format!(
                                "bit pattern '{h}' is wider than {bits} bits"
                            )));
                        }
                        Ok(v)
                    }
                    other => Err(bad(format!(
                        "'{other}' is not a float (use a number, \"nan\", \"inf\", \"-inf\" or \"0x…\" bits)"
                    ))),
                }
            }
            J::Number(n) => {
                let text = n.to_string();
                let v = match k {
                    K::F32 => text
                        .parse::<f32>()
                        .map(|x| x.to_bits() as u64)
                        .map_err(|e| e.to_string()),
                    K::F64 => text
                        .parse::<f64>()
                        .map(|x| x.to_bits())
                        .map_err(|e| e.to_string()),
                    _ => text
                        .parse::<f64>()
                        .map(|x| f16_from_decimal(&text, x).to_bits() as u64)
                        .map_err(|e| e.to_string()),
                }
                .map_err(|e| bad(format!("'{text}': {e}")))?;
                if scalar::float_value(k, v).is_infinite() {
                    return Err(bad(format!("{text} is out of range for {}", k.text_name())));
                }
                Ok(v)
            }
            other => Err(bad(format!("expected a float, found {other}"))),
        },
        _ => {
            let J::Number(n) = j else {
                return Err(bad(format!("expected an integer, found {j}")));
            };
            let text = n.to_string();
            let v: i128 = text
                .parse()
                .map_err(|_| bad(format!("{text} is not an integer")))?;
            let (lo, hi) = int_range(k);
            if v < lo || v > hi {
                return Err(bad(format!(
                    "{v} is out of range for {} ({lo}..={hi})",
                    k.text_name()
                )));
            }
            Ok((v as u64) & scalar::mask(k))
        }
    }
}

/// The `f16` nearest to the decimal `text` (ties to even), given `x`, the `f64` nearest
/// to it. Rounding `x` again is right except where `x` is exactly halfway between two
/// `f16`s: then the decimal may lie on either side of (or on) that midpoint, and ties to
/// even would be wrong unless it lies on it. There the decimal is compared with the
/// midpoint's exact decimal expansion, so the result is one correct rounding.
fn f16_from_decimal(text: &str, x: f64) -> half::f16 {
    use half::f16;
    let a = x.abs();
    let r = f16::from_f64(a);
    let rv = f64::from(r);
    if !x.is_finite() || rv == a {
        return f16::from_f64(x);
    }
    // The two neighbouring f16 magnitudes around |x| (2^16, the next binade, stands for
    // "overflow": values from the midpoint 65520 up round to infinity).
    let (lo, hi) = if r.is_infinite() {
        (f16::MAX, r)
    } else if rv > a {
        (f16::from_bits(r.to_bits() - 1), r)
    } else {
        (r, f16::from_bits(r.to_bits() + 1))
    };
    let hi_value = if hi.is_infinite() {
        65536.0
    } else {
        f64::from(hi)
    };
    if (f64::from(lo) + hi_value) / 2.0 != a {
        return f16::from_f64(x);
    }
    // |x| is a midpoint: round by where the decimal itself lies.
    let up = match compare_decimal(text.trim_start_matches('-'), &format!("{a:.80e}")) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => lo.to_bits() & 1 == 1,
    };
    let m = if up { hi } else { lo };
    if x < 0.0 { -m } else { m }
}

/// Compares two non-negative decimal numbers given as text (`123.45`, `1.5e-3`).
fn compare_decimal(a: &str, b: &str) -> std::cmp::Ordering {
    // (significant digits without leading/trailing zeros, exponent of the first digit)
    fn norm(s: &str) -> (String, i64) {
        let (mant, exp) = match s.find(['e', 'E']) {
            Some(i) => (&s[..i], s[i + 1..].parse::<i64>().unwrap_or(0)),
            None => (s, 0),
        };
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        let all: String = int.chars().chain(frac.chars()).collect();
        let lead = all.len() - all.trim_start_matches('0').len();
        let digits = all
            .trim_start_matches('0')
            .trim_end_matches('0')
            .to_string();
        (digits, exp + int.len() as i64 - 1 - lead as i64)
    }
    let (da, ea) = norm(a);
    let (db, eb) = norm(b);
    match (da.is_empty(), db.is_empty()) {
        (true, true) => return std::cmp::Ordering::Equal,
        (true, false) => return std::cmp::Ordering::Less,
        (false, true) => return std::cmp::Ordering::Greater,
        _ => {}
    }
    ea.cmp(&eb).then_with(|| {
        let n = da.len().max(db.len());
        format!("{da:0<n$}").cmp(&format!("{db:0<n$}"))
    })
}

fn float_bits(k: ScalarKind, x: f64) -> u64 {
    match k {
        ScalarKind::F16 => half::f16::from_f64(x).to_bits() as u64,
        ScalarKind::F32 => (x as f32).to_bits() as u64,
        _ => x.to_bits(),
    }
}

/// How floats are printed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum FloatFormat {
    /// Shortest decimal that reads back bit-exactly; `"nan"`, `"inf"`, `"-inf"`.
    #[default]
    Decimal,
    /// Hex bit patterns (`"0x3f800000"`).
    Bits,
}

fn scalar_text(k: ScalarKind, v: u64, ff: FloatFormat, json: bool) -> String {
    let s = scalar::format_lane(k, v, ff == FloatFormat::Bits && k.is_float());
    if json && k.is_float() && (ff == FloatFormat::Bits || s == "nan" || s.ends_with("inf")) {
        format!("\"{s}\"")
    } else {
        s
    }
}

fn value_text(ts: &TypeStore, t: Type, bytes: &[u8], ff: FloatFormat, json: bool) -> String {
    let rd = |k: ScalarKind, off: usize| crate::layout::read_scalar(bytes, off, k);
    let join =
        |parts: Vec<String>, open: &str, close: &str| format!("{open}{}{close}", parts.join(", "));
    let (lo, hi) = if json { ("[", "]") } else { ("(", ")") };
    match ts.get(t) {
        TypeData::Scalar(k) => scalar_text(*k, rd(*k, 0), ff, json),
        TypeData::Vector { elem, len } => {
            let k = ts.scalar_kind(*elem).expect("vector");
            join(
                (0..*len as usize)
                    .map(|i| scalar_text(k, rd(k, i * k.size() as usize), ff, json))
                    .collect(),
                lo,
                hi,
            )
        }
        TypeData::Matrix { elem, n } => {
            let k = ts.scalar_kind(*elem).expect("matrix");
            let col = k.size() as usize * if *n == 2 { 2 } else { 4 };
            let cols = (0..*n as usize)
                .map(|c| {
                    join(
                        (0..*n as usize)
                            .map(|r| {
                                scalar_text(k, rd(k, c * col + r * k.size() as usize), ff, json)
                            })
                            .collect(),
                        lo,
                        hi,
                    )
                })
                .collect();
            join(cols, "[", "]")
        }
        TypeData::Array { elem, len } => {
            let s = ts.size_of(*elem) as usize;
            join(
                (0..*len as usize)
                    .map(|i| value_text(ts, *elem, &bytes[i * s..], ff, json))
                    .collect(),
                "[",
                "]",
            )
        }
        TypeData::Struct { members, .. } => {
            let parts = members
                .iter()
                .zip(ts.struct_offsets(t))
                .map(|(m, o)| value_text(ts, *m, &bytes[o as usize..], ff, json))
                .collect();
            if json {
                join(parts, "[", "]")
            } else {
                join(parts, "{", "}")
            }
        }
        _ => "?".into(),
    }
}

/// The element type to print a buffer argument with (byte buffers: as the spec typed
/// their contents, else `u8`... bytes as u32 words are not assumed: byte buffers print
/// as bytes).
fn print_elem(m: &Module, kernel: FuncId, arg: usize) -> Option<Option<Type>> {
    let f = m.func(kernel);
    let a = &f.args[f.arg_order[arg]];
    match m.types.get(a.ty) {
        TypeData::Buffer { elem } if a.kind == ArgKind::Resource => Some(*elem),
        _ => None,
    }
}

/// Every buffer argument's final contents as `(arg, element texts)`.
fn elements(
    m: &Module,
    kernel: FuncId,
    buffers: &[Option<Vec<u8>>],
    ff: FloatFormat,
    json: bool,
) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    for (i, b) in buffers.iter().enumerate() {
        let Some(bytes) = b else { continue };
        let Some(elem) = print_elem(m, kernel, i) else {
            continue;
        };
        let items = match elem {
            Some(t) => {
                let s = (m.types.size_of(t) as usize).max(1);
                (0..bytes.len() / s)
                    .map(|k| value_text(&m.types, t, &bytes[k * s..], ff, json))
                    .collect()
            }
            None => bytes.iter().map(|b| b.to_string()).collect(),
        };
        out.push((i, items));
    }
    out
}

/// Results as JSON: `[{"arg": INDEX, "values": [...]}, …]`, one buffer per line.
pub fn results_json(
    m: &Module,
    kernel: FuncId,
    buffers: &[Option<Vec<u8>>],
    ff: FloatFormat,
) -> String {
    let rows: Vec<String> = elements(m, kernel, buffers, ff, true)
        .into_iter()
        .map(|(i, v)| format!("  {{\"arg\": {i}, \"values\": [{}]}}", v.join(", ")))
        .collect();
    if rows.is_empty() {
        "[]\n".into()
    } else {
        format!("[\n{}\n]\n", rows.join(",\n"))
    }
}

/// Results as text: one line per element, `arg<I>[<k>] = <value>`.
pub fn results_text(
    m: &Module,
    kernel: FuncId,
    buffers: &[Option<Vec<u8>>],
    ff: FloatFormat,
) -> String {
    let mut s = String::new();
    for (i, v) in elements(m, kernel, buffers, ff, false) {
        for (k, e) in v.iter().enumerate() {
            s.push_str(&format!("arg{i}[{k}] = {e}\n"));
        }
    }
    s
}

#[cfg(test)]
mod f16_decimal_tests {
    use super::f16_from_decimal;

    fn read(text: &str) -> u16 {
        f16_from_decimal(text, text.parse::<f64>().unwrap()).to_bits()
    }

    #[test]
    fn decimals_next_to_a_midpoint_round_once() {
        // 1 + 2^-11 = 1.00048828125 is halfway between 0x3c00 and 0x3c01; the f64 nearest
        // to each decimal below is that midpoint, so rounding it again would tie to even.
        assert_eq!(read("1.00048828125"), 0x3c00);
        assert_eq!(read("1.00048828125000000000001"), 0x3c01);
        assert_eq!(read("1.00048828124999999999999"), 0x3c00);
        assert_eq!(read("-1.00048828125000000000001"), 0xbc01);
        // 1 + 3·2^-11 is halfway between 0x3c01 and 0x3c02: ties go to the even 0x3c02.
        assert_eq!(read("1.00146484375"), 0x3c02);
        assert_eq!(read("1.00146484374999999999999"), 0x3c01);
        assert_eq!(read("100146484374999999999999e-23"), 0x3c01);
        // Subnormal midpoint 2^-25 (between 0 and the least subnormal 2^-24).
        assert_eq!(read("2.98023223876953125e-8"), 0x0000);
        assert_eq!(read("2.980232238769531250000001e-8"), 0x0001);
        // Just below the overflow threshold 65520 stays finite.
        assert_eq!(read("65519.99999999999999999"), 0x7bff);
        // Not a midpoint: plain rounding.
        assert_eq!(read("0.1"), 0x2e66);
        assert_eq!(read("65504"), 0x7bff);
    }
}

//! Formatting of printed values (`print`).

use super::*;

/// Formats a value's lanes (scalars bare, several lanes in parentheses).
pub fn format_value(lanes: &[u64], plan: &[(u32, ScalarKind)]) -> String {
    if plan.len() == 1 {
        return scalar::format_lane(plan[0].1, lanes[0], false);
    }
    let parts: Vec<String> = plan
        .iter()
        .enumerate()
        .map(|(i, &(_, k))| scalar::format_lane(k, lanes[i], false))
        .collect();
    format!("({})", parts.join(", "))
}

/// Substitutes `{}` in `format` with the values in order; values left over follow,
/// separated by spaces.
pub fn render_print(format: &str, vals: &[String]) -> String {
    let mut out = String::new();
    let mut it = vals.iter();
    let mut rest = format;
    while let Some(p) = rest.find("{}") {
        match it.next() {
            Some(v) => {
                out.push_str(&rest[..p]);
                out.push_str(v);
                rest = &rest[p + 2..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    for v in it {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(v);
    }
    out
}

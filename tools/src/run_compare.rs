//! `xir-run --expect FILE [--float-ulps N]`: compares the printed results (text format,
//! floats as bit patterns) with an expected file, element by element.
//!
//! Everything that is not a float bit pattern (`0x` followed by 4, 8 or 16 hex digits:
//! f16, f32, f64) must be identical. Floats may differ by at most N units in the last
//! place (default 0: the same bits). The distance is taken on the ordered integer image
//! of the bits, so +0 and -0 are 0 apart; two NaNs compare equal only bit for bit.
//! The tolerance exists for ops whose precision Vulkan leaves to the implementation
//! (division, `smoothstep`, transcendentals); docs/codegen.md lists which kernels use it
//! and why.

/// Compares `actual` with `expected`; `Err` lists the differences (at most 20).
pub fn compare(expected: &str, actual: &str, ulps: u64) -> Result<(), String> {
    let e: Vec<&str> = expected.lines().collect();
    let a: Vec<&str> = actual.lines().collect();
    let mut diffs = Vec::new();
    if e.len() != a.len() {
        diffs.push(format!("{} result lines, {} expected", a.len(), e.len()));
    }
    for (k, (el, al)) in e.iter().zip(&a).enumerate() {
        if let Err(why) = line(el, al, ulps) {
            diffs.push(format!(
                "line {}: expected '{el}', got '{al}' ({why})",
                k + 1
            ));
        }
    }
    if diffs.is_empty() {
        return Ok(());
    }
    let n = diffs.len();
    diffs.truncate(20);
    let mut s = diffs.join("\n  ");
    if n > 20 {
        s.push_str(&format!("\n  ... and {} more", n - 20));
    }
    Err(format!("{n} difference(s):\n  {s}"))
}

fn tokens(s: &str) -> Vec<&str> {
    s.split(|c: char| c.is_whitespace() || "(){}[],=".contains(c))
        .filter(|t| !t.is_empty())
        .collect()
}

fn line(e: &str, a: &str, ulps: u64) -> Result<(), String> {
    if e == a {
        return Ok(());
    }
    let (te, ta) = (tokens(e), tokens(a));
    if te.len() != ta.len() {
        return Err("different shape".into());
    }
    // Separators must agree too: compare the lines with every token blanked.
    let blank = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_whitespace() || "(){}[],=".contains(*c))
            .collect()
    };
    if blank(e) != blank(a) {
        return Err("different shape".into());
    }
    for (x, y) in te.iter().zip(&ta) {
        if x == y {
            continue;
        }
        match (float_bits(x), float_bits(y)) {
            (Some((bx, wx)), Some((by, wy))) if wx == wy && ulps > 0 => {
                let d = ulp_distance(bx, by, wx);
                if d > ulps {
                    return Err(match d {
                        u64::MAX => "NaN bits differ".to_string(),
                        _ => format!("{d} ULP apart, {ulps} allowed"),
                    });
                }
            }
            _ => return Err(format!("'{y}' is not '{x}'")),
        }
    }
    Ok(())
}

/// `0x` + 4/8/16 hex digits → (bits, width in bits).
fn float_bits(t: &str) -> Option<(u64, u32)> {
    let h = t.strip_prefix("0x")?;
    let w = match h.len() {
        4 => 16,
        8 => 32,
        16 => 64,
        _ => return None,
    };
    u64::from_str_radix(h, 16).ok().map(|b| (b, w))
}

/// Distance in representable values; `u64::MAX` when a NaN is involved (and the bits
/// differ).
fn ulp_distance(a: u64, b: u64, width: u32) -> u64 {
    let sign = 1u64 << (width - 1);
    let exp_mask = match width {
        16 => 0x7c00u64,
        32 => 0x7f80_0000,
        _ => 0x7ff0_0000_0000_0000,
    };
    let mant_mask = (sign - 1) & !exp_mask;
    let is_nan = |x: u64| x & exp_mask == exp_mask && x & mant_mask != 0;
    if is_nan(a) || is_nan(b) {
        return u64::MAX;
    }
    // Ordered image: negative values below positive ones, -0 and +0 together.
    let ord = |x: u64| -> i128 {
        let mag = (x & (sign - 1)) as i128;
        if x & sign != 0 { -mag } else { mag }
    };
    (ord(a) - ord(b)).unsigned_abs() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_and_tolerant() {
        assert!(compare("arg0[0] = 0x3f800000\n", "arg0[0] = 0x3f800000\n", 0).is_ok());
        assert!(compare("arg0[0] = 0x3f800000\n", "arg0[0] = 0x3f800001\n", 0).is_err());
        assert!(compare("arg0[0] = 0x3f800000\n", "arg0[0] = 0x3f800001\n", 1).is_ok());
        assert!(compare("arg0[0] = 0x3f800000\n", "arg0[0] = 0x3f800002\n", 1).is_err());
        // Exact means the same bits, the sign of zero included.
        assert!(compare("a = 0x00000000\n", "a = 0x80000000\n", 0).is_err());
        // With a tolerance, +0 and -0 are the same point; the smallest subnormals of
        // opposite signs are 2 apart.
        assert!(compare("a = 0x00000000\n", "a = 0x80000000\n", 1).is_ok());
        assert!(compare("a = 0x00000001\n", "a = 0x80000001\n", 1).is_err());
        assert!(compare("a = 0x00000001\n", "a = 0x80000001\n", 2).is_ok());
    }

    #[test]
    fn integers_and_shapes_are_exact() {
        assert!(compare("arg0[0] = 7\n", "arg0[0] = 8\n", 100).is_err());
        assert!(compare("a = (0x3c00, 1)\n", "a = (0x3c01, 1)\n", 1).is_ok());
        assert!(compare("a = (0x3c00, 1)\n", "a = (0x3c01, 2)\n", 1).is_err());
        assert!(compare("a = 1\n", "a = 1\nb = 2\n", 0).is_err());
        assert!(compare("a = 0x7fc00000\n", "a = 0x7fc00001\n", 5).is_err());
        assert!(compare("a = 0x3ff0000000000000\n", "a = 0x3ff0000000000001\n", 1).is_ok());
    }
}

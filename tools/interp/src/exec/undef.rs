//! Undefined-value tracking: which operands must be defined, and how undefined-ness
//! propagates through an op.

use super::*;

/// Operands of `op` that must be defined (branch conditions, addresses, stored values).
pub(super) fn check_defined(op: &Op, ud: &[u8]) -> Result<(), &'static str> {
    let bad = |reg: u32, n: u32| ud[reg as usize..(reg + n) as usize].iter().any(|&u| u != 0);
    let steps_bad = |st: &[Step]| {
        st.iter()
            .any(|s| matches!(s, Step::Dyn { reg, .. } if bad(*reg, 1)))
    };
    let is_bad = match op {
        Op::CondJump { c, .. } => bad(*c, 1),
        Op::Switch { sel, .. } => bad(*sel, 1),
        Op::Gep { base, steps, .. } => bad(*base, 1) || steps_bad(steps),
        Op::Extract { steps, .. } | Op::Insert { steps, .. } => steps_bad(steps),
        Op::Shuffle { idx, .. } => idx.iter().any(|(r, _)| bad(*r, 1)),
        Op::Load { ptr, .. } => bad(*ptr, 1),
        Op::Store { ptr, src, n } => bad(*ptr, 1) || bad(*src, *n),
        Op::BufRead { buf, idx, .. } => bad(*buf, 1) || bad(idx.0, 1),
        Op::BufWrite {
            buf,
            idx,
            src,
            plan,
            ..
        } => bad(*buf, 1) || bad(idx.0, 1) || bad(*src, plan.len() as u32),
        Op::Atomic { base, vals, .. } => {
            bad(vals.0, 1)
                || bad(vals.1, 1)
                || match base {
                    AtomicBase::Buffer {
                        buf, idx, steps, ..
                    } => bad(*buf, 1) || bad(idx.0, 1) || steps_bad(steps),
                    AtomicBase::Memory { ptr, steps } => bad(*ptr, 1) || steps_bad(steps),
                }
        }
        Op::Print { args, .. } => args.iter().any(|(r, p)| bad(*r, p.len() as u32)),
        Op::Assert { c, .. } => bad(*c, 1),
        _ => false,
    };
    if is_bad { Err(UNDEF_USE) } else { Ok(()) }
}

/// Marks result lanes undefined where their inputs are (lane by lane for elementwise
/// ops and moves, all lanes for the rest).
pub(super) fn propagate(op: &Op, r: &[u64], ud: &mut [u8]) {
    match op {
        Op::Un { dst, a, n, .. } | Op::Cast { dst, a, n, .. } => {
            for i in 0..*n {
                ud[(*dst + i) as usize] = ud[(*a + i) as usize];
            }
        }
        Op::Bin {
            dst,
            a,
            b,
            n,
            sa,
            sb,
            ..
        } => {
            for i in 0..*n {
                ud[(*dst + i) as usize] = ud[(*a + i * *sa) as usize] | ud[(*b + i * *sb) as usize];
            }
        }
        Op::Tern {
            dst,
            a,
            b,
            c,
            n,
            sa,
            sb,
            sc,
            ..
        } => {
            for i in 0..*n {
                ud[(*dst + i) as usize] = ud[(*a + i * *sa) as usize]
                    | ud[(*b + i * *sb) as usize]
                    | ud[(*c + i * *sc) as usize];
            }
        }
        Op::Select {
            dst,
            f,
            t,
            c,
            n,
            sc,
        } => {
            for i in 0..*n {
                ud[(*dst + i) as usize] =
                    ud[(*c + i * *sc) as usize] | ud[(*t + i) as usize] | ud[(*f + i) as usize];
            }
        }
        Op::Mov { dst, src, n } => {
            ud.copy_within(*src as usize..(*src + *n) as usize, *dst as usize)
        }
        Op::Moves { pairs } => {
            for &(d, s) in pairs.iter() {
                ud[d as usize] = ud[s as usize];
            }
        }
        Op::Pure { inputs, out, .. } => {
            let u = inputs
                .iter()
                .any(|&(s, n)| ud[s as usize..(s + n) as usize].iter().any(|&x| x != 0))
                as u8;
            ud[out.0 as usize..(out.0 + out.1) as usize].fill(u);
        }
        Op::Extract { dst, src, n, steps } => {
            if let Ok(off) = walk(r, steps) {
                ud.copy_within(
                    (*src + off) as usize..(*src + off + *n) as usize,
                    *dst as usize,
                );
            }
        }
        Op::Insert {
            dst,
            agg,
            elem,
            n,
            steps,
        } => {
            ud.copy_within(agg.0 as usize..(agg.0 + agg.1) as usize, *dst as usize);
            if let Ok(off) = walk(r, steps) {
                ud.copy_within(*elem as usize..(*elem + *n) as usize, (*dst + off) as usize);
            }
        }
        Op::Shuffle {
            dst,
            src,
            idx,
            count,
        } => {
            for (k, &(reg, kind)) in idx.iter().enumerate() {
                let i = int_value(kind, r[reg as usize]);
                if i >= 0 && (i as u64) < *count {
                    ud[*dst as usize + k] = ud[*src as usize + i as usize];
                }
            }
        }
        Op::Gep { dst, .. } | Op::SharedAlloca { dst, .. } | Op::Alloca { dst, .. } => {
            ud[*dst as usize] = 0
        }
        Op::Load { dst, n, .. } => ud[*dst as usize..(*dst + *n) as usize].fill(0),
        Op::BufRead { dst, plan, .. } => ud[*dst as usize..*dst as usize + plan.len()].fill(0),
        Op::Bitcast {
            dst, a, from, to, ..
        } => {
            let u = ud[*a as usize..*a as usize + from.len()]
                .iter()
                .any(|&x| x != 0) as u8;
            ud[*dst as usize..*dst as usize + to.len()].fill(u);
        }
        _ => {}
    }
}

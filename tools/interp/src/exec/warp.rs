//! Warp operations: executed together once the whole warp waits at the same op.

use super::*;

impl Machine<'_> {
    /// Executes warp ops whose whole warp waits at the same one. Returns whether any ran.
    pub(super) fn warp_step(&mut self, threads: &mut [Thread]) -> Result<bool, Fault> {
        let mut any = false;
        let mut i = 0;
        while i < threads.len() {
            let w = threads[i].warp;
            let mut j = i;
            while j < threads.len() && threads[j].warp == w {
                j += 1;
            }
            let group = &mut threads[i..j];
            if let Some(waiting) = group.iter().find(|t| matches!(t.state, St::Warp(..))) {
                let st = waiting.state;
                if let Some(other) = group.iter().find(|t| t.state != st) {
                    let St::Warp(c, pc) = st else { unreachable!() };
                    let _ = other;
                    return Err(self.fault_at(
                        c,
                        pc,
                        waiting.did,
                        FaultKind::Undefined,
                        "warp operation in divergent control flow (not every active lane of the warp reached it)",
                    ));
                }
                let St::Warp(c, pc) = st else { unreachable!() };
                self.exec_warp(group, c, pc)?;
                any = true;
            }
            i = j;
        }
        Ok(any)
    }

    pub(super) fn exec_warp(&mut self, group: &mut [Thread], c: u32, pc: u32) -> Result<(), Fault> {
        let code = &self.p.codes[c as usize];
        let Op::Warp {
            op,
            dst,
            a,
            b,
            n,
            kind,
            b_kind,
        } = code.ops[pc as usize]
        else {
            unreachable!("warp wait on a warp op")
        };
        let n = n as usize;
        self.steps += group.len() as u64;
        // Operands of every lane, in lane order (the group is in lane order).
        let base = |t: &Thread| t.frames.last().expect("frame").base as usize;
        if self.p.track_undef {
            for t in group.iter() {
                let bb = base(t);
                let bad = (0..n).any(|k| t.ud[bb + a as usize + k] != 0)
                    || (op == G::WarpReadLane && t.ud[bb + b as usize] != 0);
                if bad {
                    return Err(self.fault_at(c, pc, t.did, FaultKind::Undefined, UNDEF_USE));
                }
            }
        }
        let vals: Vec<Vec<u64>> = group
            .iter()
            .map(|t| t.regs[base(t) + a as usize..][..n].to_vec())
            .collect();
        let lanes: Vec<u32> = group.iter().map(|t| t.lane).collect();
        let reduce = |f: fn(u64, u64) -> scalar::R,
                      prefix: Option<u64>|
         -> Result<Vec<Vec<u64>>, &'static str> {
            let mut out = Vec::new();
            match prefix {
                None => {
                    let mut acc = vals[0].clone();
                    for v in &vals[1..] {
                        for k in 0..n {
                            acc[k] = f(acc[k], v[k])?;
                        }
                    }
                    out.resize(vals.len(), acc);
                }
                Some(id) => {
                    let mut acc = vec![id; n];
                    for v in &vals {
                        out.push(acc.clone());
                        for k in 0..n {
                            acc[k] = f(acc[k], v[k])?;
                        }
                    }
                }
            }
            Ok(out)
        };
        let one = match kind {
            ScalarKind::F16 => half::f16::ONE.to_bits() as u64,
            ScalarKind::F32 => 1f32.to_bits() as u64,
            ScalarKind::F64 => 1f64.to_bits(),
            _ => 1,
        };
        let bin = |o: A| scalar::binary(o, kind).expect("lowering checked the kind");
        let res: Result<Vec<Vec<u64>>, &'static str> = match op {
            G::WarpIsFirstActiveLane => Ok(lanes
                .iter()
                .enumerate()
                .map(|(i, _)| vec![(i == 0) as u64])
                .collect()),
            G::WarpFirstActiveLane => Ok(vec![vec![lanes[0] as u64]; vals.len()]),
            G::WarpActiveAllEqual => {
                let r: Vec<u64> = (0..n)
                    .map(|k| vals.iter().all(|v| v[k] == vals[0][k]) as u64)
                    .collect();
                Ok(vec![r; vals.len()])
            }
            G::WarpActiveBitAnd => reduce(|x, y| Ok(x & y), None),
            G::WarpActiveBitOr | G::WarpActiveAny => reduce(|x, y| Ok(x | y), None),
            G::WarpActiveBitXor => reduce(|x, y| Ok(x ^ y), None),
            G::WarpActiveAll => reduce(|x, y| Ok(x & y), None),
            G::WarpActiveCountBits => {
                let c = vals.iter().filter(|v| v[0] != 0).count() as u64;
                Ok(vec![vec![c]; vals.len()])
            }
            G::WarpActiveMax => reduce(bin(A::Max), None),
            G::WarpActiveMin => reduce(bin(A::Min), None),
            G::WarpActiveProduct => reduce(bin(A::BinaryMul), None),
            G::WarpActiveSum => reduce(bin(A::BinaryAdd), None),
            G::WarpActiveBitMask => {
                let mut m = [0u64; 4];
                for (v, &l) in vals.iter().zip(&lanes) {
                    if v[0] != 0 && l < 128 {
                        m[(l / 32) as usize] |= 1 << (l % 32);
                    }
                }
                Ok(vec![m.to_vec(); vals.len()])
            }
            G::WarpPrefixCountBits => {
                let mut c = 0;
                let mut out = Vec::new();
                for v in &vals {
                    out.push(vec![c]);
                    c += (v[0] != 0) as u64;
                }
                Ok(out)
            }
            G::WarpPrefixSum => reduce(bin(A::BinaryAdd), Some(0)),
            G::WarpPrefixProduct => reduce(bin(A::BinaryMul), Some(one)),
            G::WarpReadLane => {
                let mut out = Vec::new();
                let mut err = Ok(());
                for t in group.iter() {
                    let l = int_value(b_kind, t.regs[base(t) + b as usize]);
                    match lanes.iter().position(|&x| x as i128 == l) {
                        Some(p) => out.push(vals[p].clone()),
                        None => {
                            err = Err("warp_read_lane of a lane that is not active");
                            break;
                        }
                    }
                }
                err.map(|()| out)
            }
            G::WarpReadFirstActiveLane => Ok(vec![vals[0].clone(); vals.len()]),
            _ => unreachable!("lowering refuses other thread-group ops"),
        };
        let res = match res {
            Ok(r) => r,
            Err(msg) => {
                return Err(self.fault_at(c, pc, group[0].did, FaultKind::Undefined, msg));
            }
        };
        for (t, r) in group.iter_mut().zip(res) {
            let bb = base(t) + dst as usize;
            t.regs[bb..bb + r.len()].copy_from_slice(&r);
            if self.p.track_undef {
                t.ud[bb..bb + r.len()].fill(0);
            }
            t.frames.last_mut().expect("frame").pc = pc + 1;
            t.state = St::Ready;
        }
        Ok(())
    }
}

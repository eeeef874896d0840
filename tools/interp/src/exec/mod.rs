//! The executor: runs a lowered [`Program`] over a dispatch.
//!
//! Blocks run one after another. Inside a block, a deterministic scheduler runs each
//! thread (in linear thread order, or reversed with [`Schedule::Reverse`]) until it
//! finishes, reaches `synchronize_block`, or reaches a warp op; then warp ops whose
//! whole warp is waiting at the same op execute together, and once every thread waits
//! at the same barrier, the barrier opens (a new *phase*) and the threads run again.
//!
//! Data races are found with a shadow record per shared-memory lane and per buffer byte:
//! the last write (thread, phase, atomic?) and the last reads. Two accesses of different
//! threads are ordered only when they are in the same block and separated by a barrier
//! (an earlier phase of the current block); anything else with a write that is not
//! atomic on both sides is a race.

use crate::code::*;
use crate::layout::{read_scalar, write_scalar};
use crate::scalar::{self, int_value};
use crate::{Fault, FaultKind, Program};
use xir_ir::op::{ArithmeticOp as A, AtomicOp, ThreadGroupOp as G};
use xir_ir::{ScalarKind, SpecialRegister};

/// Thread order inside a block.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Schedule {
    /// Linear thread order.
    #[default]
    Forward,
    /// Reversed linear thread order (a second schedule: race-free kernels give the same
    /// results under both).
    Reverse,
}

/// How to run.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// Threads per axis.
    pub dispatch: [u32; 3],
    /// Block size (threads per block per axis).
    pub block_size: [u32; 3],
    /// Warp size.
    pub warp_size: u32,
    /// Scheduler.
    pub schedule: Schedule,
    /// Most ops executed in total before the run is inconclusive.
    pub max_steps: u64,
}

/// What a kernel argument is bound to: the native image of a value, or buffer bytes.
#[derive(Clone, Debug)]
pub enum ArgValue {
    /// A value argument's native image.
    Value(Vec<u8>),
    /// A buffer's bytes (elements in native layout).
    Buffer(Vec<u8>),
}

/// A finished run.
#[derive(Clone, Debug, Default)]
pub struct Finished {
    /// Final contents of every buffer argument, by argument index (`None` for values).
    pub buffers: Vec<Option<Vec<u8>>>,
    /// `print` lines, in thread order per phase.
    pub prints: Vec<String>,
    /// Ops executed.
    pub steps: u64,
}

mod memory;
mod print;
mod race;
mod undef;
mod warp;

use memory::*;
pub use print::{format_value, render_print};
use race::*;
use undef::*;

struct Buf {
    bytes: Vec<u8>,
    shadow: Vec<Shadow>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum St {
    Ready,
    Barrier(u32, u32),
    Warp(u32, u32),
    Done,
}

struct Frame {
    code: u32,
    pc: u32,
    base: u32,
    lbase: u32,
    ret: (u32, u32),
}

struct Thread {
    regs: Vec<u64>,
    ud: Vec<u8>,
    locals: Vec<u64>,
    lw: Vec<u8>,
    frames: Vec<Frame>,
    tid: [u32; 3],
    did: [u32; 3],
    gtid: u32,
    lane: u32,
    warp: u32,
    state: St,
}

struct Machine<'p> {
    p: &'p Program,
    cfg: &'p RunConfig,
    bufs: Vec<Buf>,
    shared: Vec<u64>,
    sw: Vec<u8>,
    sshadow: Vec<Shadow>,
    clock: Clock,
    steps: u64,
    pending: Vec<(u32, String)>,
    prints: Vec<String>,
    block_id: [u32; 3],
    grid: [u32; 3],
    scratch: Vec<u64>,
    scratch_ud: Vec<u8>,
}

const UNDEF_USE: &str = "a branch, address or stored value depends on an undefined value";

/// Runs `p` on `args` (one entry per kernel argument, in order).
pub fn run(p: &Program, args: Vec<ArgValue>, cfg: &RunConfig) -> Result<Finished, Fault> {
    let mut bufs = Vec::new();
    let mut values: Vec<Option<Vec<u8>>> = Vec::new();
    for a in args {
        match a {
            ArgValue::Buffer(bytes) => {
                let n = bytes.len();
                bufs.push(Buf {
                    bytes,
                    shadow: vec![[0u32; 5]; n],
                });
                values.push(None);
            }
            ArgValue::Value(v) => {
                bufs.push(Buf {
                    bytes: Vec::new(),
                    shadow: Vec::new(),
                });
                values.push(Some(v));
            }
        }
    }
    let bs = cfg.block_size;
    let grid = [
        cfg.dispatch[0].div_ceil(bs[0].max(1)),
        cfg.dispatch[1].div_ceil(bs[1].max(1)),
        cfg.dispatch[2].div_ceil(bs[2].max(1)),
    ];
    let mut m = Machine {
        p,
        cfg,
        bufs,
        shared: vec![0; p.shared_lanes as usize],
        sw: vec![0; p.shared_lanes as usize],
        sshadow: vec![[0u32; 5]; p.shared_lanes as usize],
        clock: Clock {
            phase: 0,
            block_start: 1,
        },
        steps: 0,
        pending: Vec::new(),
        prints: Vec::new(),
        block_id: [0; 3],
        grid,
        scratch: Vec::new(),
        scratch_ud: Vec::new(),
    };
    for bz in 0..grid[2] {
        for by in 0..grid[1] {
            for bx in 0..grid[0] {
                m.block_id = [bx, by, bz];
                let r = m.run_block(&values);
                m.flush_prints();
                if let Err(mut f) = r {
                    f.prints = std::mem::take(&mut m.prints);
                    return Err(f);
                }
            }
        }
    }
    Ok(Finished {
        buffers: m
            .bufs
            .into_iter()
            .zip(values)
            .map(|(b, v)| if v.is_some() { None } else { Some(b.bytes) })
            .collect(),
        prints: m.prints,
        steps: m.steps,
    })
}

impl<'p> Machine<'p> {
    fn flush_prints(&mut self) {
        self.pending.sort_by_key(|(t, _)| *t);
        self.prints.extend(self.pending.drain(..).map(|(_, s)| s));
    }

    fn gtid_coords(&self, g: u32) -> [u32; 3] {
        let w = self.grid[0] * self.cfg.block_size[0];
        let h = self.grid[1] * self.cfg.block_size[1];
        [g % w, (g / w) % h, g / (w * h)]
    }

    fn run_block(&mut self, values: &[Option<Vec<u8>>]) -> Result<(), Fault> {
        let bs = self.cfg.block_size;
        self.clock.phase += 1;
        self.clock.block_start = self.clock.phase;
        // Every block has its own shared memory: fresh contents and a fresh shadow.
        self.shared.fill(0);
        self.sw.fill(0);
        self.sshadow.fill([0; 5]);
        let mut threads = Vec::new();
        let w = self.grid[0] * bs[0];
        let h = self.grid[1] * bs[1];
        let mut linear = 0u32;
        for z in 0..bs[2] {
            for y in 0..bs[1] {
                for x in 0..bs[0] {
                    let tid = [x, y, z];
                    let did = [
                        self.block_id[0] * bs[0] + x,
                        self.block_id[1] * bs[1] + y,
                        self.block_id[2] * bs[2] + z,
                    ];
                    let l = linear;
                    linear += 1;
                    if did[0] >= self.cfg.dispatch[0]
                        || did[1] >= self.cfg.dispatch[1]
                        || did[2] >= self.cfg.dispatch[2]
                    {
                        continue;
                    }
                    let ws = self.cfg.warp_size.max(1);
                    let mut t = Thread {
                        regs: Vec::new(),
                        ud: Vec::new(),
                        locals: Vec::new(),
                        lw: Vec::new(),
                        frames: Vec::new(),
                        tid,
                        did,
                        gtid: did[0] + did[1] * w + did[2] * w * h,
                        lane: l % ws,
                        warp: l / ws,
                        state: St::Ready,
                    };
                    self.enter_kernel(&mut t, values);
                    threads.push(t);
                }
            }
        }
        let mut order: Vec<usize> = (0..threads.len()).collect();
        if self.cfg.schedule == Schedule::Reverse {
            order.reverse();
        }
        loop {
            for &i in &order {
                if threads[i].state == St::Ready {
                    self.run_thread(&mut threads[i])?;
                }
            }
            if threads.iter().all(|t| t.state == St::Done) {
                return Ok(());
            }
            if self.warp_step(&mut threads)? {
                continue;
            }
            // Every live thread waits at a barrier: the same one, reached by all.
            let first = threads.iter().find(|t| t.state != St::Done).expect("live");
            let (c, pc) = match first.state {
                St::Barrier(c, pc) => (c, pc),
                _ => unreachable!("only barrier waits remain"),
            };
            if let Some(t) = threads.iter().find(|t| t.state != St::Barrier(c, pc)) {
                let msg = match t.state {
                    St::Done => {
                        "synchronize_block is not reached by every thread of the block (a thread returned)"
                    }
                    _ => "threads of one block wait at different synchronize_block instructions",
                };
                return Err(self.fault_at(c, pc - 1, first.did, FaultKind::Undefined, msg));
            }
            self.flush_prints();
            self.clock.phase += 1;
            for t in threads.iter_mut() {
                t.state = St::Ready;
            }
        }
    }

    fn fault_at(&self, code: u32, pc: u32, did: [u32; 3], kind: FaultKind, msg: &str) -> Fault {
        let c = &self.p.codes[code as usize];
        Fault {
            kind,
            message: msg.to_string(),
            func: c.func,
            inst: c.insts.get(pc as usize).copied(),
            span: c.spans.get(pc as usize).copied().flatten(),
            thread: did,
            block: self.block_id,
            prints: Vec::new(),
        }
    }

    fn enter_kernel(&self, t: &mut Thread, values: &[Option<Vec<u8>>]) {
        let code = &self.p.codes[0];
        t.regs.extend_from_slice(&code.init);
        t.ud.extend_from_slice(&code.init_undef);
        t.locals.resize(code.local_lanes as usize, 0);
        t.lw.resize(code.local_lanes as usize, 0);
        for (k, a) in self.p.args.iter().enumerate() {
            match a {
                KernelArg::Value { regs, plan } => {
                    let bytes = values[k].as_deref().unwrap_or(&[]);
                    for (i, &(off, kind)) in plan.iter().enumerate() {
                        t.regs[regs.0 as usize + i] = read_scalar(bytes, off as usize, kind);
                    }
                }
                KernelArg::Buffer { reg, .. } => t.regs[*reg as usize] = k as u64,
            }
        }
        self.fill_specials(t, 0, 0);
        t.frames.push(Frame {
            code: 0,
            pc: code.entry,
            base: 0,
            lbase: 0,
            ret: (0, 0),
        });
    }

    fn fill_specials(&self, t: &mut Thread, code: usize, base: usize) {
        let bs = self.cfg.block_size;
        for &(s, reg) in &self.p.codes[code].specials {
            let r = base + reg as usize;
            let v3 = match s {
                SpecialRegister::ThreadId => t.tid,
                SpecialRegister::BlockId => self.block_id,
                SpecialRegister::DispatchId => t.did,
                SpecialRegister::BlockSize => bs,
                SpecialRegister::DispatchSize => self.cfg.dispatch,
                SpecialRegister::WarpLaneId => [t.lane, 0, 0],
                SpecialRegister::WarpSize => [self.cfg.warp_size, 0, 0],
                _ => [0, 0, 0],
            };
            let n = match s.ty() {
                xir_ir::value::SpecialRegisterType::Uint3 => 3,
                _ => 1,
            };
            for (i, v) in v3.iter().take(n).enumerate() {
                t.regs[r + i] = *v as u64;
            }
        }
    }

    /// Runs one thread until it finishes or waits.
    fn run_thread(&mut self, t: &mut Thread) -> Result<(), Fault> {
        let p = self.p;
        let track = p.track_undef;
        let max = self.cfg.max_steps;
        let clock = self.clock;
        let gtid = t.gtid;
        let did = t.did;
        'frames: loop {
            let Some(fr) = t.frames.last() else {
                t.state = St::Done;
                return Ok(());
            };
            let ci = fr.code;
            let code = &p.codes[ci as usize];
            let base = fr.base as usize;
            let lbase = fr.lbase as usize;
            let mut pc = fr.pc as usize;
            let nregs = code.init.len();
            let mut steps = self.steps;
            macro_rules! ub {
                ($msg:expr) => {{
                    self.steps = steps;
                    return Err(self.fault_at(
                        ci,
                        (pc - 1) as u32,
                        did,
                        FaultKind::Undefined,
                        $msg,
                    ));
                }};
            }
            macro_rules! budget {
                () => {
                    if steps > max {
                        self.steps = steps;
                        return Err(self.fault_at(
                            ci,
                            (pc - 1) as u32,
                            did,
                            FaultKind::Inconclusive,
                            "the step limit was reached",
                        ));
                    }
                };
            }
            loop {
                let r = &mut t.regs[base..base + nregs];
                let op = &code.ops[pc];
                pc += 1;
                steps += 1;
                if track && let Err(m) = check_defined(op, &t.ud[base..base + nregs]) {
                    ub!(m);
                }
                macro_rules! jump {
                    ($target:expr) => {{
                        let (to, edge) = $target;
                        if edge != 0 && code.edge_direct[edge as usize] {
                            for &(dst, src, n) in code.edges[edge as usize].iter() {
                                r.copy_within(src as usize..(src + n) as usize, dst as usize);
                                if track {
                                    t.ud.copy_within(
                                        base + src as usize..base + (src + n) as usize,
                                        base + dst as usize,
                                    );
                                }
                            }
                        } else if edge != 0 {
                            let moves = &code.edges[edge as usize];
                            self.scratch.clear();
                            self.scratch_ud.clear();
                            for &(_, src, n) in moves.iter() {
                                self.scratch
                                    .extend_from_slice(&r[src as usize..][..n as usize]);
                                if track {
                                    self.scratch_ud.extend_from_slice(
                                        &t.ud[base + src as usize..][..n as usize],
                                    );
                                }
                            }
                            let mut k = 0;
                            for &(dst, _, n) in moves.iter() {
                                r[dst as usize..][..n as usize]
                                    .copy_from_slice(&self.scratch[k..k + n as usize]);
                                if track {
                                    t.ud[base + dst as usize..][..n as usize]
                                        .copy_from_slice(&self.scratch_ud[k..k + n as usize]);
                                }
                                k += n as usize;
                            }
                        }
                        budget!();
                        pc = to as usize;
                    }};
                }
                match op {
                    Op::Un { f, dst, a, n } => {
                        for i in 0..*n as usize {
                            match f(r[*a as usize + i]) {
                                Ok(v) => r[*dst as usize + i] = v,
                                Err(m) => ub!(m),
                            }
                        }
                    }
                    Op::Bin {
                        f,
                        dst,
                        a,
                        b,
                        n,
                        sa,
                        sb,
                    } => {
                        for i in 0..*n as usize {
                            match f(
                                r[(*a + i as u32 * *sa) as usize],
                                r[(*b + i as u32 * *sb) as usize],
                            ) {
                                Ok(v) => r[*dst as usize + i] = v,
                                Err(m) => ub!(m),
                            }
                        }
                    }
                    Op::Tern {
                        f,
                        dst,
                        a,
                        b,
                        c,
                        n,
                        sa,
                        sb,
                        sc,
                    } => {
                        for i in 0..*n {
                            match f(
                                r[(*a + i * *sa) as usize],
                                r[(*b + i * *sb) as usize],
                                r[(*c + i * *sc) as usize],
                            ) {
                                Ok(v) => r[(*dst + i) as usize] = v,
                                Err(m) => ub!(m),
                            }
                        }
                    }
                    Op::Select {
                        dst,
                        f,
                        t: tv,
                        c,
                        n,
                        sc,
                    } => {
                        for i in 0..*n {
                            let v = if r[(*c + i * *sc) as usize] != 0 {
                                r[(*tv + i) as usize]
                            } else {
                                r[(*f + i) as usize]
                            };
                            r[(*dst + i) as usize] = v;
                        }
                    }
                    Op::Cast {
                        dst,
                        a,
                        n,
                        from,
                        to,
                    } => {
                        for i in 0..*n as usize {
                            match scalar::static_cast(*from, *to, r[*a as usize + i]) {
                                Ok(v) => r[*dst as usize + i] = v,
                                Err(m) => ub!(m),
                            }
                        }
                    }
                    Op::Mov { dst, src, n } => {
                        r.copy_within(*src as usize..(*src + *n) as usize, *dst as usize);
                    }
                    Op::Moves { pairs } => {
                        for &(d, s) in pairs.iter() {
                            r[d as usize] = r[s as usize];
                        }
                    }
                    Op::Extract {
                        dst,
                        src,
                        n,
                        steps: st,
                    } => match walk(r, st) {
                        Ok(off) => r.copy_within(
                            (*src + off) as usize..(*src + off + *n) as usize,
                            *dst as usize,
                        ),
                        Err(m) => ub!(m),
                    },
                    Op::Insert {
                        dst,
                        agg,
                        elem,
                        n,
                        steps: st,
                    } => match walk(r, st) {
                        Ok(off) => {
                            r.copy_within(agg.0 as usize..(agg.0 + agg.1) as usize, *dst as usize);
                            r.copy_within(
                                *elem as usize..(*elem + *n) as usize,
                                (*dst + off) as usize,
                            );
                        }
                        Err(m) => ub!(m),
                    },
                    Op::Shuffle {
                        dst,
                        src,
                        idx,
                        count,
                    } => {
                        for (k, &(reg, kind)) in idx.iter().enumerate() {
                            let i = int_value(kind, r[reg as usize]);
                            if i < 0 || i as u64 >= *count {
                                ub!("shuffle index out of bounds");
                            }
                            r[*dst as usize + k] = r[*src as usize + i as usize];
                        }
                    }
                    Op::Pure { f, .. } => {
                        if let Err(m) = f(r) {
                            ub!(m);
                        }
                    }
                    Op::Jump { to } => jump!(*to),
                    Op::CondJump { c, t: tt, f } => {
                        if r[*c as usize] != 0 {
                            jump!(*tt)
                        } else {
                            jump!(*f)
                        }
                    }
                    Op::Switch {
                        sel,
                        cases,
                        default,
                    } => {
                        let v = r[*sel as usize];
                        let target = cases
                            .iter()
                            .find(|(l, _)| *l == v)
                            .map(|(_, t)| *t)
                            .unwrap_or(*default);
                        jump!(target)
                    }
                    Op::Return { src, n } => {
                        let fr = t.frames.pop().expect("frame");
                        self.steps = steps;
                        if let Some(caller) = t.frames.last() {
                            let _ = caller;
                            let (dst, rn) = fr.ret;
                            debug_assert_eq!(rn, *n);
                            t.regs.copy_within(
                                base + *src as usize..base + (*src + *n) as usize,
                                dst as usize,
                            );
                            if track {
                                t.ud.copy_within(
                                    base + *src as usize..base + (*src + *n) as usize,
                                    dst as usize,
                                );
                            }
                        }
                        t.regs.truncate(base);
                        t.ud.truncate(base);
                        t.locals.truncate(lbase);
                        t.lw.truncate(lbase);
                        continue 'frames;
                    }
                    Op::Unreachable { .. } => ub!("unreachable reached"),
                    Op::Alloca { dst, off, n } => {
                        let o = lbase + *off as usize;
                        t.lw[o..o + *n as usize].fill(0);
                        r[*dst as usize] = o as u64;
                    }
                    Op::SharedAlloca { dst, off } => r[*dst as usize] = *off as u64 | SHARED_BIT,
                    Op::Gep {
                        dst,
                        base: b,
                        steps: st,
                    } => match walk(r, st) {
                        Ok(off) => r[*dst as usize] = r[*b as usize] + off as u64,
                        Err(m) => ub!(m),
                    },
                    Op::Load { dst, ptr, n } => {
                        let pv = r[*ptr as usize];
                        let n = *n as usize;
                        let d = *dst as usize;
                        if pv & SHARED_BIT != 0 {
                            let o = (pv & !SHARED_BIT) as usize;
                            for k in 0..n {
                                if self.sw[o + k] == 0 {
                                    ub!("read of shared memory before it is written");
                                }
                                if let Err(other) =
                                    shadow_read(&mut self.sshadow[o + k], gtid, clock)
                                {
                                    let m = self.race_msg("shared memory", o + k, other, false);
                                    self.steps = steps;
                                    let mut f = self.fault_at(
                                        ci,
                                        (pc - 1) as u32,
                                        did,
                                        FaultKind::Undefined,
                                        "",
                                    );
                                    f.message = m;
                                    return Err(f);
                                }
                            }
                            r[d..d + n].copy_from_slice(&self.shared[o..o + n]);
                        } else {
                            let o = pv as usize;
                            if t.lw[o..o + n].contains(&0) {
                                ub!("read of a local variable before it is written");
                            }
                            r[d..d + n].copy_from_slice(&t.locals[o..o + n]);
                        }
                    }
                    Op::Store { ptr, src, n } => {
                        let pv = r[*ptr as usize];
                        let n = *n as usize;
                        let s = *src as usize;
                        if pv & SHARED_BIT != 0 {
                            let o = (pv & !SHARED_BIT) as usize;
                            for k in 0..n {
                                if let Err(other) =
                                    shadow_write(&mut self.sshadow[o + k], gtid, clock, false)
                                {
                                    let m = self.race_msg("shared memory", o + k, other, true);
                                    self.steps = steps;
                                    let mut f = self.fault_at(
                                        ci,
                                        (pc - 1) as u32,
                                        did,
                                        FaultKind::Undefined,
                                        "",
                                    );
                                    f.message = m;
                                    return Err(f);
                                }
                            }
                            self.shared[o..o + n].copy_from_slice(&r[s..s + n]);
                            self.sw[o..o + n].fill(1);
                        } else {
                            let o = pv as usize;
                            t.locals[o..o + n].copy_from_slice(&r[s..s + n]);
                            t.lw[o..o + n].fill(1);
                        }
                    }
                    Op::BufRead {
                        dst,
                        buf,
                        idx,
                        plan,
                        esize,
                        byte,
                    } => {
                        let b = r[*buf as usize] as usize;
                        let size = if *byte { plan_size(plan) } else { *esize };
                        let off =
                            match address(r, *idx, *esize, size, *byte, self.bufs[b].bytes.len()) {
                                Ok(o) => o,
                                Err(m) => ub!(m),
                            };
                        if let Err((byte_at, other)) =
                            self.buf_access(b, off, size, gtid, clock, Access::Read)
                        {
                            self.steps = steps;
                            let mut f =
                                self.fault_at(ci, (pc - 1) as u32, did, FaultKind::Undefined, "");
                            f.message = self.race_msg(
                                &format!("buffer argument #{b}"),
                                byte_at,
                                other,
                                false,
                            );
                            return Err(f);
                        }
                        let bytes = &self.bufs[b].bytes[off..];
                        for (i, &(o, k)) in plan.iter().enumerate() {
                            r[*dst as usize + i] = read_scalar(bytes, o as usize, k);
                        }
                    }
                    Op::BufWrite {
                        buf,
                        idx,
                        src,
                        plan,
                        esize,
                        byte,
                    } => {
                        let b = r[*buf as usize] as usize;
                        let size = if *byte { plan_size(plan) } else { *esize };
                        let off =
                            match address(r, *idx, *esize, size, *byte, self.bufs[b].bytes.len()) {
                                Ok(o) => o,
                                Err(m) => ub!(m),
                            };
                        if let Err((byte_at, other)) =
                            self.buf_access(b, off, size, gtid, clock, Access::Write)
                        {
                            self.steps = steps;
                            let mut f =
                                self.fault_at(ci, (pc - 1) as u32, did, FaultKind::Undefined, "");
                            f.message = self.race_msg(
                                &format!("buffer argument #{b}"),
                                byte_at,
                                other,
                                true,
                            );
                            return Err(f);
                        }
                        let bytes = &mut self.bufs[b].bytes[off..];
                        for (i, &(o, k)) in plan.iter().enumerate() {
                            write_scalar(bytes, o as usize, k, r[*src as usize + i]);
                        }
                    }
                    Op::BufSize {
                        dst,
                        buf,
                        esize,
                        out,
                    } => {
                        let len = self.bufs[r[*buf as usize] as usize].bytes.len() as u64;
                        let v = len.checked_div(*esize).unwrap_or(len);
                        r[*dst as usize] = v & scalar::mask(*out);
                    }
                    Op::Atomic {
                        op,
                        kind,
                        dst,
                        base: ab,
                        vals,
                    } => {
                        let res = self.atomic(
                            r,
                            t.locals.as_mut_slice(),
                            t.lw.as_mut_slice(),
                            *op,
                            *kind,
                            ab,
                            *vals,
                            gtid,
                            clock,
                        );
                        match res {
                            Ok(old) => r[*dst as usize] = old,
                            Err(m) => {
                                self.steps = steps;
                                let mut f = self.fault_at(
                                    ci,
                                    (pc - 1) as u32,
                                    did,
                                    FaultKind::Undefined,
                                    "",
                                );
                                f.message = m;
                                return Err(f);
                            }
                        }
                    }
                    Op::Call {
                        callee,
                        args,
                        dst,
                        n,
                    } => {
                        let callee_code = &p.codes[*callee as usize];
                        let nb = base + nregs;
                        t.regs.extend_from_slice(&callee_code.init);
                        t.ud.extend_from_slice(&callee_code.init_undef);
                        for (k, &(src, len)) in args.iter().enumerate() {
                            let (pr, _) = callee_code.params[k];
                            t.regs.copy_within(
                                base + src as usize..base + (src + len) as usize,
                                nb + pr as usize,
                            );
                            if track {
                                t.ud.copy_within(
                                    base + src as usize..base + (src + len) as usize,
                                    nb + pr as usize,
                                );
                            }
                        }
                        let lb = t.locals.len();
                        t.locals.resize(lb + callee_code.local_lanes as usize, 0);
                        t.lw.resize(lb + callee_code.local_lanes as usize, 0);
                        self.fill_specials(t, *callee as usize, nb);
                        t.frames.last_mut().expect("frame").pc = pc as u32;
                        if t.frames.len() >= 1024 {
                            ub!("call depth limit (1024) exceeded");
                        }
                        t.frames.push(Frame {
                            code: *callee,
                            pc: callee_code.entry,
                            base: nb as u32,
                            lbase: lb as u32,
                            ret: ((base + *dst as usize) as u32, *n),
                        });
                        self.steps = steps;
                        budget!();
                        continue 'frames;
                    }
                    Op::Bitcast {
                        dst,
                        a,
                        from,
                        to,
                        size,
                    } => {
                        let mut img = vec![0u8; *size as usize];
                        for (i, &(o, k)) in from.iter().enumerate() {
                            write_scalar(&mut img, o as usize, k, r[*a as usize + i]);
                        }
                        for (i, &(o, k)) in to.iter().enumerate() {
                            r[*dst as usize + i] = read_scalar(&img, o as usize, k);
                        }
                    }
                    Op::Print { format, args } => {
                        let vals: Vec<String> = args
                            .iter()
                            .map(|(reg, plan)| format_value(&r[*reg as usize..], plan))
                            .collect();
                        self.pending.push((gtid, render_print(format, &vals)));
                    }
                    Op::Assert { c, message, assume } => {
                        if r[*c as usize] == 0 {
                            self.steps = steps;
                            let (kind, what) = if *assume {
                                (FaultKind::Undefined, "assumption violated")
                            } else {
                                (FaultKind::AssertFailed, "assertion failed")
                            };
                            let mut f = self.fault_at(ci, (pc - 1) as u32, did, kind, "");
                            f.message = if message.is_empty() {
                                what.to_string()
                            } else {
                                format!("{what}: {message}")
                            };
                            return Err(f);
                        }
                    }
                    Op::Barrier => {
                        self.steps = steps;
                        t.frames.last_mut().expect("frame").pc = pc as u32;
                        t.state = St::Barrier(ci, pc as u32);
                        return Ok(());
                    }
                    Op::Warp { .. } => {
                        self.steps = steps - 1;
                        t.frames.last_mut().expect("frame").pc = (pc - 1) as u32;
                        t.state = St::Warp(ci, (pc - 1) as u32);
                        return Ok(());
                    }
                }
                if track {
                    propagate(
                        op,
                        &t.regs[base..base + nregs],
                        &mut t.ud[base..base + nregs],
                    );
                }
            }
        }
    }
}

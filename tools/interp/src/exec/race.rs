//! The race detector: a shadow record per shared-memory lane and per buffer byte, and
//! the happens-before test of two accesses (see the module header of `exec`).

pub(super) const MANY: u32 = u32::MAX - 1;

/// Race-detector record of one shared lane or buffer byte: `[w_tid, w_phase | atomic
/// bit, r_tid, r_phase, stale_tid]`, thread ids stored plus one so that all zeros means
/// "never accessed" (a zeroed allocation, which the allocator hands out lazily: large
/// buffers cost nothing until touched).
pub(super) type Shadow = [u32; 5];

pub(super) const ATOMIC_BIT: u32 = 1 << 31;

#[inline]
pub(super) fn tid_of(stored: u32) -> u32 {
    stored.wrapping_sub(1)
}

/// Clock of the race detector: the current phase and the first phase of this block.
#[derive(Clone, Copy)]
pub(super) struct Clock {
    pub(super) phase: u32,
    pub(super) block_start: u32,
}

impl Clock {
    /// Whether an access at `other_phase` by another thread is unordered with now.
    #[inline]
    pub(super) fn unordered(self, other_phase: u32) -> bool {
        other_phase < self.block_start || other_phase == self.phase
    }
}

#[inline]
pub(super) fn shadow_read(s: &mut Shadow, tid: u32, c: Clock) -> Result<(), u32> {
    let w_phase = s[1] & !ATOMIC_BIT;
    if w_phase != 0 && tid_of(s[0]) != tid && c.unordered(w_phase) {
        return Err(tid_of(s[0]));
    }
    if s[3] == c.phase {
        if tid_of(s[2]) != tid {
            s[2] = MANY.wrapping_add(1);
        }
    } else {
        if s[3] != 0 && s[3] < c.block_start {
            s[4] = s[2];
        }
        s[2] = tid.wrapping_add(1);
        s[3] = c.phase;
    }
    Ok(())
}

#[inline]
pub(super) fn shadow_write(s: &mut Shadow, tid: u32, c: Clock, atomic: bool) -> Result<(), u32> {
    let w_phase = s[1] & !ATOMIC_BIT;
    let w_atomic = s[1] & ATOMIC_BIT != 0;
    let w_tid = tid_of(s[0]);
    if w_phase != 0 && w_tid != tid && c.unordered(w_phase) && !(atomic && w_atomic) {
        return Err(w_tid);
    }
    if s[4] != 0 {
        return Err(tid_of(s[4]));
    }
    if s[3] != 0 && tid_of(s[2]) != tid && c.unordered(s[3]) {
        return Err(tid_of(s[2]));
    }
    let many = atomic && w_atomic && w_phase == c.phase && w_tid != tid && s[0] != 0;
    s[0] = if many { MANY } else { tid }.wrapping_add(1);
    s[1] = c.phase | if atomic { ATOMIC_BIT } else { 0 };
    s[2] = 0;
    s[3] = 0;
    Ok(())
}

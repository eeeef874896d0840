//! Helpers shared by the `xir-ir` benchmarks.

use std::time::Duration;

/// CPU time (user + system) of this process, from `/proc/self/stat` (Linux; zero
/// elsewhere). On a loaded machine it is a steadier figure than wall time.
pub fn cpu_time() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // After the command name: state is field 0, utime 11, stime 12 (clock ticks, 100 Hz).
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

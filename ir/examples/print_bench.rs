//! `print_bench FILE [K] [--stream]` — parses FILE once, then prints it K times (default
//! 5; `--stream`: through `print_module_to` into a byte counter) and reports the median
//! CPU time per print (user + system, which on a loaded machine is steadier than wall
//! time; system time is mostly page faults of the fresh output) in ms and ns per
//! instruction.
#[path = "../benches/common/mod.rs"]
mod common;

/// System CPU time of this process (field 12 of `/proc/self/stat` after the command
/// name, in 100 Hz ticks; zero where unreadable).
fn sys_time() -> std::time::Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let ticks = stat
        .rsplit(')')
        .next()
        .and_then(|s| s.split_whitespace().nth(12))
        .and_then(|f| f.parse::<u64>().ok())
        .unwrap_or(0);
    std::time::Duration::from_millis(ticks * 10)
}

/// A writer that only counts bytes.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: print_bench FILE [K]");
    let k: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5)
        .max(1);
    let src = std::fs::read_to_string(&path).expect("read");
    let Ok((m, _)) = xir_ir::text::parse_module(&src) else {
        eprintln!("{path}: does not parse");
        std::process::exit(1);
    };
    drop(src);
    let n = m.inst_count().max(1);
    let opts = xir_ir::text::PrintOptions::default();
    let stream = std::env::args().any(|a| a == "--stream");
    let mut times = Vec::new();
    let mut sys = Vec::new();
    let mut bytes = 0;
    for _ in 0..k {
        let (t, s) = (common::cpu_time(), sys_time());
        if stream {
            // Into a sink that counts: what the driver's buffered writer would see.
            let mut w = Counter(0);
            xir_ir::text::print_module_to(&m, &opts, &mut w).expect("write");
            bytes = w.0;
        } else {
            bytes = xir_ir::text::print_module(&m, &opts).len();
        }
        times.push(common::cpu_time() - t);
        sys.push(sys_time() - s);
    }
    times.sort();
    sys.sort();
    let med = times[k / 2];
    println!(
        "{path}: {n} instructions, {bytes} bytes{}; print median {:.1} ms CPU (system {:.1} ms) = {:.0} ns/instruction (of {k})",
        if stream { " streamed" } else { "" },
        med.as_secs_f64() * 1e3,
        sys[k / 2].as_secs_f64() * 1e3,
        med.as_secs_f64() * 1e9 / n as f64
    );
}

//! `xir-reduce`: see `xir_tools::reduce` and `docs/bisect.md`.

use std::io::{Read, Write};
use xir_tools::reduce::cli::{needs_stdin, xir_reduce_main};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // xir-opt runs in this process; a pass that panics is reported by xir-opt itself
    // (status 2 and its message), so the default hook's backtrace would only be noise.
    std::panic::set_hook(Box::new(|_| {}));
    let mut stdin = Vec::new();
    if needs_stdin(&args) {
        let _ = std::io::stdin().read_to_end(&mut stdin);
    }
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr().lock();
    let code = xir_reduce_main(&args, &stdin, &mut out, &mut err);
    let _ = out.flush();
    std::process::exit(code);
}

//! `xir-bisect`: see `xir_tools::bisect` and `docs/bisect.md`.

use std::io::Write;
use xir_tools::bisect::cli::{needs_stdin, xir_bisect_main};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // xir-opt runs in this process; a pass that panics is reported by xir-opt itself
    // (status 2 and its message), so the default hook's backtrace would only be noise.
    std::panic::set_hook(Box::new(|_| {}));
    // SIGINT and SIGTERM remove the scratch directories and temporary files.
    let _ = xir_sysio::cleanup::install_signal_cleanup();
    let mut err = std::io::stderr().lock();
    let mut stdin = Vec::new();
    if needs_stdin(&args) {
        match xir_sysio::limit::read_stdin() {
            Ok(b) => stdin = b,
            Err(e) => {
                let _ = writeln!(
                    err,
                    "xir-bisect: error: cannot read standard input: {}",
                    xir_sysio::stdio::cause(&e)
                );
                std::process::exit(1);
            }
        }
    }
    let mut out = xir_sysio::stdio::Checked::new(std::io::stdout().lock());
    let code = xir_bisect_main(&args, &stdin, &mut out, &mut err);
    let code = out.finish("xir-bisect", code, &mut err);
    std::process::exit(code);
}

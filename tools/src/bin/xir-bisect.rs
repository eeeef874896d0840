//! `xir-bisect`: see `xir_tools::bisect` and `docs/bisect.md`.

use xir_tools::bisect::cli::{needs_stdin, xir_bisect_main};

fn main() {
    xir_tools::cli_common::run_process("xir-bisect", needs_stdin, xir_bisect_main);
}

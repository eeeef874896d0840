//! `xir-reduce`: see `xir_tools::reduce` and `docs/bisect.md`.

use xir_tools::reduce::cli::{needs_stdin, xir_reduce_main};

fn main() {
    xir_tools::cli_common::run_process("xir-reduce", needs_stdin, xir_reduce_main);
}

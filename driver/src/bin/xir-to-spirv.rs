//! `xir-to-spirv`: a thin wrapper around [`xir_driver::spirv::xir_to_spirv_main`].

use std::io::{IsTerminal, Read};

fn main() {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut stdin = Vec::new();
    if xir_driver::spirv::needs_stdin(&args)
        && let Err(e) = std::io::stdin().read_to_end(&mut stdin)
    {
        eprintln!("error: cannot read standard input: {e}");
        std::process::exit(xir_driver::EXIT_USER_ERROR);
    }
    let code = xir_driver::spirv::xir_to_spirv_main(
        &args,
        &stdin,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
        std::io::stdout().is_terminal(),
    );
    std::process::exit(code);
}

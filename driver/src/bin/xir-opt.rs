//! `xir-opt`: a thin wrapper around [`xir_driver::xir_opt_main`].

use std::io::IsTerminal;

fn main() {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // SIGINT and SIGTERM remove the temporary `-o` file before the process dies.
    let _ = xir_sysio::cleanup::install_signal_cleanup();
    let mut stdin = Vec::new();
    if xir_driver::needs_stdin(&args) {
        match xir_sysio::limit::read_stdin() {
            Ok(b) => stdin = b,
            Err(e) => {
                eprintln!(
                    "xir-opt: error: cannot read standard input: {}",
                    xir_sysio::stdio::cause(&e)
                );
                std::process::exit(xir_driver::EXIT_USER_ERROR);
            }
        }
    }
    xir_driver::set_stderr_is_terminal(std::io::stderr().is_terminal());
    xir_driver::set_stdout_is_terminal(std::io::stdout().is_terminal());
    // The process exits right after the run: no need to free the module.
    xir_driver::set_exit_without_free(true);
    let code = xir_driver::xir_opt_main(
        &args,
        &stdin,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    xir_sysio::cleanup::exit(code);
}

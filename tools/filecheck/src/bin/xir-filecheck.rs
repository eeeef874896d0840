//! `xir-filecheck`: LLVM FileCheck's command line on top of the `xir_filecheck` engine.

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let env = std::env::var("FILECHECK_OPTS").ok();
    // Only read stdin when it is needed (the check file or the input is "-").
    let needs_stdin = {
        let mut input_is_file = false;
        let mut it = args.iter().peekable();
        while let Some(a) = it.next() {
            let b = a.trim_start_matches('-');
            if b.starts_with("input-file") && a.starts_with('-') {
                let v = if let Some(p) = b.find('=') {
                    Some(b[p + 1..].to_string())
                } else {
                    it.peek().map(|s| s.to_string())
                };
                input_is_file = v.is_some_and(|v| v != "-");
            }
        }
        !input_is_file || args.iter().any(|a| a == "-")
    };
    let mut stdin = Vec::new();
    if needs_stdin {
        match xir_sysio::limit::read_stdin() {
            Ok(b) => stdin = b,
            Err(e) => {
                eprintln!(
                    "xir-filecheck: error: cannot read standard input: {}",
                    xir_sysio::stdio::cause(&e)
                );
                std::process::exit(2);
            }
        }
    }
    let out = xir_filecheck::run_filecheck(&args, &stdin, env.as_deref());
    let mut err = std::io::stderr().lock();
    let mut stdout = xir_sysio::stdio::Checked::new(std::io::stdout().lock());
    let _ = stdout.write_all(&out.stdout);
    let _ = err.write_all(&out.stderr);
    let code = stdout.finish("xir-filecheck", out.code, &mut err);
    std::process::exit(code);
}

//! Corpus tests as predicates: a test file's RUN lines, run by the harness's lit
//! interpreter with every `xir-opt` command line edited (limit or pipeline).

use crate::bisect::cli::BisectCli;
use crate::exit;
use crate::opt::OptRunner;
use std::io::Write;
use std::path::Path;

/// `xir-bisect --lit TEST`.
pub fn run_lit_bisect(
    _cli: &BisectCli,
    test: &Path,
    _stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    _runner: &dyn OptRunner,
) -> i32 {
    let _ = writeln!(
        stderr,
        "xir-bisect: error: --lit {}: the lit interpreter is not linked into this build",
        test.display()
    );
    exit::USAGE
}

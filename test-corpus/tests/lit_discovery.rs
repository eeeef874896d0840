//! LLVM's lit finds the corpus tests of a directory inside the corpus
//! (`test-corpus/run-lit.sh test-corpus/corpus/driver`, issue 15 item 14: lit searched
//! upward from the path, found `test-corpus/lit.cfg.py`, and looked for
//! `corpus/corpus/driver`, discovering nothing), with the names of a whole-corpus run.
//! Needs `lit` on PATH; without it the test says so loudly, and fails when
//! `XIR_REQUIRE_LLVM=1` (as CI sets).

use std::path::Path;
use std::process::Command;

fn show_tests(path: &Path) -> Option<String> {
    let o = Command::new("lit")
        .arg("--show-tests")
        .arg(path)
        // --show-tests runs nothing; lit.cfg.py only checks that the binary exists.
        .env("XIR_OPT", "/bin/true")
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr))
}

#[test]
fn lit_discovers_the_tests_of_a_corpus_directory() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let Some(dir) = show_tests(&corpus.join("driver")) else {
        if std::env::var("XIR_REQUIRE_LLVM").as_deref() == Ok("1") {
            panic!("XIR_REQUIRE_LLVM=1 but `lit` is not on PATH");
        }
        eprintln!("!!!!!!!! SKIPPED: `lit` not found (pip install lit) !!!!!!!!");
        return;
    };
    assert!(dir.contains("xir :: driver/stdin.xir"), "{dir}");
    assert!(!dir.contains("did not discover"), "{dir}");
    let on_disk = std::fs::read_dir(corpus.join("driver"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "xir"))
        .count();
    assert_eq!(dir.matches("xir :: driver/").count(), on_disk, "{dir}");
    // One file, and the whole suite through its parent directory: the same names.
    let one = show_tests(&corpus.join("driver/stdin.xir")).unwrap();
    assert!(one.contains("xir :: driver/stdin.xir"), "{one}");
    let all = show_tests(corpus.parent().unwrap()).unwrap();
    assert!(all.contains("xir :: driver/stdin.xir"), "{all}");
    assert!(!all.contains("xir :: corpus/"), "{all}");
}

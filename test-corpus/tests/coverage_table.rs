//! The coverage table of docs/codegen.md, computed from the corpus run that precedes it:
//! for every row of the dialect table (`xir_codegen::dialect::table()`) that the backend
//! supports, the execution-corpus kernels (`corpus/exec/`) whose compiled module exercises
//! it (`xir_codegen::dialect::constructs_used`, after the pipeline its `exec-vulkan/` file
//! gives) and passes the in-process validator, and those whose run on the Vulkan device
//! agrees with the interpreter.
//!
//! Nothing is executed here: the runs are the corpus's own (`cargo test` runs the
//! `corpus` target before this one: test targets run in name order), read from the
//! records the in-process runner leaves per file (`xir_test_corpus::timings`). A kernel
//! agrees when both of its files passed in that run:
//!
//! * `exec-vulkan/NAME.xir` runs it with `--engine=vulkan` (validation layer on) and
//!   compares the printed results with the oracle `exec/Inputs/NAME.expected` — `diff`
//!   (bit-exact) or `--expect … --float-ulps N` (floats within N ULP);
//! * `exec/NAME.xir` runs the interpreter and `diff`s its bit-pattern output with the same
//!   oracle file,
//!
//! so the device's results equal the interpreter's (floats within the file's ULPs). A
//! Vulkan file that asserts a refusal counts in neither column; one that runs without
//! comparing (`float-fma-f32`) only as validated.
//!
//! The test fails when the table in docs/codegen.md is stale (`XIR_BLESS=1` rewrites it),
//! when a supported row has no validated module or no agreeing run, and when a kernel's
//! records are missing or older than its files or this build (run the corpus first:
//! `cargo test -p xir-test-corpus --test corpus -- exec`). Without a Vulkan device (and the
//! validation layer) it is skipped, unless `XIR_REQUIRE_FEATURES` names `vulkan`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;
use xir_test_corpus::timings;

/// Supported rows no exec kernel covers yet (work left: each needs an exec kernel with
/// an oracle model); the test fails when one of them becomes covered, so the list only
/// shrinks.
const NOT_YET_COVERED: &[&str] = &[];

const BEGIN: &str = "<!-- coverage-table:begin -->\n";
const END: &str = "<!-- coverage-table:end -->";

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// What `exec-vulkan/NAME.xir` does with the kernel.
struct VulkanFile {
    /// Runs it through `spirv-final` first.
    spirv_final: bool,
    /// Compares the device's output with the oracle file (bit-exact or within ULPs).
    compares: bool,
}

/// `None`: the file asserts a refusal (no `xir-run … --engine=vulkan` run line).
fn vulkan_file(name: &str) -> Option<VulkanFile> {
    let text = std::fs::read_to_string(corpus().join(format!("exec-vulkan/{name}.xir"))).ok()?;
    let runs: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("// RUN: "))
        .collect();
    let run = runs
        .iter()
        .find(|l| l.starts_with("xir-run ") && l.contains("--engine=vulkan"))?;
    let oracle = format!("%S/../exec/Inputs/{name}.expected");
    let expect = run.contains(&format!("--expect {oracle}"));
    let diffed = run.contains("--out %t")
        && runs
            .iter()
            .any(|l| *l == format!("diff {oracle} %t").as_str());
    Some(VulkanFile {
        spirv_final: run.contains("--pipeline=spirv-final"),
        compares: expect || diffed,
    })
}

/// Whether `exec/NAME.xir` runs the interpreter with bit-pattern output into a file that
/// a later RUN line `diff`s with the oracle.
fn interp_compares(name: &str) -> bool {
    let text = std::fs::read_to_string(corpus().join(format!("exec/{name}.xir"))).unwrap();
    let runs: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("// RUN: "))
        .collect();
    runs.iter().any(|l| {
        let words: Vec<&str> = l.split_whitespace().collect();
        let out = words.windows(2).find(|w| w[0] == "--out").map(|w| w[1]);
        l.starts_with("xir-run %s --engine=interp ")
            && words.contains(&"--float-format=bits")
            && out.is_some_and(|o| {
                runs.contains(&format!("diff %S/Inputs/{name}.expected {o}").as_str())
            })
    })
}

/// Per kernel: the constructs of its compiled module, whether every kernel of it
/// validated, and whether Vulkan agreed with the interpreter.
struct KernelRun {
    constructs: BTreeSet<String>,
    validated: bool,
    agrees: bool,
}

fn modified(p: &Path) -> SystemTime {
    std::fs::metadata(p)
        .and_then(|m| m.modified())
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The corpus run's result for `file` (relative to the corpus root); panics when it has
/// none newer than `inputs` and this test's build.
fn recorded<'r>(
    records: &'r BTreeMap<String, timings::Record>,
    file: &str,
    inputs: &[PathBuf],
) -> &'r str {
    let rerun = "run the corpus first: cargo test -p xir-test-corpus --test corpus -- exec";
    let r = records
        .get(file)
        .unwrap_or_else(|| panic!("no result recorded for {file}; {rerun}"));
    for p in inputs {
        assert!(
            r.recorded >= modified(p),
            "the recorded result of {file} is older than {}; {rerun}",
            p.display()
        );
    }
    assert!(
        r.recorded >= corpus_build(),
        "the recorded result of {file} is older than the corpus runner's build; {rerun}"
    );
    &r.status
}

/// When the newest build of the `corpus` test target (the runner that wrote the records,
/// beside this test's executable) was linked.
fn corpus_build() -> SystemTime {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap();
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.starts_with("corpus-") && !n.contains('.')
        })
        .map(|e| modified(&e.path()))
        .max()
        .expect("the corpus test target is built")
}

fn kernel_run(name: &str, records: &BTreeMap<String, timings::Record>) -> Option<KernelRun> {
    let vk = vulkan_file(name)?;
    let root = corpus();
    let src = root.join(format!("exec/{name}.xir"));
    let text = std::fs::read_to_string(&src).unwrap();
    let (mut m, _) = xir_ir::text::parse_module(&text).expect("exec kernels parse");
    if vk.spirv_final {
        xir_tools::engines::spirv_final(&mut m).expect("spirv-final runs on the exec kernel");
    }
    let kernels = xir_interp::differential::kernels(&m);
    let validated = !kernels.is_empty()
        && kernels.iter().all(|&k| {
            xir_codegen::compile_kernel(&m, k, &xir_codegen::CompileOptions::default()).is_ok()
        });
    let inputs = [
        src.clone(),
        root.join(format!("exec-vulkan/{name}.xir")),
        root.join(format!("exec/Inputs/{name}.json")),
        root.join(format!("exec/Inputs/{name}.expected")),
    ];
    let passed = |file: &str| recorded(records, file, &inputs) == "PASS";
    let agrees = vk.compares
        && interp_compares(name)
        && passed(&format!("exec-vulkan/{name}.xir"))
        && passed(&format!("exec/{name}.xir"));
    Some(KernelRun {
        constructs: xir_codegen::dialect::constructs_used(&m),
        validated,
        agrees,
    })
}

fn cell(names: &[&str]) -> String {
    match names {
        [] => "**none**".to_string(),
        [one] => format!("1 (`{one}`)"),
        [first, ..] => format!("{} (`{first}`, …)", names.len()),
    }
}

#[test]
fn coverage_table_is_current_and_complete() {
    if !xir_lit::features::present_or_skip("vulkan", "a Vulkan device with the validation layer") {
        return;
    }
    let records: BTreeMap<String, timings::Record> = timings::load(&corpus())
        .into_iter()
        .map(|r| (r.name.clone(), r))
        .collect();
    let mut names: Vec<String> = std::fs::read_dir(corpus().join("exec"))
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            if p.extension()? != "xir" {
                return None;
            }
            Some(p.file_stem()?.to_string_lossy().into_owned())
        })
        .collect();
    names.sort();
    let runs: BTreeMap<&str, KernelRun> = names
        .iter()
        .filter_map(|n| Some((n.as_str(), kernel_run(n, &records)?)))
        .collect();
    let device = xir_vulkan::preferred_device(&Default::default()).expect("a device");
    let mut table = format!(
        "| Construct | Validated modules (exec kernels) | Agrees with the interpreter on {} |\n|---|---|---|\n",
        device.name.split(' ').next().unwrap_or("the device")
    );
    let mut missing = Vec::new();
    let mut supported = 0;
    for row in xir_codegen::dialect::table() {
        if row.support != xir_codegen::dialect::Support::Supported {
            continue;
        }
        supported += 1;
        let using = |f: fn(&KernelRun) -> bool| -> Vec<&str> {
            runs.iter()
                .filter(|(_, r)| r.constructs.contains(&row.construct) && f(r))
                .map(|(n, _)| *n)
                .collect()
        };
        let validated = using(|r| r.validated);
        let agrees = using(|r| r.validated && r.agrees);
        if agrees.is_empty() {
            missing.push(row.construct.clone());
        }
        table.push_str(&format!(
            "| `{}` | {} | {} |\n",
            row.construct,
            cell(&validated),
            cell(&agrees)
        ));
    }
    table.push_str(&format!(
        "\n{} of {supported} supported rows have a validated module and a run that agrees; {} kernels ran, {} agree.\n",
        supported - missing.len(),
        runs.len(),
        runs.values().filter(|r| r.agrees).count()
    ));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/codegen.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let a = doc.find(BEGIN).expect("begin marker") + BEGIN.len();
    let b = doc.find(END).expect("end marker");
    if std::env::var_os("XIR_BLESS").is_some() {
        std::fs::write(&path, format!("{}{}{}", &doc[..a], table, &doc[b..])).unwrap();
    } else {
        assert_eq!(
            &doc[a..b],
            table,
            "docs/codegen.md's coverage table is stale: XIR_BLESS=1 cargo test -p xir-test-corpus --test corpus --test coverage_table"
        );
    }
    let stale: Vec<&&str> = NOT_YET_COVERED
        .iter()
        .filter(|c| !missing.iter().any(|m| m == *c))
        .collect();
    assert!(
        stale.is_empty(),
        "covered now, remove from NOT_YET_COVERED: {stale:?}"
    );
    missing.retain(|m| !NOT_YET_COVERED.contains(&m.as_str()));
    assert!(
        missing.is_empty(),
        "supported rows without a validated module whose Vulkan run agrees with the interpreter:\n{}",
        missing.join("\n")
    );
}

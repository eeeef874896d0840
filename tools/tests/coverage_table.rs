//! The coverage table of docs/codegen.md, computed from real runs: for every row of the
//! dialect table (`xir_codegen::dialect::table()`) that the backend supports, the
//! execution-corpus kernels (`test-corpus/corpus/exec/`) whose compiled module exercises
//! it (`xir_codegen::dialect::constructs_used`, after the kernel's pipeline) and passes
//! the in-process validator, and those whose run on the Vulkan device agrees with the
//! interpreter's run on the same inputs.
//!
//! Each kernel runs as its generated `exec-vulkan/NAME.xir` file runs it (the same
//! `xir-run` command line: pipeline, buffers, warp size), once with `--engine=vulkan`
//! (validation layer on) and once with `--engine=interp`; the two printed results
//! (floats as bit patterns) must be identical, or within the file's `--float-ulps` where
//! it has one (`tools/src/run_compare.rs`). A kernel whose file asserts a refusal counts
//! in neither column.
//!
//! The test fails when the table in docs/codegen.md is stale (`XIR_BLESS=1` rewrites it)
//! and when a supported row has no validated module or no agreeing run. Without a Vulkan
//! device (and the validation layer) it is skipped, unless `XIR_REQUIRE_FEATURES` names
//! `vulkan`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Supported rows no exec kernel covers yet (work left: each needs an exec kernel with
/// an oracle model); the test fails when one of them becomes covered, so the list only
/// shrinks.
const NOT_YET_COVERED: &[&str] = &[];

const BEGIN: &str = "<!-- coverage-table:begin -->\n";
const END: &str = "<!-- coverage-table:end -->";

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-corpus/corpus")
}

/// The `xir-run` arguments of `exec-vulkan/NAME.xir` (None: the file asserts a
/// refusal), without `--out`/`--expect`, and its `--float-ulps` (0 without one).
fn vulkan_command(name: &str) -> Option<(Vec<String>, u64)> {
    let dir = corpus().join("exec-vulkan");
    let text = std::fs::read_to_string(dir.join(format!("{name}.xir"))).ok()?;
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("// RUN: xir-run "))?;
    let mut args = Vec::new();
    let mut ulps = 0;
    let mut it = line.split_whitespace();
    while let Some(a) = it.next() {
        match a {
            "--out" | "--expect" => {
                it.next();
            }
            "--float-ulps" => ulps = it.next()?.parse().ok()?,
            _ => args.push(a.replace("%S", &dir.display().to_string())),
        }
    }
    Some((args, ulps))
}

fn xir_run(args: &[String]) -> Result<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_xir-run"))
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Per kernel: the constructs of its compiled module, whether every kernel of it
/// validated, and whether Vulkan agreed with the interpreter.
struct KernelRun {
    constructs: BTreeSet<String>,
    validated: bool,
    agrees: bool,
}

fn run_kernel(name: &str) -> Option<KernelRun> {
    let (args, ulps) = vulkan_command(name)?;
    let src = corpus().join("exec").join(format!("{name}.xir"));
    let text = std::fs::read_to_string(&src).unwrap();
    let (mut m, _) = xir_ir::text::parse_module(&text).expect("exec kernels parse");
    if args.iter().any(|a| a == "--pipeline=spirv-final") {
        xir_tools::engines::spirv_final(&mut m).expect("spirv-final runs on the exec kernel");
    }
    let kernels = xir_interp::differential::kernels(&m);
    let validated = !kernels.is_empty()
        && kernels
            .iter()
            .all(|&k| xir_codegen::compile_kernel(&m, k, xir_codegen::OptLevel::None).is_ok());
    let interp_args: Vec<String> = args
        .iter()
        .filter(|a| *a != "--vulkan-validation")
        .map(|a| a.replace("--engine=vulkan", "--engine=interp"))
        .collect();
    let agrees = match (xir_run(&args), xir_run(&interp_args)) {
        (Ok(vk), Ok(interp)) => {
            let same = xir_tools::run_compare::compare(&interp, &vk, ulps);
            if let Err(e) = &same {
                eprintln!("{name}: vulkan differs from the interpreter: {e}");
            }
            same.is_ok() && (ulps > 0 || vk == interp)
        }
        (vk, interp) => {
            eprintln!("{name}: a run failed: vulkan {vk:?}, interp {interp:?}");
            false
        }
    };
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
        .filter_map(|n| Some((n.as_str(), run_kernel(n)?)))
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
            "docs/codegen.md's coverage table is stale: XIR_BLESS=1 cargo test -p xir-tools --test coverage_table"
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

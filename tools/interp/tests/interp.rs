//! End-to-end tests of the interpreter library: parse a kernel, bind a SPEC.json, run.

use xir_interp::spec::{self, FloatFormat};
use xir_interp::{FaultKind, RunConfig, Schedule};

fn run_with(
    src: &str,
    spec_text: &str,
    dispatch: u32,
    schedule: Schedule,
) -> Result<String, (FaultKind, String)> {
    let (m, map) = xir_ir::text::parse_module(src).expect("parses");
    let diags = xir_ir::verify::verify_module(&m, &Default::default(), None);
    assert!(
        diags
            .iter()
            .all(|d| d.severity != xir_ir::diag::Severity::Error),
        "{diags:?}"
    );
    let k = xir_interp::find_kernel(&m, None, None, None).expect("kernel");
    let p = xir_interp::lower(&m, k, Some(&map)).unwrap_or_else(|d| panic!("lowers: {d:?}"));
    let s = spec::parse(spec_text).expect("spec");
    let args = spec::bind(&s, &m, k).expect("binds");
    let cfg = RunConfig {
        dispatch: [dispatch, 1, 1],
        block_size: p.block_size,
        warp_size: 32,
        schedule,
        max_steps: 1_000_000,
    };
    match xir_interp::run(&p, args, &cfg) {
        Ok(f) => Ok(spec::results_text(&m, k, &f.buffers, FloatFormat::Decimal)),
        Err(f) => Err((f.kind, f.message)),
    }
}

fn run(src: &str, spec_text: &str, dispatch: u32) -> Result<String, (FaultKind, String)> {
    run_with(src, spec_text, dispatch, Schedule::Forward)
}

const SHARED_SUM: &str = r#"
module;
const %zero: u32 = 0u32;
const %one: u32 = 1u32;
const %n: u32 = 32u32;
kernel %main block_size(32, 1, 1) (
    %out: buffer<u32>;
) = define %entry: {
    %s: array<u32, 32> = alloca shared;
    %t: u32 = arithmetic extract %d.thread_id, %zero;
    %b: u32 = arithmetic extract %bid.block_id, %zero;
    %slot: u32 = getelementptr %s, %t;
    %v: u32 = arithmetic binary_mul %t, %t;
    %0: void = store %slot, %v;
    %1: void = thread_group synchronize_block;
    %first: bool = arithmetic binary_equal %t, %zero;
    %2: void = if %first, then %sum, else %join, merge %join;
}
%sum: {
    %3: void = br %head;
}
%head: {
    %i: u32 = phi (%zero, %sum), (%i1, %head);
    %acc: u32 = phi (%zero, %sum), (%acc1, %head);
    %e: u32 = getelementptr %s, %i;
    %x: u32 = load %e;
    %acc1: u32 = arithmetic binary_add %acc, %x;
    %i1: u32 = arithmetic binary_add %i, %one;
    %c: bool = arithmetic binary_less %i1, %n;
    %4: void = cond_br %c, %head, %done;
}
%done: {
    %5: void = resource_write buffer_write %out, %b, %acc1;
    %6: void = br %join;
}
%join: {
    %7: void = return;
};
"#;

#[test]
fn both_schedules_agree_on_a_race_free_kernel() {
    let spec = r#"[{"arg": 0, "type": "u32", "init": [0, 0]}]"#;
    let f = run_with(SHARED_SUM, spec, 64, Schedule::Forward).expect("runs");
    let r = run_with(SHARED_SUM, spec, 64, Schedule::Reverse).expect("runs");
    assert_eq!(f, r);
    // sum of t*t for t < 32 = 10416, in both blocks.
    assert_eq!(f, "arg0[0] = 10416\narg0[1] = 10416\n");
}

#[test]
fn a_missing_barrier_is_a_race_under_both_schedules() {
    let src = SHARED_SUM.replace("    %1: void = thread_group synchronize_block;\n", "");
    let spec = r#"[{"arg": 0, "type": "u32", "init": [0, 0]}]"#;
    for s in [Schedule::Forward, Schedule::Reverse] {
        let e = run_with(&src, spec, 64, s).expect_err("races");
        assert_eq!(e.0, FaultKind::Undefined);
        assert!(
            e.1.contains("data race") || e.1.contains("before it is written"),
            "{}",
            e.1
        );
    }
}

/// mem2reg's shape: a loop-carried phi that is undefined on entry but only used after
/// the first iteration defines it is not undefined behaviour.
#[test]
fn an_undefined_phi_input_that_is_never_used_is_fine() {
    let src = r#"
module;
undef %u.undefined: u32;
const %zero: u32 = 0u32;
const %one: u32 = 1u32;
const %three: u32 = 3u32;
kernel %main block_size(32, 1, 1) (
    %out: buffer<u32>;
) = define %entry: {
    %0: void = br %head;
}
%head: {
    %i: u32 = phi (%zero, %entry), (%i1, %head);
    %last: u32 = phi (%u.undefined, %entry), (%i, %head);
    %i1: u32 = arithmetic binary_add %i, %one;
    %c: bool = arithmetic binary_less %i1, %three;
    %1: void = cond_br %c, %head, %exit;
}
%exit: {
    %2: void = resource_write buffer_write %out, %zero, %last;
    %3: void = return;
};
"#;
    let out = run(src, r#"[{"arg": 0, "type": "u32", "init": [7]}]"#, 1).expect("defined");
    assert_eq!(out, "arg0[0] = 1\n");
    // With two iterations fewer the undefined entry value is written: undefined.
    let short = src.replace("%three: u32 = 3u32", "%three: u32 = 1u32");
    let e = run(&short, r#"[{"arg": 0, "type": "u32", "init": [7]}]"#, 1).expect_err("undefined");
    assert!(e.1.contains("undefined value"), "{}", e.1);
}

const TYPES: &str = r#"
module;
const %zero: u32 = 0u32;
const %one: u32 = 1u32;
const %two: u32 = 2u32;
kernel %main block_size(32, 1, 1) (
    %h: buffer<f16>;
    %d: buffer<f64>;
    %w: buffer<u64>;
    %b: buffer<void>;
) = define %entry: {
    %h0: f16 = resource_read buffer_read %h, %zero;
    %h1: f16 = arithmetic binary_add %h0, %h0;
    %0: void = resource_write buffer_write %h, %one, %h1;
    %d0: f64 = resource_read buffer_read %d, %zero;
    %d1: f64 = arithmetic sqrt %d0;
    %1: void = resource_write buffer_write %d, %one, %d1;
    %w0: u64 = resource_read buffer_read %w, %zero;
    %w1: u64 = arithmetic binary_add %w0, %w0;
    %2: void = resource_write buffer_write %w, %one, %w1;
    %bw: u32 = resource_read byte_buffer_read %b, %zero;
    %bx: u32 = arithmetic reverse %bw;
    %3: void = resource_write byte_buffer_write %b, %two, %bx;
    %4: void = return;
};
"#;

#[test]
fn sixteen_and_sixty_four_bit_types_and_byte_buffers() {
    let spec = r#"[
        {"arg": 0, "type": "f16", "init": [65504, 0]},
        {"arg": 1, "type": "f64", "init": [2, 0]},
        {"arg": 2, "type": "u64", "init": [9223372036854775809, 0]},
        {"arg": 3, "type": "u8", "init": [1, 0, 0, 0, 0, 0, 0, 0]}
    ]"#;
    let out = run(TYPES, spec, 1).expect("runs");
    assert_eq!(
        out,
        "arg0[0] = 65504.0\narg0[1] = inf\narg1[0] = 2.0\narg1[1] = 1.4142135623730951\n\
         arg2[0] = 9223372036854775809\narg2[1] = 2\n\
         arg3[0] = 1\narg3[1] = 0\narg3[2] = 0\narg3[3] = 0\narg3[4] = 0\narg3[5] = 128\narg3[6] = 0\narg3[7] = 0\n"
    );
}

#[test]
fn malformed_specs_name_the_buffer_and_element() {
    let (m, _) = xir_ir::text::parse_module(TYPES).expect("parses");
    let k = xir_interp::find_kernel(&m, None, None, None).unwrap();
    let bind = |s: &str| {
        spec::bind(&spec::parse(s).expect("json"), &m, k)
            .map(|_| ())
            .unwrap_err()
    };
    let rest = r#"{"arg": 1, "init": [0]}, {"arg": 2, "init": [0]}, {"arg": 3, "type": "u8", "init": [0]}"#;
    let e = bind(&format!(
        r#"[{{"arg": 0, "type": "f32", "init": [1]}}, {rest}]"#
    ));
    assert!(
        e.contains("buffer argument 0") && e.contains("'f32' does not match the kernel's 'f16'"),
        "{e}"
    );
    let e = bind(&format!(
        r#"[{{"arg": 0, "init": [1, "0x1ffff"]}}, {rest}]"#
    ));
    assert!(
        e.contains("buffer argument 0, element 1") && e.contains("wider than 16 bits"),
        "{e}"
    );
    let e = bind(
        r#"[{"arg": 0, "init": [1]}, {"arg": 1, "init": [0]}, {"arg": 2, "init": [-1]}, {"arg": 3, "type": "u8", "init": [0]}]"#,
    );
    assert!(
        e.contains("buffer argument 2, element 0") && e.contains("-1 is out of range for u64"),
        "{e}"
    );
    let e = bind(r#"[{"arg": 0, "init": [1]}, {"arg": 1, "init": [0]}, {"arg": 2, "init": [0]}]"#);
    assert!(e.contains("argument 3 of the kernel has no entry"), "{e}");
    let e = bind(&format!(r#"[{{"arg": 0, "init": [1e9]}}, {rest}]"#));
    assert!(e.contains("out of range for f16"), "{e}");
    let e = spec::parse(r#"{"dispatch": 4}"#).unwrap_err();
    assert!(e.contains("`buffers`"), "{e}");
}

#[test]
fn vectors_matrices_and_casts() {
    let src = r#"
module;
const %zero: u32 = 0u32;
const %one: u32 = 1u32;
const %two: u32 = 2u32;
kernel %main block_size(32, 1, 1) (
    %v: buffer<vector<f32, 3>>;
    %m: buffer<matrix<f32, 2>>;
    %i: buffer<vector<i32, 3>>;
) = define %entry: {
    %a: vector<f32, 3> = resource_read buffer_read %v, %zero;
    %b: vector<f32, 3> = resource_read buffer_read %v, %one;
    %c: vector<f32, 3> = arithmetic cross %a, %b;
    %0: void = resource_write buffer_write %v, %two, %c;
    %mm: matrix<f32, 2> = resource_read buffer_read %m, %zero;
    %inv: matrix<f32, 2> = arithmetic matrix_inverse %mm;
    %p: matrix<f32, 2> = arithmetic matrix_linalg_mul %mm, %inv;
    %1: void = resource_write buffer_write %m, %one, %p;
    %ci: vector<i32, 3> = cast static_cast %c;
    %2: void = resource_write buffer_write %i, %zero, %ci;
    %3: void = return;
};
"#;
    let spec = r#"[
        {"arg": 0, "type": "vector<f32, 3>", "init": [[1, 0, 0], [0, 1, 0], [0, 0, 0]]},
        {"arg": 1, "type": "matrix<f32, 2>", "init": [[[2, 0], [1, 4]], [[0, 0], [0, 0]]]},
        {"arg": 2, "type": "vector<i32, 3>", "init": [[9, 9, 9]]}
    ]"#;
    let out = run(src, spec, 1).expect("runs");
    assert!(out.contains("arg0[2] = (0.0, 0.0, 1.0)"), "{out}");
    assert!(out.contains("arg1[1] = [(1.0, 0.0), (0.0, 1.0)]"), "{out}");
    assert!(out.contains("arg2[0] = (0, 0, 1)"), "{out}");
}

#[test]
fn refused_constructs_are_located_before_running() {
    let src = "module;\nkernel %main block_size(32, 1, 1) (\n    %out: buffer<u64>;\n) = define %entry: {\n    %c: u64 = clock;\n    %0: void = return;\n};\n";
    let (m, map) = xir_ir::text::parse_module(src).unwrap();
    let k = xir_interp::find_kernel(&m, None, None, None).unwrap();
    let d = xir_interp::lower(&m, k, Some(&map)).err().expect("refused");
    assert_eq!(d.len(), 1);
    assert!(d[0].message.contains("does not execute `clock`"));
    assert!(d[0].span.is_some());
}

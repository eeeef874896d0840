//! The pipeline language: both surface forms, printing round trips, parameters and
//! conditions, and located diagnostics.

mod common;

use xir_passes::pipeline::{Loader, Params, Pipeline};
use xir_passes::registry::Registry;

fn loader(reg: &Registry) -> Loader<'_> {
    Loader::new(reg)
}

fn err(text: &str) -> String {
    let reg = Registry::new(true);
    match loader(&reg).load_inline(text) {
        Ok(p) => panic!("expected an error, got {}", p.to_text()),
        Err(e) => e.render(),
    }
}

fn paths(p: &Pipeline) -> Vec<String> {
    p.leaves().into_iter().map(|l| l.path).collect()
}

#[test]
fn file_and_inline_forms_are_one_language() {
    let file = "// a comment\nadd test-never-change\nfixed-point fp max=3 allow-nonconvergence {\n    add test-change-n{times=2} as bump required\n}\nsequence s verify=deferred {\n    add test-refuse{reason=\"not now\"} abort-on-refusal\n}\nverify{require-no-phi, require-unique-merge-blocks}\n";
    let inline = "test-never-change,fixed-point fp(max=3,allow-nonconvergence){test-change-n{times=2} as bump required},sequence s verify=deferred{test-refuse{reason=\"not now\"} abort-on-refusal},verify{require-no-phi,require-unique-merge-blocks}";
    let a = common::load(file).to_text();
    let b = common::load(inline).to_text();
    assert_eq!(a, b);
    assert_eq!(a, inline);
}

#[test]
fn printed_pipelines_load_back_identically() {
    let cases = [
        "test-never-change",
        "fixed-point(max=8){test-always-change,test-never-change}",
        "fixed-point cleanup max=2 { test-change-n{times=1}, fixed-point inner(max=1) { test-never-change } }",
        "if has-autodiff-scope { test-always-change } else { test-never-change }",
        "if !has-autodiff-scope { test-never-change as \"odd label\" }",
        "sequence s required { test-never-change verify=deferred }, verify",
    ];
    for c in cases {
        let once = common::load(c).to_text();
        let twice = common::load(&once).to_text();
        assert_eq!(once, twice, "round trip of {c}");
    }
}

#[test]
fn shipped_pipelines_round_trip_through_print_pipeline() {
    let reg = Registry::new(false);
    let l = loader(&reg);
    for name in l.library.names() {
        let p = l
            .outline(&name)
            .unwrap_or_else(|e| panic!("{name}: {}", e.render()));
        let text = p.to_text();
        let back = l
            .outline_inline(&text)
            .unwrap_or_else(|e| panic!("{name}: {}", e.render()));
        assert_eq!(back.to_text(), text, "{name}");
        let strip = |v: Vec<String>| -> Vec<String> {
            v.into_iter()
                .map(|s| s.split_once('/').map_or(s.clone(), |(_, r)| r.to_string()))
                .collect()
        };
        let root: Vec<String> = strip(paths(&p));
        let again: Vec<String> = paths(&back);
        assert_eq!(root, again, "{name}");
    }
}

#[test]
fn repeated_names_get_numbered_segments() {
    let p = common::load(
        "test-never-change, test-never-change, sequence s { test-never-change }, test-never-change as x, if has-autodiff-scope { test-never-change }",
    );
    assert_eq!(
        paths(&p),
        [
            "test-never-change",
            "test-never-change#2",
            "s/test-never-change",
            "x",
            "test-never-change#3",
        ]
    );
}

#[test]
fn unknown_pass_is_located_with_a_suggestion() {
    let e = err("test-never-change, test-nevr-change");
    assert!(e.starts_with("<--passes>:1:20: error: unknown pass 'test-nevr-change'; did you mean 'test-never-change'?\n"), "{e}");
    assert!(e.contains("^^^^^^^^^^^^^^^^ unknown pass"), "{e}");
}

#[test]
fn every_error_is_reported_at_once() {
    let e = err("tset-panic, test-never-change{x=1}, if optimise { }, verify{require-no-phis}");
    assert!(
        e.contains("1:1: error: unknown pass 'tset-panic'; did you mean 'test-panic'?"),
        "{e}"
    );
    assert!(
        e.contains("1:31: error: pass 'test-never-change' has no option 'x'; it takes no options"),
        "{e}"
    );
    assert!(
        e.contains("1:40: error: unknown condition 'optimise'"),
        "{e}"
    );
    assert!(e.contains("help: did you mean 'optimize'?"), "{e}");
    assert!(
        e.contains("error: unknown verifier flag 'require-no-phis'"),
        "{e}"
    );
    assert!(e.contains("did you mean 'require-no-phi'?"), "{e}");
}

#[test]
fn option_errors_suggest_the_declared_name() {
    let e = err("test-change-n{time=2}");
    assert!(
        e.contains("1:15: error: pass 'test-change-n' has no option 'time'; did you mean 'times'?"),
        "{e}"
    );
    let e = err("test-change-n{times=two}");
    assert!(
        e.contains("option 'times' expects an unsigned integer, got 'two'"),
        "{e}"
    );
    let e = err("test-change-n{times=1, times=2}");
    assert!(
        e.contains("option 'times' of pass 'test-change-n' is given twice"),
        "{e}"
    );
}

#[test]
fn syntax_errors_are_located() {
    let e = err("fixed-point fp { test-never-change }");
    assert!(
        e.contains("error: fixed-point needs an iteration budget"),
        "{e}"
    );
    assert!(
        e.contains("help: write `fixed-point NAME max=8 { … }`"),
        "{e}"
    );
    let e = err("sequence s { test-never-change");
    assert!(
        e.starts_with("<--passes>:1:31: error: unexpected end of input: missing '}'"),
        "{e}"
    );
    let e = err("test-never-change }");
    assert!(e.contains("1:19: error: unmatched '}'"), "{e}");
    let e = err("test-never-change verify=later");
    assert!(e.contains("unknown verify marker 'later'"), "{e}");
    let e = err("add sequence");
    assert!(
        e.contains("expected a pass name, found keyword 'sequence'"),
        "{e}"
    );
    let e = err("test-never-change @");
    assert!(e.contains("1:19: error: unexpected character '@'"), "{e}");
}

#[test]
fn test_passes_need_the_flag() {
    let reg = Registry::new(false);
    let e = loader(&reg)
        .load_inline("test-panic")
        .err()
        .unwrap()
        .render();
    assert!(
        e.contains("'test-panic' is a test-only pass; pass --enable-test-passes to use it"),
        "{e}"
    );
}

#[test]
fn unimplemented_passes_are_all_listed_and_never_skipped() {
    let reg = Registry::new(true);
    let e = loader(&reg)
        .load_inline("outline, test-never-change, defer-local-aggregate-load, fixed-point(max=2){loop-vectorization, defer-local-aggregate-load}")
        .err()
        .unwrap()
        .render();
    assert!(
        e.starts_with("<--passes>:1:1: error: the pipeline names 3 passes that are not implemented yet: defer-local-aggregate-load, loop-vectorization, outline\n"),
        "{e}"
    );
}

#[test]
fn parameters_select_branches() {
    let reg = Registry::new(true);
    let text = "if optimize { test-always-change } else { test-never-change }, if scalarizer { test-refuse }";
    let p = loader(&reg).load_inline(text).unwrap();
    assert_eq!(paths(&p), ["test-always-change"]);

    let mut l = loader(&reg);
    l.params.push_override("optimize=false").unwrap();
    assert_eq!(paths(&l.load_inline(text).unwrap()), ["test-never-change"]);

    let mut l = loader(&reg);
    l.params = Params::default().with_env(|k| match k {
        "LUISA_XIR_DISABLE_OPTIMIZATION" | "LUISA_XIR_ENABLE_SCALARIZER" => Some("1".into()),
        _ => None,
    });
    assert_eq!(
        paths(&l.load_inline(text).unwrap()),
        ["test-never-change", "test-refuse"]
    );

    // An untaken branch may name unimplemented passes, but not unknown ones.
    assert!(loader(&reg).load_inline("if !optimize { licm }").is_ok());
    let e = err("if !optimize { lcim }");
    assert!(
        e.contains("unknown pass 'lcim'; did you mean 'licm'?"),
        "{e}"
    );
}

#[test]
fn declared_parameters_and_unknown_overrides() {
    let reg = Registry::new(true);
    let text =
        "param extra = false\nif extra { test-always-change }\nif !extra { test-never-change }";
    assert_eq!(
        paths(&loader(&reg).load_inline(text).unwrap()),
        ["test-never-change"]
    );
    let mut l = loader(&reg);
    l.params.push_override("extra=true").unwrap();
    assert_eq!(paths(&l.load_inline(text).unwrap()), ["test-always-change"]);
    let mut l = loader(&reg);
    l.params.push_override("optimise=false").unwrap();
    let e = l.load_inline("test-never-change").err().unwrap().render();
    assert!(
        e.contains("error: unknown pipeline parameter 'optimise'"),
        "{e}"
    );
    assert!(e.contains("help: did you mean 'optimize'?"), "{e}");
    let e = err("param optimize = false");
    assert!(e.contains("'optimize' is a built-in parameter"), "{e}");
}

#[test]
fn pipeline_files_use_each_other_and_cycles_are_errors() {
    let dir = std::env::temp_dir().join(format!("xir-pipeline-use-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("inner.xpl"), "add test-never-change\n").unwrap();
    std::fs::write(
        dir.join("outer.xpl"),
        "sequence wrap {\n  use inner\n}\nuse inner required\n",
    )
    .unwrap();
    std::fs::write(dir.join("a.xpl"), "use b\n").unwrap();
    std::fs::write(dir.join("b.xpl"), "add test-never-change\nuse a\n").unwrap();
    let reg = Registry::new(true);
    let l = loader(&reg);
    let p = l.load(dir.join("outer.xpl").to_str().unwrap()).unwrap();
    assert_eq!(
        paths(&p),
        ["outer/wrap/test-never-change", "outer/test-never-change"]
    );
    assert_eq!(
        p.to_text(),
        "sequence wrap{test-never-change},test-never-change required"
    );
    let e = l
        .load(dir.join("a.xpl").to_str().unwrap())
        .err()
        .unwrap()
        .render();
    assert!(
        e.contains("b.xpl:2:5: error: pipeline 'a' uses itself: a -> b -> a"),
        "{e}"
    );
    let e = l.load("basic-optt").err().unwrap().render();
    assert!(e.contains("error: no pipeline named 'basic-optt'"), "{e}");
    assert!(e.contains("help: did you mean 'basic-opt'?"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

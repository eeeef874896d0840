//! The shipped pipelines expand to exactly upstream's orders (reference §7.3, §7.5,
//! §7.6). The expected lists below are written from the reference, not from the files.

use xir_passes::pipeline::{EntryKind, Loader, Pipeline};
use xir_passes::registry::Registry;

const BASIC: &[&str] = &[
    "licm",
    "dce",
    "local-store-forward",
    "local-load-elimination",
    "dce",
    "algebraic-simplify",
    "const-fold",
    "dce",
    "promote-ref-arg",
    "sroa",
    "dead-store-elimination",
    "dce",
];
const POST_INLINE: &[&str] = &[
    "slp-vectorization",
    "fuse-consecutive-buffer-reads",
    "dce",
    "local-store-forward",
    "local-load-elimination",
    "dce",
    "algebraic-simplify",
    "const-fold",
    "dce",
    "sroa",
    "dead-store-elimination",
    "dce",
];
const SSA: &[&str] = &[
    "licm",
    "algebraic-simplify",
    "const-fold",
    "sccp",
    "slp-vectorization",
    "gvn",
    "if-conversion",
    "phi-cleanup",
    "dce",
    "local-store-forward",
    "local-load-elimination",
    "dead-store-elimination",
    "dce",
];
const POST_RESTRUCTURE: &[&str] = &[
    "const-fold",
    "algebraic-simplify",
    "dce",
    "early-cse",
    "local-store-forward",
    "local-load-elimination",
    "dead-store-elimination",
    "gvn",
    "dce",
];
const STRUCTURED: &[&str] = &[
    "trace-gep",
    "local-store-forward",
    "local-load-elimination",
    "algebraic-simplify",
    "simplify-libcalls",
    "reassociate",
    "const-fold",
    "cvp",
    "indvar-simplify",
    "div-rem-pairs",
    "promote-ref-arg",
    "sroa",
    "gvn",
    "dead-store-elimination",
];
const SPIRV_POST_RESTRUCTURE: &[&str] = &[
    "canonicalize-spirv-one-shot-loops",
    "clear-spirv-inactive-payloads",
    "mem2reg-post-restructure",
    "audit-reg2mem-spills",
];
const AUTODIFF_LOWERING: &[&str] = &["autodiff", "scalarizer", "sroa", "reg2mem"];

fn cat(parts: &[&[&str]]) -> Vec<String> {
    parts
        .iter()
        .flat_map(|p| p.iter().map(|s| s.to_string()))
        .collect()
}

fn pre_autodiff(optimize: bool) -> Vec<String> {
    let head: &[&str] = &[
        "reconstruct-ray-query-loop",
        "lower-ray-query-to-loop",
        "destructure-cfg",
        "inline-all",
    ];
    let tail: &[&str] = &[
        "reg2mem-pre-restructure",
        "restructure-cfg",
        "reg2mem-post-restructure",
        "fix-self-referential",
    ];
    if optimize {
        cat(&[head, POST_INLINE, &["dead-arg-elim", "simplify-cfg"], tail])
    } else {
        cat(&[head, tail])
    }
}

fn legalize(optimize: bool) -> Vec<String> {
    let tail = cat(&[
        &["reg2mem-pre-restructure", "restructure-cfg"],
        SPIRV_POST_RESTRUCTURE,
        &["fix-self-referential"],
    ]);
    let mut v = cat(&[&[
        "reconstruct-ray-query-loop",
        "lower-ray-query-to-loop",
        "promote-readonly-ref-args",
    ]]);
    if optimize {
        v.extend(cat(&[
            &[
                "licm",
                "destructure-cfg",
                "inline-spirv-pointer-args",
                "inline",
            ],
            POST_INLINE,
        ]));
        v.extend(cat(&[&[
            "dead-arg-elim",
            "mem2reg",
            "algebraic-simplify",
            "const-fold",
            "reassociate",
            "sccp",
            "dce",
            "early-cse",
            "local-store-forward",
            "local-load-elimination",
            "dead-store-elimination",
            "gvn",
            "if-conversion",
            "phi-cleanup",
            "unused-callable-removal",
            "simplify-cfg",
        ]]));
    } else {
        v.extend(cat(&[&["destructure-cfg", "inline-spirv-pointer-args"]]));
    }
    v.extend(tail);
    v
}

fn metal(ray_query_pipeline: bool) -> Vec<String> {
    let outline: &[&str] = if ray_query_pipeline {
        &["outline-ray-query-pipelines"]
    } else {
        &[]
    };
    cat(&[
        BASIC,
        outline,
        &[
            "lower-ray-query-to-loop",
            "destructure-cfg-before-inline",
            "inline-all-autodiff-callables",
        ],
        POST_INLINE,
        &[
            "simplify-cfg",
            "reg2mem-before-restructure",
            "restructure-cfg-before-autodiff",
            "autodiff",
            "reg2mem-after-autodiff",
        ],
        outline,
        &[
            "lower-ray-query-to-loop",
            "destructure-cfg",
            "inline-all",
            "mem2reg",
        ],
        SSA,
        &["unused-callable-removal", "simplify-cfg"],
    ])
}

fn outline(name: &str, params: &[&str]) -> Pipeline {
    let reg = Registry::new(false);
    let mut l = Loader::new(&reg);
    for p in params {
        l.params.push_override(p).unwrap();
    }
    l.outline(name)
        .unwrap_or_else(|e| panic!("{name}: {}", e.render()))
}

fn order(name: &str, params: &[&str]) -> Vec<String> {
    outline(name, params)
        .leaves()
        .into_iter()
        .map(|l| l.display)
        .collect()
}

#[test]
fn factory_pipelines_match_section_7_3() {
    assert_eq!(order("basic-opt", &[]), cat(&[BASIC]));
    assert_eq!(order("post-inline-cleanup", &[]), cat(&[POST_INLINE]));
    assert_eq!(order("ssa-opt", &[]), cat(&[SSA]));
    assert_eq!(
        order("post-restructure-cleanup", &[]),
        cat(&[POST_RESTRUCTURE])
    );
    for name in [
        "basic-opt",
        "post-inline-cleanup",
        "ssa-opt",
        "post-restructure-cleanup",
    ] {
        let o = order(name, &[]);
        for banned in ["loop-fusion", "indvar-simplify", "loop-vectorization"] {
            assert!(!o.iter().any(|p| p == banned), "{name} contains {banned}");
        }
    }
    assert!(
        order("ssa-opt", &[])
            .iter()
            .any(|p| p == "slp-vectorization")
    );
    // `fast-math` reaches algebraic-simplify as its option.
    let text = outline("basic-opt", &["fast-math=true"]).to_text();
    assert!(
        text.contains("algebraic-simplify{enable-fast-math=true}"),
        "{text}"
    );
    assert!(
        !outline("basic-opt", &[])
            .to_text()
            .contains("enable-fast-math")
    );
}

#[test]
fn spirv_pipelines_match_section_7_5() {
    assert_eq!(order("spirv-structured-opt", &[]), cat(&[STRUCTURED]));
    assert_eq!(
        order("spirv-structured-opt", &["scalarizer=true"]),
        cat(&[&["scalarizer"], STRUCTURED])
    );
    assert_eq!(order("pre-autodiff", &[]), pre_autodiff(true));
    assert_eq!(
        order("pre-autodiff", &["optimize=false"]),
        pre_autodiff(false)
    );
    assert_eq!(
        order("spirv-post-restructure", &[]),
        cat(&[SPIRV_POST_RESTRUCTURE])
    );
    assert_eq!(order("spirv-legalize", &[]), legalize(true));
    assert_eq!(
        order("spirv-legalize", &["optimize=false"]),
        legalize(false)
    );
    let mut full = cat(&[STRUCTURED]);
    full.extend(pre_autodiff(true));
    full.extend(cat(&[AUTODIFF_LOWERING]));
    full.extend(legalize(true));
    assert_eq!(order("spirv-final", &[]), full);
    let mut o0 = pre_autodiff(false);
    o0.extend(cat(&[AUTODIFF_LOWERING]));
    o0.extend(legalize(false));
    assert_eq!(order("spirv-final", &["optimize=false"]), o0);
}

#[test]
fn metal_pipeline_matches_section_7_6() {
    assert_eq!(order("metal4-air-lowering", &[]), metal(false));
    assert_eq!(
        order("metal4-air-lowering", &["ray-query-pipeline=true"]),
        metal(true)
    );
    // Upstream's budget-1 fixed point, allowed not to converge.
    let text = outline("metal4-air-lowering", &[]).to_text();
    assert!(
        text.contains(
            "fixed-point post-inline-cleanup(max=1,allow-nonconvergence){slp-vectorization,"
        ),
        "{text}"
    );
    assert!(text.contains("verify{require-no-phi,require-unique-merge-blocks}"));
    assert!(text.ends_with("verify{require-reachable-blocks}"));
}

#[test]
fn labels_name_the_right_passes_and_markers_are_upstreams() {
    let leaves = outline("spirv-final", &[]).leaves();
    let pass_of = |label: &str| {
        leaves
            .iter()
            .find(|l| l.display == label)
            .map(|l| l.pass.clone())
    };
    assert_eq!(
        pass_of("reg2mem-pre-restructure").as_deref(),
        Some("reg2mem")
    );
    assert_eq!(
        pass_of("promote-readonly-ref-args").as_deref(),
        Some("promote-ref-arg")
    );
    assert_eq!(
        pass_of("mem2reg-post-restructure").as_deref(),
        Some("mem2reg")
    );
    let m = outline("metal4-air-lowering", &["ray-query-pipeline=true"]).leaves();
    assert_eq!(
        m.iter()
            .find(|l| l.display == "outline-ray-query-pipelines")
            .map(|l| l.pass.as_str()),
        Some("lower-ray-query-to-pipeline")
    );
    let text = outline("pre-autodiff", &[]).to_text();
    assert!(text.contains("reg2mem as reg2mem-post-restructure verify=deferred,fix-self-referential abort-on-refusal"), "{text}");
    assert!(text.contains("restructure-cfg{mode=in-place-discardable} abort-on-refusal"));
    let text = outline("spirv-legalize", &[]).to_text();
    assert!(
        text.contains(
            "sequence post-restructure-boundary verify=deferred{canonicalize-spirv-one-shot-loops,"
        ),
        "{text}"
    );
    // Path format: pipeline/group/entry.
    assert!(
        leaves
            .iter()
            .any(|l| l.path == "spirv-final/post-inline-cleanup/local-store-forward")
    );
}

#[test]
fn the_spirv_sequences_are_sequences() {
    let p = outline("spirv-legalize", &[]);
    let groups: Vec<(String, u32, bool)> = p
        .entries
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Group(g) => Some((g.name.clone(), g.max, g.requires_convergence)),
            _ => None,
        })
        .collect();
    assert_eq!(
        groups,
        [
            ("post-inline-cleanup".to_string(), 1, false),
            ("post-restructure-boundary".to_string(), 1, false)
        ]
    );
}

#[test]
fn loading_a_pipeline_with_unimplemented_passes_lists_them_all() {
    let reg = Registry::new(false);
    let l = Loader::new(&reg);
    for name in l.library.names() {
        let mut missing: Vec<String> = outline(&name, &[])
            .leaves()
            .into_iter()
            .map(|x| x.pass)
            .filter(|p| reg.get(p).is_none())
            .collect();
        missing.sort();
        missing.dedup();
        match l.load(&name) {
            Ok(_) => assert!(missing.is_empty(), "{name} loaded despite {missing:?}"),
            Err(e) => {
                let text = e.render();
                assert!(!missing.is_empty(), "{name}: {text}");
                assert!(
                    text.contains(&format!("not implemented yet: {}\n", missing.join(", "))),
                    "{name}: {text}"
                );
                assert!(text.starts_with("passes/pipelines/"), "{text}");
            }
        }
    }
}

#[test]
fn the_cleanup_pipeline_uses_only_passes_meant_to_be_implemented() {
    assert_eq!(
        order("cleanup", &[]),
        ["const-fold", "dce", "simplify-cfg", "phi-cleanup"]
    );
    assert_eq!(order("O0", &[]), Vec::<String>::new());
}

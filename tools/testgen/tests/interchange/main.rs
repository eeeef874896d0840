//! Unit tests of the interchange formats.

mod corpus;
mod units;

use xir_ir::diag::render;
use xir_ir::interchange::*;
use xir_ir::module::Module;
use xir_testgen::samples;

fn roundtrip(name: &str, m: &Module) -> String {
    let text = write_interchange_text(m).unwrap_or_else(|e| panic!("{name}: write: {e}"));
    let m2 = read_interchange_text(&text)
        .unwrap_or_else(|d| panic!("{name}: read:\n{}\n{text}", render(name, &text, &d)));
    let text2 = write_interchange_text(&m2).unwrap();
    assert_eq!(text, text2, "{name}: text round trip");
    let bc = write_bitcode(m).unwrap();
    let m3 = read_bitcode(&bc).unwrap_or_else(|e| panic!("{name}: bitcode: {e}"));
    assert_eq!(
        write_interchange_text(&m3).unwrap(),
        text,
        "{name}: bitcode round trip"
    );
    let v1 = write_bitcode_text_envelope(m).unwrap();
    let m4 = read_bitcode(&v1).unwrap();
    assert_eq!(
        write_interchange_text(&m4).unwrap(),
        text,
        "{name}: v1 round trip"
    );
    assert_eq!(
        write_bitcode(&m2).unwrap(),
        bc,
        "{name}: bitcode determinism"
    );
    text
}

#[test]
fn samples_round_trip() {
    for (name, m) in samples::all() {
        let d = xir_ir::verify::verify_module(&m, &Default::default(), None);
        assert!(d.is_empty(), "{name}: sample does not verify: {d:#?}");
        roundtrip(name, &m);
    }
}

pub(crate) const REFERENCE_EXAMPLE: &str = "; LuisaCompute XIR canonical interchange
xir.text 1
module {
  metadata 0
  globals 1
  constant 0 \"int\" \"01000000\"
    metadata 0
  functions 1
  function 1 callable \"int\" 0 0 0 {
    metadata 0
    arguments 1
    argument 2 value \"int\"
      metadata 0
    blocks 1
    block 3
      metadata 0
    body 3
    instructions 2
    instruction 4 3 arithmetic \"int\" binary_add 2 2 0 0
      metadata 0
    instruction 5 3 return \"void\" -1 1 4 0
      metadata 0
  }
}
";

#[test]
fn reference_example_is_byte_identical() {
    assert_eq!(
        write_interchange_text(&samples::callable_add()).unwrap(),
        REFERENCE_EXAMPLE
    );
    let m = read_interchange_text(REFERENCE_EXAMPLE).unwrap();
    assert_eq!(write_interchange_text(&m).unwrap(), REFERENCE_EXAMPLE);
}

#[test]
fn verifier_failures_are_refused_and_located() {
    // Return an `int` from a void callable: the verifier rejects it on both paths.
    let bad = REFERENCE_EXAMPLE.replace(
        "function 1 callable \"int\"",
        "function 1 callable \"void\"",
    );
    let d = read_interchange_text(&bad).unwrap_err();
    let out = render("bad.xirx", &bad, &d);
    assert!(out.contains("bad.xirx:"), "{out}");
    assert!(d.iter().all(|d| d.span.is_some()), "{out}");
}

#[test]
fn samples_cover_every_tag() {
    let mut seen = std::collections::HashSet::new();
    for (_, m) in samples::all() {
        for f in &m.func_order {
            let func = m.func(*f);
            for i in func.placed_insts() {
                seen.insert(func.inst(i).kind.tag());
            }
        }
    }
    for &t in xir_ir::inst::InstTag::ALL {
        assert!(
            seen.contains(&t),
            "no sample uses `{}`",
            t.interchange_name()
        );
    }
}

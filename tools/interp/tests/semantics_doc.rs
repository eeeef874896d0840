//! `docs/semantics.md` carries the executed/refused table generated from the instruction
//! and op tables; this keeps it current (`XIR_BLESS=1` rewrites it).

use std::path::Path;

const BEGIN: &str = "<!-- BEGIN GENERATED TABLE -->\n";
const END: &str = "<!-- END GENERATED TABLE -->";

#[test]
fn semantics_doc_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/semantics.md");
    let text = std::fs::read_to_string(&path).expect("docs/semantics.md");
    let (head, rest) = text.split_once(BEGIN).expect("begin marker");
    let (_, tail) = rest.split_once(END).expect("end marker");
    let want = format!(
        "{head}{BEGIN}{}{END}{tail}",
        xir_interp::support::markdown()
    );
    if std::env::var("XIR_BLESS").is_ok_and(|v| !v.is_empty() && v != "0") {
        std::fs::write(&path, &want).expect("write docs/semantics.md");
        return;
    }
    assert!(
        text == want,
        "docs/semantics.md's table is stale; rerun with XIR_BLESS=1"
    );
}

/// Every tag appears, and every op of every sub-op enum.
#[test]
fn table_covers_every_instruction_and_op() {
    use xir_ir::op::*;
    let rows = xir_interp::support::table();
    for &tag in xir_ir::InstTag::ALL {
        assert!(rows.iter().any(|r| r.tag == tag), "{tag:?}");
    }
    let n = ArithmeticOp::ALL.len()
        + ThreadGroupOp::ALL.len()
        + ResourceQueryOp::ALL.len()
        + ResourceReadOp::ALL.len()
        + ResourceWriteOp::ALL.len()
        + AtomicOp::ALL.len()
        + AllocaOp::ALL.len()
        + CastOp::ALL.len()
        + RayQueryObjectReadOp::ALL.len()
        + RayQueryObjectWriteOp::ALL.len()
        + AutodiffIntrinsicOp::ALL.len();
    let tags_with_ops = 11;
    assert_eq!(rows.len(), n + xir_ir::InstTag::ALL.len() - tags_with_ops);
}

//! Byte-exact golden tests of the reference §1.8 examples (nested, flat, debug info) and
//! of stable ids.

mod common;

use common::*;
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::text::{IdStyle, PrintOptions, print_module};

const NESTED: &str = "module;

const %0: u32 = 00000000;

const %1: f32 = 0000803f;

callable %2: f32 (
    %3: f32;
) = define %4: {
    %5: f32 = arithmetic binary_add %3, %1;
    %6: void = return %5;
};

kernel %7 (
    %8: buffer<f32>;
) = define %9: {
    %10: u32 = arithmetic extract %22.dispatch_id, %0;
    %11: f32 = resource_read buffer_read %8, %10;
    %12: f32 = call %2, %11;
    %13: bool = arithmetic binary_less %12, %1;
    %14: void = if %13, then %15: {
        %16: void = resource_write buffer_write %8, %10, %12;
        %17: void = br %18;
    }, else %20: {
        %21: void = br %18;
    }, merge %18: {
        %19: void = return;
    };
};

";

#[test]
fn reference_example_nested() {
    assert_text(&print(&example().m), NESTED);
}

#[test]
fn reference_example_flat() {
    let text = print_flat(&example().m);
    let kernel = text.split_once("kernel").map(|(_, k)| k).unwrap_or("");
    assert_text(
        kernel,
        " %7 (
    %8: buffer<f32>;
) = define {
%9:
    %10: u32 = arithmetic extract %22.dispatch_id, %0;
    %11: f32 = resource_read buffer_read %8, %10;
    %12: f32 = call %2, %11;
    %13: bool = arithmetic binary_less %12, %1;
    %14: void = if %13, then %15, else %20, merge %18;
%15:
    %16: void = resource_write buffer_write %8, %10, %12;
    %17: void = br %18;
%18:
    %19: void = return;
%20:
    %21: void = br %18;
};

",
    );
    assert!(text.contains("callable %2: f32 (\n    %3: f32;\n) = define {\n%4:\n    %5: f32"));
}

#[test]
fn reference_example_debug_info() {
    let opts = PrintOptions {
        debug_info: true,
        ..Default::default()
    };
    let text = print_module(&example().m, &opts);
    assert_text(
        &text,
        r#"module;

const %0: u32 = 00000000;// users: %10

const %1: f32 = 0000803f;// users: %5 %13

callable %2: f32 (
    %3: f32;// users: %5
) = define %4: {// preds:
    %5: f32 = arithmetic binary_add %3, %1;// users: %6
    %6: void = return %5;
};// users: %12

// CFG = {"function": "%2", "nodes": ["%4"], "edges": {"%4": []}, "terminators": {"%4": "return"}, "merges": {}, "dominance_tree": {"%4": []}, "dominance_frontiers": {"%4": []}}

kernel %7 (
    %8: buffer<f32>;// users: %11 %16
) = define %9: {// preds:
    %10: u32 = arithmetic extract %22.dispatch_id, %0;// users: %11 %16
    %11: f32 = resource_read buffer_read %8, %10;// users: %12
    %12: f32 = call %2, %11;// users: %13 %16
    %13: bool = arithmetic binary_less %12, %1;// users: %14
    %14: void = if %13, then %15: {// users: %14, preds: %9
        %16: void = resource_write buffer_write %8, %10, %12;
        %17: void = br %18;
    }, else %20: {// users: %14, preds: %9
        %21: void = br %18;
    }, merge %18: {// users: %17 %21, preds: %15 %20
        %19: void = return;
    };
};

// CFG = {"function": "%7", "nodes": ["%9", "%15", "%18", "%20"], "edges": {"%9": ["%15", "%20"], "%15": ["%18"], "%18": [], "%20": ["%18"]}, "terminators": {"%9": "if", "%15": "branch", "%18": "return", "%20": "branch"}, "merges": {"%9": "%18"}, "dominance_tree": {"%9": ["%20", "%15", "%18"], "%15": [], "%18": [], "%20": []}, "dominance_frontiers": {"%9": [], "%15": ["%18"], "%18": [], "%20": ["%18"]}}

"#,
    );
}

#[test]
fn flat_debug_info_block_labels() {
    let opts = PrintOptions {
        debug_info: true,
        flat: true,
        ..Default::default()
    };
    let text = print_module(&example().m, &opts);
    assert!(text.contains("\n%9:// preds:\n"));
    assert!(text.contains("\n%15:// users: %14, preds: %9\n"));
    assert!(text.contains("\n%18:// users: %17 %21, preds: %15 %20\n"));
}

#[test]
fn stable_ids() {
    let opts = PrintOptions {
        ids: IdStyle::Stable,
        ..Default::default()
    };
    let text = print_module(&example().m, &opts);
    assert_text(
        &text,
        "module;

const %c0: u32 = 00000000;

const %c1: f32 = 0000803f;

callable %f0: f32 (
    %f0_a0: f32;
) = define %f0_b0: {
    %f0_i0: f32 = arithmetic binary_add %f0_a0, %c1;
    %f0_i1: void = return %f0_i0;
};

kernel %f1 (
    %f1_a0: buffer<f32>;
) = define %f1_b0: {
    %f1_i0: u32 = arithmetic extract %dispatch_id.dispatch_id, %c0;
    %f1_i1: f32 = resource_read buffer_read %f1_a0, %f1_i0;
    %f1_i2: f32 = call %f0, %f1_i1;
    %f1_i3: bool = arithmetic binary_less %f1_i2, %c1;
    %f1_i4: void = if %f1_i3, then %f1_b1: {
        %f1_i5: void = resource_write buffer_write %f1_a0, %f1_i0, %f1_i2;
        %f1_i6: void = br %f1_b3;
    }, else %f1_b2: {
        %f1_i7: void = br %f1_b3;
    }, merge %f1_b3: {
        %f1_i8: void = return;
    };
};

",
    );
}

#[test]
fn stable_ids_do_not_shift_when_a_pass_adds_an_instruction() {
    let ex = example();
    let opts = PrintOptions {
        ids: IdStyle::Stable,
        ..Default::default()
    };
    let before = print_module(&ex.m, &opts);
    let mut m = ex.m.clone();
    // Insert a new instruction at the top of the kernel body.
    let f32t = m.types.f32();
    let c1 = m.live_constants().nth(1).unwrap();
    let k = m.func_mut(ex.kernel);
    let body = k.body.unwrap();
    k.insert_inst_at(
        body,
        0,
        xir_ir::InstData::new(
            xir_ir::InstKind::Arithmetic(xir_ir::op::ArithmeticOp::UnaryMinus),
            Some(f32t),
            [c1.into()],
        ),
    );
    let after = print_module(&m, &opts);
    let old: Vec<&str> = before.lines().collect();
    let new: Vec<&str> = after.lines().collect();
    assert_eq!(new.len(), old.len() + 1);
    let added: Vec<&&str> = new.iter().filter(|l| !old.contains(l)).collect();
    assert_eq!(added, [&"    %f1_i9: f32 = arithmetic unary_minus %c1;"]);
    // Upstream numbering, by contrast, renumbers everything after the insertion.
    let up_before = print(&ex.m);
    let up_after = print(&m);
    let changed = up_after.lines().filter(|l| !up_before.contains(l)).count();
    assert!(changed > 5, "{changed}");
}

#[path = "corpus_modules/mod.rs"]
mod corpus_modules;

#[test]
fn debug_info_loop_frontiers_and_missing_terminator() {
    let opts = PrintOptions {
        debug_info: true,
        ..Default::default()
    };
    let text = print_module(&corpus_modules::phi_loop(), &opts);
    let cfg = text.lines().find(|l| l.starts_with("// CFG")).unwrap();
    assert_eq!(
        cfg,
        r#"// CFG = {"function": "%3", "nodes": ["%5", "%7", "%11", "%14"], "edges": {"%5": ["%7"], "%7": ["%11", "%14"], "%11": ["%7"], "%14": []}, "terminators": {"%5": "branch", "%7": "conditional_branch", "%11": "branch", "%14": "return"}, "merges": {}, "dominance_tree": {"%5": ["%7"], "%7": ["%14", "%11"], "%11": [], "%14": []}, "dominance_frontiers": {"%5": [], "%7": ["%7"], "%11": ["%7"], "%14": []}}"#
    );
    assert!(text.contains("\n%7: {// users: %6 %13, preds: %5 %11\n    [name = i]\n    %8: u32 = phi (%0, %5), (%12, %11);// users: %9 %12 %15\n"));

    // A block without terminator: upstream's key without value; as the last key, the
    // trailing `: ` is popped.
    let (mut m, mut k, b) = kernel_shell();
    let t = m.types.u64();
    Cursor::at_end(&mut k, b).ins(xir_ir::InstKind::Clock, Some(t), []);
    m.add_function(k);
    let text = print_module(&m, &opts);
    assert!(
        text.ends_with(
            "\"terminators\": {\"%1\"}, \"merges\": {}, \"dominance_tree\": {\"%1\": []}, \"dominance_frontiers\": {\"%1\": []}}\n\n"
        ),
        "{text}"
    );
}

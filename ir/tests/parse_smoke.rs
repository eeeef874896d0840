//! The reference example (§1.8) parses.

use xir_ir::text::parse_module;

const EX: &str = r#"module;

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

"#;

#[test]
fn smoke() {
    match parse_module(EX) {
        Ok((m, _)) => {
            assert_eq!(m.func_order.len(), 2);
            assert_eq!(m.inst_count(), 11);
        }
        Err(d) => panic!("{}", xir_ir::diag::render("t.xir", EX, &d)),
    }
}

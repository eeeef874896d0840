//! Parses a file and dumps the module compactly (debugging aid until the printer lands).
fn main() {
    let path = std::env::args().nth(1).expect("file");
    let src = std::fs::read_to_string(&path).expect("read");
    match xir_ir::text::parse_module(&src) {
        Ok((m, _)) => {
            for (c, d) in m.constants.iter() {
                println!("{c:?}: {:?} = {:02x?} {:?}", d.ty, d.bytes, d.metadata);
            }
            for (u, d) in m.undefs.iter() {
                println!("{u:?}: {:?}", d.ty);
            }
            for f in &m.func_order {
                let func = m.func(*f);
                println!(
                    "{f:?} {:?} ret={:?} body={:?} md={:?}",
                    func.kind, func.ret, func.body, func.metadata
                );
                for a in &func.arg_order {
                    println!("  {a:?}: {:?}", func.args[*a]);
                }
                for b in &func.block_order {
                    println!("  {b:?}: md={:?}", func.blocks[*b].metadata);
                    for i in &func.blocks[*b].insts {
                        let d = &func.insts[*i];
                        println!(
                            "    {i:?}: {:?} = {:?} {:?} md={:?}",
                            d.ty, d.kind, d.operands, d.metadata
                        );
                    }
                }
            }
        }
        Err(d) => print!("{}", xir_ir::diag::render(&path, &src, &d)),
    }
}

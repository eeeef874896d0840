//! Lexing throughput (debugging aid).
use logos::Logos;
use xir_ir::text::lexer::Tok;
fn main() {
    let path = std::env::args().nth(1).expect("file");
    let src = std::fs::read_to_string(&path).expect("read");
    let t = std::time::Instant::now();
    let mut n = 0usize;
    for _token in Tok::lexer(&src) {
        n += 1;
    }
    println!("{n} tokens in {:?}", t.elapsed());
}

//! Lexing throughput (debugging aid): the plain logos lexer, and the same tokens through
//! `lex_ahead` inline and on its helper thread (with a trivial consumer).
use logos::Logos;
use xir_ir::text::lex_ahead::with_tokens;
use xir_ir::text::lexer::Tok;
fn main() {
    let path = std::env::args().nth(1).expect("file");
    let src = std::fs::read_to_string(&path).expect("read");
    let t = std::time::Instant::now();
    let n = Tok::lexer(&src).count();
    println!("logos:          {n} tokens in {:?}", t.elapsed());
    for (label, thread) in [("inline", false), ("helper thread", true)] {
        let t = std::time::Instant::now();
        let (n, ends) = with_tokens(&src, thread, |toks| {
            toks.fold((0usize, 0u64), |(n, s), t| (n + 1, s + u64::from(t.end())))
        });
        println!(
            "{label:15} {n} tokens in {:?} (checksum {ends})",
            t.elapsed()
        );
    }
}

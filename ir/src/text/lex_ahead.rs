//! Lexing one step ahead of the parser, on a second thread.
//!
//! [`LexedTokens`] yields the tokens of [`NameLexer`] (logos plus the raw-name rule, the
//! same token source the lalrpop stream reads) as 16-byte [`PackedTok`]s, in batches of
//! [`BATCH`]. For inputs of at least [`THREAD_MIN_BYTES`] a scoped helper thread lexes
//! the batches and hands them over through a bounded channel (at most [`IN_FLIGHT`]
//! batches ahead, so memory stays a few hundred KB whatever the input size); used
//! batches travel back to be refilled, so the steady state allocates nothing. Smaller
//! inputs are lexed inline, batch by batch with the same `fill_batch`, because
//! starting a thread costs more than lexing a few kilobytes.
//!
//! Why: lexing costs about two thirds as much as the parse proper (callgrind on a
//! 100,000-instruction module: ~1,200 against ~1,700 machine instructions per IR
//! instruction, ten tokens each) and the machines this runs on have a second core. Overlapping the two halves is the
//! cheapest way to take it off the critical path. Tokens cross between the cores
//! packed ([`packed_tok`](super::packed_tok) says why): half the bytes of a
//! `(Result<Tok, ()>, Span)`, no `Result` to wrap and unwrap, and the reader reads two
//! words per token instead of copying a 32-byte struct through the stack. The tokens
//! are the same either way (unit tests compare both modes on a many-batch input and
//! against the lalrpop stream's tokens, and the differential reader tests read a 3 MB
//! module through the thread), so nothing but time depends on which mode ran.
//!
//! The consumer may stop early: dropping [`LexedTokens`] ends the helper thread at its
//! next hand-over.

use super::lexer::NameLexer;
pub use super::packed_tok::{PackedTok, TokKind};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// Inputs at least this large are lexed on a helper thread.
pub const THREAD_MIN_BYTES: usize = 1 << 20;
/// Tokens per batch (64 KiB of [`PackedTok`]s) handed from the lexer thread to the
/// parser, and lexed at a time inline.
pub const BATCH: usize = 4096;
/// Batches the lexer may run ahead of the parser.
pub const IN_FLIGHT: usize = 8;

/// The tokens of one source text, lexed inline or on a helper thread.
pub struct LexedTokens<'s> {
    src: &'s str,
    /// The tokens being read; `batch[next..]` are still to come.
    batch: Vec<PackedTok>,
    next: usize,
    source: Source<'s>,
}

/// Where the next batch comes from.
enum Source<'s> {
    Inline(NameLexer<'s>),
    Ahead {
        full: Receiver<Vec<PackedTok>>,
        empty: SyncSender<Vec<PackedTok>>,
    },
}

impl<'s> LexedTokens<'s> {
    /// Lexes `src` on the calling thread.
    pub fn inline(src: &'s str) -> Self {
        LexedTokens {
            src,
            batch: Vec::new(),
            next: 0,
            source: Source::Inline(NameLexer::new(src)),
        }
    }

    /// The source text the tokens are spans of.
    pub fn src(&self) -> &'s str {
        self.src
    }

    /// The next token; `None` at the end of the input.
    #[inline]
    pub fn next_tok(&mut self) -> Option<PackedTok> {
        match self.next_buffered() {
            Some(t) => Some(t),
            None => self.refill(),
        }
    }

    /// The next token of the current batch; `None` when the batch is used up (then
    /// [`LexedTokens::next_tok`] fetches the next batch).
    #[inline]
    pub fn next_buffered(&mut self) -> Option<PackedTok> {
        let t = *self.batch.get(self.next)?;
        self.next += 1;
        Some(t)
    }

    /// Replaces the used-up batch with the next one and returns its first token.
    #[inline(never)]
    fn refill(&mut self) -> Option<PackedTok> {
        match &mut self.source {
            Source::Inline(lex) => {
                // Never more slots than bytes: a tiny input costs no 64 KiB batch.
                fill_batch(lex, &mut self.batch, BATCH.min(self.src.len() + 1));
            }
            Source::Ahead { full, empty } => {
                // The lexer hangs up after its last batch.
                let fresh = full.recv().ok()?;
                let used = std::mem::replace(&mut self.batch, fresh);
                // The lexer may have finished and gone; a lost buffer is harmless.
                if used.capacity() > 0 {
                    let _ = empty.try_send(used);
                }
            }
        }
        self.next = 0;
        let t = *self.batch.first()?;
        self.next = 1;
        Some(t)
    }
}

impl Iterator for LexedTokens<'_> {
    type Item = PackedTok;

    #[inline]
    fn next(&mut self) -> Option<PackedTok> {
        self.next_tok()
    }
}

/// Refills `batch` with up to `size` tokens of `lex` (fewer only at the end of the
/// input). The slots are written in place: a recycled batch keeps its length, so only
/// a fresh one is initialised first, and the loop does no capacity checks.
fn fill_batch(lex: &mut NameLexer<'_>, batch: &mut Vec<PackedTok>, size: usize) {
    batch.resize(size, PackedTok::new(TokKind::Error, 0, 0));
    let mut filled = 0;
    for slot in &mut batch[..size] {
        match lex.next_packed() {
            Some(t) => *slot = t,
            None => break,
        }
        filled += 1;
    }
    batch.truncate(filled);
}

/// Runs `f` over the tokens of `src`, lexing on a scoped helper thread when `src` is at
/// least [`THREAD_MIN_BYTES`] long (and `allow_thread` is set), inline otherwise.
/// Whatever `f` returns is returned once the helper thread has ended.
pub fn with_tokens<'s, R>(
    src: &'s str,
    allow_thread: bool,
    f: impl FnOnce(LexedTokens<'s>) -> R,
) -> R {
    if !allow_thread || src.len() < THREAD_MIN_BYTES {
        return f(LexedTokens::inline(src));
    }
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = sync_channel::<Vec<PackedTok>>(IN_FLIGHT);
        let (empty_tx, empty_rx) = sync_channel::<Vec<PackedTok>>(IN_FLIGHT + 2);
        let spawned = std::thread::Builder::new()
            .name("xir-lex".into())
            .spawn_scoped(scope, move || lex_batches(src, full_tx, empty_rx));
        if spawned.is_err() {
            // No thread to be had: lex inline, same tokens.
            return f(LexedTokens::inline(src));
        }
        let tokens = LexedTokens {
            src,
            batch: Vec::new(),
            next: 0,
            source: Source::Ahead {
                full: full_rx,
                empty: empty_tx,
            },
        };
        // `f` owns the tokens; once it drops them, the lexer's next send fails and
        // the helper thread ends (the scope waits for that).
        f(tokens)
    })
}

/// The helper thread: fills batches until the input ends or the parser hangs up. The
/// end of the input is the end of the channel: the last batch is the one before this
/// thread drops its sender.
fn lex_batches(src: &str, full: SyncSender<Vec<PackedTok>>, empty: Receiver<Vec<PackedTok>>) {
    let mut lex = NameLexer::new(src);
    loop {
        let mut batch = empty
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(BATCH));
        fill_batch(&mut lex, &mut batch, BATCH);
        let last = batch.len() < BATCH;
        if batch.is_empty() || full.send(batch).is_err() || last {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::lexer::Tok;

    fn sample(n: usize) -> String {
        let mut s = String::from("module;\n");
        for i in 0..n {
            s.push_str(&format!(
                "  %{i}: f32 = arithmetic binary_add %a, %b; // users: none\n  $ bad\n[name = a b{i} ]\n"
            ));
        }
        s
    }

    #[test]
    fn raw_names_follow_name_equals() {
        let src = "[name = my loop 1 , x = name]\nname = \"q\"";
        let toks: Vec<_> = LexedTokens::inline(src)
            .map(|t| (t.tok(src), t.start(), t.end()))
            .collect();
        assert_eq!(toks[3], (Tok::RawName("my loop 1"), 8, 17));
        assert_eq!(toks[4].0, Tok::Comma);
        // `x = name]`: `name` is the value, nothing raw follows `]`.
        assert_eq!(toks[7].0, Tok::Ident("name"));
        assert_eq!(toks[8].0, Tok::RBracket);
        // A quoted name is an ordinary string token.
        assert_eq!(toks[11].0, Tok::Str("\"q\""));
    }

    #[test]
    fn threaded_tokens_equal_inline_tokens() {
        // Large enough for several batches and the thread path.
        let src = sample(60_000);
        assert!(src.len() >= THREAD_MIN_BYTES);
        let inline: Vec<_> = LexedTokens::inline(&src).collect();
        let ahead = with_tokens(&src, true, |t| t.collect::<Vec<_>>());
        assert!(inline.len() > 8 * BATCH);
        assert!(inline.iter().any(|t| t.kind() == TokKind::Error));
        assert!(inline.iter().any(|t| t.kind() == TokKind::RawName));
        assert_eq!(inline, ahead);
        // And they are the tokens the lalrpop stream reads.
        let lalrpop: Vec<_> = NameLexer::new(&src).collect();
        let unpacked: Vec<_> = ahead.iter().map(|t| t.lexed(&src)).collect();
        assert_eq!(lalrpop, unpacked);
    }

    #[test]
    fn exact_batch_multiple_and_empty_input() {
        assert_eq!(with_tokens("", true, |t| t.count()), 0);
        assert_eq!(with_tokens(";;", true, |t| t.count()), 2);
        // A source with exactly BATCH tokens per batch boundary.
        let src = ";".repeat(BATCH * 300);
        assert!(src.len() >= THREAD_MIN_BYTES);
        assert_eq!(with_tokens(&src, true, |t| t.count()), BATCH * 300);
    }

    #[test]
    fn consumer_may_stop_early() {
        let src = sample(60_000);
        let first = with_tokens(&src, true, |mut t| t.by_ref().take(10).count());
        assert_eq!(first, 10);
    }
}

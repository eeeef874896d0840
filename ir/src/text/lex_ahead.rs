//! Lexing one step ahead of the parser, on a second thread.
//!
//! [`LexedTokens`] yields the tokens of [`NameLexer`] (logos plus the raw-name rule, the
//! same token source the lalrpop stream reads) with their [`Span`]s. For inputs of at
//! least [`THREAD_MIN_BYTES`] it runs the lexer on a scoped helper thread that hands over batches of [`BATCH`] tokens through a bounded
//! channel (at most [`IN_FLIGHT`] batches ahead, so memory stays a few hundred KB
//! whatever the input size); empty batches travel back to be refilled, so the steady
//! state allocates nothing. Smaller inputs are lexed inline, because starting a thread
//! costs more than lexing a few kilobytes.
//!
//! Why: lexing is about half of reading a large module (16 ns per token, ten tokens per
//! instruction) and the machines this runs on have a second core. Overlapping the two
//! halves is the cheapest way to take it off the critical path. The tokens are the
//! same either way (a unit test compares both modes on a many-batch input, and the
//! differential reader tests read a 3 MB module through the thread), so nothing but wall
//! time depends on which mode ran.
//!
//! The consumer may stop early: dropping [`LexedTokens`] ends the helper thread at its
//! next hand-over.

pub use super::lexer::Lexed;
use super::lexer::NameLexer;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// Inputs at least this large are lexed on a helper thread.
pub const THREAD_MIN_BYTES: usize = 1 << 20;
/// Tokens per batch handed from the lexer thread to the parser.
pub const BATCH: usize = 4096;
/// Batches the lexer may run ahead of the parser.
pub const IN_FLIGHT: usize = 8;

/// The tokens of one source text, lexed inline or on a helper thread.
pub struct LexedTokens<'s> {
    source: Source<'s>,
}

enum Source<'s> {
    Inline(NameLexer<'s>),
    Ahead {
        batch: Vec<Lexed<'s>>,
        next: usize,
        full: Receiver<Vec<Lexed<'s>>>,
        empty: SyncSender<Vec<Lexed<'s>>>,
    },
}

impl<'s> LexedTokens<'s> {
    /// Lexes `src` on the calling thread.
    pub fn inline(src: &'s str) -> Self {
        LexedTokens {
            source: Source::Inline(NameLexer::new(src)),
        }
    }
}

impl<'s> Iterator for LexedTokens<'s> {
    type Item = Lexed<'s>;

    #[inline]
    fn next(&mut self) -> Option<Lexed<'s>> {
        match &mut self.source {
            Source::Inline(lex) => lex.next(),
            Source::Ahead {
                batch,
                next,
                full,
                empty,
            } => {
                if *next == batch.len() {
                    let mut fresh = full.recv().ok()?;
                    std::mem::swap(batch, &mut fresh);
                    fresh.clear();
                    // The lexer may have finished and gone; a lost buffer is harmless.
                    let _ = empty.try_send(fresh);
                    *next = 0;
                    if batch.is_empty() {
                        return None;
                    }
                }
                let t = batch[*next];
                *next += 1;
                Some(t)
            }
        }
    }
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
        let (full_tx, full_rx) = sync_channel::<Vec<Lexed<'s>>>(IN_FLIGHT);
        let (empty_tx, empty_rx) = sync_channel::<Vec<Lexed<'s>>>(IN_FLIGHT + 2);
        let spawned = std::thread::Builder::new()
            .name("xir-lex".into())
            .spawn_scoped(scope, move || lex_batches(src, full_tx, empty_rx));
        if spawned.is_err() {
            // No thread to be had: lex inline, same tokens.
            return f(LexedTokens::inline(src));
        }
        let tokens = LexedTokens {
            source: Source::Ahead {
                batch: Vec::new(),
                next: 0,
                full: full_rx,
                empty: empty_tx,
            },
        };
        // `f` owns the tokens; once it drops them, the lexer's next send fails and
        // the helper thread ends (the scope waits for that).
        f(tokens)
    })
}

/// The helper thread: fills batches until the input ends (then sends one empty batch)
/// or the parser hangs up.
fn lex_batches<'s>(
    src: &'s str,
    full: SyncSender<Vec<Lexed<'s>>>,
    empty: Receiver<Vec<Lexed<'s>>>,
) {
    let mut lex = NameLexer::new(src);
    loop {
        let mut batch = empty
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(BATCH));
        while batch.len() < BATCH {
            match lex.next() {
                Some(t) => batch.push(t),
                None => break,
            }
        }
        let last = batch.len() < BATCH;
        if full.send(batch).is_err() {
            return;
        }
        if last {
            // A short batch was the end; an empty one tells the reader so.
            let _ = full.send(Vec::new());
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
        let toks: Vec<_> = LexedTokens::inline("[name = my loop 1 , x = name]\nname = \"q\"")
            .map(|(t, sp)| (t.unwrap(), sp.start, sp.end))
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
        assert!(inline.iter().any(|(t, _)| t.is_err()));
        assert_eq!(inline, ahead);
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

//! Execution semantics of pipelines (reference §7.2), including the pinned cases.

mod common;

use common::*;
use xir_passes::pipeline::fingerprint::fingerprint;
use xir_passes::pipeline::{Bisect, FailureKind, Record, RunOptions, Runner};

fn top(r: &xir_passes::pipeline::RunResult, k: usize) -> &Record {
    &r.stats.records[k]
}

#[test]
fn fixed_point_changing_on_iterations_1_and_2_runs_3_times() {
    let mut m = module();
    let (r, _) = run(
        "fixed-point fp max=8 { add test-change-n{times=2} }",
        &mut m,
    );
    assert!(r.failure.is_none(), "{:?}", r.failure);
    let g = top(&r, 0);
    assert_eq!(
        (
            g.invocations,
            g.changed,
            g.converged,
            g.iteration_limit_reached
        ),
        (3, true, true, false)
    );
    let leaf = &g.children[0];
    assert_eq!(leaf.invocations, 3);
    // Reports are summed across iterations.
    assert_eq!(leaf.report.get("bumped_count"), Some(2));
    assert!(r.stats.succeeded());
}

#[test]
fn always_changing_child_with_budget_5_fails_unless_allowed() {
    let mut m = module();
    let (r, _) = run("fixed-point fp max=5 { test-always-change }", &mut m);
    let g = top(&r, 0);
    assert_eq!(
        (g.invocations, g.converged, g.iteration_limit_reached),
        (5, false, true)
    );
    assert!(!r.stats.succeeded());
    let f = r.failure.expect("non-convergence fails the run");
    assert_eq!(f.kind, FailureKind::NonConvergence);
    assert!(
        f.message.contains("did not converge within 5 iterations"),
        "{}",
        f.message
    );
    assert!(
        f.message
            .contains("still changing in the last iteration: test-always-change")
    );

    let mut m = module();
    let (r, log) = run(
        "fixed-point fp max=5 allow-nonconvergence { test-always-change }",
        &mut m,
    );
    assert!(r.failure.is_none());
    assert!(
        !r.stats.succeeded(),
        "upstream's succeeded() still reports the exhausted budget"
    );
    assert!(
        log.contains("warning: fixed point 'fp' did not converge"),
        "{log}"
    );
}

#[test]
fn budget_zero_runs_nothing() {
    let mut m = module();
    let before = fingerprint(&m);
    let (r, _) = run(
        "fixed-point fp max=0 allow-nonconvergence { test-always-change }",
        &mut m,
    );
    let g = top(&r, 0);
    assert_eq!(
        (
            g.invocations,
            g.converged,
            g.iteration_limit_reached,
            g.changed
        ),
        (0, false, true, false)
    );
    assert_eq!(g.children[0].visits, 0);
    assert_eq!(fingerprint(&m), before);
    let mut m = module();
    let (r, _) = run("fixed-point fp max=0 { test-never-change }", &mut m);
    let f = r.failure.unwrap();
    assert_eq!(f.kind, FailureKind::NonConvergence);
    assert!(f.message.contains("budget of 0"), "{}", f.message);
}

#[test]
fn sequence_whose_child_changed_is_changed_and_converged() {
    let mut m = module();
    let (r, _) = run("sequence s { test-always-change }", &mut m);
    let g = top(&r, 0);
    assert_eq!(
        (
            g.invocations,
            g.changed,
            g.converged,
            g.iteration_limit_reached
        ),
        (1, true, true, false)
    );
    assert!(r.stats.succeeded());
}

#[test]
fn nested_groups_merge_across_iterations() {
    let mut m = module();
    // The inner fixed point converges each time; the outer runs until the counter stops.
    let text = "fixed-point outer max=10 { test-change-n{times=3}, fixed-point inner max=4 { test-never-change } }";
    let (r, _) = run(text, &mut m);
    let outer = top(&r, 0);
    assert_eq!(outer.invocations, 4);
    let inner = &outer.children[1];
    assert_eq!(
        (inner.visits, inner.invocations, inner.converged),
        (4, 4, true)
    );
    assert_eq!(inner.children[0].invocations, 4);
}

#[test]
fn refusal_leaves_module_identical_and_warns() {
    let mut m = module();
    let before = fingerprint(&m);
    let (r, log) = run(
        "test-refuse{reason=\"not today\"}, test-never-change",
        &mut m,
    );
    assert!(r.failure.is_none());
    assert_eq!(fingerprint(&m), before);
    assert!(
        log.contains("warning: pass 'test-refuse' (invocation 1) refused: not today"),
        "{log}"
    );
    assert_eq!(top(&r, 0).refusals, 1);
    assert_eq!(r.refusals.len(), 1);
    assert_eq!(top(&r, 1).invocations, 1, "the run continues");

    let (r, _) = run("test-refuse abort-on-refusal, test-always-change", &mut m);
    let f = r.failure.clone().unwrap();
    assert_eq!((f.kind, f.index), (FailureKind::Refusal, Some(1)));
    assert!(f.message.contains("test-refuse always declines"));
    assert_eq!(
        top(&r, 1).visits,
        0,
        "nothing runs after an aborting refusal"
    );
}

#[test]
fn form_precondition_is_a_refusal() {
    let mut m = structured_module();
    let (r, log) = run("test-require-plain", &mut m);
    assert!(r.failure.is_none());
    assert_eq!(top(&r, 0).refusals, 1);
    assert!(
        log.contains("refused: test-require-plain: requires plain CFG, but function #0 contains structured control flow (if)"),
        "{log}"
    );
    let mut m = module();
    let (r, _) = run("test-require-plain", &mut m);
    assert_eq!(top(&r, 0).refusals, 0);
}

#[test]
fn panics_are_caught_with_their_invocation() {
    let mut m = module();
    let (r, _) = run(
        "test-never-change, fixed-point fp max=2 { test-panic }",
        &mut m,
    );
    let f = r.failure.unwrap();
    assert_eq!((f.kind, f.index), (FailureKind::Panic, Some(2)));
    assert_eq!(f.path, "fp[iter 1]/test-panic");
    assert!(f.message.contains("deliberate panic"), "{}", f.message);
}

#[test]
fn verify_each_names_the_breaking_pass() {
    let mut m = module();
    let (r, _) = run(
        "test-never-change, sequence s { test-break-verifier }, test-never-change",
        &mut m,
    );
    let f = r.failure.unwrap();
    assert_eq!(
        (f.kind, f.index, f.path.as_str()),
        (FailureKind::Verifier, Some(2), "s/test-break-verifier")
    );
    assert!(
        f.message
            .contains("after pass 's/test-break-verifier' (invocation 2)")
    );
    assert!(f.message.contains("block #0 is not terminated"));
    let mut m = module();
    let opts = RunOptions {
        verify_each: false,
        ..RunOptions::default()
    };
    let (r, _) = run_with("test-break-verifier", &mut m, opts);
    assert!(r.failure.is_none(), "without --verify-each nothing checks");
}

#[test]
fn deferred_verification_moves_to_the_next_entry() {
    let mut m = module();
    let (r, _) = run(
        "test-break-verifier verify=deferred, test-never-change",
        &mut m,
    );
    let f = r.failure.unwrap();
    assert_eq!((f.kind, f.index), (FailureKind::Verifier, Some(2)));
    let mut m = module();
    let (r, _) = run(
        "sequence s verify=deferred { test-break-verifier, test-never-change }",
        &mut m,
    );
    let f = r.failure.unwrap();
    assert_eq!(
        (f.kind, f.path.as_str()),
        (FailureKind::Verifier, "end of pipeline")
    );
}

#[test]
fn honesty_check_catches_unreported_changes() {
    let mut m = module();
    let (r, _) = run("test-lie-about-change", &mut m);
    let f = r.failure.unwrap();
    assert_eq!(f.kind, FailureKind::Dishonest);
    assert!(
        f.message
            .contains("reported no change but changed the module")
    );
}

#[test]
fn oscillating_pair_is_named() {
    let mut m = module();
    let (r, _) = run(
        "fixed-point osc max=6 { test-toggle-a, test-toggle-b }",
        &mut m,
    );
    let f = r.failure.unwrap();
    assert_eq!(f.kind, FailureKind::NonConvergence);
    assert!(
        f.message
            .contains("test-toggle-a and test-toggle-b keep undoing each other"),
        "{}",
        f.message
    );
}

#[test]
fn bisect_limit_skips_later_invocations_but_not_required_ones() {
    let mut m = module();
    let opts = RunOptions {
        bisect: Bisect::Limit(2),
        ..RunOptions::default()
    };
    let text = "test-always-change, fixed-point fp max=3 { test-change-n{times=1} }, test-always-change required";
    let (r, log) = run_with(text, &mut m, opts);
    assert!(r.failure.is_none(), "{:?}", r.failure);
    let expected = "BISECT: running pass (1) test-always-change\n\
                    BISECT: running pass (2) fp[iter 1]/test-change-n\n\
                    BISECT: NOT running pass (3) fp[iter 2]/test-change-n\n\
                    BISECT: running pass (4) test-always-change#2 (required)\n";
    assert_eq!(log, expected);
    assert_eq!(r.invocations, 4);
    assert_eq!(r.stats.records[1].children[0].skipped, 1);
}

#[test]
fn hooks_see_stable_indices_and_paths() {
    let mut m = module();
    let p = load(
        "sequence outer { fixed-point fp max=4 { test-change-n{times=1}, test-never-change } }, test-refuse",
    );
    let mut rec = Recorder::default();
    let mut log = Vec::new();
    let v = TerminatorVerifier;
    let r = Runner::new(RunOptions::default(), &mut log)
        .with_verifier(&v)
        .instrument(&mut rec)
        .run(&p, &mut m);
    assert!(r.failure.is_none());
    assert_eq!(
        rec.events,
        [
            "before (1) outer/fp[iter 1]/test-change-n",
            "after (1) outer/fp[iter 1]/test-change-n changed=true",
            "before (2) outer/fp[iter 1]/test-never-change",
            "after (2) outer/fp[iter 1]/test-never-change changed=false",
            "before (3) outer/fp[iter 2]/test-change-n",
            "after (3) outer/fp[iter 2]/test-change-n changed=false",
            "before (4) outer/fp[iter 2]/test-never-change",
            "after (4) outer/fp[iter 2]/test-never-change changed=false",
            "before (5) test-refuse",
            "refused (5) test-refuse: test-refuse always declines",
        ]
    );
}

#[test]
fn stats_log_has_upstreams_shape() {
    let mut m = module();
    let (r, _) = run(
        "sequence s { test-change-n{times=1} }, fixed-point fp max=3 { test-never-change }",
        &mut m,
    );
    let log = r.stats.log();
    let shape: Vec<String> = log.lines().map(normalize_times).collect();
    assert_eq!(
        shape,
        [
            "PassPipeline '--passes' (<t> ms total):",
            "  [<t>] s (x1) (converged)",
            "    [<t>] test-change-n (changed)",
            "      bumped_count: 1",
            "  [<t>] fp (x1) (converged)",
            "    [<t>] test-never-change",
            "      visited_function_count: 1",
        ]
    );
    assert!(
        r.stats
            .json()
            .contains("\"name\":\"fp\",\"kind\":\"fixed-point\",\"visits\":1,\"invocations\":1")
    );
}

#[test]
fn module_conditions_are_decided_at_run_time() {
    let mut m = module();
    let (r, _) = run(
        "if has-autodiff-scope { test-always-change } else { test-never-change }",
        &mut m,
    );
    let cond = top(&r, 0);
    assert_eq!((cond.children[0].visits, cond.children[1].visits), (0, 1));
    assert!(m.metadata.is_empty());
}

#[test]
fn trace_lines_follow_upstream() {
    let mut m = module();
    let opts = RunOptions {
        trace: true,
        ..RunOptions::default()
    };
    let (_, log) = run_with(
        "fixed-point fp max=2 allow-nonconvergence { test-always-change }",
        &mut m,
        opts,
    );
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines[0], "Starting XIR pass 'fp'");
    assert_eq!(
        lines[1],
        "Starting XIR pass 'fp[iter 1]/test-always-change'"
    );
    assert!(lines[2].starts_with("Finished XIR pass 'fp[iter 1]/test-always-change' in "));
    assert!(lines[2].ends_with(" ms (changed)"));
    assert!(lines[5].starts_with("Finished XIR pass 'fp' in "), "{log}");
    assert!(lines[5].ends_with("after 2 iteration(s) (changed) (iteration limit reached)"));
}

/// Replaces every decimal number with a `.` (a time) by `<t>`.
fn normalize_times(line: &str) -> String {
    let mut out = String::new();
    let mut num = String::new();
    for c in line.chars().chain(std::iter::once('\0')) {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
            continue;
        }
        if num.contains('.') && num.len() > 1 {
            out.push_str("<t>");
        } else {
            out.push_str(&num);
        }
        num.clear();
        if c != '\0' {
            out.push(c);
        }
    }
    out
}

#[test]
fn remaining_pipeline_starts_at_the_failing_invocation() {
    let mut m = module();
    let text = "test-never-change, if !has-autodiff-scope { fixed-point fp max=4 { test-change-n{times=1}, test-panic, test-never-change } }, test-always-change";
    let p = load(text);
    let mut log = Vec::new();
    let v = TerminatorVerifier;
    let r = Runner::new(RunOptions::default(), &mut log)
        .with_verifier(&v)
        .run(&p, &mut m);
    let f = r.failure.unwrap();
    assert_eq!((f.kind, f.index), (FailureKind::Panic, Some(3)));
    assert_eq!(
        p.remaining_text(&f.trail),
        "sequence fp{test-panic,test-never-change},fixed-point fp(max=3){test-change-n{times=1},test-panic,test-never-change},test-always-change"
    );
    // The remaining text is itself a loadable pipeline.
    load(&p.remaining_text(&f.trail));
}

#[test]
fn stop_before_leaves_the_module_as_the_previous_invocations_made_it() {
    let mut m = module();
    let opts = RunOptions {
        stop_before: Some(3),
        ..RunOptions::default()
    };
    let (r, _) = run_with(
        "test-always-change, test-always-change, test-always-change required",
        &mut m,
        opts,
    );
    assert_eq!(r.failure.unwrap().kind, FailureKind::Stopped);
    assert_eq!(
        m.metadata,
        vec![xir_ir::Metadata::Comment("test-always-change: 2".into())]
    );
}

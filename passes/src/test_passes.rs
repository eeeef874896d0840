//! Test-only passes, registered only under `--enable-test-passes`.
//!
//! They exist to exercise the pipeline framework: change reporting, convergence,
//! refusals, panics, verifier breaks and honesty checks. Each one really does what its
//! summary says — the mutating ones edit module metadata (a comment), which the printer
//! shows, so corpus tests can observe them.
//!
//! The declared ones live one per file under `test_passes/`: `strip-names` is the worked
//! example of `docs/adding-a-pass.md`, `lie-about-cfg` proves the control-flow honesty
//! check.

use crate::pass::{Changed, Pass, PassContext, PassError, PassReport, PassRun};
use crate::registry::{FormRequirement, PassInfo, PassOptionInfo, PassOptions};
use xir_ir::{Metadata, Module};

crate::pass_registry! {
    /// Every test-only pass: one file each under `test_passes/` (declared with
    /// [`declare_pass!`](crate::declare_pass)), then the behaviour-table ones of this file.
    static TEST_PASSES (test_only: true) = [
        lie_about_cfg::LieAboutCfg,
        signed_div_to_shift::SignedDivToShift,
        strip_names::StripNames,
    ] + [
        ALWAYS_CHANGE,
        BREAK_VERIFIER,
        CHANGE_N,
        LIE_ABOUT_CHANGE,
        NEVER_CHANGE,
        PANIC,
        REFUSE,
        REQUIRE_PLAIN,
        TOGGLE_A,
        TOGGLE_B,
    ];
}

/// What one test pass does.
#[derive(Clone, Debug)]
enum Behaviour {
    AlwaysChange,
    NeverChange,
    BreakVerifier,
    LieAboutChange,
    Refuse(String),
    Panic,
    ToggleA,
    ToggleB,
    ChangeN(u64),
}

struct TestPass(Behaviour);

const ALWAYS_CHANGE_TAG: &str = "test-always-change: ";
const CHANGE_N_TAG: &str = "test-change-n: ";
const LIE_TAG: &str = "test-lie-about-change";
const TOGGLE_TAG: &str = "test-toggle";

/// Reads the counter of the module comment starting with `tag` (0 when absent).
fn counter(m: &Module, tag: &str) -> u64 {
    m.metadata
        .iter()
        .find_map(|md| match md {
            Metadata::Comment(c) => c.strip_prefix(tag).and_then(|n| n.parse().ok()),
            _ => None,
        })
        .unwrap_or(0)
}

/// Sets the module comment `tag<n>` (replacing the previous one).
fn set_counter(m: &mut Module, tag: &str, n: u64) {
    m.metadata
        .retain(|md| !matches!(md, Metadata::Comment(c) if c.starts_with(tag)));
    m.metadata.push(Metadata::Comment(format!("{tag}{n}")));
}

fn has_comment(m: &Module, text: &str) -> bool {
    m.metadata
        .iter()
        .any(|md| matches!(md, Metadata::Comment(c) if c == text))
}

fn toggle_comment(m: &mut Module, text: &str) {
    if has_comment(m, text) {
        m.metadata
            .retain(|md| !matches!(md, Metadata::Comment(c) if c == text));
    } else {
        m.metadata.push(Metadata::Comment(text.to_string()));
    }
}

/// Removes the terminator of the first block that has one; returns whether it did.
fn remove_first_terminator(m: &mut Module) -> bool {
    for f in m.func_order.clone() {
        let func = m.func_mut(f);
        let order = func.block_order.to_vec();
        for b in order {
            if let Some(t) = func.terminator(b) {
                func.remove_inst(t);
                return true;
            }
        }
    }
    false
}

impl Pass for TestPass {
    fn run(&self, m: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut report = PassReport::new();
        let changed = match &self.0 {
            Behaviour::AlwaysChange => {
                let n = counter(m, ALWAYS_CHANGE_TAG) + 1;
                set_counter(m, ALWAYS_CHANGE_TAG, n);
                report.set("bumped_count", 1);
                Changed::Instructions
            }
            Behaviour::NeverChange => {
                report.set("visited_function_count", m.func_order.len() as u64);
                Changed::Nothing
            }
            Behaviour::BreakVerifier => {
                if !remove_first_terminator(m) {
                    return Ok(PassRun::refused(
                        "test-break-verifier: no block has a terminator to remove",
                        report,
                    ));
                }
                report.set("removed_terminator_count", 1);
                Changed::ControlFlow
            }
            Behaviour::LieAboutChange => {
                toggle_comment(m, LIE_TAG);
                report.set("hidden_change_count", 1);
                Changed::Nothing
            }
            Behaviour::Refuse(reason) => return Ok(PassRun::refused(reason.clone(), report)),
            Behaviour::Panic => panic!("test-panic: deliberate panic inside a pass"),
            Behaviour::ToggleA | Behaviour::ToggleB => {
                let want = matches!(self.0, Behaviour::ToggleA);
                let changed = has_comment(m, TOGGLE_TAG) != want;
                if changed {
                    toggle_comment(m, TOGGLE_TAG);
                }
                report.set("toggled_count", u64::from(changed));
                if changed {
                    Changed::Instructions
                } else {
                    Changed::Nothing
                }
            }
            Behaviour::ChangeN(times) => {
                let n = counter(m, CHANGE_N_TAG);
                let changed = n < *times;
                if changed {
                    set_counter(m, CHANGE_N_TAG, n + 1);
                }
                report.set("bumped_count", u64::from(changed));
                if changed {
                    Changed::Instructions
                } else {
                    Changed::Nothing
                }
            }
        };
        Ok(PassRun::new(changed, report))
    }
}

fn no_options(b: Behaviour) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(TestPass(b)))
}

macro_rules! test_pass {
    ($id:ident, $name:literal, $summary:literal, $form:expr, $opts:expr, $keys:expr, $create:expr) => {
        static $id: PassInfo = PassInfo {
            name: $name,
            summary: $summary,
            form: $form,
            options: $opts,
            report_keys: $keys,
            create: $create,
            test_only: true,
        };
    };
}

test_pass!(
    ALWAYS_CHANGE,
    "test-always-change",
    "Bumps a counter comment on the module every run and reports a change.",
    FormRequirement::Either,
    &[],
    &["bumped_count"],
    |_| no_options(Behaviour::AlwaysChange)
);
test_pass!(
    NEVER_CHANGE,
    "test-never-change",
    "Leaves the module alone and reports no change.",
    FormRequirement::Either,
    &[],
    &["visited_function_count"],
    |_| no_options(Behaviour::NeverChange)
);
test_pass!(
    BREAK_VERIFIER,
    "test-break-verifier",
    "Removes the first terminator it finds, making the module invalid.",
    FormRequirement::Either,
    &[],
    &["removed_terminator_count"],
    |_| no_options(Behaviour::BreakVerifier)
);
test_pass!(
    LIE_ABOUT_CHANGE,
    "test-lie-about-change",
    "Toggles a module comment but reports no change (the honesty check catches it).",
    FormRequirement::Either,
    &[],
    &["hidden_change_count"],
    |_| no_options(Behaviour::LieAboutChange)
);
static REFUSE_OPTIONS: &[PassOptionInfo] = &[PassOptionInfo {
    name: "reason",
    default: "test-refuse always declines",
    help: "The refusal reason to report.",
}];
test_pass!(
    REFUSE,
    "test-refuse",
    "Declines to run (a refusal), leaving the module untouched.",
    FormRequirement::Either,
    REFUSE_OPTIONS,
    &[],
    |o: &PassOptions| {
        let reason = o.get("reason").unwrap_or(REFUSE_OPTIONS[0].default);
        no_options(Behaviour::Refuse(reason.to_string()))
    }
);
test_pass!(
    PANIC,
    "test-panic",
    "Panics (a crash inside a pass).",
    FormRequirement::Either,
    &[],
    &[],
    |_| no_options(Behaviour::Panic)
);
test_pass!(
    REQUIRE_PLAIN,
    "test-require-plain",
    "Declares the plain-CFG precondition and otherwise leaves the module alone.",
    FormRequirement::Plain,
    &[],
    &["visited_function_count"],
    |_| no_options(Behaviour::NeverChange)
);
test_pass!(
    TOGGLE_A,
    "test-toggle-a",
    "Adds the module comment `test-toggle` when absent (undone by test-toggle-b).",
    FormRequirement::Either,
    &[],
    &["toggled_count"],
    |_| no_options(Behaviour::ToggleA)
);
test_pass!(
    TOGGLE_B,
    "test-toggle-b",
    "Removes the module comment `test-toggle` when present (undone by test-toggle-a).",
    FormRequirement::Either,
    &[],
    &["toggled_count"],
    |_| no_options(Behaviour::ToggleB)
);
static CHANGE_N_OPTIONS: &[PassOptionInfo] = &[PassOptionInfo {
    name: "times",
    default: "1",
    help: "How many runs change the module before it settles.",
}];
test_pass!(
    CHANGE_N,
    "test-change-n",
    "Bumps a counter comment on its first `times` runs over a module, then reports no change.",
    FormRequirement::Either,
    CHANGE_N_OPTIONS,
    &["bumped_count"],
    |o: &PassOptions| Ok(Box::new(TestPass(Behaviour::ChangeN(
        o.get_u64("times", 1)?
    ))))
);

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str, m: &mut Module) -> PassRun {
        let info = TEST_PASSES.iter().find(|p| p.name == name).unwrap();
        let p = (info.create)(&PassOptions::default()).unwrap();
        p.run(m, &mut PassContext::default()).unwrap()
    }

    #[test]
    fn always_change_really_changes() {
        let mut m = Module::new();
        assert!(run("test-always-change", &mut m).changed.any());
        assert!(run("test-always-change", &mut m).changed.any());
        assert_eq!(
            m.metadata,
            vec![Metadata::Comment("test-always-change: 2".into())]
        );
    }

    #[test]
    fn toggles_undo_each_other() {
        let mut m = Module::new();
        assert!(run("test-toggle-a", &mut m).changed.any());
        assert!(!run("test-toggle-a", &mut m).changed.any());
        assert!(run("test-toggle-b", &mut m).changed.any());
        assert!(m.metadata.is_empty());
    }

    #[test]
    fn lie_mutates_but_reports_nothing() {
        let mut m = Module::new();
        let r = run("test-lie-about-change", &mut m);
        assert!(!r.changed.any());
        assert_eq!(m.metadata.len(), 1);
    }

    #[test]
    fn refuse_and_never_change_leave_module_alone() {
        let mut m = Module::new();
        let r = run("test-refuse", &mut m);
        assert_eq!(r.refusal.as_deref(), Some("test-refuse always declines"));
        assert!(!run("test-never-change", &mut m).changed.any());
        assert!(m.metadata.is_empty());
    }

    #[test]
    fn unique_and_test_only() {
        let mut names: Vec<&str> = TEST_PASSES.iter().map(|p| p.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TEST_PASSES.len());
        assert!(
            TEST_PASSES
                .iter()
                .all(|p| p.test_only && p.name.starts_with("test-"))
        );
    }
}

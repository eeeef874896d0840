//! One pass declaration: [`declare_pass!`] turns a pass's counters into its registry
//! entry, report keys and change result; [`pass_registry!`] is the one list of passes.
//!
//! A pass file states, once each: its name, summary, form precondition, options and a
//! counters struct whose fields are the report keys, in upstream order, each with the
//! [`Changed`] class a non-zero value means. From that the macro derives
//!
//! * the counters struct (`u64` fields) and its [`Counters`] impl: the key list, the
//!   zero-filled [`PassReport`], the sum over functions and the change result (the largest
//!   class among non-zero counters), so no key is typed twice and no "changed" predicate
//!   is written by hand;
//! * the pass's [`PassDecl`] impl: its [`PassInfo`] (what the registry, `--list-passes`,
//!   `docs/passes.md` and the schema test read) and how to build it.
//!
//! Counters in an `internal { … }` section take part in the change result but are not
//! published (upstream's key set stays exact), e.g. `dce` counts the terminators it
//! rewires so that its result says `ControlFlow` whenever an edge went.
//!
//! ```
//! use xir_passes::declare::Counters;
//! use xir_passes::pass::{Changed, FunctionPass, PassContext, PassError};
//! use xir_ir::{FuncId, Module};
//!
//! /// Counts blocks (a doc example; it never changes anything).
//! #[derive(Copy, Clone, Debug, Default)]
//! pub struct CountBlocks;
//!
//! xir_passes::declare_pass! {
//!     CountBlocks: function pass "count-blocks" {
//!         summary: "Counts blocks",
//!         form: Either,
//!         counters: CountBlocksCounters {
//!             /// Blocks seen.
//!             seen_block: Nothing,
//!         }
//!     }
//! }
//!
//! impl FunctionPass for CountBlocks {
//!     fn run_on_function(
//!         &self,
//!         module: &mut Module,
//!         f: FuncId,
//!         _cx: &mut PassContext,
//!         c: &mut CountBlocksCounters,
//!     ) -> Result<(), PassError> {
//!         c.seen_block += module.func(f).block_order.len() as u64;
//!         Ok(())
//!     }
//! }
//!
//! let c = CountBlocksCounters { seen_block: 3 };
//! assert_eq!(CountBlocksCounters::KEYS, ["seen_block"]);
//! assert_eq!(c.changed(), Changed::Nothing);
//! assert_eq!(c.report().get("seen_block"), Some(3));
//! ```

use crate::pass::{Changed, PassContext, PassError, PassReport, PassRun};
use crate::registry::PassInfo;
use xir_ir::Module;

/// The module type, for macro expansions in crates that do not name `xir_ir`.
#[doc(hidden)]
pub use xir_ir::Module as __Module;

/// The counters of one pass (implemented by [`declare_pass!`]).
pub trait Counters: Default {
    /// The published report keys, in order (the field names).
    const KEYS: &'static [&'static str];
    /// Every key with its value, in order.
    fn report(&self) -> PassReport;
    /// The largest change class among the non-zero counters (published or internal).
    fn changed(&self) -> Changed;
    /// Adds `other` to `self`, counter by counter (saturating).
    fn merge(&mut self, other: &Self);
}

/// A declared pass (implemented by [`declare_pass!`]).
pub trait PassDecl: Sized {
    /// Its counters.
    type Counters: Counters;
    /// Its registry entry.
    const INFO: PassInfo;
    /// Runs it once with its default options, through static dispatch (the
    /// [`direct`](crate::direct) baseline).
    fn run_default(module: &mut Module, cx: &mut PassContext) -> Result<PassRun, PassError>;
}

/// Declares a pass: see the [module documentation](crate::declare) and
/// `docs/adding-a-pass.md`.
///
/// ```text
/// declare_pass! {
///     Type: function pass "kebab-name" {      // or `module pass` (implements `Pass`)
///         summary: "One line.",
///         form: Either,                         // Either | Structured | Plain
///         options: [PassOptionInfo { … }],      // optional
///         create: |o: &PassOptions| Ok(Type { … }),   // optional (default: Default)
///         counters: TypeCounters {
///             /// doc
///             report_key: Instructions,         // Nothing | Instructions | ControlFlow
///         }
///         internal { rewired_edge: ControlFlow, }     // optional, not published
///     }
/// }
/// ```
#[macro_export]
macro_rules! declare_pass {
    (
        $pass:ident : $kind:ident pass $name:literal {
            summary: $summary:literal,
            form: $form:ident,
            $(options: [$($opt:expr),* $(,)?],)?
            $(create: $create:expr,)?
            counters: $counters:ident {
                $($(#[$fm:meta])* $key:ident : $class:ident),* $(,)?
            }
            $(internal {
                $($(#[$im:meta])* $ikey:ident : $iclass:ident),* $(,)?
            })?
        }
    ) => {
        #[doc = concat!("Counters of `", $name, "`: the field names are its report keys, in order.")]
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
        pub struct $counters {
            $($(#[$fm])* pub $key: u64,)*
            $($($(#[$im])* pub $ikey: u64,)*)?
        }

        impl $crate::declare::Counters for $counters {
            const KEYS: &'static [&'static str] = &[$(stringify!($key)),*];
            fn report(&self) -> $crate::pass::PassReport {
                let mut r = $crate::pass::PassReport::with_keys(Self::KEYS);
                $(r.set(stringify!($key), self.$key);)*
                r
            }
            fn changed(&self) -> $crate::pass::Changed {
                let mut c = $crate::pass::Changed::Nothing;
                $(if self.$key > 0 { c = c.max($crate::pass::Changed::$class); })*
                $($(if self.$ikey > 0 { c = c.max($crate::pass::Changed::$iclass); })*)?
                c
            }
            fn merge(&mut self, other: &Self) {
                $(self.$key = self.$key.saturating_add(other.$key);)*
                $($(self.$ikey = self.$ikey.saturating_add(other.$ikey);)*)?
            }
        }

        impl $crate::declare::PassDecl for $pass {
            type Counters = $counters;
            const INFO: $crate::registry::PassInfo = $crate::registry::PassInfo {
                name: $name,
                summary: $summary,
                form: $crate::registry::FormRequirement::$form,
                options: &[$($($opt),*)?],
                report_keys: <$counters as $crate::declare::Counters>::KEYS,
                create: |o: &$crate::registry::PassOptions| {
                    let p: $pass = $crate::__pass_create!(o; $($create)?)?;
                    Ok($crate::__pass_box!($kind, p))
                },
                test_only: false,
            };
            fn run_default(
                module: &mut $crate::declare::__Module,
                cx: &mut $crate::pass::PassContext,
            ) -> Result<$crate::pass::PassRun, $crate::pass::PassError> {
                $crate::pass::Pass::run(&$crate::__pass_wrap!($kind, <$pass>::default()), module, cx)
            }
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __pass_create {
    ($o:ident; $create:expr) => {
        ($create)($o)
    };
    ($o:ident;) => {{
        let _ = $o;
        Ok::<_, String>(Default::default())
    }};
}

#[doc(hidden)]
#[macro_export]
macro_rules! __pass_wrap {
    (function, $p:expr) => {
        $crate::pass::PerFunction($p)
    };
    (module, $p:expr) => {
        $p
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __pass_box {
    ($kind:ident, $p:expr) => {
        Box::new($crate::__pass_wrap!($kind, $p)) as Box<dyn $crate::pass::Pass>
    };
}

/// The registry's list: declares each pass module (`mod name;`) and lists its
/// [`PassInfo`] in `$list`. With `direct`, also generates the [`DirectPass`] enum (one
/// variant per pass, named after its type) for [`crate::direct`].
///
/// [`DirectPass`]: crate::direct::DirectPass
#[macro_export]
macro_rules! pass_registry {
    (
        $(#[$doc:meta])*
        static $list:ident (test_only: $test:literal) = [
            $($module:ident :: $ty:ident),* $(,)?
        ] $(+ [$($extra:ident),* $(,)?])?;
    ) => {
        $(pub mod $module;)*
        $(#[$doc])*
        pub static $list: &[&$crate::registry::PassInfo] = &[
            $(&$crate::registry::PassInfo {
                test_only: $test,
                ..<$module::$ty as $crate::declare::PassDecl>::INFO
            },)*
            $($(&$extra,)*)?
        ];
    };
    (
        $(#[$doc:meta])*
        static $list:ident (test_only: $test:literal, direct) = [
            $($module:ident :: $ty:ident),* $(,)?
        ];
    ) => {
        $crate::pass_registry! {
            $(#[$doc])*
            static $list (test_only: $test) = [$($module::$ty),*];
        }

        /// A pass that [`run_direct`](crate::direct::run_direct) can run, with its default
        /// options (one variant per registered pass, named after its type).
        #[derive(Copy, Clone, Debug, PartialEq, Eq)]
        pub enum DirectPass {
            $(
                #[doc = concat!("[`", stringify!($ty), "`](", stringify!($module), "::", stringify!($ty), ").")]
                $ty,
            )*
        }

        impl DirectPass {
            /// Every direct pass, in registry order.
            pub const ALL: &'static [DirectPass] = &[$(Self::$ty),*];
            /// The registry name.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Self::$ty => <$module::$ty as $crate::declare::PassDecl>::INFO.name,)*
                }
            }
            /// Looks a pass up by its registry name.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|p| p.name() == name)
            }
            /// Runs this pass once (static dispatch, default options).
            pub fn run(
                self,
                module: &mut $crate::declare::__Module,
                cx: &mut $crate::pass::PassContext,
            ) -> Result<$crate::pass::PassRun, $crate::pass::PassError> {
                match self {
                    $(Self::$ty => <$module::$ty as $crate::declare::PassDecl>::run_default(module, cx),)*
                }
            }
        }

        /// The `//!` header of each pass file, by pass name (the schema test checks that
        /// every header names its pass and its report keys).
        #[cfg(test)]
        pub(crate) static HEADERS: &[(&str, &str)] = &[
            $((
                <$module::$ty as $crate::declare::PassDecl>::INFO.name,
                include_str!(concat!(stringify!($module), ".rs")),
            ),)*
        ];
    };
}

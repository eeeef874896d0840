//! Verifier options (upstream `XIRVerificationOptions`, reference §7.7, plus the
//! xir-only rules, each off by default so that the default verifier accepts what
//! upstream's `xir_verify_module` accepts) and their kebab-case command-line spelling.

/// Which optional contracts the verifier enforces on top of the whole-module rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct VerifyOptions {
    /// Every owned block must end with a terminator (default on).
    pub require_terminated_blocks: bool,
    /// Every owned block must be reachable from the body block.
    pub require_reachable_blocks: bool,
    /// No `phi` instructions.
    pub require_no_phi: bool,
    /// The function is in structured form ([`crate::analysis::form`]): no
    /// `indexed_branch`, and `cond_br` only as a loop prepare's `cond_br c, body, merge`.
    pub require_no_unstructured_control_flow: bool,
    /// No block is the merge block of two structured instructions.
    pub require_unique_merge_blocks: bool,
    /// `break`/`continue` target the nearest enclosing loop/switch merge or continue block.
    pub require_canonical_break_continue_targets: bool,
    /// xir-only (upstream's verifier has no such rule): no undefined value has a resource
    /// type. Upstream's interchange reader refuses such a global; its data model and
    /// verifier accept one, so the rule is off by default.
    pub require_non_resource_undefined: bool,
    /// xir-only (upstream's verifier has no such rule): no function returns a resource
    /// type. A defined function cannot return one anyway (a `return` operand must be a
    /// non-resource rvalue); this also rejects external declarations.
    pub require_non_resource_return_types: bool,
    /// xir-only extension (off by default): type the element-wise cooperative-vector
    /// math reads (`cooperative_vector_dot` … `cooperative_vector_not_equal`).
    /// Upstream's verifier has no typing case for them and rejects every use, so by
    /// default xir does too. Unlike the `require-*` options this one accepts more, so
    /// `all` (every requirement) leaves it off.
    pub allow_cooperative_vector_math: bool,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        Self {
            require_terminated_blocks: true,
            require_reachable_blocks: false,
            require_no_phi: false,
            require_no_unstructured_control_flow: false,
            require_unique_merge_blocks: false,
            require_canonical_break_continue_targets: false,
            require_non_resource_undefined: false,
            require_non_resource_return_types: false,
            allow_cooperative_vector_math: false,
        }
    }
}

/// Every option name, in declaration order.
pub const OPTION_NAMES: [&str; 9] = [
    "require-terminated-blocks",
    "require-reachable-blocks",
    "require-no-phi",
    "require-no-unstructured-control-flow",
    "require-unique-merge-blocks",
    "require-canonical-break-continue-targets",
    "require-non-resource-undefined",
    "require-non-resource-return-types",
    "allow-cooperative-vector-math",
];

impl VerifyOptions {
    /// Every requirement enabled (the `allow-*` extensions stay off: they accept more).
    pub fn all() -> Self {
        Self {
            require_terminated_blocks: true,
            require_reachable_blocks: true,
            require_no_phi: true,
            require_no_unstructured_control_flow: true,
            require_unique_merge_blocks: true,
            require_canonical_break_continue_targets: true,
            require_non_resource_undefined: true,
            require_non_resource_return_types: true,
            allow_cooperative_vector_math: false,
        }
    }

    fn flag_mut(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "require-terminated-blocks" => &mut self.require_terminated_blocks,
            "require-reachable-blocks" => &mut self.require_reachable_blocks,
            "require-no-phi" => &mut self.require_no_phi,
            "require-no-unstructured-control-flow" => {
                &mut self.require_no_unstructured_control_flow
            }
            "require-unique-merge-blocks" => &mut self.require_unique_merge_blocks,
            "require-canonical-break-continue-targets" => {
                &mut self.require_canonical_break_continue_targets
            }
            "require-non-resource-undefined" => &mut self.require_non_resource_undefined,
            "require-non-resource-return-types" => &mut self.require_non_resource_return_types,
            "allow-cooperative-vector-math" => &mut self.allow_cooperative_vector_math,
            _ => return None,
        })
    }

    /// Parses a comma-separated list on top of the defaults: option names enable an
    /// option, `no-<name>` disables it, `all` enables every option and `default` resets
    /// to the defaults. Whitespace around items is ignored; an empty list gives the
    /// defaults.
    ///
    /// ```
    /// # use xir_ir::verify::VerifyOptions;
    /// let o = VerifyOptions::parse_list("require-no-phi,require-unique-merge-blocks").unwrap();
    /// assert!(o.require_no_phi && o.require_unique_merge_blocks && o.require_terminated_blocks);
    /// assert!(VerifyOptions::parse_list("require-no-phy").is_err());
    /// ```
    pub fn parse_list(list: &str) -> Result<Self, String> {
        let mut o = Self::default();
        for raw in list.split(',') {
            let item = raw.trim();
            match item {
                "" => {}
                "all" => o = Self::all(),
                "default" => o = Self::default(),
                _ => {
                    let (name, value) = match item.strip_prefix("no-") {
                        Some(rest) => (rest, false),
                        None => (item, true),
                    };
                    match o.flag_mut(name) {
                        Some(flag) => *flag = value,
                        None => {
                            return Err(format!(
                                "unknown verifier option `{item}`; expected one of {}, `all` or `default` (prefix `no-` to disable)",
                                OPTION_NAMES
                                    .iter()
                                    .map(|n| format!("`{n}`"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ));
                        }
                    }
                }
            }
        }
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_lists() {
        assert_eq!(
            VerifyOptions::parse_list("").unwrap(),
            VerifyOptions::default()
        );
        assert_eq!(
            VerifyOptions::parse_list("all").unwrap(),
            VerifyOptions::all()
        );
        assert_eq!(
            VerifyOptions::parse_list("all, default").unwrap(),
            VerifyOptions::default()
        );
        let o = VerifyOptions::parse_list("require-reachable-blocks, no-require-terminated-blocks")
            .unwrap();
        assert!(o.require_reachable_blocks);
        assert!(!o.require_terminated_blocks);
        for name in OPTION_NAMES {
            let mut o = VerifyOptions::parse_list(&format!("no-{name}")).unwrap();
            assert_ne!(o, VerifyOptions::all());
            *o.flag_mut(name).unwrap() = true;
            assert!(*o.flag_mut(name).unwrap());
            let mut on = VerifyOptions::parse_list(name).unwrap();
            assert!(*on.flag_mut(name).unwrap());
        }
        let e = VerifyOptions::parse_list("require_no_phi").unwrap_err();
        assert!(e.contains("require_no_phi"), "{e}");
    }
}

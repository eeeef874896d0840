//! The persisted required-feature mask: one bit per Vulkan device feature (or float
//! controls property) a kernel needs. The mask is derived from the capabilities and the
//! `DenormPreserve` execution modes of the final (validated, possibly optimised) binary,
//! so it never disagrees with what the driver is given.

use rspirv::spirv::Capability;

/// What in a binary needs a feature.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Need {
    /// Any of these capabilities.
    Caps(&'static [Capability]),
    /// `OpExecutionMode DenormPreserve` for this float width.
    DenormPreserve(u32),
}

use Need::{Caps, DenormPreserve};

/// Bit, stable name and what needs it.
pub const FEATURES: &[(u64, &str, Need)] = &[
    (1 << 0, "shader_float64", Caps(&[Capability::Float64])),
    (1 << 1, "shader_int64", Caps(&[Capability::Int64])),
    (1 << 2, "shader_int16", Caps(&[Capability::Int16])),
    (1 << 3, "shader_float16", Caps(&[Capability::Float16])),
    (1 << 4, "shader_int8", Caps(&[Capability::Int8])),
    (
        1 << 5,
        "storage_buffer_16bit_access",
        Caps(&[Capability::StorageBuffer16BitAccess]),
    ),
    (
        1 << 6,
        "storage_buffer_8bit_access",
        Caps(&[Capability::StorageBuffer8BitAccess]),
    ),
    (
        1 << 7,
        "shader_buffer_int64_atomics",
        Caps(&[Capability::Int64Atomics]),
    ),
    (
        1 << 8,
        "subgroup_basic",
        Caps(&[Capability::GroupNonUniform]),
    ),
    (
        1 << 9,
        "subgroup_vote",
        Caps(&[Capability::GroupNonUniformVote]),
    ),
    (
        1 << 10,
        "subgroup_arithmetic",
        Caps(&[Capability::GroupNonUniformArithmetic]),
    ),
    (
        1 << 11,
        "subgroup_ballot",
        Caps(&[Capability::GroupNonUniformBallot]),
    ),
    (
        1 << 12,
        "subgroup_shuffle",
        Caps(&[Capability::GroupNonUniformShuffle]),
    ),
    (
        1 << 13,
        "shader_float32_atomic_add",
        Caps(&[Capability::AtomicFloat32AddEXT]),
    ),
    (
        1 << 14,
        "shader_float64_atomic_add",
        Caps(&[Capability::AtomicFloat64AddEXT]),
    ),
    (
        1 << 15,
        "shader_float32_atomic_min_max",
        Caps(&[Capability::AtomicFloat32MinMaxEXT]),
    ),
    (
        1 << 16,
        "shader_float64_atomic_min_max",
        Caps(&[Capability::AtomicFloat64MinMaxEXT]),
    ),
    // A property, not a feature: shaderSignedZeroInfNanPreserveFloat{16,32,64} for the
    // float widths the kernel uses (shader_float16 / shader_float64 in the same mask).
    (
        1 << 17,
        "signed_zero_inf_nan_preserve",
        Caps(&[Capability::SignedZeroInfNanPreserve]),
    ),
    // Properties, not features: shaderDenormPreserveFloat16/32/64 (only with
    // `Denorm::Preserve`, one mode per float width the module declares).
    (1 << 18, "denorm_preserve_float16", DenormPreserve(16)),
    (1 << 19, "denorm_preserve_float32", DenormPreserve(32)),
    (1 << 20, "denorm_preserve_float64", DenormPreserve(64)),
];

/// The mask needed by a capability list and the float widths with `DenormPreserve`.
pub fn mask_of(caps: &[Capability], denorm_preserve: &[u32]) -> u64 {
    FEATURES
        .iter()
        .filter(|(_, _, need)| match need {
            Caps(cs) => cs.iter().any(|c| caps.contains(c)),
            DenormPreserve(w) => denorm_preserve.contains(w),
        })
        .map(|(b, _, _)| *b)
        .fold(0, |a, b| a | b)
}

/// Feature names of a mask, in bit order.
pub fn names(mask: u64) -> Vec<&'static str> {
    FEATURES
        .iter()
        .filter(|(b, _, _)| mask & b != 0)
        .map(|(_, n, _)| *n)
        .collect()
}

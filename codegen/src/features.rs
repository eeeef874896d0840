//! The persisted required-feature mask: one bit per Vulkan device feature a kernel's
//! capabilities need. The mask is derived from the capabilities of the final (validated,
//! possibly optimised) binary, so it never disagrees with what the driver is given.

use rspirv::spirv::Capability;

/// Bit, stable name and the capabilities that need it.
pub const FEATURES: &[(u64, &str, &[Capability])] = &[
    (1 << 0, "shader_float64", &[Capability::Float64]),
    (1 << 1, "shader_int64", &[Capability::Int64]),
    (1 << 2, "shader_int16", &[Capability::Int16]),
    (1 << 3, "shader_float16", &[Capability::Float16]),
    (1 << 4, "shader_int8", &[Capability::Int8]),
    (
        1 << 5,
        "storage_buffer_16bit_access",
        &[Capability::StorageBuffer16BitAccess],
    ),
    (
        1 << 6,
        "storage_buffer_8bit_access",
        &[Capability::StorageBuffer8BitAccess],
    ),
    (
        1 << 7,
        "shader_buffer_int64_atomics",
        &[Capability::Int64Atomics],
    ),
    (1 << 8, "subgroup_basic", &[Capability::GroupNonUniform]),
    (1 << 9, "subgroup_vote", &[Capability::GroupNonUniformVote]),
    (
        1 << 10,
        "subgroup_arithmetic",
        &[Capability::GroupNonUniformArithmetic],
    ),
    (
        1 << 11,
        "subgroup_ballot",
        &[Capability::GroupNonUniformBallot],
    ),
    (
        1 << 12,
        "subgroup_shuffle",
        &[Capability::GroupNonUniformShuffle],
    ),
    (
        1 << 13,
        "shader_float32_atomic_add",
        &[Capability::AtomicFloat32AddEXT],
    ),
    (
        1 << 14,
        "shader_float64_atomic_add",
        &[Capability::AtomicFloat64AddEXT],
    ),
    (
        1 << 15,
        "shader_float32_atomic_min_max",
        &[Capability::AtomicFloat32MinMaxEXT],
    ),
    (
        1 << 16,
        "shader_float64_atomic_min_max",
        &[Capability::AtomicFloat64MinMaxEXT],
    ),
    // A property, not a feature: shaderSignedZeroInfNanPreserveFloat{16,32,64} for the
    // float widths the kernel uses (shader_float16 / shader_float64 in the same mask).
    (
        1 << 17,
        "signed_zero_inf_nan_preserve",
        &[Capability::SignedZeroInfNanPreserve],
    ),
];

/// The mask needed by a capability list.
pub fn mask_of(caps: &[Capability]) -> u64 {
    FEATURES
        .iter()
        .filter(|(_, _, cs)| cs.iter().any(|c| caps.contains(c)))
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

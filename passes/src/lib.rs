//! xir-passes (in progress).

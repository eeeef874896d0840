//! xir-driver (in progress).

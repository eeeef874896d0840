//! xir-tools (in progress).

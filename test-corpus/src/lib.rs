//! xir-test-corpus (in progress).

//! The `xir-reduce` command line (stub, filled in next).

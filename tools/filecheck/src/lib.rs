//! xir-filecheck: an LLVM-compatible FileCheck engine.

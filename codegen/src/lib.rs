//! SPIR-V backend (not yet implemented; a later issue).

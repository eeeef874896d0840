//! One file per registered pass.

//! Unit tests of the verifier.

//! go rules.

//! quantum rules.

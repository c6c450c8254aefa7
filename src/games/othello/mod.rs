//! othello rules.

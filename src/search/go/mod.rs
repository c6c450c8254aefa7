//! Go players: the move chooser behind `genmove` and `go`.

pub mod policy;

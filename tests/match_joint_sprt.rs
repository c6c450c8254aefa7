//! One SPRT for all the shards of a match (`--shard K/N` on a shared folder, by hand or as Slurm
//! array tasks): the shards, played at once, stop when the SPRT of their games together decides,
//! and its verdict is the one a single machine gives on the same games.

mod match_support;

use match_support::*;
use ryoshi::matches::config::{Shard, SprtConfig};
use ryoshi::matches::stats::SprtState;
use ryoshi::matches::{self, merge, Config, Hooks};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A good engine against one that blunders at piles of 6: each game's result depends on its
/// opening only, a whole pair is either split or won by `good`, so `good` is stronger and the
/// SPRT decides for H1 after some dozens of games.
fn text(dir: &Path) -> String {
    format!(
        "{}{}[match]\nvariant = \"othello\"\nengines = [\"good\", \"weak\"]\ngames = 400\n\
         movetime_ms = 1000\nopening_plies = 1\nopening_plies_max = 3\nseed = 11\n\
         [match.sprt]\nelo0 = 0\nelo1 = 20\n",
        fake(dir, "good", "good", 0),
        fake(dir, "weak", "weak", 6)
    )
}

const SPRT: SprtConfig = SprtConfig {
    elo0: 0.0,
    elo1: 20.0,
    alpha: 0.05,
    beta: 0.05,
};

/// Runs the match of [`text`] in `dir` (as shard `shard`, into the shard's own results file as
/// `ryoshi match --shard` names it); its summary and output.
fn play(dir: &Path, shard: Option<Shard>, resume: bool) -> (matches::Summary, String) {
    let mut config = Config::read(&text(dir), dir).unwrap();
    if let Some(shard) = shard {
        config.play.results = shard.results_path(&config.play.results);
    }
    config.play.shard = shard;
    config.play.resume = resume;
    let hooks = Hooks {
        stop: Arc::new(AtomicBool::new(false)),
        interrupted: &|| false,
        progress: false,
    };
    let mut out = Vec::new();
    let summary = matches::run_match(&config, nim_factory(), &hooks, &mut out);
    let out = String::from_utf8(out).unwrap();
    (summary.unwrap_or_else(|e| panic!("{e}\n{out}")), out)
}

#[test]
fn shards_stop_together_with_the_verdict_of_one_machine() {
    // One machine: stops at the first whole pair that decides.
    let dir = scratch("joint-one");
    let (one, out) = play(&dir, None, false);
    assert_eq!(one.sprt, Some(SprtState::H1), "{out}");
    assert!(one.finished < 200, "{out}");

    // Three shards at once on one folder.
    let dir = scratch("joint-shards");
    let count = 3;
    let outs: Vec<(matches::Summary, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..=count)
            .map(|index| {
                let dir = &dir;
                scope.spawn(move || play(dir, Some(Shard { index, count }), false))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let files: Vec<String> = (1..=count)
        .map(|index| {
            let path = Shard { index, count }.results_path(&dir.join("results.jsonl"));
            path.display().to_string()
        })
        .collect();
    let mut text = Vec::new();
    let merged = merge::run(&files, SPRT, &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert_eq!(merged.sprt, Some(SprtState::H1), "{text}");
    eprintln!(
        "one machine: H1 after {} games; {count} shards: H1 after {} games",
        one.finished, merged.finished
    );
    // Every shard stopped early, and said so for all of them.
    for (summary, out) in &outs {
        assert!(summary.finished < 400 / count, "{out}");
        assert!(out.contains("All shards: "), "{out}");
        assert!(out.contains("H1 was accepted"), "{out}");
    }
    // Together they played about what one machine did. Not exactly: the shards' games at any
    // moment are not a prefix of the schedule (each shard is a few pairs ahead or behind), so
    // the LLR crosses its bound some pairs earlier or later than on one machine (97 to 111
    // games here against 102, under load); past that each shard finishes at most the game it
    // was playing and its pair's other game.
    assert!(
        merged.finished <= one.finished + one.finished / 5 + 2 * count,
        "{} against {}\n{text}",
        merged.finished,
        one.finished
    );

    // The same games on one machine (resumed from them): decided the same, nothing to play.
    let again = scratch("joint-again");
    let mut lines = String::new();
    for file in &files {
        lines.push_str(&std::fs::read_to_string(file).unwrap());
    }
    std::fs::write(again.join("results.jsonl"), lines).unwrap();
    let (resumed, out) = play(&again, None, true);
    assert_eq!(resumed.sprt, merged.sprt, "{out}");
    assert_eq!(resumed.pairs[0].penta, merged.pairs[0].penta, "{out}");
    assert!(out.contains(" 0 to play"), "{out}");
    assert!(!out.contains("Finished game"), "{out}");

    // A shard started once the others decided plays nothing.
    let (late, out) = play(&dir, Some(Shard { index: 2, count }), true);
    assert!(!out.contains("Finished game"), "{out}");
    assert_eq!(late.finished, outs[1].0.finished, "{out}");
}

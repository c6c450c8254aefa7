//! `ryoshi bench strength [random|possibilityist] [games] [movetime_ms]`: the quantum shogi
//! search against a baseline player, in-process, colours alternated, each seeded two-ply
//! opening played twice. Prints one line per game and a result table.

use super::BenchError;
use crate::quantum::search::{think, Player, QGame};
use crate::quantum::{Color, Ending, Position, Record, Ruleset};
use crate::rng::splitmix;
use crate::search::{Control, Limits, Searcher};

/// Games longer than this are adjudicated a draw.
const MAX_PLIES: usize = 400;

/// `bench strength`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// The baseline player
    #[arg(value_enum, default_value_t = Opponent::Random)]
    opponent: Opponent,
    /// Games, colours alternating
    #[arg(default_value_t = 100)]
    games: u64,
    /// Milliseconds per move of the search
    #[arg(default_value_t = 450)]
    movetime_ms: u64,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Opponent {
    Random,
    Possibilityist,
}

pub fn strength(args: Args) -> Result<(), BenchError> {
    let (opponent, name) = match args.opponent {
        Opponent::Random => (Player::Random { seed: 0 }, "random"),
        Opponent::Possibilityist => (Player::Possibilityist, "possibilityist"),
    };
    let games = args.games;
    let movetime = args.movetime_ms;
    let rules = Ruleset::default();
    let mut searcher = Searcher::<QGame>::new(64);
    let (mut wins, mut draws, mut losses) = (0u64, 0u64, 0u64);
    for game in 0..games {
        let search_side = if game % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        let mut record = opening(game / 2, &rules);
        searcher.clear();
        let ending = loop {
            if let Some(ending) = record.ending() {
                break Some(ending);
            }
            if record.keys().len() > MAX_PLIES {
                break None;
            }
            let pos = record.position().clone();
            let player = if pos.side_to_move() == search_side {
                Player::Search
            } else {
                match opponent {
                    Player::Random { .. } => Player::Random { seed: game },
                    other => other,
                }
            };
            let control = Control::new(
                Limits {
                    movetime: Some(movetime),
                    ..Default::default()
                },
                50,
            );
            let keys = record.keys();
            let keys = keys[..keys.len() - 1].to_vec();
            let outcome = think(
                player,
                &QGame::new(pos, rules),
                &keys,
                &mut searcher,
                &control,
                &mut |_| {},
            );
            let Some(best) = outcome.best else {
                return Err(BenchError::Resigned { game });
            };
            record
                .play_str(&best)
                .map_err(|error| BenchError::Illegal {
                    game,
                    action: best.clone(),
                    error,
                })?;
        };
        let result = match ending {
            Some(Ending::KingCapture { winner }) if winner == search_side => "win",
            Some(Ending::NoLegalAction { loser }) if loser != search_side => "win",
            Some(Ending::FourfoldRepetition) | None => "draw",
            Some(_) => "loss",
        };
        match result {
            "win" => wins += 1,
            "draw" => draws += 1,
            _ => losses += 1,
        }
        let why = ending.map_or("move limit".to_string(), |e| e.to_string());
        println!(
            "game {:>3}: search plays {}, {} after {} plies ({why}); running W-D-L {wins}-{draws}-{losses}",
            game + 1,
            if search_side == Color::Black { "sente" } else { "gote" },
            result,
            record.keys().len() - 1
        );
    }
    let score = (wins as f64 + draws as f64 / 2.0) / games.max(1) as f64;
    println!();
    println!("| opponent | games | movetime | wins | draws | losses | score |");
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| {} | {games} | {movetime} ms | {wins} | {draws} | {losses} | {:.1}% |",
        name,
        score * 100.0
    );
    Ok(())
}

/// The two-ply opening of pair `pair` (seeded random legal actions that capture no king).
fn opening(pair: u64, rules: &Ruleset) -> Record {
    let mut record = Record::new(Position::start(), *rules);
    let mut state = 0x0BE1_1001 ^ pair.wrapping_mul(0x9E37_79B9);
    for _ in 0..2 {
        let moves = record.position().legal_actions(rules);
        let safe: Vec<_> = moves
            .into_iter()
            .filter(|&a| record.position().after(a).winner().is_none())
            .collect();
        if safe.is_empty() {
            break;
        }
        let a = safe[(splitmix(&mut state) % safe.len() as u64) as usize];
        let name = record.position().action_name(a);
        if record.play_str(&name).is_err() {
            break;
        }
    }
    record
}

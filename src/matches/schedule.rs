//! The schedule: which games a match plays, in which order, from which openings and with which
//! colours; a shard's slice of it; and the games a resumed run already holds.

use super::config::{self, Config, Tournament};
use super::error::MatchError;
use super::game::Fixture;
use super::opening::{self, Opening, OpeningError};
use super::referee::RefereeFactory;
use super::resume;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The engine pairs of a tournament of `n` engines, in the order the engines are listed: every
/// pair (a round robin), or the first engine with each other one (a gauntlet).
pub fn pairs(n: usize, tournament: Tournament) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if i == 0 || tournament == Tournament::RoundRobin {
                v.push((i, j));
            }
        }
    }
    v
}

/// The openings the match needs, one per two games (colours swapped): the distinct ones
/// ([`opening_list`]) dealt to the `count` rounds.
pub fn openings(
    config: &Config,
    factory: &RefereeFactory,
    count: usize,
) -> Result<Vec<Arc<Opening>>, MatchError> {
    Ok(deal(opening_list(config, factory, count)?, count))
}

/// The openings of `list` to `count` rounds, in order, cycling. Rounds that play one opening
/// share it: a deep copy per round made one 14-move opening cost 554 MB at a million games
/// before any engine started.
pub fn deal(list: Vec<Opening>, count: usize) -> Vec<Arc<Opening>> {
    let list: Vec<Arc<Opening>> = list.into_iter().map(Arc::new).collect();
    if list.is_empty() {
        return Vec::new();
    }
    (0..count)
        .map(|k| Arc::clone(&list[k % list.len()]))
        .collect()
}

/// The distinct openings of the match: an openings file's (or records') in order, `count`
/// random ones, or the start position alone.
pub fn opening_list(
    config: &Config,
    factory: &RefereeFactory,
    count: usize,
) -> Result<Vec<Opening>, MatchError> {
    let m = &config.play;
    if let Some(path) = &m.openings {
        let path = config.resolve(path);
        if config.openings_are_records() {
            return record_openings(config, factory, &path);
        }
        let text = read_file(&path)?;
        return opening::read_file(&text, factory)
            .map_err(|error| MatchError::Opening { path, error });
    }
    if let Some(min) = m.opening_plies {
        let max = m.opening_plies_max.unwrap_or(min);
        let random: Result<Vec<Opening>, _> = (0..count)
            .map(|k| {
                let plies = opening::random_length(min, max, m.seed, k);
                opening::random_opening(factory, plies, m.seed, k)
            })
            .collect();
        return random.map_err(|error| MatchError::Opening {
            path: PathBuf::new(),
            error,
        });
    }
    Ok(vec![Opening::startpos()])
}

/// An openings file, read as a record file is (`loadrecord`): a regular file of at most
/// [`crate::games::record::MAX_RECORD_BYTES`], so that a FIFO or a device never blocks the
/// runner and a huge file is refused before it is read.
fn read_file(path: &Path) -> Result<String, MatchError> {
    let max = crate::games::record::MAX_RECORD_BYTES;
    Ok(crate::files::read_record_file(
        &path.to_string_lossy(),
        max,
    )?)
}

/// The openings of `openings` as records: every file of a folder (in name order, hidden ones
/// left out), one record each, or a file of one record or transcript a line. An error names
/// the file (and the line).
fn record_openings(
    config: &Config,
    factory: &RefereeFactory,
    path: &Path,
) -> Result<Vec<Opening>, MatchError> {
    let game = config.play.variant;
    let cut = config.play.openings_cut.map(|n| n as usize);
    let unreadable = |path: &Path, error| MatchError::Unreadable {
        path: path.to_path_buf(),
        error,
    };
    let bad = |path: &Path, error| MatchError::Opening {
        path: path.to_path_buf(),
        error,
    };
    if !path.is_dir() {
        let text = read_file(path)?;
        return opening::read_records(&text, game, cut, factory).map_err(|e| bad(path, e));
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| unreadable(path, e))?
        .flatten()
        .map(|entry| entry.path())
        .filter(|p| p.is_file())
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    files.sort();
    let mut openings = Vec::with_capacity(files.len());
    for file in &files {
        let text = read_file(file)?;
        openings.push(opening::from_record(&text, game, cut, factory).map_err(|e| bad(file, e))?);
    }
    if openings.is_empty() {
        return Err(bad(path, OpeningError::NoOpening));
    }
    Ok(openings)
}

/// Writes out the start position where `startpos` would not say it: a board size other than
/// the game's standard one (USI engines read `startpos` as the standard board). GTP engines
/// cannot be given a position other than the start of a game whose rules cannot set it up in
/// GTP ([`Referee::gtp_setup`](super::referee::Referee::gtp_setup)): an error.
pub fn start_explicitly(
    config: &Config,
    factory: &RefereeFactory,
    openings: &mut [Opening],
) -> Result<(), MatchError> {
    let mut referee = factory();
    referee.set_start(None).map_err(MatchError::Start)?;
    let start = referee.position();
    let standard = config
        .play
        .variant
        .settings()
        .board_sizes
        .map(|s| s.standard);
    if config.board_size() != standard {
        for opening in openings.iter_mut().filter(|o| o.sfen.is_none()) {
            opening.sfen = Some(start.clone());
        }
    }
    let gtp = config.play.engines.iter().any(|name| {
        config
            .engine(name)
            .is_some_and(|e| e.protocol == config::Protocol::Gtp)
    });
    if gtp {
        for opening in openings.iter() {
            if let Some(sfen) = &opening.sfen {
                referee.set_start(Some(sfen)).map_err(MatchError::Start)?;
                if referee.position() != start && referee.gtp_setup().is_none() {
                    return Err(MatchError::GtpStart(
                        opening.to_string(),
                        config.play.variant.as_str(),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The games in the order they are handed out: round by round, each pair plays an opening
/// twice with colours swapped.
pub fn schedule(config: &Config, openings: &[Arc<Opening>]) -> Vec<Fixture> {
    let games = config.play.games as usize;
    let pairs = config.pairs();
    let mut jobs = Vec::new();
    for (k, opening) in openings.iter().enumerate().take(games.div_ceil(2)) {
        for (p, &(a, b)) in pairs.iter().enumerate() {
            for g in [2 * k, 2 * k + 1] {
                if g >= games {
                    continue;
                }
                let (first, second) = if g % 2 == 0 { (a, b) } else { (b, a) };
                jobs.push(Fixture {
                    game: jobs.len() + 1,
                    pair: p,
                    first,
                    second,
                    opening_index: k,
                    opening: opening.clone(),
                });
            }
        }
    }
    jobs
}

/// What a run plays: the whole schedule's size, and of it the games of this run (its shard's,
/// less those a resumed run already holds), with the kept ones.
pub struct Plan {
    /// The games of the schedule (the shard's slice of it).
    pub scheduled: Vec<Fixture>,
    /// The games this run plays, in order.
    pub to_play: Vec<Fixture>,
    /// The games already in the results file (`--resume`).
    pub kept: Vec<resume::Kept>,
    /// What was set aside reading the results file (`--resume`): one line each.
    pub notes: String,
}

impl Plan {
    /// The openings, the schedule, the shard's slice and (with `--resume`) the kept games.
    pub fn make(config: &Config, factory: &RefereeFactory) -> Result<Plan, MatchError> {
        let rounds = (config.play.games as usize).div_ceil(2);
        let mut list = opening_list(config, factory, rounds)?;
        start_explicitly(config, factory, &mut list)?;
        let openings = deal(list, rounds);
        let mut jobs = schedule(config, &openings);
        if let Some(shard) = config.play.shard {
            let pairs = config.pairs().len();
            jobs.retain(|job| shard.holds(job.opening_index * pairs + job.pair));
        }
        let (kept, notes) = if config.play.resume {
            let path = config.resolve(&config.play.results);
            let conditions = super::results::conditions(config);
            let of = resume::Match {
                jobs: &jobs,
                names: &config.play.engines,
                variant: config.play.variant.as_str(),
                conditions: &conditions,
            };
            resume::kept(&path, &of)?
        } else {
            (Vec::new(), String::new())
        };
        let mut played = vec![false; jobs.len()];
        for k in &kept {
            played[k.job] = true;
        }
        let to_play = jobs
            .iter()
            .zip(played)
            .filter(|(_, played)| !played)
            .map(|(job, _)| job.clone())
            .collect();
        Ok(Plan {
            scheduled: jobs,
            to_play,
            kept,
            notes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::referee_for;
    use std::path::Path;

    fn config(engines: &[&str], games: u32) -> Config {
        let mut text = String::new();
        for name in engines {
            text.push_str(&format!("[[engine]]\nname = \"{name}\"\ncmd = \"x\"\n\n"));
        }
        let names: Vec<String> = engines.iter().map(|n| format!("{n:?}")).collect();
        text.push_str(&format!(
            "[match]\nvariant = \"othello\"\nengines = [{}]\ngames = {games}\nnodes = 1\n",
            names.join(", ")
        ));
        Config::read(&text, Path::new("")).unwrap()
    }

    #[test]
    fn schedule_swaps_colours_per_opening_and_interleaves_pairs() {
        let c = config(&["a", "b", "c"], 3);
        let openings: Vec<Arc<Opening>> = (0..2)
            .map(|k| Arc::new(Opening::parse(&format!("startpos moves m{k}")).unwrap()))
            .collect();
        let jobs = schedule(&c, &openings);
        let shape: Vec<(usize, usize, usize, usize)> = jobs
            .iter()
            .map(|j| (j.pair, j.first, j.second, j.opening_index))
            .collect();
        assert_eq!(
            shape,
            [
                (0, 0, 1, 0),
                (0, 1, 0, 0),
                (1, 0, 2, 0),
                (1, 2, 0, 0),
                (2, 1, 2, 0),
                (2, 2, 1, 0),
                (0, 0, 1, 1),
                (1, 0, 2, 1),
                (2, 1, 2, 1),
            ]
        );
        let numbers: Vec<usize> = jobs.iter().map(|j| j.game).collect();
        assert_eq!(numbers, (1..=9).collect::<Vec<_>>());
        assert_eq!(jobs[6].opening.moves, ["m1"]);
    }

    #[test]
    fn a_gauntlet_pairs_the_first_engine_with_each_other() {
        assert_eq!(pairs(4, Tournament::Gauntlet), [(0, 1), (0, 2), (0, 3)]);
        assert_eq!(
            pairs(4, Tournament::RoundRobin),
            [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
        );
        assert_eq!(
            pairs(2, Tournament::Gauntlet),
            pairs(2, Tournament::RoundRobin)
        );
        let mut c = config(&["a", "b", "c"], 3);
        c.play.tournament = Tournament::Gauntlet;
        let openings: Vec<Arc<Opening>> = (0..2).map(|_| Arc::new(Opening::startpos())).collect();
        let shape: Vec<(usize, usize, usize)> = schedule(&c, &openings)
            .iter()
            .map(|j| (j.pair, j.first, j.second))
            .collect();
        assert_eq!(
            shape,
            [
                (0, 0, 1),
                (0, 1, 0),
                (1, 0, 2),
                (1, 2, 0),
                (0, 0, 1),
                (1, 0, 2)
            ]
        );
    }

    #[test]
    fn rounds_share_their_opening() {
        // Every round held its own copy: one 14-move Othello opening at a million games took
        // 554 MB before any engine started.
        let path = std::env::temp_dir().join(format!("ryoshi-share-{}.txt", std::process::id()));
        std::fs::write(&path, "startpos moves f5 d6\nstartpos moves f5 f6\n").unwrap();
        let mut c = config(&["a", "b"], 9);
        c.play.openings = Some(path.clone());
        let factory = referee_for(config::VariantName::Othello);
        let plan = Plan::make(&c, factory.as_ref()).unwrap();
        let _ = std::fs::remove_file(&path);
        let jobs = &plan.scheduled;
        assert_eq!(jobs.len(), 9);
        for job in jobs {
            let same = &jobs[job.opening_index % 2 * 2];
            assert!(
                Arc::ptr_eq(&job.opening, &same.opening),
                "game {}",
                job.game
            );
        }
        assert!(!Arc::ptr_eq(&jobs[0].opening, &jobs[2].opening));
        assert_eq!(jobs[8].opening.moves, ["f5", "d6"]);
    }

    #[test]
    fn openings_files_as_documented() {
        let quantum = referee_for(config::VariantName::QuantumShogi);
        let text = "# quantum shogi\nstartpos moves 7g7f 3c3d\n\nposition startpos moves 2g2f\n\
            sfen qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQ b - 1 moves 5g5f\n";
        let list = opening::read_file(text, quantum.as_ref()).unwrap();
        assert_eq!(list.len(), 3);
        assert_eq!(list[1].to_string(), "startpos moves 2g2f");
        assert!(list[2].sfen.is_some());
        let err = opening::read_file(
            "startpos moves 7g7f\nstartpos moves 7g7a\n",
            quantum.as_ref(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("line 2: move 1 `7g7a`"), "{err}");

        let othello = referee_for(config::VariantName::Othello);
        let text = "startpos moves f5 d6 c3\n\
            sfen ---------------------------OX------XO--------------------------- b\n";
        let list = opening::read_file(text, othello.as_ref()).unwrap();
        assert_eq!(list[0].moves, ["f5", "d6", "c3"]);
        assert!(opening::read_file("startpos moves f5 f5\n", othello.as_ref()).is_err());
        assert!(opening::read_file("# nothing\n", othello.as_ref()).is_err());
    }

    #[test]
    fn random_openings_depend_on_seed_and_index_only() {
        let quantum = referee_for(config::VariantName::QuantumShogi);
        let a = opening::random_opening(quantum.as_ref(), 4, 9, 3).unwrap();
        let b = opening::random_opening(quantum.as_ref(), 4, 9, 3).unwrap();
        let c = opening::random_opening(quantum.as_ref(), 4, 9, 4).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.moves.len(), 4);
        let mut referee = quantum();
        a.replay(referee.as_mut()).unwrap();
    }

    #[test]
    fn random_opening_lengths_cover_the_range_and_depend_on_seed_and_index() {
        let lengths: Vec<u32> = (0..200)
            .map(|k| opening::random_length(2, 4, 7, k))
            .collect();
        for plies in 2..=4 {
            assert!(lengths.contains(&plies), "{plies} never drawn");
        }
        assert!(lengths.iter().all(|&n| (2..=4).contains(&n)));
        let again: Vec<u32> = (0..200)
            .map(|k| opening::random_length(2, 4, 7, k))
            .collect();
        assert_eq!(lengths, again);
        assert_eq!(opening::random_length(3, 3, 7, 5), 3);
    }
}

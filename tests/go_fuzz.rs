//! Seeded random command lines (real commands with random, often bad, arguments) through
//! `ryoshi gtp` and the go session: the process must answer every line and exit cleanly.

mod common;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.next() as usize % xs.len()]
    }
}

const ARGS: &[&str] = &[
    "",
    "A1",
    "a1",
    "T19",
    "Z25",
    "I5",
    "J9",
    "pass",
    "PASS",
    "b",
    "w",
    "black",
    "white",
    "x",
    "0",
    "1",
    "2",
    "3",
    "7",
    "19",
    "25",
    "26",
    "-1",
    "6.5",
    "nan",
    "inf",
    "alive",
    "dead",
    "seki",
    "/nonexistent.sgf",
    "(;",
    "A0",
    "A01",
    "K10",
    "\t",
    "#",
    "é",
    "99999999999999999999",
];

#[test]
fn gtp_survives_random_commands() {
    let mut rng = Rng(0xDEAD_BEEF);
    let cmds = [
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "boardsize",
        "clear_board",
        "komi",
        "play",
        "genmove",
        "undo",
        "showboard",
        "loadsgf",
        "final_status_list",
        "unconditional_status",
        "nonsense",
    ];
    let mut script = String::new();
    let mut numbered = 0;
    for i in 0..3000 {
        let c = rng.pick(&cmds);
        let n = rng.next() % 3;
        let args: Vec<&str> = (0..n).map(|_| rng.pick(ARGS)).collect();
        script.push_str(&format!("{i} {c} {}\n", args.join(" ")));
        numbered += 1;
    }
    script.push_str("quit\n");
    // Short searches: the test is about the replies, not the moves.
    let text = common::gtp_transcript_with(&["--playouts", "50"], &script);
    let replies = text.split("\n\n").filter(|b| !b.is_empty()).count();
    assert_eq!(replies, numbered + 1, "one reply per command");
}

#[test]
fn session_survives_random_go_commands() {
    let mut rng = Rng(0x1234_5678);
    let cmds = [
        "position startpos moves",
        "position sfen 3 .../.../... b moves",
        "position sfen",
        "d",
        "moves",
        "benson",
        "benson classic",
        "undo",
        "loadsgf",
        "go perft",
        "go depth 1",
        "position sfen 5 .X.X./XXXXX/OOOOO/O.O.O/OOOOO b moves",
    ];
    let mut input = String::from("setoption name USI_Variant value go\n");
    let mut searches = 0;
    for _ in 0..600 {
        let c = rng.pick(&cmds);
        let n = rng.next() % 4;
        let args: Vec<&str> = (0..n).map(|_| rng.pick(ARGS)).collect();
        let line = format!("{c} {}", args.join(" "));
        // Keep perft cheap; searches get no junk so each must answer.
        let line = match c {
            "go perft" => "go perft 1".to_string(),
            "go depth 1" => c.to_string(),
            _ => line,
        };
        searches += (c == "go depth 1") as usize;
        input.push_str(&line);
        input.push('\n');
    }
    input.push_str("isready\nquit\n");
    let out = common::transcript(input.as_bytes());
    // `isready` is answered at once, even while the last search still runs.
    assert_eq!(
        out.lines().filter(|l| *l == "readyok").count(),
        1,
        "the session kept answering"
    );
    assert_eq!(
        out.lines().filter(|l| l.starts_with("bestmove ")).count(),
        searches
    );
}

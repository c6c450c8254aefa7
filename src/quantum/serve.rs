//! Quantum shogi's pages for `ryoshi serve`: the game against the engine, the lessons and the
//! puzzles, with the board drawing the room page shares (`qboard.js`).

use crate::serve::pages::Page;

pub const PAGE: Page = Page {
    html: include_str!("web/quantum.html"),
    aliases: &["/quantum"],
    assets: &[
        (
            "/assets/quantum.js",
            "text/javascript",
            include_str!("web/quantum.js"),
        ),
        (
            "/assets/qboard.js",
            "text/javascript",
            include_str!("web/qboard.js"),
        ),
        ("/learn", "text/html", include_str!("web/learn.html")),
        (
            "/assets/learn.js",
            "text/javascript",
            include_str!("web/learn.js"),
        ),
        ("/puzzle", "text/html", include_str!("web/puzzle.html")),
        (
            "/assets/puzzle.js",
            "text/javascript",
            include_str!("web/puzzle.js"),
        ),
        // The puzzle collection the puzzle page plays (the file `ryoshi puzzles` made and
        // checks).
        (
            "/puzzles.txt",
            "text/plain",
            include_str!("../../data/puzzles/quantum.txt"),
        ),
    ],
    links: &[
        (
            "/learn",
            "Learn quantum shogi",
            "new to it? Nine short lessons, each one move on a real board.",
        ),
        (
            "/quantum",
            "Quantum shogi <span lang=\"ja\">量子将棋</span>",
            "play the engine; see every piece's candidate set.",
        ),
        (
            "/puzzle",
            "Quantum shogi puzzles",
            "capture the king in 1 to 7 plies; every puzzle checked by df-pn.",
        ),
    ],
};

//! Othello's page for `ryoshi serve`.

use crate::serve::pages::Page;

pub const PAGE: Page = Page {
    html: include_str!("web/othello.html"),
    aliases: &[],
    assets: &[(
        "/assets/othello.js",
        "text/javascript",
        include_str!("web/othello.js"),
    )],
    links: &[(
        "/othello",
        "Othello",
        "play at three levels, with flips preview, hints, undo and an exact endgame solve.",
    )],
};

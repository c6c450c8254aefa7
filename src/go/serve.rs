//! Go's page for `ryoshi serve`, with the board drawing the room page shares (`goboard.js`).

use crate::serve::pages::Page;

pub const PAGE: Page = Page {
    html: include_str!("web/go.html"),
    aliases: &[],
    assets: &[
        (
            "/assets/go.js",
            "text/javascript",
            include_str!("web/go.js"),
        ),
        (
            "/assets/goboard.js",
            "text/javascript",
            include_str!("web/goboard.js"),
        ),
    ],
    links: &[(
        "/go",
        "Go",
        "place stones, paste an SGF, see Benson's unconditional life.",
    )],
};

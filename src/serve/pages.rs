//! The files the server serves, all from the registry: the shared pages and scripts, each
//! game's own page (its folder's `serve::PAGE`, named by its registry line) or, for a game
//! without one, the generic page, and the index with a link to every game. Nothing here names
//! a game.

use crate::registry::Game;
use once_cell::sync::Lazy;

/// A file of the pages, embedded: its path, its content type and its text.
pub type Asset = (&'static str, &'static str, &'static str);

/// A link of the index: its path, its text (HTML) and what the page offers (HTML).
pub type Link = (&'static str, &'static str, &'static str);

/// A game's page of its own, served at `/<name>` (the registry name) and its `aliases`.
pub struct Page {
    pub html: &'static str,
    pub aliases: &'static [&'static str],
    /// The scripts, pages and data the page loads or links to, beside the shared ones.
    pub assets: &'static [Asset],
    /// The index's links for the game, the page's own first.
    pub links: &'static [Link],
}

/// The page of each game of the registry: written by the crate's root (`lib.rs`) from the
/// registry's lines that end with `, serve`.
pub trait Registered {
    fn page(self) -> Option<&'static Page>;
}

/// The file of the pages, embedded from `web/`.
macro_rules! shared {
    ($path:literal, $kind:literal, $file:literal) => {
        ($path, $kind, include_str!(concat!("web/", $file)))
    };
}

/// The pages and scripts of every game.
const SHARED: &[Asset] = &[
    shared!("/play", "text/html", "play.html"),
    shared!("/assets/style.css", "text/css", "style.css"),
    shared!("/assets/engine.js", "text/javascript", "engine.js"),
    shared!("/assets/play.js", "text/javascript", "play.js"),
    shared!("/assets/roomclock.js", "text/javascript", "roomclock.js"),
    shared!("/assets/review.js", "text/javascript", "review.js"),
    shared!("/assets/lines.js", "text/javascript", "lines.js"),
    shared!("/assets/generic.js", "text/javascript", "generic.js"),
    // The protocol's index, for the home page's footer (the pages speak to players).
    (
        "/protocol",
        "text/plain",
        include_str!("../../protocol/README.md"),
    ),
];

/// The page of a game without one of its own: the board as `d` draws it (protocol/serve.md,
/// "The generic page").
const GENERIC: &str = include_str!("web/generic.html");

/// A file the server answers with: its path, its content type and its text.
pub struct Served {
    pub path: String,
    pub kind: &'static str,
    pub body: String,
}

/// Every file, built once from the registry.
static FILES: Lazy<Vec<Served>> = Lazy::new(files);

/// The file at `path`, if the server has one.
pub fn find(path: &str) -> Option<&'static Served> {
    FILES.iter().find(|f| f.path == path)
}

fn served((path, kind, body): &Asset) -> Served {
    Served {
        path: path.to_string(),
        kind,
        body: body.to_string(),
    }
}

fn files() -> Vec<Served> {
    let mut files = vec![Served {
        path: "/".into(),
        kind: "text/html",
        body: index(),
    }];
    files.extend(SHARED.iter().map(served));
    for &game in Game::ALL {
        let page = |path: &str, html: &str| Served {
            path: path.into(),
            kind: "text/html",
            body: html.into(),
        };
        let home = format!("/{}", game.as_str());
        match game.page() {
            Some(own) => {
                files.push(page(&home, own.html));
                files.extend(own.aliases.iter().map(|alias| page(alias, own.html)));
                files.extend(own.assets.iter().map(served));
            }
            None => files.push(page(&home, &generic(game))),
        }
    }
    files
}

/// The generic page of `game`: its name, title and players' names on the page, which reads
/// the rest from the engine.
fn generic(game: Game) -> String {
    GENERIC
        .replace("__GAME__", game.as_str())
        .replace("__TITLE__", game.title())
        .replace("__PLAYERS__", &game.players().join(" "))
}

/// The home page: its list of games and the choice of a room's game, from the registry.
fn index() -> String {
    let mut links = String::new();
    let mut choices = String::new();
    for &game in Game::ALL {
        let (name, title) = (game.as_str(), game.title());
        match game.page() {
            Some(page) => {
                for (path, text, blurb) in page.links {
                    links += &format!("    <li><a href=\"{path}\">{text}</a> — {blurb}</li>\n");
                }
            }
            None => {
                links += &format!(
                    "    <li><a href=\"/{name}\">{title}</a> — play the engine; the board as \
                     the engine draws it, moves clicked or typed.</li>\n"
                )
            }
        }
        choices += &format!("      <option value=\"{name}\">{title}</option>\n");
    }
    let titles: Vec<&str> = Game::ALL.iter().map(|g| g.title()).collect();
    include_str!("web/index.html")
        .replace("<!-- games -->\n", &links)
        .replace("<!-- choices -->\n", &choices)
        .replace("<!-- titles -->", &crate::text::listed(&titles, "and"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_has_a_page_and_the_index_links_and_offers_it() {
        let home = find("/").expect("the index");
        assert!(
            !home.body.contains("<!--"),
            "a marker is left: {}",
            home.body
        );
        for &game in Game::ALL {
            let path = format!("/{}", game.as_str());
            let page = find(&path).unwrap_or_else(|| panic!("no page at {path}"));
            assert_eq!(page.kind, "text/html");
            assert!(!page.body.contains("__"), "{path}: a marker is left");
            let option = format!("<option value=\"{}\">{}<", game.as_str(), game.title());
            assert!(home.body.contains(&option), "{option}");
        }
        // Every link of the index is served, and each game has one.
        let links: Vec<&str> = home
            .body
            .split("<li><a href=\"")
            .skip(1)
            .filter_map(|l| l.split('"').next())
            .collect();
        assert!(links.len() >= Game::ALL.len(), "{links:?}");
        for link in links {
            assert!(find(link).is_some(), "{link}");
        }
        for &game in Game::ALL {
            let title = game.title();
            assert!(home.body.contains(&format!("\">{title}")), "{title}");
        }
    }

    #[test]
    fn paths_are_served_once() {
        let mut paths: Vec<&str> = FILES.iter().map(|f| f.path.as_str()).collect();
        let all = paths.len();
        paths.sort_unstable();
        paths.dedup();
        assert_eq!(paths.len(), all);
    }
}

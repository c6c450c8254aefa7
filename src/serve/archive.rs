//! The kept games as pages: `/games`, the list, newest first and paged, each linking to its
//! board and its record; `/record/<id>`, a game's record in its format (the session's `record`,
//! written by the game's `Recordable`), served as a download.

use super::played::{parse_start, record_kind, rules_options, Played};
use super::store::{Store, Summary};
use crate::registry::Game;
use std::fmt::Write;

/// Games on one page of the list.
pub const PAGE_SIZE: usize = 20;

/// A response: status, content type, extra header lines, body.
pub struct Answer {
    pub status: &'static str,
    pub content_type: String,
    pub headers: String,
    pub body: String,
}

fn plain(status: &'static str, body: String) -> Answer {
    Answer {
        status,
        content_type: "text/plain; charset=utf-8".into(),
        headers: String::new(),
        body,
    }
}

/// Text for HTML, escaped.
fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `2026-12-04 19:05 UTC`
fn date(ms: i64) -> String {
    let secs = ms.max(0) as u64 / 1000;
    let (y, m, d) = crate::logging::civil_date(secs / 86_400);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        secs / 3600 % 24,
        secs / 60 % 60
    )
}

/// Where a game is looked at: its game's engine page opened on a copy of it (the review board),
/// and a room's game in its room too.
fn board_links(g: &Summary) -> String {
    // Each game's engine page is also served under the game's name.
    let review = match Game::named(&g.game) {
        Some(game) => format!(
            "<a href=\"{}\">review</a>",
            esc(&format!("/{}?review={}", game.as_str(), g.id))
        ),
        None => String::new(),
    };
    if g.kind == "room" {
        let room = format!(
            "<a href=\"{}\">room</a>",
            esc(&format!("/play?room={}", g.id))
        );
        if review.is_empty() {
            room
        } else {
            format!("{review} · {room}")
        }
    } else {
        review
    }
}

fn row(out: &mut String, g: &Summary) {
    let names = Game::named(&g.game).map(|v| super::names::sides(v.players(), &g.names));
    let sides = match (g.kind.as_str(), names) {
        ("room", Some(sides)) => format!("{sides}: two players"),
        (_, Some(sides)) => format!("{sides}: a player and the engine"),
        _ => String::new(),
    };
    let result = match (&g.result, &g.reason) {
        (Some(r), Some(why)) => format!("{r} by {why}"),
        (Some(r), None) => r.clone(),
        _ => "in progress".into(),
    };
    let _ = writeln!(
        out,
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
         <td>{} · <a href=\"/record/{}\">record</a></td></tr>",
        esc(&g.game),
        esc(&sides),
        esc(g.clock.as_deref().unwrap_or("untimed")),
        esc(&result),
        date(g.created),
        g.plies,
        board_links(g),
        esc(&g.id),
    );
}

/// `/games?page=<n>` (from 1).
pub fn list(store: &Store, page: Option<String>) -> Answer {
    let page = page
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(1)
        .clamp(1, 1_000_000);
    let (games, total) = match store.list((page - 1) * PAGE_SIZE, PAGE_SIZE) {
        Ok(found) => found,
        Err(e) => return plain("500 Internal Server Error", format!("{e}\n")),
    };
    let mut out = String::from(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Games · ryoshi</title>\n<link rel=\"icon\" href=\"data:,\">\n\
         <link rel=\"stylesheet\" href=\"/assets/style.css\">\n</head>\n<body>\n\
         <header><h1><a href=\"/\">ryoshi</a> · games</h1></header>\n<main class=\"games-page\">\n",
    );
    let _ = writeln!(
        out,
        "<p>{total} game(s), newest first: running and finished, in rooms and against the engine.</p>"
    );
    out.push_str(
        "<table class=\"archive\">\n<thead><tr><th>game</th><th>sides</th><th>clock</th>\
         <th>result</th><th>date</th><th>moves</th><th></th></tr></thead>\n<tbody>\n",
    );
    for g in &games {
        row(&mut out, g);
    }
    out.push_str("</tbody>\n</table>\n<nav class=\"pages\">");
    if page > 1 {
        let _ = write!(out, "<a href=\"/games?page={}\">newer</a> ", page - 1);
    }
    if page * PAGE_SIZE < total {
        let _ = write!(out, "<a href=\"/games?page={}\">older</a>", page + 1);
    }
    out.push_str("</nav>\n</main>\n</body>\n</html>\n");
    Answer {
        status: "200 OK",
        content_type: "text/html; charset=utf-8".into(),
        headers: String::new(),
        body: out,
    }
}

/// `/record/<id>`: the game's record, as a file to save.
pub fn record(store: &Store, id: &str) -> Answer {
    let stored = match store.load(id) {
        Ok(Some(g)) => g,
        Ok(None) => return plain("404 Not Found", "no such game\n".into()),
        Err(e) => return plain("500 Internal Server Error", format!("{e}\n")),
    };
    let Some(variant) = Game::named(&stored.game) else {
        return plain(
            "500 Internal Server Error",
            "a game of unknown kind\n".into(),
        );
    };
    let names = match store.names(id) {
        Ok(names) => names,
        Err(e) => return plain("500 Internal Server Error", format!("{e}\n")),
    };
    let clock = store.load_clock(id).ok().flatten();
    let drawn = match store.offers(id) {
        Ok(offers) => super::offers::Offers::new(offers).drawn(),
        Err(e) => return plain("500 Internal Server Error", format!("{e}\n")),
    };
    // The result of a room with an end agreement is what its players agreed, not the rules'
    // own count.
    let end = variant
        .end_agreement()
        .and_then(|_| store.load_end(id).ok().flatten())
        .and_then(|text| super::end::Agreement::read(&text));
    let agreed = end
        .as_ref()
        .and_then(|end| super::end::agreed_lead(variant, end));
    let Some(rules) = rules_options(stored.rules.as_deref()) else {
        return plain(
            "500 Internal Server Error",
            "the game's rules do not read\n".into(),
        );
    };
    let played = Played::under(variant, rules, parse_start(&stored.start), stored.moves).and_then(
        |mut p| {
            p.resigned = stored.resigned;
            p.flagged = clock.as_ref().and_then(|c| c.flagged);
            p.drawn = drawn;
            let unsettled = end.is_some() && p.over().is_some();
            let time = clock.as_ref().map(|c| c.spec);
            p.record(&names, agreed, unsettled, time)
        },
    );
    match played {
        Ok(text) => {
            let (content_type, ext) = record_kind(variant);
            // Ids are the server's own hex, so the name needs no quoting.
            let name: String = id.chars().filter(char::is_ascii_alphanumeric).collect();
            Answer {
                status: "200 OK",
                content_type: content_type.into(),
                headers: format!(
                    "Content-Disposition: attachment; filename=\"ryoshi-{}-{name}.{ext}\"\r\n",
                    variant.as_str()
                ),
                body: text,
            }
        }
        Err(e) => plain("500 Internal Server Error", format!("{e}\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_escapes() {
        assert_eq!(date(0), "1970-01-01 00:00 UTC");
        assert_eq!(date(1_796_411_101_000), "2026-12-04 19:05 UTC");
        assert_eq!(esc("<a href=\"x\">&"), "&lt;a href=&quot;x&quot;&gt;&amp;");
    }
}

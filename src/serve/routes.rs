//! HTTP routing: one request per connection, checked (head, Host, method) before anything
//! else, then answered with an embedded file, the status counters, or an upgrade to a WebSocket
//! (`sockets.rs`).

use super::limits::{close_answered, read_head};
use super::{archive, http, pages, room, sockets, Server};
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Serves one connection: its request head, the checks every request passes, then the page,
/// the status or the socket it asks for.
pub(super) fn connection(server: &Server, mut stream: TcpStream) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let client = stream
        .peer_addr()
        .map_or_else(|_| "-".to_string(), |a| a.to_string());
    // The access log (`--access-log`): one line per request, once its status is known.
    let log = |method: &str, path: &str, status: &str| {
        crate::logging::access(&client, method, path, status)
    };
    let req = match read_head(server, &stream) {
        Ok(req) => req,
        Err(why) => {
            log("-", "-", "400");
            let _ = http::text(&mut stream, "400 Bad Request", &format!("{why}\n"));
            close_answered(server, stream);
            return;
        }
    };
    let status = route(server, &req, &mut stream);
    if status == "101" {
        // The socket layer may still refuse the upgrade: it says what it answered.
        sockets::upgrade(server, &req, stream, |status| {
            log(&req.method, &req.path, status)
        });
    } else {
        log(&req.method, &req.path, status);
        close_answered(server, stream);
    }
}

/// Answers a request read whole, and says with what status; `101` is left to the caller, which
/// hands the socket to the WebSocket layer.
fn route(server: &Server, req: &http::Request, stream: &mut TcpStream) -> &'static str {
    if let Err(why) = server.gate.host(req) {
        let _ = http::text(stream, "403 Forbidden", &format!("{why}\n"));
        return "403";
    }
    if req.method != "GET" {
        let _ = http::text(stream, "405 Method Not Allowed", "only GET\n");
        return "405";
    }
    if req.is_websocket() {
        return "101";
    }
    let archive = match req.path.as_str() {
        "/games" => Some(archive::list(&server.store, req.param("page"))),
        path => path
            .strip_prefix("/record/")
            .map(|id| archive::record(&server.store, id)),
    };
    if let Some(answer) = archive {
        let _ = http::respond_with(
            stream,
            answer.status,
            &answer.content_type,
            &answer.headers,
            answer.body.as_bytes(),
        );
        return answer.status.split(' ').next().unwrap_or("500");
    }
    match req.path.as_str() {
        "/status" => {
            let body = status(server);
            let _ = http::respond(stream, "200 OK", "application/json", body.as_bytes());
            "200"
        }
        path => match pages::find(path) {
            Some(pages::Served { kind, body, .. }) => {
                let _ = http::respond(
                    stream,
                    "200 OK",
                    &format!("{kind}; charset=utf-8"),
                    body.as_bytes(),
                );
                "200"
            }
            None => {
                let _ = http::text(stream, "404 Not Found", "not found\n");
                "404"
            }
        },
    }
}

/// Counters for tests and curious people: sessions, rooms, connections, and the process's
/// threads and resident memory as the kernel reports them.
fn status(server: &Server) -> String {
    let proc_status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| -> Option<u64> {
        proc_status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
    };
    let mut json = serde_json::json!({
        "sessions": server.sessions.load(Ordering::SeqCst),
        "max_sessions": server.max_sessions,
        "max_sessions_per_address": super::engine_sessions_per_address(server.max_sessions),
        "rooms": room::count(),
        "connections": server.connections.load(Ordering::SeqCst),
        "threads": field("Threads:"),
        "rss_kb": field("VmRSS:"),
    });
    for (key, n) in super::end::judgements() {
        json[key] = n.into();
    }
    json.to_string()
}

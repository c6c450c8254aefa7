//! The little HTTP/1.1 this server needs: one GET per connection, a bounded request head, the
//! embedded files, and the checks that keep other web sites out (Host and Origin).

use std::io::{self, Read, Write};

/// Longest request head read (request line and headers).
pub const MAX_HEAD: usize = 16 << 10;

#[derive(Debug)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub query: String,
    /// Header names in lower case, in order.
    pub headers: Vec<(String, String)>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// A `key=value` of the query string, percent-decoded (invalid escapes stay as they are).
    pub fn param(&self, key: &str) -> Option<String> {
        self.query
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == key)
            .map(|(_, v)| {
                percent_encoding::percent_decode_str(v)
                    .decode_utf8_lossy()
                    .into_owned()
            })
    }

    pub fn is_websocket(&self) -> bool {
        self.header("upgrade")
            .is_some_and(|u| u.eq_ignore_ascii_case("websocket"))
    }
}

/// Why a request head is refused (answered `400 Bad Request` with this text).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("request head too large")]
    TooLarge,
    #[error("connection closed")]
    Closed,
    /// A read failed: the system's words.
    #[error("{0}")]
    Io(String),
    #[error("request head is not UTF-8")]
    NotUtf8,
    #[error("bad request line")]
    RequestLine,
    #[error("unsupported HTTP version")]
    Version,
    #[error("bad header line")]
    HeaderLine,
    #[error("more than {MAX_HEADERS} header lines")]
    TooManyHeaders,
}

/// Why the gate refuses a request (answered `403 Forbidden` with this text).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("no Host header")]
    NoHost,
    #[error("this server does not answer to host '{}'", crate::text::printable(.0))]
    Host(String),
    #[error("no Origin header")]
    NoOrigin,
    #[error("origin '{}' is not this server", crate::text::printable(.0))]
    Origin(String),
}

/// Header lines a request may have.
pub const MAX_HEADERS: usize = 100;

/// A byte source that can show what it holds without taking it: a socket (`TcpStream::peek`),
/// or a byte slice in tests.
pub trait Peek: Read {
    /// Copies waiting bytes into `buf` without consuming them; waits only if none are waiting.
    fn peek(&mut self, buf: &mut [u8]) -> io::Result<usize>;
}

impl Peek for &[u8] {
    fn peek(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.len());
        buf[..n].copy_from_slice(&self[..n]);
        Ok(n)
    }
}

/// How many of `more`'s bytes complete a head that so far is `head`: the blank line may begin
/// in `head` and end in `more`.
fn head_end(head: &[u8], more: &[u8]) -> Option<usize> {
    let tail = &head[head.len().saturating_sub(3)..];
    let mut joined = Vec::with_capacity(tail.len() + more.len());
    joined.extend_from_slice(tail);
    joined.extend_from_slice(more);
    (1..=joined.len()).find_map(|end| {
        let upto = &joined[..end];
        (end > tail.len() && (upto.ends_with(b"\r\n\r\n") || upto.ends_with(b"\n\n")))
            .then(|| end - tail.len())
    })
}

/// Reads the request head up to the blank line and not a byte further (only GET is served, and
/// an upgraded socket's first frame stays in the stream), then parses it with `httparse`. The
/// waiting bytes are peeked a chunk at a time and the head's part of them taken: two system
/// calls a chunk, where a read a byte took one a byte.
pub fn read_request<R: Peek>(r: &mut R) -> Result<Request, RequestError> {
    let mut head = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        if head.len() >= MAX_HEAD {
            return Err(RequestError::TooLarge);
        }
        let room = (MAX_HEAD - head.len()).min(chunk.len());
        let waiting = match r.peek(&mut chunk[..room]) {
            Ok(0) => return Err(RequestError::Closed),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(RequestError::Io(e.to_string())),
        };
        let end = head_end(&head, &chunk[..waiting]);
        let take = end.unwrap_or(waiting);
        r.read_exact(&mut chunk[..take])
            .map_err(|e| RequestError::Io(e.to_string()))?;
        head.extend_from_slice(&chunk[..take]);
        if end.is_some() {
            break;
        }
    }
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Request::new(&mut headers);
    match parsed.parse(&head) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Err(RequestError::RequestLine),
        Err(e) => return Err(RequestError::from(e)),
    }
    let (Some(method), Some(target)) = (parsed.method, parsed.path) else {
        return Err(RequestError::RequestLine);
    };
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let headers = parsed
        .headers
        .iter()
        .map(|h| {
            let value = std::str::from_utf8(h.value).map_err(|_| RequestError::NotUtf8)?;
            Ok((h.name.to_ascii_lowercase(), value.trim().to_string()))
        })
        .collect::<Result<_, RequestError>>()?;
    Ok(Request {
        method: method.to_string(),
        path: path.to_string(),
        query: query.to_string(),
        headers,
    })
}

impl From<httparse::Error> for RequestError {
    fn from(e: httparse::Error) -> RequestError {
        match e {
            httparse::Error::Version => RequestError::Version,
            httparse::Error::HeaderName | httparse::Error::HeaderValue => RequestError::HeaderLine,
            httparse::Error::TooManyHeaders => RequestError::TooManyHeaders,
            _ => RequestError::RequestLine,
        }
    }
}

pub fn respond<W: Write>(
    w: &mut W,
    status: &str,
    content_type: &str,
    body: &[u8],
) -> io::Result<()> {
    respond_with(w, status, content_type, "", body)
}

/// [`respond`] with more header lines (each ending in CRLF).
pub fn respond_with<W: Write>(
    w: &mut W,
    status: &str,
    content_type: &str,
    headers: &str,
    body: &[u8],
) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n{headers}\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
         X-Frame-Options: DENY\r\nReferrer-Policy: no-referrer\r\n\
         Content-Security-Policy: default-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    w.write_all(head.as_bytes())?;
    w.write_all(body)?;
    w.flush()
}

pub fn text<W: Write>(w: &mut W, status: &str, body: &str) -> io::Result<()> {
    respond(w, status, "text/plain; charset=utf-8", body.as_bytes())
}

/// The `101 Switching Protocols` answer to a valid upgrade request.
pub fn upgrade<W: Write>(w: &mut W, key: &str) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Accept: {}\r\n\r\n",
        super::ws::accept_key(key)
    );
    w.write_all(head.as_bytes())?;
    w.flush()
}

/// Who may talk to the server: the `Host` names it answers to, and the `Origin` a WebSocket must
/// come from (its own pages: `http://` + the Host the page was loaded from).
pub struct Gate {
    /// Accepted `Host` header values (with the port).
    pub hosts: Vec<String>,
    /// Bound to all interfaces: any IP address with the port is accepted too (an address is no
    /// DNS name, so it cannot be rebound; names must be listed).
    pub any_address: bool,
    pub port: u16,
}

impl Gate {
    pub fn new(bind_host: &str, port: u16) -> Gate {
        let mut hosts = Vec::new();
        let any_address = matches!(bind_host, "0.0.0.0" | "::" | "[::]");
        let host = if bind_host.contains(':') && !bind_host.starts_with('[') {
            format!("[{bind_host}]")
        } else {
            bind_host.to_string()
        };
        if !any_address {
            hosts.push(format!("{host}:{port}"));
        }
        if any_address || host == "127.0.0.1" || host == "[::1]" || host == "localhost" {
            for alias in ["127.0.0.1", "localhost", "[::1]"] {
                let name = format!("{alias}:{port}");
                if !hosts.contains(&name) {
                    hosts.push(name);
                }
            }
        }
        Gate {
            hosts,
            any_address,
            port,
        }
    }

    /// Answers to these names too (`--allow-host`): `name:port`, and plain `name` when the port
    /// is 80 (browsers leave it out then).
    pub fn allow(&mut self, names: &[String], port: u16) {
        for name in names {
            self.hosts.push(format!("{name}:{port}"));
            if port == 80 {
                self.hosts.push(name.clone());
            }
        }
    }

    /// The request's Host when the server answers to it (DNS rebinding defence).
    pub fn host<'a>(&self, req: &'a Request) -> Result<&'a str, Refusal> {
        let host = req.header("host").ok_or(Refusal::NoHost)?;
        let listed = self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host));
        let address = self.any_address
            && host.rsplit_once(':').is_some_and(|(name, port)| {
                port == self.port.to_string()
                    && name
                        .trim_start_matches('[')
                        .trim_end_matches(']')
                        .parse::<std::net::IpAddr>()
                        .is_ok()
            });
        if listed || address {
            Ok(host)
        } else {
            Err(Refusal::Host(host.into()))
        }
    }

    /// A WebSocket upgrade is accepted only from the server's own pages.
    pub fn check_origin(&self, req: &Request) -> Result<(), Refusal> {
        let host = self.host(req)?;
        let origin = req.header("origin").ok_or(Refusal::NoOrigin)?;
        if origin.eq_ignore_ascii_case(&format!("http://{host}")) {
            Ok(())
        } else {
            Err(Refusal::Origin(origin.into()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(text: &str) -> Request {
        read_request(&mut text.as_bytes()).unwrap()
    }

    /// A socket that has only `step` bytes waiting at a time.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.step).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    impl Peek for Trickle<'_> {
        fn peek(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.step).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            Ok(n)
        }
    }

    #[test]
    fn the_head_is_read_to_its_blank_line_and_not_a_byte_further() {
        for end in ["\r\n\r\n", "\n\n"] {
            let head = format!("GET /ws HTTP/1.1\r\nHost: a{end}");
            let sent = format!("{head}\x01\x05frame");
            // Every chunking, the blank line split across chunks included.
            for step in 1..=sent.len() {
                let mut socket = Trickle {
                    data: sent.as_bytes(),
                    step,
                };
                let r = read_request(&mut socket).unwrap();
                assert_eq!((r.path.as_str(), r.header("host")), ("/ws", Some("a")));
                assert_eq!(socket.data, &sent.as_bytes()[head.len()..], "step {step}");
            }
        }
        // A head of exactly MAX_HEAD bytes is read; one byte more is refused.
        let filler = |n: usize| format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(n));
        let exact = filler(MAX_HEAD - filler(0).len());
        assert!(read_request(&mut exact.as_bytes()).is_ok());
        let over = filler(MAX_HEAD + 1 - filler(0).len());
        assert_eq!(
            read_request(&mut over.as_bytes()).unwrap_err(),
            RequestError::TooLarge
        );
    }

    #[test]
    fn parses_a_get() {
        let r = req("GET /ws?room=ab&seat=cd HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUpgrade: WebSocket\r\n\r\n");
        assert_eq!(r.method, "GET");
        assert_eq!(r.path, "/ws");
        assert_eq!(r.param("seat").as_deref(), Some("cd"));
        assert!(r.is_websocket());
        let r = req("GET /room?start=9%2F.X_b%zz HTTP/1.1\r\n\r\n");
        assert_eq!(r.param("start").as_deref(), Some("9/.X_b%zz"));
        assert!(!r.is_websocket());
        assert!(read_request(&mut &b"GET / HTTP/1.1\r\n"[..]).is_err());
        for bad in [
            "GET / HTTP/1.banana",
            "GET / HTTP/2",
            "GET / HTTP/1.1 x",
            "GET /",
        ] {
            let head = format!("{bad}\r\nHost: a\r\n\r\n");
            assert!(read_request(&mut head.as_bytes()).is_err(), "{bad}");
        }
        assert!(read_request(&mut &vec![b'a'; MAX_HEAD + 10][..]).is_err());
        assert!(read_request(&mut &b"GET /\xff HTTP/1.1\r\n\r\n"[..]).is_err());
        assert!(read_request(&mut &b"GET / HTTP/1.1\r\nX: \xff\r\n\r\n"[..]).is_err());
        assert!(read_request(&mut &b"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n"[..]).is_err());
        let many = format!(
            "GET / HTTP/1.1\r\n{}\r\n",
            "A: b\r\n".repeat(MAX_HEADERS + 1)
        );
        assert_eq!(
            read_request(&mut many.as_bytes()).unwrap_err(),
            RequestError::TooManyHeaders
        );
        // The head ends at the blank line: what follows stays unread.
        let mut rest = &b"GET / HTTP/1.0\n\nbody"[..];
        assert_eq!(read_request(&mut rest).unwrap().path, "/");
        assert_eq!(rest, b"body");
    }

    #[test]
    fn origin_must_be_the_served_host() {
        let gate = Gate::new("127.0.0.1", 8080);
        let ok = req(
            "GET /ws HTTP/1.1\r\nHost: localhost:8080\r\nOrigin: http://localhost:8080\r\n\r\n",
        );
        assert!(gate.check_origin(&ok).is_ok());
        for bad in [
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nOrigin: http://evil.example\r\n\r\n",
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
            "GET /ws HTTP/1.1\r\nHost: evil.example:8080\r\nOrigin: http://evil.example:8080\r\n\r\n",
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nOrigin: http://127.0.0.1:9090\r\n\r\n",
        ] {
            assert!(gate.check_origin(&req(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn wildcard_bindings_take_addresses_and_allowed_names_only() {
        let mut gate = Gate::new("0.0.0.0", 8080);
        gate.allow(&["box.lan".to_string()], 8080);
        let host = |h: &str| {
            gate.host(&req(&format!("GET / HTTP/1.1\r\nHost: {h}\r\n\r\n")))
                .is_ok()
        };
        for ok in [
            "192.168.1.9:8080",
            "[fe80::1]:8080",
            "localhost:8080",
            "BOX.lan:8080",
        ] {
            assert!(host(ok), "{ok}");
        }
        for bad in [
            "evil.example:8080",
            "evil.example",
            "192.168.1.9:9090",
            "box.lan:80",
            "1.2.3.4",
        ] {
            assert!(!host(bad), "{bad}");
        }
    }
}

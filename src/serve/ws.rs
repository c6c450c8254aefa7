//! RFC 6455 WebSocket on `tungstenite`: the handshake's key check and accept key, and one socket
//! read by its connection thread and written by its writer thread (`tab::Socket`), each through
//! its own `tungstenite` endpoint over its own handle of the stream. The reading endpoint never
//! writes: what it would send by itself (a pong, the close reply) goes through the socket's
//! queue instead, so that frames from two threads never interleave on the wire.

use super::limits::MAX_MESSAGE;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use tungstenite::error::{CapacityError, ProtocolError};
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::{CloseFrame, Role, WebSocket, WebSocketConfig};
use tungstenite::Error;
pub use tungstenite::{Bytes, Message};

/// Every socket's limits: messages and frames of at most [`MAX_MESSAGE`] bytes, a small read
/// buffer (many idle tabs), and frames written as soon as they are sent.
fn config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(8 << 10)
        .write_buffer_size(0)
        .max_message_size(Some(MAX_MESSAGE))
        .max_frame_size(Some(MAX_MESSAGE))
}

/// Whether `key` is a valid `Sec-WebSocket-Key`: the base64 of 16 bytes (RFC 6455 4.2.1), in its
/// one canonical spelling (padded, unused bits zero).
pub fn valid_key(key: &str) -> bool {
    data_encoding::BASE64
        .decode(key.as_bytes())
        .is_ok_and(|bytes| bytes.len() == 16)
}

/// `Sec-WebSocket-Accept` for a `Sec-WebSocket-Key`.
pub fn accept_key(key: &str) -> String {
    tungstenite::handshake::derive_accept_key(key.trim().as_bytes())
}

/// What the reader hands up.
#[derive(Debug, PartialEq, Eq)]
pub enum Incoming {
    Text(String),
    /// A message that is not UTF-8 text (binary, or text with invalid UTF-8); the socket goes on.
    NotText,
    /// A message or frame longer than [`MAX_MESSAGE`] (its length as announced, or as far as it
    /// was read): the rest of it was never read, so the socket must close (status 1009).
    TooLong(usize),
    Ping(Bytes),
    /// The client closed, or the socket ended: the status to answer with, 1000, or 1002 for a
    /// close frame whose status no endpoint may send (RFC 6455 7.4: below 1000, 1004 to 1006,
    /// 1015, the unassigned 1016 to 2999, 5000 and up).
    Close(u16),
    /// A close frame whose reason is not UTF-8: the connection fails (status 1007, RFC 6455
    /// 8.1).
    BadClose,
    /// Nothing came for the read timeout.
    Idle,
    /// A frame that breaks RFC 6455 (status 1002), in tungstenite's words.
    Broken(String),
}

/// A stream that reads and drops what is written to it: the reading endpoint's own replies.
/// It never hands over bytes past the end of a frame, so that it knows the opcode of the frame
/// `tungstenite` works on when it fails: tungstenite says "not UTF-8" alike for a text message
/// (the socket goes on) and for a close frame's reason (the connection fails).
struct ReadOnly<R> {
    inner: R,
    /// The header read so far, and how long it is (2 until its second byte says).
    header: [u8; 14],
    have: usize,
    need: usize,
    /// Payload bytes of the current frame not yet handed over.
    left: u64,
    /// The opcode of the last frame whose header was read whole.
    opcode: u8,
}

/// The close frame's opcode.
const CLOSE: u8 = 0x8;

impl<R> ReadOnly<R> {
    fn new(inner: R) -> Self {
        ReadOnly {
            inner,
            header: [0; 14],
            have: 0,
            need: 2,
            left: 0,
            opcode: 0,
        }
    }

    /// Takes in `bytes` of a header.
    fn header_read(&mut self, bytes: &[u8]) {
        self.header[self.have..self.have + bytes.len()].copy_from_slice(bytes);
        self.have += bytes.len();
        if self.have == 2 {
            let length = match self.header[1] & 0x7f {
                126 => 2,
                127 => 8,
                _ => 0,
            };
            self.need = 2 + length + if self.header[1] & 0x80 != 0 { 4 } else { 0 };
        }
        if self.have == self.need {
            self.opcode = self.header[0] & 0x0f;
            self.left = match self.header[1] & 0x7f {
                126 => u64::from(u16::from_be_bytes([self.header[2], self.header[3]])),
                127 => u64::from_be_bytes(self.header[2..10].try_into().unwrap_or_default()),
                n => u64::from(n),
            };
            (self.have, self.need) = (0, 2);
        }
    }
}

impl<R: Read> Read for ReadOnly<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left > 0 {
            let most = buf
                .len()
                .min(usize::try_from(self.left).unwrap_or(usize::MAX));
            let n = self.inner.read(&mut buf[..most])?;
            self.left -= n as u64;
            return Ok(n);
        }
        let most = buf.len().min(self.need - self.have);
        let n = self.inner.read(&mut buf[..most])?;
        self.header_read(&buf[..n]);
        Ok(n)
    }
}

impl<R> Write for ReadOnly<R> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Reads a client's messages (masked frames, possibly fragmented, with control frames between
/// the fragments as RFC 6455 5.4 allows).
pub struct Reader<R: Read> {
    ws: WebSocket<ReadOnly<R>>,
}

impl<R: Read> Reader<R> {
    pub fn new(inner: R) -> Self {
        Reader {
            ws: WebSocket::from_raw_socket(ReadOnly::new(inner), Role::Server, Some(config())),
        }
    }

    pub fn next_message(&mut self) -> Incoming {
        loop {
            return match self.ws.read() {
                Ok(Message::Text(text)) => Incoming::Text(text.as_str().to_string()),
                Err(Error::Utf8(_)) if self.ws.get_ref().opcode == CLOSE => Incoming::BadClose,
                Ok(Message::Binary(_)) | Err(Error::Utf8(_)) => Incoming::NotText,
                Ok(Message::Ping(body)) => Incoming::Ping(body),
                Ok(Message::Pong(_) | Message::Frame(_)) => continue,
                // tungstenite puts 1002 in place of a status no endpoint may send.
                Ok(Message::Close(Some(frame))) if frame.code == CloseCode::Protocol => {
                    Incoming::Close(1002)
                }
                Ok(Message::Close(_))
                | Err(Error::ConnectionClosed | Error::AlreadyClosed)
                | Err(Error::Protocol(ProtocolError::ResetWithoutClosingHandshake)) => {
                    Incoming::Close(1000)
                }
                Err(Error::Capacity(CapacityError::MessageTooLong { size, .. })) => {
                    Incoming::TooLong(size)
                }
                Err(Error::Io(e))
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    Incoming::Idle
                }
                Err(Error::Io(_)) => Incoming::Close(1000),
                Err(e) => Incoming::Broken(e.to_string()),
            };
        }
    }
}

/// The writing endpoint of an upgraded socket (its writer thread's).
pub struct Writer {
    ws: WebSocket<TcpStream>,
}

impl Writer {
    pub fn new(stream: TcpStream) -> Writer {
        Writer {
            ws: WebSocket::from_raw_socket(stream, Role::Server, Some(config())),
        }
    }

    /// Writes one message whole; false when the socket failed.
    pub fn send(&mut self, message: Message) -> bool {
        self.ws.send(message).is_ok()
    }

    /// Writes the close frame (1000 normal, 1002 protocol error, 1008 policy, 1009 too big, 1013
    /// try again later) and shuts the socket: the reader sees the end.
    pub fn close(mut self, code: u16, reason: &str) {
        let frame = CloseFrame {
            code: CloseCode::from(code),
            reason: truncated(reason, 120).into(),
        };
        let _ = self.ws.close(Some(frame));
        self.shutdown();
    }

    pub fn shutdown(&self) {
        let _ = self.ws.get_ref().shutdown(Shutdown::Both);
    }
}

/// `text` cut to at most `max` bytes at a character boundary (a control frame holds 125).
fn truncated(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use tungstenite::protocol::frame::coding::{Data, OpCode};
    use tungstenite::protocol::frame::Frame;

    #[test]
    fn rfc_6455_example_key() {
        assert_eq!(
            accept_key("dGhlIHNhbXBsZSBub25jZQ=="),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
        assert!(valid_key("dGhlIHNhbXBsZSBub25jZQ=="));
        assert!(valid_key(&data_encoding::BASE64.encode(&[0xFF; 16])));
        for bad in [
            "",
            "Zm9vYmFy",
            "dGhlIHNhbXBsZSBub25jZR==",
            "dGhlIHNhbXBsZSBub25j*Q==",
            "dGhlIHNhbXBsZSBub25jZQ=",
        ] {
            assert!(!valid_key(bad), "{bad}");
        }
    }

    /// What a browser sends: frames masked by a client endpoint.
    fn client_bytes(frames: Vec<Frame>) -> Vec<u8> {
        let mut client = WebSocket::from_raw_socket(
            io::Cursor::new(Vec::new()),
            Role::Client,
            Some(WebSocketConfig::default().max_frame_size(None)),
        );
        for frame in frames {
            client.send(Message::Frame(frame)).unwrap();
        }
        client.into_inner().into_inner()
    }

    fn data(kind: Data, fin: bool, payload: &[u8]) -> Frame {
        Frame::message(payload.to_vec(), OpCode::Data(kind), fin)
    }

    #[test]
    fn reads_fragments_around_a_ping_and_bounds_size() {
        let bytes = client_bytes(vec![
            data(Data::Text, false, b"is"),
            Frame::ping(b"hi".to_vec()),
            data(Data::Continue, true, b"ready"),
            data(Data::Binary, true, b"\x00\x01"),
            data(Data::Text, true, b"\xff\xfe"),
            data(Data::Text, true, b"d"),
        ]);
        let mut r = Reader::new(&bytes[..]);
        assert_eq!(r.next_message(), Incoming::Ping(Bytes::from_static(b"hi")));
        assert_eq!(r.next_message(), Incoming::Text("isready".into()));
        assert_eq!(r.next_message(), Incoming::NotText);
        assert_eq!(r.next_message(), Incoming::NotText);
        assert_eq!(r.next_message(), Incoming::Text("d".into()));
        assert_eq!(r.next_message(), Incoming::Close(1000));
        let long = client_bytes(vec![data(Data::Text, true, &vec![b'x'; MAX_MESSAGE + 1])]);
        let mut r = Reader::new(&long[..]);
        assert_eq!(r.next_message(), Incoming::TooLong(MAX_MESSAGE + 1));
        let mut at_limit = client_bytes(vec![
            data(Data::Text, false, &vec![b'x'; MAX_MESSAGE / 2]),
            data(Data::Continue, true, &vec![b'y'; MAX_MESSAGE / 2]),
        ]);
        at_limit.extend(client_bytes(vec![
            data(Data::Text, false, &vec![b'x'; MAX_MESSAGE / 2]),
            data(Data::Continue, true, &vec![b'y'; MAX_MESSAGE / 2 + 1]),
        ]));
        let mut r = Reader::new(&at_limit[..]);
        assert!(matches!(r.next_message(), Incoming::Text(t) if t.len() == MAX_MESSAGE));
        assert_eq!(r.next_message(), Incoming::TooLong(MAX_MESSAGE + 1));
    }

    fn close(code: u16, reason: &[u8]) -> Frame {
        let mut payload = code.to_be_bytes().to_vec();
        payload.extend_from_slice(reason);
        let mut frame = Frame::ping(payload);
        frame.header_mut().opcode =
            OpCode::Control(tungstenite::protocol::frame::coding::Control::Close);
        frame
    }

    /// RFC 6455 7.4: a status no endpoint may send is answered 1002; a reason that is not UTF-8
    /// fails the connection, where a text message that is not goes on.
    #[test]
    fn close_statuses_and_reasons_follow_rfc_6455() {
        for (code, answer) in [
            (999, 1002),
            (1005, 1002),
            (1006, 1002),
            (1015, 1002),
            (1016, 1002),
            (5000, 1002),
            (1000, 1000),
            (1001, 1000),
            (3000, 1000),
            (4999, 1000),
        ] {
            let bytes = client_bytes(vec![close(code, b"bye")]);
            assert_eq!(
                Reader::new(&bytes[..]).next_message(),
                Incoming::Close(answer),
                "{code}"
            );
        }
        // Behind messages of each header length, so that frames are followed through.
        let bytes = client_bytes(vec![
            data(Data::Text, true, b"\xff"),
            data(Data::Text, true, &[b'x'; 300]),
            data(Data::Text, true, &vec![b'y'; 70_000]),
            close(1000, b"\xff\xfe"),
        ]);
        let mut r = Reader::new(&bytes[..]);
        assert_eq!(r.next_message(), Incoming::NotText);
        assert!(matches!(r.next_message(), Incoming::Text(t) if t.len() == 300));
        assert!(matches!(r.next_message(), Incoming::Text(t) if t.len() == 70_000));
        assert_eq!(r.next_message(), Incoming::BadClose);
    }

    #[test]
    fn unmasked_frames_are_refused() {
        // A server endpoint's frames are not masked.
        let mut server =
            WebSocket::from_raw_socket(io::Cursor::new(Vec::new()), Role::Server, None);
        server.send(Message::text("usi")).unwrap();
        let bytes = server.into_inner().into_inner();
        assert!(matches!(
            Reader::new(&bytes[..]).next_message(),
            Incoming::Broken(_)
        ));
    }
}

//! RFC 6455 WebSocket, server side, just what a page needs: the opening handshake's accept key
//! (SHA-1 and base64, written here rather than pulled in as crates), and frames read with a hard
//! bound on message size and written whole. Reading and writing work on separate handles of the
//! same socket, so a session can write lines while the connection thread blocks on the next frame.

use std::io::{self, Read};

/// The GUID every server appends to the client's key (RFC 6455, section 1.3).
const GUID: &str = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// `Sec-WebSocket-Accept` for a `Sec-WebSocket-Key`.
pub fn accept_key(key: &str) -> String {
    let mut text = key.trim().as_bytes().to_vec();
    text.extend_from_slice(GUID.as_bytes());
    base64(&sha1(&text))
}

pub fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [
        0x6745_2301,
        0xEFCD_AB89,
        0x98BA_DCFE,
        0x1032_5476,
        0xC3D2_E1F0,
    ];
    let mut msg = data.to_vec();
    let bits = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bits.to_be_bytes());
    for block in msg.chunks_exact(64) {
        let mut w = [0u32; 80];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, &wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (hi, v) in h.iter_mut().zip([a, b, c, d, e]) {
            *hi = hi.wrapping_add(v);
        }
    }
    let mut out = [0u8; 20];
    for (i, v) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&v.to_be_bytes());
    }
    out
}

const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Whether `key` is a valid `Sec-WebSocket-Key`: the base64 of 16 bytes (RFC 6455 4.2.1), i.e.
/// 22 characters of the alphabet (the last with its 4 unused bits zero) and `==`.
pub fn valid_key(key: &str) -> bool {
    let b = key.as_bytes();
    let value = |c: u8| ABC.iter().position(|&a| a == c);
    b.len() == 24
        && b.ends_with(b"==")
        && b[..22].iter().all(|&c| value(c).is_some())
        && value(b[21]).is_some_and(|v| v & 0xF == 0)
}

pub fn base64(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// What the reader hands up.
#[derive(Debug, PartialEq, Eq)]
pub enum Message {
    Text(String),
    /// A message that is not UTF-8 text (binary, or text with invalid UTF-8).
    NotText,
    /// A message longer than the limit; its bytes were read and dropped.
    TooLong(u64),
    Ping(Vec<u8>),
    /// The client closed, or the socket ended.
    Close,
}

const OP_CONTINUATION: u8 = 0;
const OP_TEXT: u8 = 1;
const OP_BINARY: u8 = 2;
const OP_CLOSE: u8 = 8;
pub const OP_PING: u8 = 9;
const OP_PONG: u8 = 10;

/// Reads client frames (masked, possibly fragmented), keeping at most `limit` bytes of a message.
pub struct Reader<R: Read> {
    inner: R,
    limit: usize,
}

impl<R: Read> Reader<R> {
    pub fn new(inner: R, limit: usize) -> Self {
        Reader { inner, limit }
    }

    /// The next message. Protocol violations (unmasked frames, bad opcodes, oversized control
    /// frames) are errors: the caller closes the connection.
    pub fn next_message(&mut self) -> io::Result<Message> {
        let mut payload: Vec<u8> = Vec::new();
        let mut kind: Option<u8> = None;
        let mut dropped: u64 = 0;
        loop {
            let mut head = [0u8; 2];
            if let Err(e) = self.inner.read_exact(&mut head) {
                return if e.kind() == io::ErrorKind::UnexpectedEof {
                    Ok(Message::Close)
                } else {
                    Err(e)
                };
            }
            let fin = head[0] & 0x80 != 0;
            let opcode = head[0] & 0x0F;
            if head[0] & 0x70 != 0 {
                return Err(bad("reserved bits set"));
            }
            if head[1] & 0x80 == 0 {
                return Err(bad("client frames must be masked"));
            }
            let len = match head[1] & 0x7F {
                126 => {
                    let mut b = [0u8; 2];
                    self.inner.read_exact(&mut b)?;
                    u16::from_be_bytes(b) as u64
                }
                127 => {
                    let mut b = [0u8; 8];
                    self.inner.read_exact(&mut b)?;
                    u64::from_be_bytes(b)
                }
                n => n as u64,
            };
            let mut mask = [0u8; 4];
            self.inner.read_exact(&mut mask)?;
            if opcode >= 8 {
                if len > 125 || !fin {
                    return Err(bad("bad control frame"));
                }
                let mut body = vec![0u8; len as usize];
                self.inner.read_exact(&mut body)?;
                unmask(&mut body, &mask, 0);
                match opcode {
                    OP_CLOSE => return Ok(Message::Close),
                    OP_PING => return Ok(Message::Ping(body)),
                    OP_PONG => continue,
                    _ => return Err(bad("unknown control opcode")),
                }
            }
            match (opcode, kind) {
                (OP_TEXT | OP_BINARY, None) => kind = Some(opcode),
                (OP_CONTINUATION, Some(_)) => {}
                _ => return Err(bad("unexpected data frame")),
            }
            let room = (self.limit as u64).saturating_sub(payload.len() as u64);
            if dropped > 0 || len > room {
                // Too long: drop this frame (and the rest of the message) without keeping it.
                dropped = dropped
                    .saturating_add(payload.len() as u64)
                    .saturating_add(len);
                payload = Vec::new();
                io::copy(&mut (&mut self.inner).take(len), &mut io::sink())?;
            } else {
                let start = payload.len();
                payload.resize(start + len as usize, 0);
                self.inner.read_exact(&mut payload[start..])?;
                unmask(&mut payload[start..], &mask, 0);
            }
            if fin {
                if dropped > 0 {
                    return Ok(Message::TooLong(dropped));
                }
                return Ok(match (kind, String::from_utf8(payload)) {
                    (Some(OP_TEXT), Ok(text)) => Message::Text(text),
                    _ => Message::NotText,
                });
            }
        }
    }
}

fn unmask(data: &mut [u8], mask: &[u8; 4], offset: usize) {
    for (i, b) in data.iter_mut().enumerate() {
        *b ^= mask[(i + offset) % 4];
    }
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

/// One unmasked server frame.
pub fn frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 10);
    out.push(0x80 | opcode);
    match payload.len() {
        n if n < 126 => out.push(n as u8),
        n if n <= u16::MAX as usize => {
            out.push(126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(payload);
    out
}

pub fn text_frame(text: &str) -> Vec<u8> {
    frame(OP_TEXT, text.as_bytes())
}

pub fn pong_frame(body: &[u8]) -> Vec<u8> {
    frame(OP_PONG, body)
}

/// A close frame with a status code (1000 normal, 1008 policy, 1013 try again later).
pub fn close_frame(code: u16, reason: &str) -> Vec<u8> {
    let mut body = code.to_be_bytes().to_vec();
    body.extend_from_slice(&reason.as_bytes()[..reason.len().min(120)]);
    frame(OP_CLOSE, &body)
}

/// A masked client frame (for tests and for tools that talk to the server).
pub fn client_frame(opcode: u8, fin: bool, payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
    let mut out = frame(opcode, payload);
    if !fin {
        out[0] &= 0x7F;
    }
    let header = out.len() - payload.len();
    out[1] |= 0x80;
    let mut body = out.split_off(header);
    unmask(&mut body, &mask, 0);
    out.extend_from_slice(&mask);
    out.extend_from_slice(&body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_6455_example_key() {
        assert_eq!(
            accept_key("dGhlIHNhbXBsZSBub25jZQ=="),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
    }

    #[test]
    fn sha1_and_base64_known_values() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert!(valid_key("dGhlIHNhbXBsZSBub25jZQ=="));
        assert!(valid_key(&base64(&[0xFF; 16])));
        for bad in [
            "",
            "Zm9vYmFy",
            "dGhlIHNhbXBsZSBub25jZR==",
            "dGhlIHNhbXBsZSBub25j*Q==",
            "dGhlIHNhbXBsZSBub25jZQ=",
        ] {
            assert!(!valid_key(bad), "{bad}");
        }
        let hex: String = sha1(b"abc").iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
        let long = vec![b'a'; 1000];
        let hex: String = sha1(&long).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "291e9a6c66994949b57ba5e650361e98fc36b1ba");
    }

    #[test]
    fn reads_fragmented_text_and_bounds_size() {
        let mut bytes = client_frame(OP_TEXT, false, b"is", [1, 2, 3, 4]);
        bytes.extend(client_frame(OP_CONTINUATION, true, b"ready", [9, 8, 7, 6]));
        bytes.extend(client_frame(OP_TEXT, true, &[b'x'; 300], [5, 5, 5, 5]));
        bytes.extend(client_frame(OP_BINARY, true, b"\x00\x01", [0, 0, 0, 1]));
        bytes.extend(client_frame(OP_TEXT, true, b"\xff\xfe", [0, 0, 0, 1]));
        bytes.extend(client_frame(OP_PING, true, b"hi", [3, 3, 3, 3]));
        bytes.extend(client_frame(OP_TEXT, true, b"d", [7, 7, 7, 7]));
        let mut r = Reader::new(&bytes[..], 100);
        assert_eq!(r.next_message().unwrap(), Message::Text("isready".into()));
        assert_eq!(r.next_message().unwrap(), Message::TooLong(300));
        assert_eq!(r.next_message().unwrap(), Message::NotText);
        assert_eq!(r.next_message().unwrap(), Message::NotText);
        assert_eq!(r.next_message().unwrap(), Message::Ping(b"hi".to_vec()));
        assert_eq!(r.next_message().unwrap(), Message::Text("d".into()));
        assert_eq!(r.next_message().unwrap(), Message::Close);
    }

    #[test]
    fn unmasked_frames_are_refused() {
        let bytes = text_frame("usi");
        assert!(Reader::new(&bytes[..], 100).next_message().is_err());
    }
}

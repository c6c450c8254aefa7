//! A GTP engine process driven one command at a time (for the referee and client tests).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

pub struct GtpProcess {
    pub name: String,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// Every command sent and reply received, for failure messages.
    pub log: Vec<String>,
}

/// A reply: success flag and the text after `=`/`?` (and the id), lines joined by `\n`.
#[derive(Debug, Clone, PartialEq)]
pub struct GtpReply {
    pub ok: bool,
    pub text: String,
}

impl GtpProcess {
    pub fn start(name: &str, program: &str, args: &[&str]) -> GtpProcess {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        GtpProcess {
            name: name.to_string(),
            child,
            stdin,
            stdout,
            log: Vec::new(),
        }
    }

    /// Sends one command and reads its reply (up to the empty line that ends it).
    pub fn send(&mut self, command: &str) -> GtpReply {
        writeln!(self.stdin, "{command}").expect("write command");
        self.stdin.flush().expect("flush");
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read reply");
            assert!(n > 0, "{}: end of output after '{command}'", self.name);
            let line = line.trim_end_matches(['\n', '\r']).to_string();
            if line.is_empty() {
                if lines.is_empty() {
                    continue;
                }
                break;
            }
            lines.push(line);
        }
        let first = &lines[0];
        let ok = first.starts_with('=');
        assert!(
            ok || first.starts_with('?'),
            "{}: malformed reply {lines:?}",
            self.name
        );
        let head = first[1..].trim_start_matches(|c: char| c.is_ascii_digit());
        let mut text = head.trim().to_string();
        for l in &lines[1..] {
            text.push('\n');
            text.push_str(l);
        }
        self.log
            .push(format!("{command} -> {}{text}", if ok { "=" } else { "?" }));
        GtpReply { ok, text }
    }

    /// Sends a command that must succeed; its reply text.
    pub fn ok(&mut self, command: &str) -> String {
        let r = self.send(command);
        assert!(
            r.ok,
            "{}: '{command}' failed: {}\nlast commands:\n{}",
            self.name,
            r.text,
            self.log[self.log.len().saturating_sub(12)..].join("\n")
        );
        r.text
    }
}

impl Drop for GtpProcess {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

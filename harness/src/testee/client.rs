//! The runner's side of the testee protocol: [`TesteeBackend`] drives an implementation running
//! as a subprocess (`spec/conformance.md §6`).
//!
//! The command is split into words by [`split_command`] (quotes and backslashes as in a POSIX
//! shell, nothing else: no variables, globs or pipes) and started directly, without a shell. The
//! client performs the `hello` handshake, then sends one request frame at a time and waits for its
//! reply for at most the per-request timeout, reading replies on a thread so a silent testee
//! cannot block the runner. A testee that exits, closes its output, sends a frame longer than
//! [`MAX_FRAME`] or a frame that is not a reply has crashed; one that does not answer in time has
//! hung. Either way it is killed, that request fails with [`BackendFailure::Crash`] or
//! [`BackendFailure::Timeout`], and the next request starts a fresh process (with a new handshake):
//! meshes held by the old process are gone, so the runner fails the case that used them (and
//! dropping them is answered without a process). With a deadline (the runner's `--run-timeout`)
//! no request waits past it.

use std::collections::BTreeSet;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::protocol::{
    read_frame, write_frame, Backend, BackendFailure, Reply, Request, MAX_FRAME, PROTOCOLS,
};

use crate::limits::{DEFAULT_TIMEOUT, STDERR_TAIL};

/// Why a testee could not be started or did not complete the handshake.
#[derive(Debug, thiserror::Error)]
pub enum TesteeError {
    /// A command without words.
    #[error("empty testee command")]
    Empty,
    /// A quote that does not close.
    #[error("unterminated {quote} in command: {command}")]
    Unterminated {
        /// `'` or `"`.
        quote: char,
        /// The command.
        command: String,
    },
    /// A backslash at the end.
    #[error("trailing backslash in command: {command}")]
    TrailingBackslash {
        /// The command.
        command: String,
    },
    /// The program could not be started.
    #[error("cannot start testee {program:?}: {source}")]
    Start {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// The process has no pipes.
    #[error("testee pipes are missing")]
    Pipes,
    /// The `hello` request could not be written.
    #[error("cannot encode hello: {0}")]
    Encode(serde_json::Error),
    /// The testee crashed before answering `hello`.
    #[error("hello failed: {0}")]
    HelloFailed(String),
    /// No `hello` reply in time.
    #[error("no hello reply within {0:?}")]
    HelloTimeout(Duration),
    /// The testee refused this protocol version.
    #[error("the testee refused protocols {PROTOCOLS:?}: {message}")]
    Refused {
        /// What it said.
        message: String,
    },
    /// `hello` answered other than `ok` or `error`.
    #[error("hello answered {reply:?}")]
    HelloReply {
        /// The reply.
        reply: Reply,
    },
    /// A `hello` reply that is not a reply.
    #[error("malformed hello reply: {0}")]
    Malformed(serde_json::Error),
    /// Another protocol version.
    #[error("the testee answered protocol {version} to a hello offering another")]
    Protocol {
        /// Its `protocol`.
        version: serde_json::Value,
    },
    /// `ops` or `features` missing or not an array.
    #[error("hello reply has no array {key:?}")]
    NoArray {
        /// The key.
        key: &'static str,
    },
    /// `ops` or `features` holding a non-string.
    #[error("{key:?} holds a non-string: {value}")]
    NotAString {
        /// The key.
        key: &'static str,
        /// The value.
        value: serde_json::Value,
    },
    /// No `impl` string.
    #[error("hello reply has no string \"impl\"")]
    NoImpl,
}

/// Splits a command line into words: blanks separate words; `'…'` quotes literally; `"…"` quotes
/// with `\"`, `\\`, `` \` `` and `\$` as escapes; a backslash outside quotes escapes the next
/// character. An empty command or an unterminated quote is an error.
pub fn split_command(cmd: &str) -> Result<Vec<String>, TesteeError> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut it = cmd.chars();
    let unterminated = |quote| TesteeError::Unterminated {
        quote,
        command: cmd.to_owned(),
    };
    while let Some(c) = it.next() {
        match c {
            ' ' | '\t' | '\n' | '\r' => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match it.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err(unterminated('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match it.next() {
                        Some('"') => break,
                        Some('\\') => match it.next() {
                            Some(c @ ('"' | '\\' | '`' | '$')) => cur.push(c),
                            Some(c) => {
                                cur.push('\\');
                                cur.push(c);
                            }
                            None => return Err(unterminated('"')),
                        },
                        Some(c) => cur.push(c),
                        None => return Err(unterminated('"')),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match it.next() {
                    Some(c) => cur.push(c),
                    None => {
                        return Err(TesteeError::TrailingBackslash {
                            command: cmd.to_owned(),
                        })
                    }
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    if words.is_empty() {
        return Err(TesteeError::Empty);
    }
    Ok(words)
}

/// Quotes a word so that the testee command splitter gives it back unchanged (as a POSIX shell
/// would).
pub fn quote_word(w: &str) -> String {
    format!("'{}'", w.replace('\'', r"'\''"))
}

/// What a testee said in its `hello` reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hello {
    /// The implementation's name and version (`impl`).
    pub implementation: String,
    /// The ops it answers.
    pub ops: BTreeSet<String>,
    /// The features it has.
    pub features: BTreeSet<String>,
    /// The protocol version it accepted (the first of [`PROTOCOLS`] it did not refuse).
    pub protocol: u32,
}

/// A reader that keeps the last 4 bytes read: after a frame's length is refused they are that
/// length, and when they are text the testee is likely printing to its standard output.
struct LastBytes<'r, R: Read> {
    inner: &'r mut R,
    last: Vec<u8>,
}

impl<'r, R: Read> LastBytes<'r, R> {
    fn new(inner: &'r mut R) -> Self {
        Self {
            inner,
            last: Vec::with_capacity(8),
        }
    }

    /// `; its length bytes are the text "…": …` when the last 4 bytes read are printable ASCII.
    fn text_hint(&self) -> String {
        match self.last.as_slice() {
            l @ [_, _, _, _] if l.iter().all(|b| b.is_ascii_graphic() || *b == b' ') => format!(
                "; its 4 length bytes are the text {:?}: does the testee print to standard \
                 output? Only frames go there, logs go to standard error (spec/conformance.md §6.1)",
                String::from_utf8_lossy(l)
            ),
            _ => String::new(),
        }
    }
}

impl<R: Read> Read for LastBytes<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.last.extend_from_slice(&buf[..n]);
        let excess = self.last.len().saturating_sub(4);
        self.last.drain(..excess);
        Ok(n)
    }
}

/// A running testee process. Requests are written and replies read on threads of their own, so
/// a testee that stops reading or writing can only make a request time out.
struct Proc {
    child: Child,
    requests: Option<Sender<Vec<u8>>>,
    replies: Receiver<Result<Vec<u8>, String>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_reader: std::thread::JoinHandle<()>,
}

impl Proc {
    fn spawn(argv: &[String]) -> Result<Self, TesteeError> {
        let (prog, args) = argv.split_first().ok_or(TesteeError::Empty)?;
        let mut child = Command::new(prog)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| TesteeError::Start {
                program: prog.clone(),
                source,
            })?;
        let (Some(stdin), Some(mut stdout), Some(mut err)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(TesteeError::Pipes);
        };
        let (tx, replies) = mpsc::channel();
        let (requests, pending) = mpsc::channel::<Vec<u8>>();
        let write_errors = tx.clone();
        std::thread::spawn(move || {
            let mut stdin = stdin;
            for json in pending {
                if let Err(e) = write_frame(&mut stdin, &json) {
                    let _ = write_errors.send(Err(format!("cannot send the request: {e}")));
                    break;
                }
            }
        });
        std::thread::spawn(move || loop {
            let mut seen = LastBytes::new(&mut stdout);
            let r = match read_frame(&mut seen) {
                Ok(Some(f)) => Ok(f),
                Ok(None) => Err("the testee closed its output".to_owned()),
                Err(e) => Err(format!("bad reply frame: {e}{}", seen.text_hint())),
            };
            let stop = r.is_err();
            if tx.send(r).is_err() || stop {
                break;
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let tail = Arc::clone(&stderr);
        let stderr_reader = std::thread::spawn(move || {
            let mut buf = [0u8; 1024];
            while let Ok(n @ 1..) = err.read(&mut buf) {
                if let Ok(mut t) = tail.lock() {
                    t.extend_from_slice(&buf[..n]);
                    let excess = t.len().saturating_sub(STDERR_TAIL);
                    t.drain(..excess);
                }
            }
        });
        Ok(Self {
            child,
            requests: Some(requests),
            replies,
            stderr,
            stderr_reader,
        })
    }

    /// Sends one request and waits for its reply frame.
    fn exchange(&mut self, json: &[u8], timeout: Duration) -> Result<Vec<u8>, BackendFailure> {
        let sent = self
            .requests
            .as_ref()
            .is_some_and(|r| r.send(json.to_vec()).is_ok());
        if !sent {
            return Err(BackendFailure::Crash(format!(
                "cannot send the request{}",
                self.ending()
            )));
        }
        match self.replies.recv_timeout(timeout) {
            Ok(Ok(frame)) => Ok(frame),
            Ok(Err(m)) => Err(BackendFailure::Crash(format!("{m}{}", self.ending()))),
            Err(RecvTimeoutError::Disconnected) => Err(BackendFailure::Crash(format!(
                "the testee's output ended{}",
                self.ending()
            ))),
            Err(RecvTimeoutError::Timeout) => Err(BackendFailure::Timeout),
        }
    }

    /// How the process ended (waiting briefly for it to exit) and its last standard error.
    fn ending(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_millis(500);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break format!("; {s}"),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                _ => break String::new(),
            }
        };
        // Let the stderr reader collect the last words (it ends when the process has exited).
        while !self.stderr_reader.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        let tail = self
            .stderr
            .lock()
            .map(|t| String::from_utf8_lossy(&t).trim().to_owned())
            .unwrap_or_default();
        if tail.is_empty() {
            status
        } else {
            format!("{status}; stderr: {tail}")
        }
    }

    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Closes the testee's input (after `bye`, if `bye` is true), gives the process a moment to
    /// exit, then kills it.
    fn close(mut self, bye: bool) {
        if let (true, Some(r), Ok(json)) = (
            bye,
            self.requests.as_ref(),
            serde_json::to_vec(&Request::Bye {}),
        ) {
            let _ = r.send(json);
            let _ = self.replies.recv_timeout(Duration::from_millis(500));
        }
        self.requests = None;
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }
}

/// A testee subprocess as a [`Backend`].
pub struct TesteeBackend {
    argv: Vec<String>,
    timeout: Duration,
    deadline: Option<Instant>,
    proc: Option<Proc>,
    hello: Hello,
    restarts: u32,
}

impl std::fmt::Debug for TesteeBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TesteeBackend")
            .field("argv", &self.argv)
            .field("timeout", &self.timeout)
            .field("deadline", &self.deadline)
            .field("running", &self.proc.is_some())
            .field("hello", &self.hello)
            .field("restarts", &self.restarts)
            .finish()
    }
}

impl TesteeBackend {
    /// Starts `cmd` and performs the handshake, with `timeout` for each request.
    pub fn spawn(cmd: &str, timeout: Duration) -> Result<Self, TesteeError> {
        let argv = split_command(cmd)?;
        let (proc, hello) = start(&argv, timeout)?;
        Ok(Self {
            argv,
            timeout,
            deadline: None,
            proc: Some(proc),
            hello,
            restarts: 0,
        })
    }

    /// No request waits past `deadline` (`--run-timeout`): each waits at most the time left, and
    /// once it has passed every request fails as a [`BackendFailure::Timeout`] without being sent.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// What the testee said in its first handshake.
    pub fn hello(&self) -> &Hello {
        &self.hello
    }

    /// True if the testee listed `op` in its `hello` reply.
    pub fn supports(&self, op: &str) -> bool {
        self.hello.ops.contains(op)
    }

    /// True if the testee listed `feature` in its `hello` reply.
    pub fn has_feature(&self, feature: &str) -> bool {
        self.hello.features.contains(feature)
    }

    /// How many times the process was started again after a crash or a timeout.
    pub fn restarts(&self) -> u32 {
        self.restarts
    }

    /// The per-request timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
}

/// Starts a process and performs the handshake.
fn start(argv: &[String], timeout: Duration) -> Result<(Proc, Hello), TesteeError> {
    let mut p = Proc::spawn(argv)?;
    match handshake(&mut p, timeout) {
        Ok(h) => Ok((p, h)),
        Err(e) => {
            p.kill();
            Err(e)
        }
    }
}

/// Offers each version of [`PROTOCOLS`], newest first: a testee refuses a version it does not
/// speak with an `error` reply (`spec/conformance.md` §6.5), and the next one is offered.
fn handshake(p: &mut Proc, timeout: Duration) -> Result<Hello, TesteeError> {
    let mut refused = None;
    for &protocol in PROTOCOLS {
        match hello(p, timeout, protocol) {
            Err(TesteeError::Refused { message }) => refused = Some(message),
            other => return other,
        }
    }
    Err(TesteeError::Refused {
        message: refused.unwrap_or_default(),
    })
}

fn hello(p: &mut Proc, timeout: Duration, protocol: u32) -> Result<Hello, TesteeError> {
    let json = serde_json::to_vec(&Request::Hello { protocol }).map_err(TesteeError::Encode)?;
    let frame = p.exchange(&json, timeout).map_err(|f| match f {
        BackendFailure::Crash(m) => TesteeError::HelloFailed(m),
        BackendFailure::Timeout => TesteeError::HelloTimeout(timeout),
    })?;
    let fields = match serde_json::from_slice::<Reply>(&frame) {
        Ok(Reply::Ok { fields }) => fields,
        Ok(Reply::Error { message }) => return Err(TesteeError::Refused { message }),
        Ok(reply) => return Err(TesteeError::HelloReply { reply }),
        Err(e) => return Err(TesteeError::Malformed(e)),
    };
    if let Some(v) = fields.get("protocol") {
        if v.as_u64() != Some(u64::from(protocol)) {
            return Err(TesteeError::Protocol { version: v.clone() });
        }
    }
    let strings = |key: &'static str| -> Result<BTreeSet<String>, TesteeError> {
        fields
            .get(key)
            .and_then(serde_json::Value::as_array)
            .ok_or(TesteeError::NoArray { key })?
            .iter()
            .map(|s| {
                s.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| TesteeError::NotAString {
                        key,
                        value: s.clone(),
                    })
            })
            .collect()
    };
    Ok(Hello {
        implementation: fields
            .get("impl")
            .and_then(serde_json::Value::as_str)
            .ok_or(TesteeError::NoImpl)?
            .to_owned(),
        ops: strings("ops")?,
        features: strings("features")?,
        protocol,
    })
}

impl Backend for TesteeBackend {
    fn supports(&self, op: &str) -> bool {
        TesteeBackend::supports(self, op)
    }

    fn has_feature(&self, feature: &str) -> bool {
        TesteeBackend::has_feature(self, feature)
    }

    fn protocol(&self) -> u32 {
        self.hello.protocol
    }

    fn call(&mut self, req: &Request) -> Result<Reply, BackendFailure> {
        let op = req.op();
        if !matches!(req, Request::Hello { .. } | Request::Bye {}) && !self.supports(op) {
            return Ok(Reply::Unsupported {});
        }
        let json = match serde_json::to_vec(req) {
            Ok(j) if j.len() <= MAX_FRAME as usize => j,
            Ok(j) => {
                return Ok(Reply::Error {
                    message: format!(
                        "the {op} request is {} bytes, over the frame limit",
                        j.len()
                    ),
                })
            }
            Err(e) => {
                return Ok(Reply::Error {
                    message: format!("cannot encode the {op} request: {e}"),
                })
            }
        };
        // Dropping a mesh of a process that is gone needs no process: every mesh went with it.
        // (The runner drops a case's meshes after a crash or a hang too; a restart for each would
        // cost a handshake, or another timeout from a testee that keeps hanging.)
        if self.proc.is_none() && matches!(req, Request::Drop { .. }) {
            return Ok(Reply::ok([]));
        }
        let timeout = match self.deadline {
            Some(d) => match d.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => self.timeout.min(left),
                _ => return Err(BackendFailure::Timeout),
            },
            None => self.timeout,
        };
        let mut proc = match self.proc.take() {
            Some(p) => p,
            None => {
                self.restarts += 1;
                match start(&self.argv, timeout) {
                    Ok((p, _)) => p,
                    Err(e) => return Err(BackendFailure::Crash(format!("restart failed: {e}"))),
                }
            }
        };
        let failure = match proc.exchange(&json, timeout) {
            Ok(frame) => match serde_json::from_slice::<Reply>(&frame) {
                Ok(reply) => {
                    if matches!(req, Request::Bye {}) {
                        proc.close(false);
                    } else {
                        self.proc = Some(proc);
                    }
                    return Ok(reply);
                }
                Err(e) => BackendFailure::Crash(format!(
                    "malformed {op} reply ({e}): {}",
                    String::from_utf8_lossy(&frame[..frame.len().min(200)])
                )),
            },
            Err(f) => f,
        };
        proc.kill();
        Err(failure)
    }
}

impl Drop for TesteeBackend {
    fn drop(&mut self) {
        if let Some(p) = self.proc.take() {
            p.close(true);
        }
    }
}

/// Starts the testee `cmd` with the default timeout per request (20 s, `spec/conformance.md`
/// §6.8).
pub fn testee_backend(cmd: &str) -> Result<Box<dyn Backend>, TesteeError> {
    Ok(Box::new(TesteeBackend::spawn(cmd, DEFAULT_TIMEOUT)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(split_command("a b  c").unwrap(), ["a", "b", "c"]);
        assert_eq!(
            split_command(r#"'/x y/onav' testee --mutant "crash-on-op:2" a\ b"#).unwrap(),
            ["/x y/onav", "testee", "--mutant", "crash-on-op:2", "a b"]
        );
        assert_eq!(
            split_command(r#"p "a \"q\" \n" '' x"#).unwrap(),
            ["p", "a \"q\" \\n", "", "x"]
        );
        assert!(matches!(split_command("   "), Err(TesteeError::Empty)));
        assert_eq!(
            split_command("a 'b").unwrap_err().to_string(),
            "unterminated ' in command: a 'b"
        );
        assert_eq!(
            split_command("a \"b").unwrap_err().to_string(),
            "unterminated \" in command: a \"b"
        );
        assert!(matches!(
            split_command("a \\"),
            Err(TesteeError::TrailingBackslash { .. })
        ));
        for w in ["it's", "a b", "'\"\\$", ""] {
            assert_eq!(split_command(&quote_word(w)).unwrap(), [w]);
        }
    }

    #[test]
    fn a_missing_program_is_an_error() {
        let e = TesteeBackend::spawn("/nonexistent/onav-testee", Duration::from_secs(1));
        assert!(matches!(e, Err(TesteeError::Start { .. })), "{e:?}");
    }

    #[cfg(unix)]
    #[test]
    fn a_program_that_is_not_a_testee_fails_the_handshake() {
        // `true` exits at once; `cat` echoes the hello request, which is not a reply.
        let e = TesteeBackend::spawn("true", Duration::from_secs(5)).unwrap_err();
        assert!(matches!(e, TesteeError::HelloFailed(_)), "{e}");
        let e = TesteeBackend::spawn("cat", Duration::from_secs(5)).unwrap_err();
        assert!(
            matches!(
                e,
                TesteeError::HelloReply { .. } | TesteeError::Malformed(_)
            ),
            "{e}"
        );
        // `sleep` never answers.
        let t = Instant::now();
        let e = TesteeBackend::spawn("sleep 30", Duration::from_millis(300)).unwrap_err();
        assert!(matches!(e, TesteeError::HelloTimeout(_)), "{e}");
        assert!(t.elapsed() < Duration::from_secs(5));
    }
}

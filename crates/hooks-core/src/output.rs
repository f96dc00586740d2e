//! One handler's output: from exit status and captured bytes to a typed result.

/// How a handler process ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Termination {
    /// Exited with this status code.
    Exited(i32),
    /// Killed by this signal number.
    Signaled(i32),
    /// Ran past its timeout (in seconds) and was killed with its process group.
    TimedOut {
        /// The effective timeout, in seconds.
        timeout_secs: f64,
    },
    /// The command was empty.
    InvalidCommand,
    /// The process could not be started; the text says why.
    LaunchFailed(String),
    /// Reading or writing its pipes failed; the text says why.
    IoFailed(String),
}

/// What a runner observed of one handler: termination and (bounded) captured streams.
#[derive(Debug, Clone, PartialEq)]
pub struct RawOutput {
    /// How it ended.
    pub termination: Termination,
    /// Captured stdout, at most [`RawOutput::STREAM_CAP`] bytes.
    pub stdout: Vec<u8>,
    /// Captured stderr, at most [`RawOutput::STREAM_CAP`] bytes.
    pub stderr: Vec<u8>,
    /// True when stdout had more than the cap; the rest was drained and dropped.
    pub stdout_truncated: bool,
    /// True when stderr had more than the cap; the rest was drained and dropped.
    pub stderr_truncated: bool,
}

impl RawOutput {
    /// Bytes kept of each stream.
    pub const STREAM_CAP: usize = 100_000;
}

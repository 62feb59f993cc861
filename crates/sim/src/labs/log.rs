//! A lab's command log, typed until it is drawn: who sent which command, Redis' reply (or
//! why there was none), when, and what the lab says about it. The view renders the redis-cli
//! text in one place (`src/labs/kit.rs`, `CmdLog`, with [`show_cmd`] and `Reply`'s
//! `Display`, redis-cli's own formatting); nothing parses that text back.

use crate::redis::Reply;
use crate::world::{show_cmd, Command};
use serde::{Deserialize, Serialize};

/// Why a command got no reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoReply {
    /// The client is blocked (the reply comes later, if at all).
    Blocked,
    /// The connection was refused: Redis is down.
    Refused,
    /// The client gave up after this many milliseconds.
    TimedOut(u64),
}

/// One line of a command log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmdLine {
    /// When Redis ran it (or refused it, or the client gave up), virtual ms; live: real ms
    /// since the start.
    pub at_ms: u64,
    /// Who sent it, as the lab names its actors (`A`, `api-3`, `w2`).
    pub actor: String,
    /// The command's words.
    pub cmd: Vec<String>,
    /// Redis' reply.
    pub reply: Result<Reply, NoReply>,
    /// What the lab says about it (empty: nothing).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// Live: the round trip through the proxy, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_us: Option<u32>,
}

impl CmdLine {
    /// A line for `cmd` and its reply.
    pub fn new(
        at_ms: u64,
        actor: impl Into<String>,
        cmd: &Command,
        reply: Result<Reply, NoReply>,
    ) -> Self {
        CmdLine {
            at_ms,
            actor: actor.into(),
            cmd: cmd
                .iter()
                .map(|w| String::from_utf8_lossy(w).into_owned())
                .collect(),
            reply,
            note: String::new(),
            rtt_us: None,
        }
    }

    /// The command as redis-cli echoes it.
    pub fn cmd_text(&self) -> String {
        let words: Command = self.cmd.iter().map(|w| w.as_bytes().to_vec()).collect();
        show_cmd(&words)
    }

    /// The reply as redis-cli prints it, or why there is none.
    pub fn reply_text(&self) -> String {
        match &self.reply {
            Ok(r) => r.to_string(),
            Err(NoReply::Blocked) => "(blocked)".into(),
            Err(NoReply::Refused) => "ECONNREFUSED".into(),
            Err(NoReply::TimedOut(ms)) => format!("timeout {ms} ms"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::cmd;

    #[test]
    fn a_line_prints_as_redis_cli_and_survives_json() {
        let l = CmdLine::new(
            12,
            "A",
            &cmd(&["SET", "lock:x", "a b", "NX", "PX", "1000"]),
            Ok(Reply::ok()),
        );
        assert_eq!(l.cmd_text(), "SET lock:x \"a b\" NX PX 1000");
        assert_eq!(l.reply_text(), "OK");
        let back: CmdLine = serde_json::from_str(&serde_json::to_string(&l).unwrap()).unwrap();
        assert_eq!(back, l);
        let t = CmdLine::new(
            1,
            "api-1",
            &cmd(&["GET", "k"]),
            Err(NoReply::TimedOut(1500)),
        );
        assert_eq!(t.reply_text(), "timeout 1500 ms");
        let i = CmdLine::new(1, "B", &cmd(&["DEL", "k"]), Ok(Reply::Integer(1)));
        assert_eq!(i.reply_text(), "(integer) 1");
    }
}

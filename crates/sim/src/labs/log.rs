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

/// A command of a log that a timeline walks ([`CmdSteps`]): the trace entry it is and when
/// Redis ran it.
pub trait StepCmd {
    /// Its trace index.
    fn step(&self) -> usize;
    /// When Redis ran it, ms.
    fn at_ms(&self) -> u64;
}

/// A run whose timeline's positions are its commands (aside, queues): position `n` shows the
/// first `n` commands — 0 none yet, the last the whole run to its end.
pub trait CmdSteps {
    /// Its commands' type.
    type Cmd: StepCmd;
    /// Its commands, in the order Redis ran them.
    fn cmds(&self) -> &[Self::Cmd];
    /// When the run ended, ms.
    fn end_ms(&self) -> u64;

    /// The trace index up to which position `n` shows (`usize::MAX` at the last).
    fn cut(&self, n: usize) -> usize {
        let c = self.cmds();
        match n {
            0 => 0,
            n if n >= c.len() => usize::MAX,
            n => c[n - 1].step() + 1,
        }
    }

    /// The time at position `n`, ms.
    fn time_at(&self, n: usize) -> u64 {
        let c = self.cmds();
        match n {
            0 => 0,
            n if n >= c.len() => self.end_ms(),
            n => c[n - 1].at_ms(),
        }
    }

    /// The first position that shows trace entry `step` (the command at or after it).
    fn position_of_step(&self, step: usize) -> usize {
        let c = self.cmds();
        let i = c.partition_point(|x| x.step() < step);
        (i + 1).min(c.len()).max(1)
    }
}

/// A run whose positions are its commands, said once: `cmd_steps!(Output, Row)` implements
/// [`CmdSteps`] and [`Steps`](crate::labs::def::Steps) (a step per command) for an output with
/// `commands: Vec<Row>` and `end_ms`, and [`StepCmd`] for a row with `step` and `at_ms`.
#[macro_export]
macro_rules! cmd_steps {
    ($out:ty, $cmd:ty) => {
        impl $crate::labs::log::StepCmd for $cmd {
            fn step(&self) -> usize {
                self.step
            }
            fn at_ms(&self) -> u64 {
                self.at_ms
            }
        }

        /// Its positions are its commands.
        impl $crate::labs::log::CmdSteps for $out {
            type Cmd = $cmd;
            fn cmds(&self) -> &[$cmd] {
                &self.commands
            }
            fn end_ms(&self) -> u64 {
                self.end_ms
            }
        }

        impl $crate::labs::def::Steps for $out {
            /// The commands.
            fn steps(&self) -> usize {
                self.commands.len()
            }
        }
    };
}

/// A run whose timeline's positions are its trace's entries (lock, redlock): position `n` is
/// the run after its first `n` entries.
pub trait TraceSteps {
    /// The time of each trace entry, ms.
    fn times(&self) -> &[u64];

    /// The time of trace entry `i` (the last entry's after the end; 0 with none), ms.
    fn entry_ms(&self, i: usize) -> u64 {
        let t = self.times();
        t.get(i).or(t.last()).copied().unwrap_or(0)
    }

    /// The time position `n` shows: after its `n`-th entry (0 at the start), ms.
    fn time_at(&self, n: usize) -> u64 {
        n.checked_sub(1).map_or(0, |i| self.entry_ms(i))
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

    struct Run(Vec<(usize, u64)>, Vec<u64>);
    impl StepCmd for (usize, u64) {
        fn step(&self) -> usize {
            self.0
        }
        fn at_ms(&self) -> u64 {
            self.1
        }
    }
    impl CmdSteps for Run {
        type Cmd = (usize, u64);
        fn cmds(&self) -> &[(usize, u64)] {
            &self.0
        }
        fn end_ms(&self) -> u64 {
            90
        }
    }
    impl TraceSteps for Run {
        fn times(&self) -> &[u64] {
            &self.1
        }
    }

    #[test]
    fn positions_over_commands_and_over_trace_entries() {
        // Commands at trace entries 2 and 5 (10 ms, 40 ms); the run ends at 90 ms.
        let r = Run(vec![(2, 10), (5, 40)], vec![0, 5, 10, 20]);
        assert_eq!((r.cut(0), r.cut(1), r.cut(2)), (0, 3, usize::MAX));
        assert_eq!([0, 1, 2].map(|n| CmdSteps::time_at(&r, n)), [0, 10, 90]);
        assert_eq!(
            [0, 2, 3, 5, 9].map(|s| r.position_of_step(s)),
            [1, 1, 2, 2, 2]
        );
        assert_eq!(
            [0, 1, 4, 9].map(|n| TraceSteps::time_at(&r, n)),
            [0, 0, 20, 20]
        );
        assert_eq!(TraceSteps::time_at(&Run(vec![], vec![]), 3), 0);
    }
}

//! The lab's own bounded command log (the world's trace is off: a run sends millions of
//! commands). A simulation keeps the first commands and every notable one, [`LOG_MAX`] lines
//! at most; a live run keeps the newest. Lines stay typed ([`CmdLine`]: the command's words,
//! Redis' reply); a long command keeps its first words and a long reply its first items —
//! enough for the first [`SHOWN`] characters of what redis-cli prints — and ends in `…`.

use crate::labs::log::{CmdLine, NoReply};
use crate::redis::Reply;
use std::collections::VecDeque;

/// Lines kept.
pub const LOG_MAX: usize = 400;
/// A simulation logs every one of its first this many commands (later ones when notable).
pub const FIRST: u64 = 150;
/// Characters of a command or a reply kept whole before `…`.
pub const SHOWN: usize = 140;

/// The word or item that stands for what was cut.
const MORE: &str = "…";

struct Line {
    line: CmdLine,
    alarm: bool,
    /// A live run's reply: its position among the replies that arrived (its round trip's).
    reply_no: Option<usize>,
}

/// The log (see the module doc).
pub(crate) struct Journal {
    lines: VecDeque<Line>,
    /// Keep the newest (live) rather than the first.
    newest: bool,
}

impl Journal {
    pub fn new(newest: bool) -> Self {
        Journal {
            lines: VecDeque::new(),
            newest,
        }
    }

    /// Whether a command numbered `no` (its note `noted`) goes in.
    pub fn wants(&self, no: u64, noted: bool) -> bool {
        self.newest || (self.lines.len() < LOG_MAX && (no <= FIRST || noted))
    }

    /// Whether a line the lab always logs (a note, a take-over) still fits.
    pub fn fits(&self) -> bool {
        self.newest || self.lines.len() < LOG_MAX
    }

    /// Adds `line`; `alarm`: it reports a loss or a crash.
    pub fn push(&mut self, line: CmdLine, alarm: bool, reply_no: Option<usize>) {
        if self.lines.len() >= LOG_MAX {
            if !self.newest {
                return;
            }
            self.lines.pop_front();
        }
        self.lines.push_back(Line {
            line,
            alarm,
            reply_no,
        });
    }

    /// The lines, each live one with its round trip from `rtts` (µs, in arrival order), and
    /// the positions of the alarms.
    pub fn lines(&self, rtts: &[u32]) -> (Vec<CmdLine>, Vec<usize>) {
        let mut alarms = Vec::new();
        let lines = self
            .lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                if l.alarm {
                    alarms.push(i);
                }
                let mut line = l.line.clone();
                line.rtt_us = l.reply_no.and_then(|k| rtts.get(k).copied());
                line
            })
            .collect();
        (lines, alarms)
    }
}

/// A line for `cmd` with `reply`, both cut to what is shown.
pub(super) fn line(
    at_ms: u64,
    actor: &str,
    cmd: &[Vec<u8>],
    reply: Result<&Reply, NoReply>,
    note: &str,
) -> CmdLine {
    CmdLine {
        at_ms,
        actor: actor.into(),
        cmd: clip_words(cmd.iter().map(Vec::as_slice)),
        reply: reply.map(clip_reply),
        note: note.into(),
        rtt_us: None,
    }
}

/// A note on its own (no command).
pub(super) fn note(at_ms: u64, actor: &str, what: &str) -> CmdLine {
    CmdLine {
        at_ms,
        actor: actor.into(),
        cmd: Vec::new(),
        reply: Ok(Reply::Nil),
        note: what.into(),
        rtt_us: None,
    }
}

/// The command's words while they, joined by spaces, are shorter than [`SHOWN`] + 1
/// characters; then [`MORE`] for the rest.
pub(super) fn clip_words<'a>(cmd: impl Iterator<Item = &'a [u8]>) -> Vec<String> {
    let mut out = Vec::new();
    let mut len = 0;
    for (i, w) in cmd.enumerate() {
        if len > SHOWN {
            out.push(MORE.to_string());
            break;
        }
        let w = String::from_utf8_lossy(w).into_owned();
        len += w.chars().count() + usize::from(i > 0);
        out.push(w);
    }
    out
}

/// The reply with each array's items kept while what redis-cli prints of it so far is
/// shorter than [`SHOWN`] + 1 characters; a [`MORE`] item (a status) stands for the rest.
pub(super) fn clip_reply(r: &Reply) -> Reply {
    let mut budget = SHOWN as isize + 1;
    clip(r, &mut budget)
}

fn clip(r: &Reply, budget: &mut isize) -> Reply {
    match r {
        Reply::Array(items) => {
            *budget -= 1;
            let mut out = Vec::new();
            for (i, it) in items.iter().enumerate() {
                if *budget <= 0 {
                    out.push(Reply::Status(MORE.into()));
                    break;
                }
                if i > 0 {
                    *budget -= 2;
                }
                out.push(clip(it, budget));
            }
            *budget -= 1;
            Reply::Array(out)
        }
        leaf => {
            *budget -= leaf.to_string().chars().count() as isize;
            leaf.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn short(s: &str) -> String {
        if s.chars().count() <= SHOWN {
            s.into()
        } else {
            let mut t: String = s.chars().take(SHOWN).collect();
            t.push('…');
            t
        }
    }

    /// What is kept prints as the whole does, up to the [`SHOWN`] characters.
    #[test]
    fn clipped_prints_the_same_first_characters() {
        let entry = |i: u64| {
            Reply::Array(vec![
                Reply::bulk(format!("1700000000000-{i}")),
                Reply::Array(vec![Reply::bulk("n"), Reply::bulk(i.to_string())]),
            ])
        };
        for n in [0, 1, 2, 5, 200] {
            let full = Reply::Array(vec![Reply::Array(vec![
                Reply::bulk("orders"),
                Reply::Array((0..n).map(entry).collect()),
            ])]);
            let cut = clip_reply(&full);
            assert_eq!(short(&cut.to_string()), short(&full.to_string()), "{n}");
            assert!(cut.to_string().chars().count() < 260, "{cut}");
            if full.to_string().chars().count() <= SHOWN {
                assert_eq!(cut, full);
            }
        }
        let ids: Vec<Vec<u8>> = ["XACK", "orders", "savers"]
            .iter()
            .map(|w| w.as_bytes().to_vec())
            .chain((0..200).map(|i| format!("1700000000000-{i}").into_bytes()))
            .collect();
        let words = clip_words(ids.iter().map(Vec::as_slice));
        assert_eq!(words.last().map(String::as_str), Some(MORE));
        let kept = words[..words.len() - 1].join(" ");
        let whole: Vec<String> = ids
            .iter()
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        assert_eq!(short(&kept), short(&whole.join(" ")));
        let few = clip_words(ids[..4].iter().map(Vec::as_slice));
        assert_eq!(few.len(), 4);
    }
}

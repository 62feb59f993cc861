//! The commands an API instance sends, typed ([`CacheCmd`]), and a row of the run's command
//! log ([`CmdRow`]: when, which instance, the command, Redis' typed reply). A row becomes the
//! platform's [`CmdLine`] where it is drawn or printed ([`CmdRow::line`]); a run of tens of
//! thousands of commands keeps its rows small (no words, no names).

use crate::labs::cache::params::{KEY, LOCK, VERSION};
use crate::labs::log::{CmdLine, NoReply};
use crate::redis::{scripts, Reply};
use crate::world::{cmd, Command};
use serde::{Deserialize, Serialize};

/// The envelope as the code writes it.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Envelope {
    pub(super) version: u32,
    pub(super) fresh_until: u64,
    pub(super) value: String,
}

/// The envelope of a value loaded at `loaded_at`, fresh until `fresh_until`.
pub(super) fn envelope(version: u32, fresh_until: u64, loaded_at: u64) -> String {
    serde_json::to_string(&Envelope {
        version,
        fresh_until,
        value: format!("catalog@{loaded_at}"),
    })
    .expect("plain struct")
}

/// A command an instance sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum CacheCmd {
    /// `GET <key>`: read the envelope.
    Get,
    /// `DEL <key>`: purge an entry of another version, or one that does not parse.
    Del,
    /// `SET <key> <envelope> PX <px>`: write the value loaded at `loaded_at`, fresh until
    /// `fresh_until`.
    #[serde(rename_all = "camelCase")]
    Write {
        /// When it was loaded, ms.
        loaded_at: u64,
        /// The envelope's `freshUntil`, ms.
        fresh_until: u64,
        /// The entry's TTL, ms.
        px_ms: u64,
    },
    /// `SET <lock> <token> NX PX <ttl>`: take the lock.
    #[serde(rename_all = "camelCase")]
    Lock {
        /// The taker's token.
        token: u32,
        /// The lock's TTL, ms.
        ttl_ms: u64,
    },
    /// `EVALSHA <extend> 1 <lock> <token> <ttl>`: the heartbeat (`PEXPIRE` if still ours).
    #[serde(rename_all = "camelCase")]
    Extend {
        /// The holder's token.
        token: u32,
        /// The new TTL, ms.
        ttl_ms: u64,
    },
    /// `EVALSHA <release> 1 <lock> <token>`: release the lock if it is still ours.
    Release {
        /// The holder's token.
        token: u32,
    },
}

impl CacheCmd {
    /// Its words, as Redis gets them.
    pub fn words(&self) -> Command {
        let token = |t: u32| format!("{t:08x}");
        match *self {
            CacheCmd::Get => cmd(&["GET", KEY]),
            CacheCmd::Del => cmd(&["DEL", KEY]),
            CacheCmd::Write {
                loaded_at,
                fresh_until,
                px_ms,
            } => cmd(&[
                "SET",
                KEY,
                &envelope(VERSION, fresh_until, loaded_at),
                "PX",
                &px_ms.to_string(),
            ]),
            CacheCmd::Lock { token: t, ttl_ms } => {
                cmd(&["SET", LOCK, &token(t), "NX", "PX", &ttl_ms.to_string()])
            }
            CacheCmd::Extend { token: t, ttl_ms } => cmd(&[
                "EVALSHA",
                scripts::EXTEND.sha1,
                "1",
                LOCK,
                &token(t),
                &ttl_ms.to_string(),
            ]),
            CacheCmd::Release { token: t } => {
                cmd(&["EVALSHA", scripts::RELEASE.sha1, "1", LOCK, &token(t)])
            }
        }
    }
}

/// One row of the command log: what an instance sent and what came back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CmdRow {
    /// When Redis ran it (or refused it, or the instance gave up), ms; live: real ms since
    /// the start, when the reply came.
    pub at_ms: u64,
    /// The instance (0-based; `api-1` is 0).
    pub inst: u32,
    /// The command.
    pub cmd: CacheCmd,
    /// Redis' reply, or why there was none.
    pub reply: Result<Reply, NoReply>,
    /// A live run's round trip to the real Redis, µs (`None` in a simulation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_us: Option<u32>,
}

impl CmdRow {
    /// The row as the command log draws it.
    pub fn line(&self) -> CmdLine {
        CmdLine {
            rtt_us: self.rtt_us,
            ..CmdLine::new(
                self.at_ms,
                format!("api-{}", self.inst + 1),
                &self.cmd.words(),
                self.reply.clone(),
            )
        }
    }

    /// A command Redis answered or refused (a timed-out wait is the instance's, not
    /// Redis').
    pub fn reached_redis(&self) -> bool {
        !matches!(self.reply, Err(NoReply::TimedOut(_)))
    }
}

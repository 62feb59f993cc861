//! A request's admission: parsed, checked against the policy (`commands`), the session's
//! budgets, its rates and its share of the replies on their way — then started (it joins the
//! session's requests in flight) or refused with a typed error, before anything reaches Redis.

use super::execute::{execute, render};
use super::rates::Rates;
use super::{InFlight, Pending, Session, FREE_BYTES, REPLY_FLOOR};
use crate::budget::{Accounts, Outcome, Ticket};
use crate::commands::{self, Echo, Expiry, Prepared, Shape};
use crate::protocol::{self, Code, ErrBody, Limit, Request, ServerMsg};
use redislab_sim::redis::SCRIPTS;
use std::sync::atomic::Ordering;
use std::sync::Arc;

fn refusal(id: u64, e: ErrBody) -> Option<ServerMsg> {
    Some(ServerMsg::answer(Some(id), Err(e)))
}

/// Handles one text message: an immediate answer (refused) or `None` (started: it joins
/// `pending`, and is answered when it finishes).
pub(super) fn on_text(
    s: &Arc<Session>,
    rates: &mut Rates,
    t: &str,
    pending: &mut Pending,
) -> Option<ServerMsg> {
    let cfg = &s.state.config;
    // Every message costs one unit and one more per `cost_unit` bytes, bad ones too; a
    // request that reads or walks more costs more, below. Over the rates, a refusal is
    // answered while the address has refusals left (past that, not even read: see `run`).
    let unit = cfg.cost_unit.max(1);
    let base = 1 + t.len() as u64 / unit;
    let paid = rates.work(base as f64);
    if paid.is_err() && !rates.refuse(base as f64) {
        return Some(ServerMsg::answer(
            None,
            Err(ErrBody::limited(
                Code::RateLimited,
                Limit::Rate,
                "over the rate limit (not read)",
            )),
        ));
    }
    if t.len() > cfg.max_message_bytes {
        return Some(ServerMsg::answer(
            None,
            Err(ErrBody::limited(
                Code::TooLarge,
                Limit::MessageSize,
                format!("a message is at most {} bytes", cfg.max_message_bytes),
            )),
        ));
    }
    if let Err(over) = paid {
        // Refused without reading the whole message: its id, when it leads the message as
        // clients write it.
        return Some(ServerMsg::answer(
            protocol::leading_id(t),
            Err(ErrBody::limited(
                Code::RateLimited,
                Limit::Rate,
                over.message(),
            )),
        ));
    }
    let req = match protocol::parse(t) {
        Ok(r) => r,
        Err((id, e)) => return Some(ServerMsg::answer(id, Err(e))),
    };
    let id = req.id;
    let mut work = match prepare(s, &req) {
        Ok(w) => w,
        Err(e) => return refusal(id, e),
    };
    if work.p.name == "XAUTOCLAIM" && s.state.version().is_none_or(|v| v < (7, 0, 5)) {
        return refusal(
            id,
            ErrBody::limited(
                Code::Forbidden,
                Limit::UnsafeOnThisRedis,
                "XAUTOCLAIM is refused on this Redis (older than 7.0.5, or not known yet): \
                 CVE-2022-31144, CVE-2022-35951",
            ),
        );
    }
    if pending.len() >= cfg.max_in_flight {
        return refusal(
            id,
            ErrBody::limited(
                Code::RateLimited,
                Limit::InFlight,
                "too many requests in flight on this connection",
            ),
        );
    }
    // The session's budgets: checked and reserved now, before anything is sent.
    let (ticket, held) = {
        let mut acc = s.accounts.lock().expect("not poisoned");
        work.fast = fast_set(&work.p, &acc);
        let ticket = if work.p.write {
            match acc.admit(&work.p, &s.caps) {
                Ok(a) => {
                    if let (Some(c), Shape::XReadGroup { count_at, .. }) = (a.count, &work.p.shape)
                    {
                        work.p.words[*count_at] = c.to_string().into_bytes();
                        work.p.span = Some(c);
                    }
                    Some(a.ticket)
                }
                Err(e) => return refusal(id, e),
            }
        } else {
            None
        };
        let held = if work.p.heavy {
            acc.held_within(&work.p.keys, work.p.span)
        } else {
            0
        };
        (ticket, held)
    };
    let give_back = |ticket: Option<Ticket>| {
        if let Some(t) = ticket {
            s.accounts
                .lock()
                .expect("not poisoned")
                .settle(&work.p, t, Outcome::NotRun);
        }
    };
    // The rate, weighted: past the first `FREE_BYTES` it reads or walks, a unit more for
    // every `cost_unit` bytes — from the session's and the address' buckets and from the
    // whole proxy's (so many sessions together cannot keep it busy with heavy requests).
    let extra = held.saturating_sub(FREE_BYTES) / unit;
    work.heavy = held > FREE_BYTES;
    if extra > 0 && rates.work(extra as f64).is_err() {
        give_back(ticket);
        return refusal(
            id,
            ErrBody::limited(
                Code::RateLimited,
                Limit::Rate,
                format!(
                    "this request weighs {} units of the rate ({} per second); try again soon",
                    extra + 1,
                    cfg.rate_per_sec
                ),
            ),
        );
    }
    let heavy = extra + base - 1;
    if heavy > 0
        && !s
            .state
            .heavy
            .lock()
            .expect("not poisoned")
            .take(heavy as f64)
    {
        rates.refund(extra as f64);
        give_back(ticket);
        return refusal(
            id,
            ErrBody::limited(
                Code::RateLimited,
                Limit::Rate,
                "the server is busy with heavy requests; try again soon",
            ),
        );
    }
    // The session's share of the reply bytes on their way.
    let potential = REPLY_FLOOR + held;
    let before = s.replies.fetch_add(potential, Ordering::Relaxed);
    if before + potential > cfg.session_reply_share {
        s.replies.fetch_sub(potential, Ordering::Relaxed);
        give_back(ticket);
        return refusal(
            id,
            ErrBody::limited(
                Code::RateLimited,
                Limit::ReplyBudget,
                "this session has too much reply data on its way; wait for its answers",
            ),
        );
    }
    let share = Share {
        s: s.clone(),
        bytes: potential,
    };
    let s = s.clone();
    let write = work.p.write;
    pending.push(InFlight {
        id,
        write,
        work: Box::pin(async move {
            let r = execute(&s, work, ticket, potential).await;
            drop(share);
            render(&s, id, r).await
        }),
    });
    None
}

/// This session's share of the reply budget, held by a request until it is answered.
struct Share {
    s: Arc<Session>,
    bytes: u64,
}

impl Drop for Share {
    fn drop(&mut self) {
        self.s.replies.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// A request, checked: a command, or a named script as a command-like request.
pub(super) struct Work {
    pub(super) p: Prepared,
    /// A named script and its arguments (then `p` carries its keys).
    pub(super) script: Option<(&'static redislab_sim::redis::Script, Vec<String>)>,
    /// A SET of a key already tracked, its expiry rewritten: no `after` needed.
    pub(super) fast: bool,
    /// It may read or walk more than `FREE_BYTES`.
    pub(super) heavy: bool,
}

fn prepare(s: &Session, req: &Request) -> Result<Work, ErrBody> {
    let limits = &s.state.config.limits;
    if let Some(cmd) = &req.cmd {
        return commands::prepare(cmd, &s.prefix, limits).map(|p| Work {
            p,
            script: None,
            fast: false,
            heavy: false,
        });
    }
    let name = req.script.as_deref().unwrap_or_default();
    let script = SCRIPTS.iter().find(|x| x.name == name).ok_or_else(|| {
        ErrBody::new(
            Code::Forbidden,
            format!(
                "no script named `{}`; the server runs only its named scripts",
                name.chars().take(40).collect::<String>()
            ),
        )
    })?;
    let keys = req.keys.as_deref().unwrap_or_default();
    let args = req.args.as_deref().unwrap_or_default();
    if keys.is_empty() {
        return Err(ErrBody::new(Code::BadRequest, "a script needs its keys"));
    }
    if keys.len() + args.len() > limits.max_args {
        return Err(ErrBody::limited(
            Code::TooLarge,
            Limit::Args,
            format!("at most {} keys and arguments", limits.max_args),
        ));
    }
    if args.iter().any(|a| a.len() > limits.max_arg_bytes) {
        return Err(ErrBody::limited(
            Code::TooLarge,
            Limit::ArgSize,
            format!("an argument is at most {} bytes", limits.max_arg_bytes),
        ));
    }
    let keys = keys
        .iter()
        .map(|k| commands::prefix_key(&s.prefix, k, limits))
        .collect::<Result<Vec<_>, _>>()?;
    let mut args = args.to_vec();
    // A TTL a script sets (the lock's extend, in ms; presence's markactive, in seconds)
    // stays before the session's backstop.
    let ttl_arg = match script.name {
        "extend" => Some((1, 1)),
        "markactive" => Some((3, 1000)),
        _ => None,
    };
    if let Some((i, unit_ms)) = ttl_arg {
        if let Some(t) = args.get(i).and_then(|a| a.parse::<i64>().ok()) {
            let room = (s.backstop as i64 - s.state.redis_now_ms() - 1) / unit_ms;
            if t > room {
                args[i] = room.max(1).to_string();
            }
        }
    }
    let bytes = args.iter().map(|a| a.len() as u64).sum();
    Ok(Work {
        p: Prepared {
            name: "EVALSHA",
            words: vec![],
            keys,
            write: true,
            creates: true,
            heavy: false,
            span: None,
            block_ms: None,
            echo: Echo::None,
            shape: Shape::Script { bytes },
        },
        script: Some((script, args)),
        fast: false,
        heavy: false,
    })
}

/// A SET whose key is already tracked and that keeps no TTL of its own (no KEEPTTL) needs no
/// bookkeeping: its expiry is rewritten (below) and the accounts know what it wrote.
fn fast_set(p: &Prepared, acc: &Accounts) -> bool {
    matches!(&p.shape, Shape::Set { expiry, .. } if *expiry != Expiry::Keep)
        && acc.tracked(&p.keys[0])
}

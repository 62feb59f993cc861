//! The command table and the path every command takes, after `processCommand` and `call` of
//! Redis 7.0's `server.c`: the name is looked up, the arity checked, then (for a client's own
//! command, not one run by a script or EXEC) eviction runs and a denied write is refused
//! (`OOM`), a replica refuses writes (`READONLY`), a subscribed client may only
//! (un)subscribe or PING, and inside MULTI the command is queued. After the command, clients
//! blocked on keys that received elements are served and the writes are propagated.
//!
//! Arity and the `write` / `denyoom` flags are copied from Redis 7.0's command table
//! (`src/commands/*.json`).

use super::{arity_error, ClientId, Exec, RawExec, RawReply, Reply, SimRedis};

/// The command may modify the dataset (`CMD_WRITE`).
pub(crate) const WRITE: u8 = 1;
/// The command may grow memory and is refused when over `maxmemory` (`CMD_DENYOOM`).
pub(crate) const DENYOOM: u8 = 2;
const W: u8 = WRITE;
const WM: u8 = WRITE | DENYOOM;
const R: u8 = 0;

type Handler = fn(&mut SimRedis, &[&[u8]]) -> Reply;
type BlockHandler = fn(&mut SimRedis, &[&[u8]], Option<ClientId>) -> Exec;
type RawHandler = fn(&mut SimRedis, &[&[u8]]) -> RawReply;
type RawBlockHandler = fn(&mut SimRedis, &[&[u8]], Option<ClientId>) -> RawExec;
type ClientHandler = fn(&mut SimRedis, &[&[u8]], ClientId) -> Reply;

#[derive(Clone, Copy)]
pub(crate) enum Cmd {
    Plain(Handler),
    Block(BlockHandler),
    /// Answers a compact reply (XADD).
    Raw(RawHandler),
    /// Blocks or answers a compact reply (XREAD, XREADGROUP).
    RawBlock(RawBlockHandler),
    /// Needs to know the client (pub/sub, transactions).
    Client(ClientHandler),
}

/// One row of the command table.
#[derive(Clone, Copy)]
pub(crate) struct Spec {
    pub(crate) arity: i32,
    pub(crate) flags: u8,
    pub(crate) cmd: Cmd,
    /// A container command's subcommands and their arities (OBJECT, CONFIG, SCRIPT).
    pub(crate) subs: &'static [(&'static str, i32)],
}

const fn p(arity: i32, flags: u8, f: Handler) -> Option<Spec> {
    Some(Spec {
        arity,
        flags,
        cmd: Cmd::Plain(f),
        subs: &[],
    })
}

const fn b(arity: i32, flags: u8, f: BlockHandler) -> Option<Spec> {
    Some(Spec {
        arity,
        flags,
        cmd: Cmd::Block(f),
        subs: &[],
    })
}

const fn c(arity: i32, flags: u8, f: ClientHandler) -> Option<Spec> {
    Some(Spec {
        arity,
        flags,
        cmd: Cmd::Client(f),
        subs: &[],
    })
}

const fn raw(arity: i32, flags: u8, cmd: Cmd) -> Option<Spec> {
    Some(Spec {
        arity,
        flags,
        cmd,
        subs: &[],
    })
}

/// A container command (`OBJECT ENCODING …`): the table checks the subcommand's arity.
const fn ct(f: Handler, subs: &'static [(&'static str, i32)]) -> Option<Spec> {
    Some(Spec {
        arity: -2,
        flags: R,
        cmd: Cmd::Plain(f),
        subs,
    })
}

/// The command named `lower` (lower case).
#[inline]
pub(crate) fn lookup(lower: &[u8]) -> Option<Spec> {
    // The labs' hot commands first, ahead of the whole table.
    if lower.len() == 3 {
        if lower == b"get" {
            return p(2, R, SimRedis::get);
        }
        if lower == b"set" {
            return p(-3, WM, SimRedis::set);
        }
    }
    lookup_all(lower)
}

#[inline(never)]
fn lookup_all(lower: &[u8]) -> Option<Spec> {
    type S = SimRedis;
    match lower {
        // strings
        b"get" => p(2, R, S::get),
        b"set" => p(-3, WM, S::set),
        b"setnx" => p(3, WM, S::setnx),
        b"setex" => p(4, WM, S::setex),
        b"psetex" => p(4, WM, S::psetex),
        b"getset" => p(3, WM, S::getset),
        b"getdel" => p(2, W, S::getdel),
        b"getex" => p(-2, W, S::getex),
        b"mget" => p(-2, R, S::mget),
        b"mset" => p(-3, WM, S::mset),
        b"msetnx" => p(-3, WM, S::msetnx),
        b"incr" => p(2, WM, S::incr),
        b"incrby" => p(3, WM, S::incrby),
        b"decr" => p(2, WM, S::decr),
        b"decrby" => p(3, WM, S::decrby),
        b"incrbyfloat" => p(3, WM, S::incrbyfloat),
        b"append" => p(3, WM, S::append),
        b"strlen" => p(2, R, S::strlen),
        b"getrange" => p(4, R, S::getrange),
        b"setrange" => p(4, WM, S::setrange),
        // keys
        b"del" => p(-2, W, S::del),
        b"unlink" => p(-2, W, S::del),
        b"exists" => p(-2, R, S::exists),
        b"type" => p(2, R, S::type_cmd),
        b"rename" => p(3, W, S::rename),
        b"renamenx" => p(3, W, S::renamenx),
        b"expire" => p(-3, W, S::expire),
        b"pexpire" => p(-3, W, S::pexpire),
        b"expireat" => p(-3, W, S::expireat),
        b"pexpireat" => p(-3, W, S::pexpireat),
        b"expiretime" => p(2, R, S::expiretime),
        b"pexpiretime" => p(2, R, S::pexpiretime),
        b"ttl" => p(2, R, S::ttl),
        b"pttl" => p(2, R, S::pttl),
        b"persist" => p(2, W, S::persist),
        b"object" => ct(
            S::object,
            &[
                ("encoding", 3),
                ("freq", 3),
                ("help", 2),
                ("idletime", 3),
                ("refcount", 3),
            ],
        ),
        b"scan" => p(-2, R, S::scan),
        b"hscan" => p(-3, R, S::hscan),
        b"sscan" => p(-3, R, S::sscan),
        b"zscan" => p(-3, R, S::zscan),
        // server
        b"ping" => p(-1, R, S::ping),
        b"echo" => p(2, R, S::echo),
        b"dbsize" => p(1, R, S::dbsize_cmd),
        b"flushall" => p(-1, W, S::flushall),
        b"flushdb" => p(-1, W, S::flushall),
        b"info" => p(-1, R, S::info),
        b"config" => ct(
            S::config,
            &[
                ("get", -3),
                ("set", -4),
                ("resetstat", 2),
                ("rewrite", 2),
                ("help", 2),
            ],
        ),
        b"debug" => p(-2, R, S::debug),
        b"replicaof" => p(3, R, S::replicaof),
        b"slaveof" => p(3, R, S::replicaof),
        // lists
        b"lpush" => p(-3, WM, S::lpush),
        b"rpush" => p(-3, WM, S::rpush),
        b"lpop" => p(-2, W, S::lpop),
        b"rpop" => p(-2, W, S::rpop),
        b"lrange" => p(4, R, S::lrange),
        b"llen" => p(2, R, S::llen),
        b"lrem" => p(4, W, S::lrem),
        b"lindex" => p(3, R, S::lindex),
        b"lset" => p(4, WM, S::lset),
        b"ltrim" => p(4, W, S::ltrim),
        b"linsert" => p(5, WM, S::linsert),
        b"lpos" => p(-3, R, S::lpos),
        b"lmove" => p(5, WM, S::lmove),
        b"rpoplpush" => p(3, WM, S::rpoplpush),
        b"blmove" => b(6, WM, S::blmove),
        b"brpop" => b(-3, W, S::brpop),
        b"blpop" => b(-3, W, S::blpop),
        b"brpoplpush" => b(4, WM, S::brpoplpush),
        // hashes
        b"hset" => p(-4, WM, S::hset),
        b"hmset" => p(-4, WM, S::hmset),
        b"hsetnx" => p(4, WM, S::hsetnx),
        b"hget" => p(3, R, S::hget),
        b"hmget" => p(-3, R, S::hmget),
        b"hgetall" => p(2, R, S::hgetall),
        b"hkeys" => p(2, R, S::hkeys),
        b"hvals" => p(2, R, S::hvals),
        b"hexists" => p(3, R, S::hexists),
        b"hdel" => p(-3, W, S::hdel),
        b"hlen" => p(2, R, S::hlen),
        b"hincrby" => p(4, WM, S::hincrby),
        b"hincrbyfloat" => p(4, WM, S::hincrbyfloat),
        // sets
        b"sadd" => p(-3, WM, S::sadd),
        b"srem" => p(-3, W, S::srem),
        b"smembers" => p(2, R, S::smembers),
        b"sismember" => p(3, R, S::sismember),
        b"smismember" => p(-3, R, S::smismember),
        b"scard" => p(2, R, S::scard),
        b"sinter" => p(-2, R, S::sinter),
        b"sunion" => p(-2, R, S::sunion),
        b"sdiff" => p(-2, R, S::sdiff),
        b"spop" => p(-2, W, S::spop),
        b"srandmember" => p(-2, R, S::srandmember),
        // sorted sets
        b"zadd" => p(-4, WM, S::zadd),
        b"zcard" => p(2, R, S::zcard),
        b"zcount" => p(4, R, S::zcount),
        b"zrange" => p(-4, R, S::zrange),
        b"zrevrange" => p(-4, R, S::zrevrange),
        b"zrangebyscore" => p(-4, R, S::zrangebyscore),
        b"zremrangebyscore" => p(4, W, S::zremrangebyscore),
        b"zrank" => p(3, R, S::zrank),
        b"zrevrank" => p(3, R, S::zrevrank),
        b"zscore" => p(3, R, S::zscore),
        b"zrem" => p(-3, W, S::zrem),
        b"zincrby" => p(4, WM, S::zincrby),
        b"zpopmin" => p(-2, W, S::zpopmin),
        b"zunionstore" => p(-4, WM, S::zunionstore),
        // HyperLogLog
        b"pfadd" => p(-2, WM, S::pfadd),
        b"pfcount" => p(-2, R, S::pfcount),
        b"pfmerge" => p(-2, WM, S::pfmerge),
        // transactions
        b"multi" => c(1, R, S::multi),
        b"exec" => c(1, R, S::exec),
        b"discard" => c(1, R, S::discard),
        b"watch" => c(-2, R, S::watch),
        b"unwatch" => c(1, R, S::unwatch),
        // scripts
        b"evalsha" => p(-3, R, S::evalsha),
        b"eval" => p(-3, R, S::eval),
        b"script" => ct(
            S::script,
            &[
                ("load", 3),
                ("exists", -3),
                ("flush", -2),
                ("kill", 2),
                ("help", 2),
                ("debug", 3),
            ],
        ),
        // streams
        b"xadd" => raw(-5, WM, Cmd::Raw(S::xadd)),
        b"xlen" => p(2, R, S::xlen),
        b"xrange" => p(-4, R, S::xrange),
        b"xrevrange" => p(-4, R, S::xrevrange),
        b"xtrim" => p(-4, W, S::xtrim),
        b"xdel" => p(-3, W, S::xdel),
        b"xgroup" => p(-2, W, S::xgroup),
        b"xack" => p(-4, W, S::xack),
        b"xpending" => p(-3, R, S::xpending),
        b"xclaim" => p(-6, W, S::xclaim),
        b"xautoclaim" => p(-6, W, S::xautoclaim),
        b"xread" => raw(-4, R, Cmd::RawBlock(S::xread)),
        b"xreadgroup" => raw(-7, W, Cmd::RawBlock(S::xreadgroup)),
        // pub/sub
        b"publish" => p(3, R, S::publish),
        b"subscribe" => c(-2, R, S::subscribe),
        b"unsubscribe" => c(-1, R, S::unsubscribe),
        b"psubscribe" => c(-2, R, S::psubscribe),
        b"punsubscribe" => c(-1, R, S::punsubscribe),
        _ => None,
    }
}

const OOM: &str = "OOM command not allowed when used memory > 'maxmemory'.";

impl SimRedis {
    pub(crate) fn dispatch(&mut self, a: &[&[u8]], client: Option<ClientId>) -> RawExec {
        let tree = |r: Reply| RawExec::Reply(RawReply::Tree(r));
        let Some(name) = a.first() else {
            return tree(Reply::err("ERR empty command"));
        };
        let mut buf = [0u8; 20];
        let lower: &[u8] = if name.len() <= buf.len() {
            for (d, s) in buf.iter_mut().zip(name.iter()) {
                *d = s.to_ascii_lowercase();
            }
            &buf[..name.len()]
        } else {
            b""
        };
        let top = self.depth == 0;
        if top {
            self.cur_client = client.unwrap_or(0);
            self.repl.set_now(self.now);
        }
        let cid = self.cur_client;
        let Some(spec) = lookup(lower) else {
            if top {
                self.tx.flag(cid);
            }
            return tree(unknown_command(a));
        };
        if let Some(err) = check_arity(&spec, a, lower) {
            if top {
                return tree(self.reject(lower, cid, err));
            }
            return tree(err);
        }
        if top {
            // Nothing to check unless a client is in MULTI or watching, a limit is set,
            // this is a replica, or a client is subscribed.
            let checks = self.tx.active()
                || self.mem.maxmemory > 0
                || self.repl.is_replica()
                || (client.is_some() && self.pubsub.active());
            if checks {
                if let Some(r) = self.admit(lower, spec.flags, a, client, cid) {
                    return tree(r);
                }
            }
        } else if spec.flags & DENYOOM != 0 && self.mem.pre_oom && self.depth_wrote == 0 {
            // A script's first write is refused when the server was out of memory as the
            // script began (`scriptVerifyOOM`).
            return tree(Reply::err(OOM));
        }
        if !top && spec.flags & WRITE != 0 {
            self.depth_wrote += 1;
        }
        let out = match spec.cmd {
            Cmd::Plain(f) => tree(f(self, a)),
            Cmd::Block(f) => match f(self, a, client) {
                Exec::Reply(r) => tree(r),
                Exec::Blocked => RawExec::Blocked,
            },
            Cmd::Raw(f) => RawExec::Reply(f(self, a)),
            Cmd::RawBlock(f) => f(self, a, client),
            Cmd::Client(f) => tree(f(self, a, cid)),
        };
        if top {
            if !self.ready.is_empty() {
                self.serve_ready();
            }
            if !self.dirty_keys.is_empty() || self.depth_wrote != 0 || self.repl.has_extra() {
                self.finish_command(a);
            }
        }
        out
    }

    /// The checks of `processCommand` between the arity and the call; `Some(reply)` when
    /// the command is not run now (refused, or queued in MULTI).
    fn admit(
        &mut self,
        lower: &[u8],
        flags: u8,
        a: &[&[u8]],
        client: Option<ClientId>,
        cid: ClientId,
    ) -> Option<Reply> {
        let exec = lower == b"exec";
        let queued = if exec { self.tx.queued_flags(cid) } else { 0 };
        let in_multi = self.tx.in_multi(cid);
        if self.mem.maxmemory > 0 {
            let out_of_memory = !self.perform_evictions();
            let reject = flags & DENYOOM != 0
                || queued & DENYOOM != 0
                || (in_multi && !matches!(lower, b"exec" | b"discard" | b"quit" | b"reset"));
            if out_of_memory && reject {
                return Some(self.reject(lower, cid, Reply::err(OOM)));
            }
            self.mem.pre_oom = out_of_memory;
        }
        if self.repl.is_replica() && (flags & WRITE != 0 || queued & WRITE != 0) {
            let err = Reply::err("READONLY You can't write against a read only replica.");
            return Some(self.reject(lower, cid, err));
        }
        if let Some(c) = client {
            if self.pubsub.subscribed(c) {
                match lower {
                    b"subscribe" | b"unsubscribe" | b"psubscribe" | b"punsubscribe" => {}
                    b"ping" => {
                        let msg = a.get(1).map_or(Vec::new(), |m| m.to_vec());
                        return Some(Reply::Array(vec![Reply::bulk("pong"), Reply::Bulk(msg)]));
                    }
                    _ => {
                        return Some(self.reject(lower, cid, Reply::Error(format!(
                            "ERR Can't execute '{}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context",
                            String::from_utf8_lossy(lower)
                        ))));
                    }
                }
            }
        }
        if in_multi && !matches!(lower, b"exec" | b"discard" | b"multi" | b"watch") {
            self.tx.queue(cid, a, flags);
            return Some(Reply::Status("QUEUED".into()));
        }
        None
    }

    /// `rejectCommand`: the transaction is flagged, and a refused EXEC aborts it.
    fn reject(&mut self, lower: &[u8], cid: ClientId, err: Reply) -> Reply {
        self.tx.flag(cid);
        if lower != b"exec" {
            return err;
        }
        self.discard_client(cid);
        let Reply::Error(e) = err else {
            return err;
        };
        let e = e.strip_prefix("ERR ").unwrap_or(&e);
        Reply::Error(format!("EXECABORT Transaction discarded because of: {e}"))
    }

    /// Runs a queued or scripted command one level down: no blocking, no eviction, no
    /// propagation of its own (the outer command propagates).
    pub(crate) fn call_nested(&mut self, a: &[&[u8]]) -> Reply {
        self.depth += 1;
        let r = match self.dispatch(a, None) {
            RawExec::Reply(r) => r.into_reply(),
            RawExec::Blocked => Reply::Nil,
        };
        self.depth -= 1;
        r
    }

    /// After a client's command: writes go to the replica and memory is re-accounted.
    pub(crate) fn finish_command(&mut self, a: &[&[u8]]) {
        self.depth_wrote = 0;
        let extra = self.repl.take_extra_bytes();
        if self.dirty_keys.is_empty() {
            return;
        }
        let mut keys = std::mem::take(&mut self.dirty_keys);
        keys.sort_unstable();
        keys.dedup();
        if self.mem.tracking() {
            for k in &keys {
                self.account(k);
            }
        }
        if self.repl.enabled() {
            let bytes = extra.unwrap_or_else(|| resp_len(a));
            let states = keys
                .into_iter()
                .map(|k| {
                    let e = self.keys.get(&k).map(|e| (e.value.clone(), e.expire));
                    (k, e)
                })
                .collect();
            self.repl.propagate_write(bytes, states);
        }
    }
}

/// `commandCheckExistence` for a subcommand and `commandCheckArity`.
fn check_arity(spec: &Spec, a: &[&[u8]], lower: &[u8]) -> Option<Reply> {
    let n = a.len() as i32;
    if spec.subs.is_empty() || n == 1 {
        if (spec.arity > 0 && n != spec.arity) || n < -spec.arity {
            return Some(arity_error(lower));
        }
        return None;
    }
    let sub = a[1].to_ascii_lowercase();
    let Some(&(name, arity)) = spec.subs.iter().find(|(s, _)| s.as_bytes() == sub) else {
        let shown: String = String::from_utf8_lossy(a[1]).chars().take(128).collect();
        let msg = format!(
            "ERR unknown subcommand '{shown}'. Try {} HELP.",
            String::from_utf8_lossy(a[0]).to_uppercase()
        );
        return Some(Reply::Error(msg.replace(['\r', '\n'], " ")));
    };
    if (arity > 0 && n != arity) || n < -arity {
        return Some(Reply::Error(format!(
            "ERR wrong number of arguments for '{}|{name}' command",
            String::from_utf8_lossy(lower)
        )));
    }
    None
}

/// Bytes of a command in RESP (`*n`, then `$len` and the bytes of each argument).
pub(crate) fn resp_len(a: &[&[u8]]) -> u64 {
    let digits = |n: usize| n.to_string().len() as u64;
    let mut n = 1 + digits(a.len()) + 2;
    for x in a {
        n += 1 + digits(x.len()) + 2 + x.len() as u64 + 2;
    }
    n
}

/// Redis 7.0's unknown-command error, quoting up to 128 characters of arguments.
fn unknown_command(a: &[&[u8]]) -> Reply {
    let mut args = String::new();
    for x in &a[1..] {
        if args.len() >= 128 {
            break;
        }
        let room = 128 - args.len();
        let s = String::from_utf8_lossy(x);
        let s: String = s.chars().take(room).collect();
        args.push_str(&format!("'{s}' "));
    }
    let name: String = String::from_utf8_lossy(a[0]).chars().take(128).collect();
    let msg = format!("ERR unknown command '{name}', with args beginning with: {args}");
    Reply::Error(msg.replace(['\r', '\n'], " "))
}

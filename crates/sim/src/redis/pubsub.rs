//! Pub/Sub: PUBLISH, SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE — following `pubsub.c`
//! of Redis 7.0 for RESP2 clients.
//!
//! A message goes to whoever is subscribed at the moment PUBLISH runs and to nobody else:
//! Redis keeps no copy, so a subscriber that was away never sees it. PUBLISH answers how
//! many deliveries it made (a client subscribed to the channel and to a matching pattern
//! counts twice). Delivered messages wait in the receiving client's inbox
//! ([`SimRedis::take_messages`]) as the `message` / `pmessage` arrays a client reads.
//!
//! Two departures, both about how one command maps onto one [`Reply`]: (P)SUBSCRIBE and
//! (P)UNSUBSCRIBE answer one confirmation per channel, which Redis sends as separate
//! replies; here they come as one array of those confirmations. Patterns are matched in
//! the order they were first subscribed (Redis walks a hash table, an order of its own).

use super::{ClientId, Reply, SimRedis};
use std::collections::BTreeMap;

/// Subscriptions and undelivered messages.
#[derive(Clone, Debug, Default)]
pub(crate) struct PubSub {
    channels: BTreeMap<Vec<u8>, Vec<ClientId>>,
    patterns: Vec<(Vec<u8>, Vec<ClientId>)>,
    clients: BTreeMap<ClientId, Subs>,
    inbox: BTreeMap<ClientId, Inbox>,
}

/// A client's undelivered messages, kept compact (their bytes one after another in one
/// buffer) until the client reads them as replies: a subscriber of a million messages
/// costs no allocation per message.
#[derive(Clone, Debug, Default)]
struct Inbox {
    bytes: Vec<u8>,
    /// Per message: the pattern's length (`None`: a `message`, else a `pmessage`), the
    /// channel's and the message's.
    msgs: Vec<(Option<usize>, usize, usize)>,
}

impl Inbox {
    fn push(&mut self, pattern: Option<&[u8]>, ch: &[u8], msg: &[u8]) {
        if let Some(p) = pattern {
            self.bytes.extend_from_slice(p);
        }
        self.bytes.extend_from_slice(ch);
        self.bytes.extend_from_slice(msg);
        self.msgs
            .push((pattern.map(<[u8]>::len), ch.len(), msg.len()));
    }

    /// The messages as a client reads them, oldest first; the inbox is then empty.
    fn take(&mut self) -> Vec<Reply> {
        let mut at = 0;
        let mut next = |n: usize| {
            let b = self.bytes[at..at + n].to_vec();
            at += n;
            Reply::Bulk(b)
        };
        let out = self
            .msgs
            .iter()
            .map(|&(pat, ch, msg)| {
                Reply::Array(match pat {
                    None => vec![Reply::bulk("message"), next(ch), next(msg)],
                    Some(p) => vec![Reply::bulk("pmessage"), next(p), next(ch), next(msg)],
                })
            })
            .collect();
        self.clear();
        out
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.msgs.clear();
    }
}

#[derive(Clone, Debug, Default)]
struct Subs {
    channels: Vec<Vec<u8>>,
    patterns: Vec<Vec<u8>>,
}

impl Subs {
    fn count(&self) -> i64 {
        (self.channels.len() + self.patterns.len()) as i64
    }
}

fn confirm(kind: &'static str, name: Option<&[u8]>, count: i64) -> Reply {
    Reply::Array(vec![
        Reply::bulk(kind),
        name.map_or(Reply::Nil, |n| Reply::Bulk(n.to_vec())),
        Reply::Integer(count),
    ])
}

impl PubSub {
    /// Whether any client has a subscription (or had one).
    pub(crate) fn active(&self) -> bool {
        !self.clients.is_empty()
    }

    /// Whether `client` is in the subscribed state (RESP2 then allows only a few commands).
    pub(crate) fn subscribed(&self, client: ClientId) -> bool {
        self.clients.get(&client).is_some_and(|s| s.count() > 0)
    }

    fn subscribe(&mut self, client: ClientId, ch: &[u8]) -> Reply {
        let subs = self.clients.entry(client).or_default();
        if !subs.channels.iter().any(|c| c == ch) {
            subs.channels.push(ch.to_vec());
            self.channels.entry(ch.to_vec()).or_default().push(client);
        }
        confirm("subscribe", Some(ch), subs.count())
    }

    fn unsubscribe(&mut self, client: ClientId, ch: &[u8]) -> Reply {
        let subs = self.clients.entry(client).or_default();
        if let Some(i) = subs.channels.iter().position(|c| c == ch) {
            subs.channels.remove(i);
            if let Some(list) = self.channels.get_mut(ch) {
                list.retain(|&c| c != client);
                if list.is_empty() {
                    self.channels.remove(ch);
                }
            }
        }
        confirm("unsubscribe", Some(ch), subs.count())
    }

    fn psubscribe(&mut self, client: ClientId, pat: &[u8]) -> Reply {
        let subs = self.clients.entry(client).or_default();
        if !subs.patterns.iter().any(|p| p == pat) {
            subs.patterns.push(pat.to_vec());
            match self.patterns.iter_mut().find(|(p, _)| p == pat) {
                Some((_, list)) => list.push(client),
                None => self.patterns.push((pat.to_vec(), vec![client])),
            }
        }
        confirm("psubscribe", Some(pat), subs.count())
    }

    fn punsubscribe(&mut self, client: ClientId, pat: &[u8]) -> Reply {
        let subs = self.clients.entry(client).or_default();
        if let Some(i) = subs.patterns.iter().position(|p| p == pat) {
            subs.patterns.remove(i);
            if let Some(k) = self.patterns.iter().position(|(p, _)| p == pat) {
                self.patterns[k].1.retain(|&c| c != client);
                if self.patterns[k].1.is_empty() {
                    self.patterns.remove(k);
                }
            }
        }
        confirm("punsubscribe", Some(pat), subs.count())
    }

    /// Drops every subscription of `client` and its undelivered messages.
    pub(crate) fn forget(&mut self, client: ClientId) {
        if let Some(subs) = self.clients.get(&client).cloned() {
            for ch in &subs.channels {
                self.unsubscribe(client, ch);
            }
            for p in &subs.patterns {
                self.punsubscribe(client, p);
            }
        }
        self.clients.remove(&client);
        self.inbox.remove(&client);
    }

    fn publish(&mut self, ch: &[u8], msg: &[u8]) -> i64 {
        let mut n = 0;
        if let Some(list) = self.channels.get(ch) {
            for &c in list {
                self.inbox.entry(c).or_default().push(None, ch, msg);
                n += 1;
            }
        }
        for (pat, list) in &self.patterns {
            if !glob_match(pat, ch) {
                continue;
            }
            for &c in list {
                self.inbox.entry(c).or_default().push(Some(pat), ch, msg);
                n += 1;
            }
        }
        n
    }
}

impl SimRedis {
    /// Messages delivered to `client` since the last call, oldest first.
    pub fn take_messages(&mut self, client: ClientId) -> Vec<Reply> {
        self.pubsub
            .inbox
            .get_mut(&client)
            .map_or_else(Vec::new, Inbox::take)
    }

    /// Empties `client`'s inbox without making replies of it (a subscriber that counts
    /// what it receives and keeps nothing); how many messages it held.
    pub fn clear_messages(&mut self, client: ClientId) -> usize {
        self.pubsub.inbox.get_mut(&client).map_or(0, |ib| {
            let n = ib.msgs.len();
            ib.clear();
            n
        })
    }

    pub(crate) fn publish(&mut self, a: &[&[u8]]) -> Reply {
        Reply::Integer(self.pubsub.publish(a[1], a[2]))
    }

    pub(crate) fn subscribe(&mut self, a: &[&[u8]], client: ClientId) -> Reply {
        Reply::Array(
            a[1..]
                .iter()
                .map(|ch| self.pubsub.subscribe(client, ch))
                .collect(),
        )
    }

    pub(crate) fn psubscribe(&mut self, a: &[&[u8]], client: ClientId) -> Reply {
        Reply::Array(
            a[1..]
                .iter()
                .map(|p| self.pubsub.psubscribe(client, p))
                .collect(),
        )
    }

    pub(crate) fn unsubscribe(&mut self, a: &[&[u8]], client: ClientId) -> Reply {
        self.unsubscribe_generic(a, client, false)
    }

    pub(crate) fn punsubscribe(&mut self, a: &[&[u8]], client: ClientId) -> Reply {
        self.unsubscribe_generic(a, client, true)
    }

    /// (P)UNSUBSCRIBE: the names given, or with none every channel (pattern) the client has.
    fn unsubscribe_generic(&mut self, a: &[&[u8]], client: ClientId, pattern: bool) -> Reply {
        let ps = &mut self.pubsub;
        let kind = if pattern {
            "punsubscribe"
        } else {
            "unsubscribe"
        };
        let names: Vec<Vec<u8>> = if a.len() > 1 {
            a[1..].iter().map(|x| x.to_vec()).collect()
        } else {
            ps.clients
                .get(&client)
                .map(|s| {
                    if pattern {
                        s.patterns.clone()
                    } else {
                        s.channels.clone()
                    }
                })
                .unwrap_or_default()
        };
        if names.is_empty() {
            let n = ps.clients.get(&client).map_or(0, Subs::count);
            return Reply::Array(vec![confirm(kind, None, n)]);
        }
        Reply::Array(
            names
                .iter()
                .map(|x| {
                    if pattern {
                        ps.punsubscribe(client, x)
                    } else {
                        ps.unsubscribe(client, x)
                    }
                })
                .collect(),
        )
    }
}

/// `stringmatchlen` of `util.c` (case-sensitive): `*`, `?`, `[...]` with `^` and ranges,
/// `\` escapes.
pub fn glob_match(pattern: &[u8], string: &[u8]) -> bool {
    let mut skip = false;
    matchlen(pattern, string, &mut skip)
}

fn matchlen(pat: &[u8], s: &[u8], skip_longer: &mut bool) -> bool {
    // C reads one byte past a slice's end as the string's NUL.
    let at = |v: &[u8], i: usize| -> u8 { v.get(i).copied().unwrap_or(0) };
    let (mut p, mut pl) = (0usize, pat.len());
    let (mut i, mut sl) = (0usize, s.len());
    while pl > 0 && sl > 0 {
        match pat[p] {
            b'*' => {
                while pl > 0 && at(pat, p + 1) == b'*' {
                    p += 1;
                    pl -= 1;
                }
                if pl == 1 {
                    return true;
                }
                while sl > 0 {
                    if matchlen(&pat[p + 1..p + pl], &s[i..i + sl], skip_longer) {
                        return true;
                    }
                    if *skip_longer {
                        return false;
                    }
                    i += 1;
                    sl -= 1;
                }
                *skip_longer = true;
                return false;
            }
            b'?' => {
                i += 1;
                sl -= 1;
            }
            b'[' => {
                p += 1;
                pl -= 1;
                let not = at(pat, p) == b'^';
                if not {
                    p += 1;
                    pl = pl.saturating_sub(1);
                }
                let mut matched = false;
                let c = s[i] as i8;
                loop {
                    if at(pat, p) == b'\\' && pl >= 2 {
                        p += 1;
                        pl -= 1;
                        if at(pat, p) as i8 == c {
                            matched = true;
                        }
                    } else if at(pat, p) == b']' {
                        break;
                    } else if pl == 0 {
                        p -= 1;
                        pl += 1;
                        break;
                    } else if pl >= 3 && at(pat, p + 1) == b'-' {
                        let (mut lo, mut hi) = (at(pat, p) as i8, at(pat, p + 2) as i8);
                        if lo > hi {
                            std::mem::swap(&mut lo, &mut hi);
                        }
                        p += 2;
                        pl -= 2;
                        if c >= lo && c <= hi {
                            matched = true;
                        }
                    } else if at(pat, p) as i8 == c {
                        matched = true;
                    }
                    p += 1;
                    pl -= 1;
                }
                if not {
                    matched = !matched;
                }
                if !matched {
                    return false;
                }
                i += 1;
                sl -= 1;
            }
            ch => {
                let ch = if ch == b'\\' && pl >= 2 {
                    p += 1;
                    pl -= 1;
                    pat[p]
                } else {
                    ch
                };
                if ch != s[i] {
                    return false;
                }
                i += 1;
                sl -= 1;
            }
        }
        p += 1;
        pl -= 1;
        if sl == 0 {
            while at(pat, p) == b'*' && pl > 0 {
                p += 1;
                pl -= 1;
            }
            break;
        }
    }
    pl == 0 && sl == 0
}

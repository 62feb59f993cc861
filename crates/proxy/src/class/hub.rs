//! The classes this proxy has pages of, and its one Pub/Sub connection to Redis.
//!
//! The sharded adapter's lesson (production slide 13): a proxy listens on a class' channel
//! only while it has a page of that class — one subscription per class, not one per page —
//! and a message is turned into the page's text once, then handed to each of its pages here.
//! Pub/Sub delivers only to whoever listens at that moment, so every page that (re)joins reads
//! the class' view first (the catch-up read), and after the subscriber's connection breaks
//! (a Redis restart) every class is read again once it is back: a view is numbered, and a
//! page is never sent one older than it has.

use super::store::{self, Keys};
use crate::AppState;
use futures_util::StreamExt;
use redislab_sim::class::{Down, Ending, Member};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// A message for a page: its text, and the view's number when it is a view.
#[derive(Debug)]
pub struct Push {
    pub seq: u64,
    pub text: String,
    /// The class is over: the page's connection closes after this.
    pub last: bool,
}

/// Pushes waiting for one student's page (views, the end): a page further behind is cut off
/// (it reconnects and reads the class again).
pub const QUEUE: usize = 64;
/// … for the instructor's page, which also gets every join, answer and result: a class's
/// answers arrive together.
pub const TEACHER_QUEUE: usize = 4096;

/// A page of a class on this proxy.
struct Page {
    tx: mpsc::Sender<Arc<Push>>,
    teacher: bool,
    /// Its student number.
    who: Option<u32>,
}

/// A class this proxy has pages of.
struct Local {
    pages: HashMap<u64, Page>,
    ends: u64,
    /// Students present, as last counted (the instructor is told when it changes).
    present: i64,
}

/// What the subscriber is asked to do.
enum Sub {
    /// Listen on these channels; answered once Redis confirmed (or at once while it is
    /// away: the catch-up after it is back covers what was missed).
    Listen(Vec<String>, oneshot::Sender<()>),
    Leave(Vec<String>),
}

/// This proxy's classes.
pub struct Hub {
    classes: Mutex<HashMap<String, Local>>,
    sub: mpsc::UnboundedSender<Sub>,
    rx: Mutex<Option<mpsc::UnboundedReceiver<Sub>>>,
    next: AtomicU64,
    up: AtomicBool,
}

impl Default for Hub {
    fn default() -> Self {
        let (sub, rx) = mpsc::unbounded_channel();
        Hub {
            classes: Mutex::default(),
            sub,
            rx: Mutex::new(Some(rx)),
            next: AtomicU64::new(1),
            up: AtomicBool::new(true),
        }
    }
}

/// A page's place in the hub; it leaves when dropped.
pub struct Seat {
    hub: Weak<AppState>,
    pub code: String,
    pub id: u64,
}

impl Drop for Seat {
    fn drop(&mut self) {
        if let Some(state) = self.hub.upgrade() {
            state.class.leave(&state, &self.code, self.id);
        }
    }
}

impl Hub {
    /// Classes with pages here, and pages (for tests and the bench).
    pub fn counts(&self) -> (usize, usize) {
        let c = self.classes.lock().expect("not poisoned");
        (c.len(), c.values().map(|l| l.pages.len()).sum())
    }

    /// Whether the subscriber has Redis.
    pub fn redis_up(&self) -> bool {
        self.up.load(Ordering::Relaxed)
    }

    /// Seats a page of class `code` (its pushes come out of the receiver), listening on the class' channels
    /// first if it is the first page here; returns once Redis confirmed, so a catch-up read
    /// made after this misses nothing.
    pub async fn enter(
        &self,
        state: &Arc<AppState>,
        code: &str,
        ends: u64,
        teacher: bool,
        who: Option<u32>,
    ) -> (Seat, mpsc::Receiver<Arc<Push>>) {
        let (tx, rx) = mpsc::channel(if teacher { TEACHER_QUEUE } else { QUEUE });
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let k = Keys::of(code);
        let listen = {
            let mut c = self.classes.lock().expect("not poisoned");
            let first = !c.contains_key(code);
            let l = c.entry(code.to_string()).or_insert_with(|| Local {
                pages: HashMap::new(),
                ends,
                present: -1,
            });
            let had_teacher = l.pages.values().any(|p| p.teacher);
            l.pages.insert(id, Page { tx, teacher, who });
            let mut ch = Vec::new();
            if first {
                ch.push(k.all.clone());
            }
            if teacher && !had_teacher {
                ch.push(k.teach.clone());
            }
            ch
        };
        if !listen.is_empty() {
            let (ack, done) = oneshot::channel();
            if self.sub.send(Sub::Listen(listen, ack)).is_ok() {
                let _ = tokio::time::timeout(state.config.timeout, done).await;
            }
        }
        let seat = Seat {
            hub: Arc::downgrade(state),
            code: code.to_string(),
            id,
        };
        (seat, rx)
    }

    fn leave(&self, state: &Arc<AppState>, code: &str, id: u64) {
        let k = Keys::of(code);
        let (gone, who, drop_teach) = {
            let mut c = self.classes.lock().expect("not poisoned");
            let Some(l) = c.get_mut(code) else { return };
            let Some(p) = l.pages.remove(&id) else { return };
            let drop_teach = p.teacher && !l.pages.values().any(|p| p.teacher);
            let gone = l.pages.is_empty();
            if gone {
                c.remove(code);
            }
            (gone, p.who, drop_teach)
        };
        let mut ch = Vec::new();
        if gone {
            ch.push(k.all.clone());
        }
        if drop_teach {
            ch.push(k.teach.clone());
        }
        if !ch.is_empty() {
            let _ = self.sub.send(Sub::Leave(ch));
        }
        // A student who leaves is not present any more (unless another tab of theirs is: it
        // marks them again within a heartbeat).
        if let Some(who) = who {
            let state = state.clone();
            tokio::spawn(async move {
                let cmd = redis::cmd("ZREM").arg(&k.here).arg(who).clone();
                let _ = state.backend.run(&cmd, true).await;
            });
        }
    }

    /// Hands `push` to the pages of `code` (only the instructor's when `teacher`). A page
    /// whose queue is full is dropped from the hub: its connection ends, and the page
    /// reconnects and reads the class again.
    fn send(&self, code: &str, teacher: bool, push: Push) {
        let push = Arc::new(push);
        let mut c = self.classes.lock().expect("not poisoned");
        let Some(l) = c.get_mut(code) else { return };
        l.pages.retain(|_, p| {
            if teacher && !p.teacher {
                return true;
            }
            p.tx.try_send(push.clone()).is_ok()
        });
        if push.last {
            c.remove(code);
        }
    }

    /// Every class with pages here.
    fn codes(&self) -> Vec<String> {
        self.classes
            .lock()
            .expect("not poisoned")
            .keys()
            .cloned()
            .collect()
    }

    /// Tells every page of every class.
    fn tell_all(&self, text: &str) {
        for code in self.codes() {
            self.send(
                &code,
                false,
                Push {
                    seq: 0,
                    text: text.to_string(),
                    last: false,
                },
            );
        }
    }
}

/// A stored view (`seq|q|open|set|<json>`) as the page's message.
pub fn view_text(stored: &str) -> Option<Push> {
    let mut it = stored.splitn(5, '|');
    let seq: u64 = it.next()?.parse().ok()?;
    let q: u64 = it.next()?.parse().ok()?;
    let open = it.next()? == "1";
    let set: u64 = it.next()?.parse().ok()?;
    let json = it.next()?;
    Some(Push {
        seq,
        text: format!(
            r#"{{"t":"view","seq":{seq},"q":{q},"open":{open},"set":{set},"view":{json}}}"#
        ),
        last: false,
    })
}

/// A message of a class' channel as the pages' message.
fn translate(payload: &str) -> Option<Push> {
    let (kind, rest) = payload.split_at_checked(1)?;
    let plain = |d: Down| {
        Some(Push {
            seq: 0,
            text: d.to_text(),
            last: false,
        })
    };
    match kind {
        "v" => view_text(rest),
        "e" => Some(Push {
            seq: 0,
            text: Down::Ended { why: Ending::Ended }.to_text(),
            last: true,
        }),
        "s" => {
            let (who, name) = rest.split_once('|')?;
            plain(Down::Student {
                member: Member {
                    who: who.parse().ok()?,
                    name: name.to_string(),
                },
            })
        }
        "a" | "r" => {
            let mut it = rest.splitn(3, '|');
            let n: u64 = it.next()?.parse().ok()?;
            let who: u32 = it.next()?.parse().ok()?;
            let value = it.next()?.to_string();
            if kind == "a" {
                plain(Down::Answer { q: n, who, value })
            } else {
                plain(Down::Results {
                    set: n,
                    who,
                    answers: serde_json::from_str(&value).ok()?,
                })
            }
        }
        _ => None,
    }
}

/// Reads class `code` again after the subscriber was away: its view to every page here, or
/// "lost" when its keys are gone; its instructor (if here) gets the whole catch-up again —
/// joins, answers and results published meanwhile were heard by nobody.
async fn catch_up(state: &Arc<AppState>, code: &str) {
    let k = Keys::of(code);
    let cmd = redis::cmd("GET").arg(&k.view).clone();
    match state.backend.run(&cmd, false).await {
        Ok(redis::Value::BulkString(b)) => {
            if let Some(p) = view_text(&String::from_utf8_lossy(&b)) {
                state.class.send(code, false, p);
            }
        }
        Ok(redis::Value::Nil) => {
            state.class.send(
                code,
                false,
                Push {
                    seq: 0,
                    text: Down::Ended { why: Ending::Lost }.to_text(),
                    last: true,
                },
            );
            return;
        }
        _ => return,
    }
    let teacher = state
        .class
        .classes
        .lock()
        .expect("not poisoned")
        .get(code)
        .is_some_and(|l| l.pages.values().any(|p| p.teacher));
    if teacher {
        for p in teacher_catch_up(state, code).await {
            state.class.send(code, true, p);
        }
    }
}

/// What an instructor's page is sent when it takes the class (and again after the
/// subscriber was away): the roster, the open question's answers, the practice set's
/// results, who is present.
pub async fn teacher_catch_up(state: &AppState, code: &str) -> Vec<Push> {
    let k = Keys::of(code);
    let plain = |d: Down| Push {
        seq: 0,
        text: d.to_text(),
        last: false,
    };
    let mut p = redis::pipe();
    p.cmd("HGETALL").arg(&k.names);
    p.cmd("HMGET").arg(&k.meta).arg("q").arg("set");
    p.cmd("HGETALL").arg(&k.ans);
    p.cmd("HGETALL").arg(&k.res);
    p.cmd("ZCARD").arg(&k.here);
    let Ok(redis::Value::Array(v)) = state.backend.pipe(&p).await else {
        return Vec::new();
    };
    if v.len() < 5 {
        return Vec::new();
    }
    let s = |v: &redis::Value| match v {
        redis::Value::BulkString(b) => String::from_utf8_lossy(b).into_owned(),
        _ => String::new(),
    };
    let pairs = |v: &redis::Value| -> Vec<(String, String)> {
        match v {
            redis::Value::Array(a) => a
                .chunks(2)
                .filter(|c| c.len() == 2)
                .map(|c| (s(&c[0]), s(&c[1])))
                .collect(),
            redis::Value::Map(m) => m.iter().map(|(a, b)| (s(a), s(b))).collect(),
            _ => Vec::new(),
        }
    };
    let num = |v: Option<&redis::Value>| v.map_or(0, |v| s(v).parse::<u64>().unwrap_or(0));
    let mut out = Vec::new();
    let mut students: Vec<Member> = pairs(&v[0])
        .into_iter()
        .filter_map(|(w, name)| {
            Some(Member {
                who: w.parse().ok()?,
                name,
            })
        })
        .collect();
    students.sort_by_key(|m| m.who);
    out.push(plain(Down::Roster { students }));
    let (q, set) = match &v[1] {
        redis::Value::Array(a) => (num(a.first()), num(a.get(1))),
        _ => (0, 0),
    };
    let all: Vec<(u32, String)> = pairs(&v[2])
        .into_iter()
        .filter_map(|(w, a)| Some((w.parse().ok()?, a)))
        .collect();
    out.push(plain(Down::Answers { q, all }));
    for (w, json) in pairs(&v[3]) {
        if let (Ok(who), Ok(answers)) = (w.parse(), serde_json::from_str(&json)) {
            out.push(plain(Down::Results { set, who, answers }));
        }
    }
    if let redis::Value::Int(n) = &v[4] {
        out.push(plain(Down::Present { n: *n as u32 }));
    }
    out
}

/// The subscriber: one Pub/Sub connection, the channels of every class with pages here;
/// reconnects when it breaks, listens again and catches every class up.
pub fn spawn_subscriber(state: Arc<AppState>) {
    let Some(mut rx) = state.class.rx.lock().expect("not poisoned").take() else {
        return;
    };
    tokio::spawn(async move {
        let mut wanted: HashSet<String> = HashSet::new();
        // Requests that came while there was no connection: applied once there is one.
        let mut pending: Vec<Sub> = Vec::new();
        let mut idle = false;
        let mut backoff = Duration::from_millis(50);
        let mut rx_stop = state.shutdown.subscribe();
        let stop = async move {
            let _ = rx_stop.wait_for(|v| *v).await;
        };
        tokio::pin!(stop);
        loop {
            // No class here: no connection either (nothing to hear, nothing sent to Redis).
            if wanted.is_empty() && pending.is_empty() {
                tokio::select! {
                    s = rx.recv() => match s {
                        Some(s) => {
                            // Noted now, subscribed once connected (answered then).
                            pending.push(s);
                        }
                        None => return,
                    },
                    () = &mut stop => return,
                }
            }
            let conn = tokio::select! {
                c = state.backend.pubsub() => c,
                () = &mut stop => return,
            };
            let (mut sink, mut stream) = match conn {
                Ok(p) => p.split(),
                Err(e) => {
                    tracing::debug!(error = %e, "class subscriber: no Redis yet");
                    // Asked to listen meanwhile: noted, answered (the catch-up covers it).
                    for s in pending.drain(..) {
                        note(&mut wanted, s);
                    }
                    while let Ok(s) = rx.try_recv() {
                        note(&mut wanted, s);
                    }
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                    continue;
                }
            };
            backoff = Duration::from_millis(50);
            let ok = wanted.is_empty()
                || sink
                    .subscribe(wanted.iter().cloned().collect::<Vec<_>>())
                    .await
                    .is_ok();
            if !ok {
                continue;
            }
            let mut ok = true;
            for s in pending.drain(..) {
                let r = match &s {
                    Sub::Listen(ch, _) => sink.subscribe(ch.clone()).await,
                    Sub::Leave(ch) => sink.unsubscribe(ch.clone()).await,
                };
                ok &= r.is_ok();
                note(&mut wanted, s);
            }
            if !ok {
                continue;
            }
            if !state.class.up.swap(true, Ordering::Relaxed) {
                tracing::info!("class subscriber: Redis is back");
                state.class.tell_all(&Down::Redis { up: true }.to_text());
                for code in state.class.codes() {
                    catch_up(&state, &code).await;
                }
            }
            // A ping every 5 s: a Redis that died or stopped answering is noticed even when
            // the socket does not say so (a loaded machine may take seconds to answer one).
            let mut alive = tokio::time::interval(Duration::from_secs(5));
            alive.tick().await;
            loop {
                tokio::select! {
                    _ = alive.tick() => {
                        let pong = tokio::time::timeout(Duration::from_secs(10), sink.ping::<String>()).await;
                        if !matches!(pong, Ok(Ok(_))) {
                            break;
                        }
                    }
                    m = stream.next() => {
                        let Some(m) = m else { break };
                        let ch = m.get_channel_name().to_string();
                        let Some((code, teacher)) = Keys::channel(&ch) else { continue };
                        let payload: Vec<u8> = m.get_payload_bytes().to_vec();
                        if let Some(p) = translate(&String::from_utf8_lossy(&payload)) {
                            state.class.send(code, teacher, p);
                        }
                    }
                    s = rx.recv() => {
                        let Some(s) = s else { return };
                        let r = match &s {
                            Sub::Listen(ch, _) => sink.subscribe(ch.clone()).await,
                            Sub::Leave(ch) => sink.unsubscribe(ch.clone()).await,
                        };
                        note(&mut wanted, s);
                        if r.is_err() {
                            break;
                        }
                        if wanted.is_empty() {
                            // The last class here left: the connection goes too.
                            idle = true;
                            break;
                        }
                    }
                    () = &mut stop => return,
                }
            }
            if std::mem::take(&mut idle) {
                continue;
            }
            tracing::warn!("class subscriber: the connection to Redis broke; reconnecting");
            state.class.up.store(false, Ordering::Relaxed);
            state.class.tell_all(&Down::Redis { up: false }.to_text());
        }
    });
}

fn note(wanted: &mut HashSet<String>, s: Sub) {
    match s {
        Sub::Listen(ch, ack) => {
            wanted.extend(ch);
            let _ = ack.send(());
        }
        Sub::Leave(ch) => {
            for c in ch {
                wanted.remove(&c);
            }
        }
    }
}

/// Presence marks a class' students keep between two heartbeats (3 of them).
pub const MARK_MS: u64 = 30_000;

/// Once a second: classes whose time is up end here; each class with students here marks
/// them present (every tenth second), each with its instructor here counts who is present
/// and tells them when it changed; each instructor's lease is renewed (every tenth second).
pub fn spawn_ticker(state: Arc<AppState>) {
    tokio::spawn(async move {
        let mut rx_stop = state.shutdown.subscribe();
        let stop = async move {
            let _ = rx_stop.wait_for(|v| *v).await;
        };
        tokio::pin!(stop);
        let mut n: u64 = 0;
        loop {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_secs(1)) => {}
                () = &mut stop => return,
            }
            n += 1;
            tick(&state, n.is_multiple_of(10)).await;
        }
    });
}

async fn tick(state: &Arc<AppState>, mark: bool) {
    let now = state.redis_now_ms().max(0) as u64;
    let work: Vec<(String, u64, Vec<u32>, bool)> = {
        let c = state.class.classes.lock().expect("not poisoned");
        c.iter()
            .map(|(code, l)| {
                (
                    code.clone(),
                    l.ends,
                    l.pages.values().filter_map(|p| p.who).collect(),
                    l.pages.values().any(|p| p.teacher),
                )
            })
            .collect()
    };
    for (code, ends, who, teacher) in work {
        if now >= ends {
            state.class.send(
                &code,
                false,
                Push {
                    seq: 0,
                    text: Down::Ended {
                        why: Ending::TimeUp,
                    }
                    .to_text(),
                    last: true,
                },
            );
            continue;
        }
        let k = Keys::of(&code);
        let mut count = None;
        let mark_ms = MARK_MS.to_string();
        if mark && !who.is_empty() {
            for chunk in who.chunks(300) {
                let mut args = vec![mark_ms.clone()];
                args.extend(chunk.iter().map(u32::to_string));
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let keys = [k.here.as_str(), k.meta.as_str()];
                let r = store::run(&state.backend, &store::PRESENT, &keys, &args);
                if let Ok(redis::Value::Int(c)) = r.await {
                    count = Some(c);
                }
            }
        }
        if teacher {
            if count.is_none() {
                let keys = [k.here.as_str(), k.meta.as_str()];
                let args = [mark_ms.as_str()];
                let r = store::run(&state.backend, &store::PRESENT, &keys, &args);
                if let Ok(redis::Value::Int(c)) = r.await {
                    count = Some(c);
                }
            }
            let changed = {
                let mut c = state.class.classes.lock().expect("not poisoned");
                match (c.get_mut(&code), count) {
                    (Some(l), Some(n)) if n >= 0 && n != l.present => {
                        l.present = n;
                        true
                    }
                    _ => false,
                }
            };
            if let (true, Some(n)) = (changed, count) {
                state.class.send(
                    &code,
                    true,
                    Push {
                        seq: 0,
                        text: Down::Present { n: n as u32 }.to_text(),
                        last: false,
                    },
                );
            }
        }
    }
}

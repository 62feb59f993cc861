//! One `/class` connection: a page that makes or takes a class (the instructor) or joins one
//! (a student). Its messages are handled one at a time, in order; the class' pushes reach it
//! through the hub, a view never older than one it was sent.

use super::hub::{self, Push, Seat};
use super::store::{self, Keys};
use super::{LEASE_MS, STUDENT_WINDOW_MS};
use crate::session::Bucket;
use crate::{AddressSlot, AppState};
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::{SinkExt, StreamExt};
use redis::Value;
use redislab_sim::class::{
    self as class, Down, Member, Op, Refusal, Request, SetSpec, View, MAX_ANSWER, MAX_SET_ANSWER,
    MAX_SET_ANSWERS, MAX_VIEW,
};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, OwnedSemaphorePermit};

/// How long one message may take to go out.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// A ping this often keeps the connection (and its NAT entry) alive and finds dead peers.
const PING_EVERY: Duration = Duration::from_secs(30);

/// Who the connection is.
enum Role {
    /// Neither yet: it may create, teach or join, nothing else.
    None,
    Teacher {
        code: String,
        tab: String,
        /// The practice set of its last view (a different one is a new set).
        set: Option<SetSpec>,
        _seat: Seat,
    },
    Student {
        code: String,
        token: String,
        _seat: Seat,
    },
}

struct Conn {
    state: Arc<AppState>,
    addr: Option<IpAddr>,
    role: Role,
    /// The pushes of the class it entered, until the connection's loop takes them.
    rx: Option<mpsc::Receiver<Arc<Push>>>,
    /// The newest view sent.
    seq: u64,
    /// A new role was taken: the class as it is now is to be sent.
    due: bool,
}

type Reply = Result<Down, (Refusal, String)>;

fn refuse(r: Refusal, why: impl Into<String>) -> Reply {
    Err((r, why.into()))
}

fn unavailable(e: crate::protocol::ErrBody) -> (Refusal, String) {
    (Refusal::Unavailable, e.message)
}

/// 128 random bits from the OS, as hex.
fn token() -> String {
    let mut b = [0u8; 16];
    getrandom::getrandom(&mut b).expect("the OS gives random bytes");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A random join code.
fn new_code() -> String {
    let mut b = [0u8; 4];
    getrandom::getrandom(&mut b).expect("the OS gives random bytes");
    format!("{:06}", u32::from_le_bytes(b) % 1_000_000)
}

fn sha1_hex(s: &str) -> String {
    use sha1::{Digest, Sha1};
    Sha1::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn close(code: u16, reason: &'static str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: Utf8Bytes::from_static(reason),
    }))
}

async fn send(socket: &mut WebSocket, text: String) -> bool {
    matches!(
        tokio::time::timeout(WRITE_TIMEOUT, socket.send(Message::Text(text.into()))).await,
        Ok(Ok(()))
    )
}

/// Runs a class connection to its end.
pub async fn run(
    mut socket: WebSocket,
    state: Arc<AppState>,
    permit: OwnedSemaphorePermit,
    slot: AddressSlot,
    addr: Option<IpAddr>,
) {
    let mut rx: Option<mpsc::Receiver<Arc<Push>>> = None;
    let limits = state.config.class;
    let mut bucket = Bucket::new(limits.messages_per_sec, 2 * limits.messages_per_sec);
    let mut c = Conn {
        state: state.clone(),
        addr,
        role: Role::None,
        rx: None,
        seq: 0,
        due: false,
    };
    let mut rx_stop = state.shutdown.subscribe();
    let stop = async move {
        let _ = rx_stop.wait_for(|v| *v).await;
    };
    tokio::pin!(stop);
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    let mut lease = tokio::time::interval(Duration::from_millis(LEASE_MS / 3));
    lease.tick().await;
    let ending = loop {
        tokio::select! {
            () = &mut stop => break Some(close(1001, "server shutting down")),
            m = socket.next() => {
                let text = match m {
                    None | Some(Ok(Message::Close(_))) | Some(Err(_)) => break None,
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Binary(_))) => {
                        let d = Down::Err { id: None, code: Refusal::BadRequest, message: "text messages only".into() };
                        if !send(&mut socket, d.to_text()).await { break None }
                        continue;
                    }
                    Some(Ok(_)) => continue,
                };
                if !bucket.take(1.0) {
                    let d = Down::Err { id: None, code: Refusal::RateLimited, message: "over the connection's rate of messages".into() };
                    if !send(&mut socket, d.to_text()).await { break None }
                    continue;
                }
                let d = if text.len() > state.config.max_message_bytes {
                    Down::Err { id: None, code: Refusal::TooLarge, message: "message too big".into() }
                } else {
                    match Request::parse(text.as_str()) {
                        Err(d) => *d,
                        Ok(req) => match c.handle(req.op).await {
                            Ok(d) => stamp(d, req.id),
                            Err((code, message)) => Down::Err { id: Some(req.id), code, message },
                        },
                    }
                };
                if !send(&mut socket, d.to_text()).await { break None }
                // The instructor moves the class as fast as they move through the deck.
                if matches!(c.role, Role::Teacher { .. }) && bucket.burst < 10.0 * f64::from(limits.messages_per_sec) {
                    bucket = Bucket::new(5 * limits.messages_per_sec, 10 * limits.messages_per_sec);
                }
                if let Some(r) = c.rx.take() {
                    rx = Some(r);
                }
                // What a new role brings: the class as it is now.
                if let Some(p) = c.catch_up_due().await {
                    for p in p {
                        if !c.forward(&mut socket, &p).await { break; }
                    }
                }
            }
            p = async {
                match rx.as_mut() {
                    Some(r) => r.recv().await,
                    None => std::future::pending().await,
                }
            } => {
                // The hub let go of a page too far behind: it reconnects and reads the class.
                let Some(p) = p else { break Some(close(1013, "too far behind; reconnect")) };
                if !c.forward(&mut socket, &p).await { break None }
                if p.last { break Some(close(1000, "class over")) }
            }
            _ = ping.tick() => {
                if tokio::time::timeout(WRITE_TIMEOUT, socket.send(Message::Ping(Default::default()))).await.is_err() {
                    break None;
                }
            }
            _ = lease.tick() => {
                if let Role::Teacher { code, tab, .. } = &c.role {
                    let k = Keys::of(code);
                    let r = store::run(&state.backend, &store::LEASE, &[&k.teacher, &k.meta], &[tab, &LEASE_MS.to_string(), "1"]).await;
                    if let Ok(Value::Int(0)) = r {
                        let d = Down::Err { id: None, code: Refusal::TeacherElsewhere, message: "another tab holds the class".into() };
                        let _ = send(&mut socket, d.to_text()).await;
                        break Some(close(1000, "class taken elsewhere"));
                    }
                }
            }
        }
    };
    if let Some(m) = ending {
        let _ = tokio::time::timeout(WRITE_TIMEOUT, socket.send(m)).await;
    }
    let _ = tokio::time::timeout(WRITE_TIMEOUT, socket.close()).await;
    drop(socket);
    if let Role::Teacher { code, tab, .. } = &c.role {
        let k = Keys::of(code);
        let _ = store::run(
            &state.backend,
            &store::LEASE,
            &[&k.teacher, &k.meta],
            &[tab, "0", "0"],
        )
        .await;
    }
    drop(c);
    drop(slot);
    drop(permit);
}

/// Puts the request's id on its reply.
fn stamp(d: Down, id: u64) -> Down {
    match d {
        Down::Ok { .. } => Down::Ok { id },
        Down::Created {
            code,
            secret,
            ends_at,
            ..
        } => Down::Created {
            id,
            code,
            secret,
            ends_at,
        },
        Down::Taught { ends_at, .. } => Down::Taught { id, ends_at },
        Down::Joined {
            code,
            you,
            name,
            resume,
            ends_at,
            ..
        } => Down::Joined {
            id,
            code,
            you,
            name,
            resume,
            ends_at,
        },
        Down::Answered { changed, .. } => Down::Answered { id, changed },
        other => other,
    }
}

impl Conn {
    /// Sends a push unless it is a view older than one sent.
    async fn forward(&mut self, socket: &mut WebSocket, p: &Push) -> bool {
        if p.seq > 0 {
            if p.seq <= self.seq {
                return true;
            }
            self.seq = p.seq;
        }
        send(socket, p.text.clone()).await
    }

    /// Counts one `what` of this connection's address against `limit` a `window`; `peek`
    /// only reads. Whether it is within (no address known: always).
    async fn address(
        &self,
        what: &str,
        limit: u32,
        window: Duration,
        peek: bool,
    ) -> Result<bool, (Refusal, String)> {
        let Some(a) = self.addr else { return Ok(true) };
        let key = format!("class:rate:{{{}}}:{what}", crate::address_key(a));
        let r = store::run(
            &self.state.backend,
            &store::ADDRESS,
            &[&key],
            &[
                &limit.to_string(),
                &window.as_millis().to_string(),
                if peek { "1" } else { "0" },
            ],
        )
        .await
        .map_err(unavailable)?;
        Ok(!matches!(r, Value::Int(n) if n < 0))
    }

    async fn handle(&mut self, op: Op) -> Reply {
        match op {
            Op::Create { view, tab } => self.create(view, tab).await,
            Op::Teach { code, secret, tab } => self.teach(&code, &secret, tab).await,
            Op::Join { code, name, resume } => self.join(&code, &name, &resume).await,
            Op::Show { view, ask, reveal } => self.show(view, ask, reveal).await,
            Op::Answer { q, value } => {
                if value.len() > MAX_ANSWER {
                    return refuse(
                        Refusal::TooLarge,
                        format!("an answer is at most {MAX_ANSWER} bytes"),
                    );
                }
                self.answer('a', q, &value).await
            }
            Op::Results { set, answers } => {
                if answers.len() > MAX_SET_ANSWERS
                    || answers.iter().any(|a| a.len() > MAX_SET_ANSWER)
                {
                    return refuse(
                        Refusal::TooLarge,
                        format!("at most {MAX_SET_ANSWERS} answers of {MAX_SET_ANSWER} bytes"),
                    );
                }
                let json = serde_json::to_string(&answers).expect("strings serialize");
                self.answer('r', set, &json).await
            }
            Op::End {} => self.end().await,
        }
    }

    fn fresh(&self) -> Result<(), (Refusal, String)> {
        match self.role {
            Role::None => Ok(()),
            _ => Err((
                Refusal::BadRequest,
                "this connection is in a class already".into(),
            )),
        }
    }

    fn view_json(view: &View) -> Result<String, (Refusal, String)> {
        let json = serde_json::to_string(view).expect("views serialize");
        if json.len() > MAX_VIEW {
            return Err((
                Refusal::TooLarge,
                format!("a view is at most {MAX_VIEW} bytes"),
            ));
        }
        Ok(json)
    }

    async fn create(&mut self, view: View, tab: String) -> Reply {
        self.fresh()?;
        let json = Self::view_json(&view)?;
        let limits = self.state.config.class;
        if !self
            .address(
                "create",
                limits.classes_per_address,
                Duration::from_secs(3600),
                false,
            )
            .await?
        {
            return refuse(
                Refusal::RateLimited,
                "too many classes made from this address",
            );
        }
        let secret = token();
        let ends = self.state.redis_now_ms().max(0) as u64 + limits.max_duration.as_millis() as u64;
        let ends_s = ends.to_string();
        let (max, lease) = (limits.max_students.to_string(), LEASE_MS.to_string());
        let (uid, sha) = (token(), sha1_hex(&secret));
        for _ in 0..20 {
            let code = new_code();
            let k = Keys::of(&code);
            let r = store::run(
                &self.state.backend,
                &store::CREATE,
                &[&k.meta, &k.view, &k.teacher],
                &[&uid, &sha, &ends_s, &max, &json, &tab, &lease],
            )
            .await
            .map_err(unavailable)?;
            if r == Value::Int(1) {
                self.become_teacher(&code, tab, view.set, ends).await;
                return Ok(Down::Created {
                    id: 0,
                    code,
                    secret,
                    ends_at: ends,
                });
            }
        }
        refuse(Refusal::Unavailable, "no free code found")
    }

    async fn become_teacher(&mut self, code: &str, tab: String, set: Option<SetSpec>, ends: u64) {
        let (seat, rx) = self
            .state
            .class
            .enter(&self.state, code, ends, true, None)
            .await;
        self.rx = Some(rx);
        self.role = Role::Teacher {
            code: code.to_string(),
            tab,
            set,
            _seat: seat,
        };
        self.due = true;
    }

    async fn teach(&mut self, code: &str, secret: &str, tab: String) -> Reply {
        self.fresh()?;
        let Some(code) = class::read_code(code) else {
            return refuse(Refusal::NoClass, "not a code");
        };
        let k = Keys::of(&code);
        let r = store::run(
            &self.state.backend,
            &store::TEACH,
            &[&k.meta, &k.teacher],
            &[&sha1_hex(secret), &tab, &LEASE_MS.to_string()],
        )
        .await
        .map_err(unavailable)?;
        let words = store::reply(&r).map_err(|r| (r, "refused".to_string()))?;
        let ends: u64 = words.first().and_then(|e| e.parse().ok()).unwrap_or(0);
        // The practice set of the class' view, so a view with the same set is not a new one.
        let set = self.stored_view(&k).await.and_then(|(_, v)| v.set);
        self.become_teacher(&code, tab, set, ends).await;
        Ok(Down::Taught {
            id: 0,
            ends_at: ends,
        })
    }

    async fn join(&mut self, code: &str, name: &str, resume: &str) -> Reply {
        self.fresh()?;
        let limits = self.state.config.class;
        let minute = Duration::from_secs(60);
        // Code guessing: past the wrong codes an address may try, every join from it waits.
        if !self
            .address("fail", limits.wrong_codes_per_address, minute, true)
            .await?
        {
            return refuse(
                Refusal::RateLimited,
                "too many wrong codes from this address",
            );
        }
        if !self
            .address("join", limits.joins_per_address, minute, false)
            .await?
        {
            return refuse(Refusal::RateLimited, "too many joins from this address");
        }
        let Some(code) = class::read_code(code) else {
            self.address("fail", limits.wrong_codes_per_address, minute, false)
                .await?;
            return refuse(Refusal::NoClass, "not a code");
        };
        let name = class::clean_name(name);
        let k = Keys::of(&code);
        let now = self.state.redis_now_ms();
        let rate = k.rate(store::window(now, STUDENT_WINDOW_MS));
        let fresh_token = token();
        let r = store::run(
            &self.state.backend,
            &store::JOIN,
            &[&k.meta, &k.students, &k.names, &k.here, &rate],
            &[
                resume,
                &fresh_token,
                &name,
                &limits.joins_per_student.to_string(),
                &STUDENT_WINDOW_MS.to_string(),
                &k.teach,
            ],
        )
        .await
        .map_err(unavailable)?;
        let words = match store::reply(&r) {
            Ok(w) => w,
            Err(Refusal::NoClass) => {
                self.address("fail", limits.wrong_codes_per_address, minute, false)
                    .await?;
                return refuse(Refusal::NoClass, "no class has this code");
            }
            Err(r) => return refuse(r, "refused"),
        };
        let [who, name, token, ends] = &words[..] else {
            return refuse(Refusal::Unavailable, "an unexpected reply");
        };
        let who: u32 = who.parse().unwrap_or(0);
        let ends: u64 = ends.parse().unwrap_or(0);
        let (seat, rx) = self
            .state
            .class
            .enter(&self.state, &code, ends, false, Some(who))
            .await;
        self.rx = Some(rx);
        self.role = Role::Student {
            code: code.clone(),
            token: token.clone(),
            _seat: seat,
        };
        self.due = true;
        let member = Member {
            who,
            name: name.clone(),
        };
        Ok(Down::Joined {
            id: 0,
            code,
            you: who,
            name: member.shown(),
            resume: token.clone(),
            ends_at: ends,
        })
    }

    async fn show(&mut self, view: View, ask: bool, reveal: bool) -> Reply {
        let Role::Teacher { code, tab, set, .. } = &mut self.role else {
            return refuse(Refusal::Forbidden, "only the instructor moves the class");
        };
        let json = Self::view_json(&view)?;
        let new_set = view.set.is_some() && view.set != *set;
        let k = Keys::of(code);
        let r = store::run(
            &self.state.backend,
            &store::SHOW,
            &[&k.meta, &k.view, &k.teacher, &k.ans, &k.res],
            &[
                tab,
                &json,
                if ask { "1" } else { "0" },
                if reveal { "1" } else { "0" },
                if new_set { "1" } else { "0" },
                &k.all,
            ],
        )
        .await
        .map_err(unavailable)?;
        store::reply(&r).map_err(|r| (r, "refused".to_string()))?;
        *set = view.set;
        Ok(Down::Ok { id: 0 })
    }

    async fn answer(&mut self, kind: char, n: u64, value: &str) -> Reply {
        let Role::Student { code, token, .. } = &self.role else {
            return refuse(Refusal::Forbidden, "only a student who joined answers");
        };
        let (code, token) = (code.clone(), token.clone());
        let limits = self.state.config.class;
        if !self
            .address(
                "answer",
                limits.answers_per_address,
                Duration::from_millis(STUDENT_WINDOW_MS),
                false,
            )
            .await?
        {
            return refuse(Refusal::RateLimited, "too many answers from this address");
        }
        let k = Keys::of(&code);
        let rate = k.rate(store::window(self.state.redis_now_ms(), STUDENT_WINDOW_MS));
        let into = if kind == 'a' { &k.ans } else { &k.res };
        let r = store::run(
            &self.state.backend,
            &store::ANSWER,
            &[&k.meta, &k.students, into, &rate],
            &[
                &token,
                &n.to_string(),
                value,
                &limits.answers_per_student.to_string(),
                &STUDENT_WINDOW_MS.to_string(),
                &k.teach,
                &kind.to_string(),
            ],
        )
        .await
        .map_err(unavailable)?;
        let words = store::reply(&r).map_err(|r| (r, "refused".to_string()))?;
        Ok(if kind == 'a' {
            Down::Answered {
                id: 0,
                changed: words.first().is_some_and(|c| c == "1"),
            }
        } else {
            Down::Ok { id: 0 }
        })
    }

    async fn end(&mut self) -> Reply {
        let Role::Teacher { code, tab, .. } = &self.role else {
            return refuse(Refusal::Forbidden, "only the instructor ends the class");
        };
        let k = Keys::of(code);
        let w = store::window(self.state.redis_now_ms(), STUDENT_WINDOW_MS);
        let (r0, r1) = (k.rate(w), k.rate(w.saturating_sub(1)));
        let mut keys = k.stored().to_vec();
        keys.extend([r0.as_str(), r1.as_str()]);
        let r = store::run(&self.state.backend, &store::END, &keys, &[tab, &k.all])
            .await
            .map_err(unavailable)?;
        store::reply(&r).map_err(|r| (r, "refused".to_string()))?;
        Ok(Down::Ok { id: 0 })
    }

    /// The class' stored view, read.
    async fn stored_view(&self, k: &Keys) -> Option<(Push, View)> {
        let cmd = redis::cmd("GET").arg(&k.view).clone();
        let Ok(Value::BulkString(b)) = self.state.backend.run(&cmd, false).await else {
            return None;
        };
        let s = String::from_utf8_lossy(&b);
        let json = s.splitn(5, '|').nth(4)?;
        Some((hub::view_text(&s)?, serde_json::from_str(json).ok()?))
    }

    /// After a join or a take: the class as it is now — the catch-up read (Pub/Sub drops
    /// what nobody heard). An instructor also gets the roster, the open question's answers,
    /// the practice set's results and who is present.
    async fn catch_up_due(&mut self) -> Option<Vec<Push>> {
        if !std::mem::take(&mut self.due) {
            return None;
        }
        let (code, teacher) = match &self.role {
            Role::Teacher { code, .. } => (code.clone(), true),
            Role::Student { code, .. } => (code.clone(), false),
            Role::None => return None,
        };
        let k = Keys::of(&code);
        let mut out = Vec::new();
        if let Some((p, _)) = self.stored_view(&k).await {
            out.push(p);
        }
        if !teacher {
            return Some(out);
        }
        out.extend(hub::teacher_catch_up(&self.state, &code).await);
        Some(out)
    }
}

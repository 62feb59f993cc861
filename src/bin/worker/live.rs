//! Live runs in the simulation worker: a lab's actors — the lock race's two workers, the
//! cache engine's instances, the streams lab's producers and consumer group, the queue lab's
//! API and worker slots — against a real Redis through the proxy's WebSocket, in real time,
//! each through its [`LiveDriver`]. The worker owns the socket, so the page's main thread
//! only renders and the first load carries none of the actors.
//!
//! A run opens its own socket (its own session and namespace on the proxy), checks Redis with
//! a `PING`, then starts the clock: every command the workers send goes out at once with a
//! request id, each answer is matched by id, its round trip measured, and the reply handed to
//! the actor that sent it (by the driver's tag); a timer wakes the run when an actor's sleep
//! or work ends. It posts its connection state ([`Body::Status`]) and the run so far (the
//! driver's snapshot, at most every [`LiveDriver::snapshot_ms`]) and the result at the end.

use redislab_sim::labs::work::{Body, FromWorker, LiveDriver};
use redislab_sim::wire::{self, Code, Incoming, LiveStatus};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CloseEvent, DedicatedWorkerGlobalScope, MessageEvent, WebSocket};

/// The request id of the `PING` that checks Redis before the race starts.
const PING: u64 = 0;

/// One live run.
pub struct Live {
    id: u32,
    scope: DedicatedWorkerGlobalScope,
    run: Box<dyn LiveDriver>,
    ws: WebSocket,
    /// `performance.now()` when the race started (after the PING), or `None` before.
    start: Option<f64>,
    next_id: u64,
    /// Request id → (the driver's tag, sent at).
    pending: HashMap<u64, (usize, f64)>,
    timer: Option<i32>,
    last_snapshot: f64,
    opened: bool,
    over: bool,
    wake: Option<Closure<dyn FnMut()>>,
    handlers: Vec<Box<dyn std::any::Any>>,
}

fn now(scope: &DedicatedWorkerGlobalScope) -> f64 {
    scope.performance().map_or(0.0, |p| p.now())
}

impl Live {
    /// Starts the live run `run` through the proxy at `url`; `None` (after telling the lab)
    /// when the browser refuses to open the socket.
    pub fn start(
        id: u32,
        scope: &DedicatedWorkerGlobalScope,
        run: Box<dyn LiveDriver>,
        url: &str,
    ) -> Option<Rc<RefCell<Live>>> {
        let post = |bodies: Vec<Body>| post(scope, id, bodies);
        post(vec![Body::Status(LiveStatus::Connecting)]);
        let ws = match WebSocket::new(url) {
            Ok(ws) => ws,
            Err(_) => {
                post(vec![
                    Body::Status(LiveStatus::NoProxy),
                    Body::Failed(NO_PROXY.into()),
                ]);
                return None;
            }
        };
        let live = Rc::new(RefCell::new(Live {
            id,
            scope: scope.clone(),
            run,
            ws: ws.clone(),
            start: None,
            next_id: PING + 1,
            pending: HashMap::new(),
            timer: None,
            last_snapshot: 0.0,
            opened: false,
            over: false,
            wake: None,
            handlers: Vec::new(),
        }));
        let weak = Rc::downgrade(&live);
        let with = move |f: &dyn Fn(&mut Live)| {
            if let Some(l) = weak.upgrade() {
                if let Ok(mut l) = l.try_borrow_mut() {
                    if !l.over {
                        f(&mut l);
                    }
                }
            }
        };
        let w = with.clone();
        let on_open = Closure::<dyn FnMut()>::new(move || {
            w(&|l| {
                l.opened = true;
                l.ws.send_with_str(&wire::request(PING, &[b"PING".to_vec()]))
                    .ok();
            })
        });
        let w = with.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            if let Some(text) = e.data().as_string() {
                w(&|l| l.receive(&text));
            }
        });
        let w = with.clone();
        let on_close = Closure::<dyn FnMut(CloseEvent)>::new(move |e: CloseEvent| {
            w(&|l| {
                let why = if l.opened {
                    format!(
                        "প্রক্সির সঙ্গে সংযোগ ছিঁড়ে গেল (কোড {}{}) — দৌড়টা মাঝপথে থামল",
                        e.code(),
                        if e.reason().is_empty() {
                            String::new()
                        } else {
                            format!(", {}", e.reason())
                        }
                    )
                } else {
                    NO_PROXY.to_string()
                };
                let status = if l.opened {
                    LiveStatus::Lost(why.clone())
                } else {
                    LiveStatus::NoProxy
                };
                l.fail(status, why);
            })
        });
        let w = with.clone();
        let wake = Closure::<dyn FnMut()>::new(move || {
            w(&|l| {
                l.timer = None;
                l.pump();
            })
        });
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        {
            let mut l = live.borrow_mut();
            l.wake = Some(wake);
            l.handlers.push(Box::new(on_open));
            l.handlers.push(Box::new(on_message));
            l.handlers.push(Box::new(on_close));
        }
        Some(live)
    }

    /// The run's id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Over (done, failed or cancelled): the worker can drop it.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// Stops it: the socket closes (the proxy expires the session's keys), nothing more is
    /// posted.
    pub fn cancel(&mut self) {
        self.over = true;
        self.clear_timer();
        // The socket may still fire (its close event comes later) after the worker has
        // dropped this run and its closures: detach them first.
        self.ws.set_onopen(None);
        self.ws.set_onmessage(None);
        self.ws.set_onclose(None);
        let _ = self.ws.close();
    }

    fn elapsed(&self) -> f64 {
        self.start.map_or(0.0, |s| now(&self.scope) - s)
    }

    fn post(&self, bodies: Vec<Body>) {
        post(&self.scope, self.id, bodies);
    }

    fn fail(&mut self, status: LiveStatus, why: String) {
        self.post(vec![Body::Status(status), Body::Failed(why)]);
        self.cancel();
    }

    fn receive(&mut self, text: &str) {
        let Some(Incoming::Answer {
            id: Some(id),
            result,
        }) = wire::parse(text)
        else {
            return;
        };
        if id == PING {
            match result {
                Ok(_) => {
                    self.start = Some(now(&self.scope));
                    self.post(vec![Body::Status(LiveStatus::Connected)]);
                    self.pump();
                }
                Err(e) => self.fail(
                    LiveStatus::RedisDown,
                    format!(
                        "প্রক্সি আছে, কিন্তু Redis সাড়া দিচ্ছে না ({}: {})",
                        e.code.name(),
                        e.code.bn()
                    ),
                ),
            }
            return;
        }
        let Some((actor, sent)) = self.pending.remove(&id) else {
            return;
        };
        let at = now(&self.scope);
        let rtt_us = ((at - sent) * 1000.0)
            .round()
            .clamp(0.0, f64::from(u32::MAX)) as u32;
        let reply = match result {
            Ok(r) => r,
            // Redis went away under the race: what follows would not be the race any more.
            Err(e) if matches!(e.code, Code::Unavailable | Code::UnknownOutcome) => {
                let why = format!(
                    "Redis হারিয়ে গেল দৌড়ের মাঝে — {} ({})",
                    e.code.bn(),
                    e.code.name()
                );
                self.fail(LiveStatus::RedisDown, why);
                return;
            }
            Err(e) => e.to_reply(),
        };
        let ms = self.elapsed().max(0.0) as u64;
        self.run.arrived(actor, reply, ms, rtt_us);
        self.pump();
    }

    fn clear_timer(&mut self) {
        if let Some(t) = self.timer.take() {
            self.scope.clear_timeout_with_handle(t);
        }
    }

    /// Runs what is due, sends what the workers sent, posts a snapshot now and then, and
    /// sets the timer for what comes next.
    fn pump(&mut self) {
        if self.start.is_none() {
            return;
        }
        let ms = self.elapsed().max(0.0) as u64;
        for (actor, cmd) in self.run.advance(ms) {
            let id = self.next_id;
            self.next_id += 1;
            self.pending.insert(id, (actor, now(&self.scope)));
            if self.ws.send_with_str(&wire::request(id, &cmd)).is_err() {
                self.fail(
                    LiveStatus::Lost("পাঠানো গেল না".into()),
                    "প্রক্সিতে কমান্ড পাঠানো গেল না — সংযোগ বন্ধ".into(),
                );
                return;
            }
        }
        let t = now(&self.scope);
        if self.run.is_done() {
            self.post(vec![Body::Done(self.run.snapshot())]);
            self.cancel();
            return;
        }
        if t - self.last_snapshot >= self.run.snapshot_ms() {
            self.last_snapshot = t;
            self.post(vec![Body::Part(self.run.snapshot())]);
        }
        self.clear_timer();
        if let (Some(next), Some(wake)) = (self.run.next_at(), self.wake.as_ref()) {
            let delay = (next as f64 - self.elapsed()).max(0.0).ceil() as i32;
            self.timer = self
                .scope
                .set_timeout_with_callback_and_timeout_and_arguments_0(
                    wake.as_ref().unchecked_ref(),
                    delay,
                )
                .ok();
        }
    }
}

/// What the lab says when there is no proxy.
/// (Where a student reads it: what to do about it is folded under "for instructors".)
const NO_PROXY: &str = "এখানে আসল Redis-এর প্রক্সি নেই, তাই আসল Redis-এ চালানো যাচ্ছে না।";

fn post(scope: &DedicatedWorkerGlobalScope, run: u32, bodies: Vec<Body>) {
    let msgs: Vec<FromWorker> = bodies
        .into_iter()
        .map(|body| FromWorker { run, body })
        .collect();
    crate::post_json(scope, &msgs);
}

//! The simulation worker: a second wasm binary that trunk builds as a dedicated Web Worker
//! (`<link data-trunk rel="rust" data-type="worker" data-bin="worker" data-loader-shim>` in
//! `index.html`). The app starts it the first time a lab needs a result
//! (`labs::worker::start`). It reads [`ToWorker`] messages (JSON strings), drives each run
//! ([`Work`]) a slice of about [`SLICE_MS`] at a time, oldest run first, and posts
//! [`FromWorker`] messages back — partial results as they come, progress now and then, the
//! output at the end — one JSON array per slice. Between slices it yields to its event loop (a `MessageChannel` ping,
//! which unlike `setTimeout` is never clamped), so a cancel or a newer run is read at once.
//!
//! Live jobs ([`redislab_sim::labs::work::Job::is_live`]: the lock race, the cache engine,
//! the streams lab, the queue) are not sliced: each opens its own WebSocket to the proxy and
//! runs in real time ([`live`]), beside the simulations.
//!
//! Why a second binary over gloo-worker / yew-agent: the protocol is three serde enums in
//! `redislab-sim` (tested natively), the worker loop is this page of code, and the main app
//! keeps no simulator code at all — only this binary links it.

#[path = "worker/live.rs"]
mod live;

use redislab_sim::labs::work::{self, Body, FromWorker, ToWorker, Work};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::js_sys::Date;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent, MessagePort};

/// Work per slice before the worker reads its messages again, in milliseconds.
const SLICE_MS: f64 = 40.0;
/// Least time between two progress messages of a run, in milliseconds.
const PROGRESS_MS: f64 = 120.0;

struct Run {
    id: u32,
    work: Work,
    told: f64,
}

struct Worker {
    scope: DedicatedWorkerGlobalScope,
    /// Messages of this slice, posted together when it ends (one message event, so one
    /// render, on the page however many rows or points the slice made).
    batch: Vec<FromWorker>,
    /// Pinging it schedules the next slice.
    wake: MessagePort,
    queue: VecDeque<Run>,
    scheduled: bool,
    /// Live runs (real time, driven by their sockets and timers, not by slices).
    lives: Vec<Rc<RefCell<live::Live>>>,
}

impl Worker {
    fn post(&mut self, run: u32, body: Body) {
        self.batch.push(FromWorker { run, body });
    }

    /// Sends what this slice said, as one JSON array.
    fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        post_json(&self.scope, &self.batch);
        self.batch.clear();
    }

    fn schedule(&mut self) {
        if !self.scheduled && !self.queue.is_empty() {
            self.scheduled = true;
            let _ = self.wake.post_message(&JsValue::NULL);
        }
    }

    fn receive(&mut self, text: &str) {
        self.lives.retain(|l| !l.borrow().is_over());
        match serde_json::from_str::<ToWorker>(text) {
            Ok(ToWorker::Start { run, job }) if job.is_live() => match work::live(&job) {
                Ok(driver) => {
                    let url = job.live_url.unwrap_or_default();
                    self.lives
                        .extend(live::Live::start(run, &self.scope, driver, &url));
                }
                Err(e) => self.post(run, Body::Failed(e)),
            },
            Ok(ToWorker::Start { run, job }) => match Work::new(job) {
                Ok(work) => self.queue.push_back(Run {
                    id: run,
                    work,
                    told: 0.0,
                }),
                Err(e) => self.post(run, Body::Failed(e)),
            },
            Ok(ToWorker::Cancel { run }) => {
                self.queue.retain(|r| r.id != run);
                for l in &self.lives {
                    if let Ok(mut l) = l.try_borrow_mut() {
                        if l.id() == run {
                            l.cancel();
                        }
                    }
                }
            }
            Err(e) => web_sys::console::error_1(&format!("worker: bad message: {e}").into()),
        }
        self.flush();
        self.schedule();
    }

    /// Works on the oldest run for about `SLICE_MS`.
    fn slice(&mut self) {
        self.scheduled = false;
        let start = Date::now();
        while let Some(run) = self.queue.front_mut() {
            let out = run.work.step();
            let id = run.id;
            let done = out
                .iter()
                .any(|b| matches!(b, Body::Done(_) | Body::Failed(_)));
            for body in out {
                self.post(id, body);
            }
            if done {
                self.queue.pop_front();
            }
            let now = Date::now();
            if now - start > SLICE_MS {
                break;
            }
        }
        if let Some(run) = self.queue.front_mut() {
            let now = Date::now();
            if now - run.told > PROGRESS_MS {
                run.told = now;
                let (id, p) = (run.id, run.work.progress());
                self.post(id, Body::Progress(p));
            }
        }
        self.flush();
        self.schedule();
    }
}

fn main() {
    let scope: DedicatedWorkerGlobalScope = web_sys::js_sys::global().unchecked_into();
    let Ok(channel) = MessageChannel::new() else {
        return;
    };
    let worker = Rc::new(RefCell::new(Worker {
        scope: scope.clone(),
        wake: channel.port2(),
        batch: Vec::new(),
        queue: VecDeque::new(),
        scheduled: false,
        lives: Vec::new(),
    }));
    let w = worker.clone();
    let on_wake = Closure::<dyn FnMut()>::new(move || w.borrow_mut().slice());
    channel
        .port1()
        .set_onmessage(Some(on_wake.as_ref().unchecked_ref()));
    on_wake.forget();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        if let Some(text) = e.data().as_string() {
            worker.borrow_mut().receive(&text);
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    // Messages that arrived while the wasm was loading had no listener: say when we have one.
    post_json(
        &scope,
        &[FromWorker {
            run: 0,
            body: Body::Ready,
        }],
    );
}

/// Posts `msgs` as JSON in UTF-8 bytes, the buffer transferred, not copied. A string would
/// cost the page twice: converting a large result (a run's whole trace, Bengali notes and
/// all) from the page's UTF-16 into the labs module's UTF-8 took longer there than parsing
/// it. The page reads the bytes straight into its memory (`src/labs/worker.rs`).
pub fn post_json(scope: &DedicatedWorkerGlobalScope, msgs: &[FromWorker]) {
    let Ok(bytes) = serde_json::to_vec(msgs) else {
        return;
    };
    let data = web_sys::js_sys::Uint8Array::from(&bytes[..]);
    let transfer = web_sys::js_sys::Array::of1(&data.buffer());
    let _ = scope.post_message_with_transfer(&data, &transfer);
}

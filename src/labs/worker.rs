//! The main thread's side of the simulation worker (`src/bin/worker.rs`): started the first
//! time a lab asks for a run, it carries typed [`Job`]s out and [`FromWorker`] messages back,
//! as JSON strings. Each run has an id; a cancelled run's handler is dropped at once, so
//! nothing a stale run still sends reaches a lab. Messages wait until the worker says it is
//! listening ([`Body::Ready`]): a worker drops what arrives while its wasm still loads.

use redislab_sim::labs::work::{Body, FromWorker, Job, ToWorker};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};

/// The worker's loader, relative to the page (trunk writes it beside `index.html`), so the
/// app works under any sub-path.
const URL: &str = "worker_loader.js";

type Handler = Box<dyn Fn(Body)>;

#[derive(Default)]
struct Client {
    worker: Option<Worker>,
    /// The worker has said it listens ([`Body::Ready`]); until then messages wait in `held`.
    ready: bool,
    held: Vec<ToWorker>,
    next: u32,
    handlers: HashMap<u32, std::rc::Rc<Handler>>,
}

impl Client {
    /// Posts `msg`, or holds it until the worker listens.
    fn send(&mut self, msg: ToWorker) {
        match (&self.worker, self.ready) {
            (Some(w), true) => post(w, &msg),
            _ => match msg {
                // A run that never left: forget it.
                ToWorker::Cancel { run } => self
                    .held
                    .retain(|m| !matches!(m, ToWorker::Start { run: r, .. } if *r == run)),
                start => self.held.push(start),
            },
        }
    }
}

thread_local! {
    static CLIENT: RefCell<Client> = RefCell::new(Client::default());
}

fn post(worker: &Worker, msg: &ToWorker) {
    if let Ok(s) = serde_json::to_string(msg) {
        let _ = worker.post_message(&JsValue::from_str(&s));
    }
}

fn deliver(msg: FromWorker) {
    if msg.body == Body::Ready {
        CLIENT.with(|c| {
            let mut c = c.borrow_mut();
            c.ready = true;
            if let Some(w) = c.worker.clone() {
                for m in std::mem::take(&mut c.held) {
                    post(&w, &m);
                }
            }
        });
        return;
    }
    let last = matches!(msg.body, Body::Done(_) | Body::Failed(_));
    let handler = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if last {
            c.handlers.remove(&msg.run)
        } else {
            c.handlers.get(&msg.run).cloned()
        }
    });
    // Called outside the borrow: a handler may start or cancel runs.
    if let Some(h) = handler {
        h(msg.body);
    }
}

/// Tells every waiting lab that the worker failed.
fn fail_all(why: String) {
    let handlers: Vec<_> = CLIENT.with(|c| c.borrow_mut().handlers.drain().collect());
    for (_, h) in handlers {
        h(Body::Failed(why.clone()));
    }
}

/// One message from the worker: an array of [`FromWorker`] per slice of its work (or per
/// run it gives at once), as JSON in UTF-8 bytes (see `post_json` in `src/bin/worker.rs`).
/// It is read now and handed to the labs a task later, each message in a task of its own
/// ([`flush`]): a lab's first results, read and drawn in one task, made a task of 50 ms or
/// more on a cold page (each half compiles its own code on first use), and so did two runs'
/// results drawn together. Messages keep the order they were sent in, and a run cancelled
/// meanwhile is dropped by [`deliver`].
fn on_data(data: &JsValue) {
    let Some(bytes) = data.dyn_ref::<js_sys::Uint8Array>() else {
        web_sys::console::error_1(&"lab worker: a message that is not bytes".into());
        return;
    };
    match serde_json::from_slice::<Vec<FromWorker>>(&bytes.to_vec()) {
        Ok(msgs) => INBOX.with(|inbox| {
            let mut inbox = inbox.borrow_mut();
            if inbox.is_empty() {
                flush_later();
            }
            inbox.push_back(msgs);
        }),
        Err(e) => web_sys::console::error_1(&format!("lab worker: {e}").into()),
    }
}

thread_local! {
    /// Messages read and not yet handed on; a flush is pending while it is not empty.
    static INBOX: RefCell<VecDeque<Vec<FromWorker>>> = const { RefCell::new(VecDeque::new()) };
    /// [`flush`] as the one callback every pending timer calls (made once, never dropped).
    static FLUSH: Closure<dyn Fn()> = Closure::new(flush);
}

fn flush_later() {
    FLUSH.with(|f| {
        let _ = crate::dom::window().set_timeout_with_callback(f.as_ref().unchecked_ref());
    });
}

/// Hands the oldest message read to its labs (so they draw once for it), and the next one a
/// task later.
fn flush() {
    let (msgs, more) = INBOX.with(|inbox| {
        let mut inbox = inbox.borrow_mut();
        (inbox.pop_front().unwrap_or_default(), !inbox.is_empty())
    });
    if more {
        flush_later();
    }
    msgs.into_iter().for_each(deliver);
}

/// The worker the page started ahead of this module (`redislabEarlyWorker`, see
/// `crates/deck/src/shell.rs`), with what it has said so far; `None` if there is none or it
/// failed to start (then a fresh one is started and reports its own failure).
fn adopt_early() -> Option<(Worker, Vec<JsValue>)> {
    let window = crate::dom::window();
    let key = JsValue::from_str("redislabEarlyWorker");
    let early = js_sys::Reflect::get(&window, &key).ok()?;
    if early.is_undefined() || early.is_null() {
        return None;
    }
    let _ = js_sys::Reflect::delete_property(window.unchecked_ref::<js_sys::Object>(), &key);
    let field = |name: &str| js_sys::Reflect::get(&early, &name.into()).ok();
    let worker = field("worker")?.dyn_into::<Worker>().ok()?;
    let failed = field("failed").map(|f| js_sys::Array::from(&f).length() > 0);
    if failed != Some(false) {
        worker.terminate();
        return None;
    }
    let held = field("held")
        .map(|h| js_sys::Array::from(&h).iter().collect())
        .unwrap_or_default();
    Some((worker, held))
}

/// The worker, with our handlers on it, and the messages it posted before this module took it
/// over (to be read once the client is no longer borrowed).
fn spawn() -> Option<(Worker, Vec<JsValue>)> {
    let (worker, held) = match adopt_early() {
        Some(early) => early,
        None => (Worker::new(URL).ok()?, Vec::new()),
    };
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|e: MessageEvent| on_data(&e.data()));
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(|e: web_sys::ErrorEvent| {
        fail_all(format!("সিমুলেশন worker চালু হলো না: {}", e.message()));
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    Some((worker, held))
}

/// Starts the worker if it is not running yet; returns what an adopted worker already said.
fn ensure(c: &mut Client) -> Vec<JsValue> {
    if c.worker.is_some() {
        return Vec::new();
    }
    let (worker, held) = spawn().unzip();
    c.worker = worker;
    held.unwrap_or_default()
}

/// Starts the worker now if it is not running yet, so its wasm loads while the page renders
/// (a lab page calls it before its labs ask for their first runs).
pub fn prepare() {
    let held = CLIENT.with(|c| ensure(&mut c.borrow_mut()));
    held.iter().for_each(on_data);
}

/// Starts `job` in the worker (starting the worker first if needed); `on` hears every
/// message of the run until it is done or cancelled. Returns the run id.
pub fn start(job: Job, on: impl Fn(Body) + 'static) -> u32 {
    let (id, started, held) = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let held = ensure(&mut c);
        c.next += 1;
        let id = c.next;
        c.handlers.insert(id, std::rc::Rc::new(Box::new(on)));
        c.send(ToWorker::Start { run: id, job });
        (id, c.worker.is_some(), held)
    });
    held.iter().for_each(on_data);
    if !started {
        fail_all("এই ব্রাউজারে Web Worker চালু করা গেল না".into());
    }
    id
}

/// Cancels run `id`: the worker drops it, and nothing more of it is delivered.
pub fn cancel(id: u32) {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if c.handlers.remove(&id).is_some() {
            c.send(ToWorker::Cancel { run: id });
        }
    });
}

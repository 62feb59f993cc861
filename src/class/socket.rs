//! The page's class socket (`/class` beside the page): typed ops out, typed pushes in
//! (`redislab_sim::class`), and a reconnect by itself — 0.5 s, then up to 4 s apart — after
//! which the owner sends its join (or teach) again and the proxy sends the class as it is
//! now. A socket that never opened means there is no proxy (a static host, `trunk serve`).

use redislab_sim::class::{Down, Op, Request};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CloseEvent, MessageEvent, WebSocket};
use yew::Callback;

/// The connection as a page shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// Opening (the first time).
    Connecting,
    /// Open.
    Open,
    /// It was open and broke: reconnecting.
    Away,
    /// It never opened: no proxy here.
    NoProxy,
}

/// What the socket tells its owner.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The link changed; `Open` after a reconnect too (send the join again).
    Link(Link),
    /// A message from the proxy.
    Down(Down),
}

type Handlers = (
    Closure<dyn FnMut()>,
    Closure<dyn FnMut(MessageEvent)>,
    Closure<dyn FnMut(CloseEvent)>,
);

struct Inner {
    ws: Option<WebSocket>,
    handlers: Option<Handlers>,
    next: u64,
    /// It opened once: a close now is "away", not "no proxy".
    opened: bool,
    tries: u32,
    timer: Option<gloo_timers::callback::Timeout>,
    closed: bool,
}

/// A class socket that reconnects by itself; closed for good when dropped.
#[derive(Clone)]
pub struct ClassSocket {
    inner: Rc<RefCell<Inner>>,
    on: Callback<Event>,
}

impl PartialEq for ClassSocket {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner)
    }
}

fn url() -> String {
    redislab_sim::class::ws_url(&crate::dom::window().location().href().unwrap_or_default())
}

impl ClassSocket {
    /// Opens the class socket; `on` hears every event.
    pub fn open(on: Callback<Event>) -> ClassSocket {
        let s = ClassSocket {
            inner: Rc::new(RefCell::new(Inner {
                ws: None,
                handlers: None,
                next: 0,
                opened: false,
                tries: 0,
                timer: None,
                closed: false,
            })),
            on,
        };
        s.connect();
        s
    }

    fn connect(&self) {
        let Ok(ws) = WebSocket::new(&url()) else {
            self.on.emit(Event::Link(Link::NoProxy));
            return;
        };
        let was_open = Rc::new(Cell::new(false));
        let on_open = {
            let (me, was_open) = (self.clone(), was_open.clone());
            Closure::<dyn FnMut()>::new(move || {
                was_open.set(true);
                {
                    let mut i = me.inner.borrow_mut();
                    i.opened = true;
                    i.tries = 0;
                }
                me.on.emit(Event::Link(Link::Open));
            })
        };
        let on_message = {
            let on = self.on.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                if let Some(d) = e.data().as_string().and_then(|t| Down::parse(&t)) {
                    on.emit(Event::Down(d));
                }
            })
        };
        let on_close = {
            let me = self.clone();
            Closure::<dyn FnMut(CloseEvent)>::new(move |_e: CloseEvent| me.closed_now())
        };
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        let mut i = self.inner.borrow_mut();
        i.ws = Some(ws);
        i.handlers = Some((on_open, on_message, on_close));
    }

    fn closed_now(&self) {
        let (opened, tries, closed) = {
            let i = self.inner.borrow();
            (i.opened, i.tries, i.closed)
        };
        if closed {
            return;
        }
        if !opened && tries >= 2 {
            // Never open after three tries: no proxy serves this page.
            self.on.emit(Event::Link(Link::NoProxy));
            return;
        }
        self.on.emit(Event::Link(if opened {
            Link::Away
        } else {
            Link::Connecting
        }));
        let wait = (500 * 2u32.pow(tries.min(3))).min(4_000);
        let me = self.clone();
        let t = gloo_timers::callback::Timeout::new(wait, move || {
            me.inner.borrow_mut().tries += 1;
            me.connect();
        });
        self.inner.borrow_mut().timer = Some(t);
    }

    /// Sends an op; its id, or `None` when the socket is not open (the owner sends again
    /// after the next `Open`).
    pub fn send(&self, op: Op) -> Option<u64> {
        let mut i = self.inner.borrow_mut();
        let ws = i.ws.clone()?;
        if ws.ready_state() != WebSocket::OPEN {
            return None;
        }
        i.next += 1;
        let id = i.next;
        ws.send_with_str(&Request { id, op }.to_text())
            .ok()
            .map(|_| id)
    }

    /// Closes it for good (no reconnect).
    pub fn close(&self) {
        let mut i = self.inner.borrow_mut();
        i.closed = true;
        i.timer = None;
        if let Some(ws) = i.ws.take() {
            ws.set_onclose(None);
            ws.set_onmessage(None);
            ws.set_onopen(None);
            let _ = ws.close();
        }
        i.handlers = None;
    }
}

/// Keeps `value` under `key` for this tab only (`sessionStorage`).
pub fn tab_store(key: &str, value: Option<&str>) {
    if let Ok(Some(s)) = crate::dom::window().session_storage() {
        let _ = match value {
            Some(v) => s.set_item(key, v),
            None => s.remove_item(key),
        };
    }
}

/// What this tab keeps under `key`.
pub fn tab_stored(key: &str) -> Option<String> {
    crate::dom::window()
        .session_storage()
        .ok()??
        .get_item(key)
        .ok()?
}

/// 128 random bits as hex (a tab's id).
pub fn random_id() -> String {
    (0..4)
        .map(|_| format!("{:08x}", (js_sys::Math::random() * 4_294_967_296.0) as u32))
        .collect()
}

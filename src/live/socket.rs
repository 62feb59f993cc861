//! The page's own WebSocket to the proxy (the console's): request ids, each answer matched
//! to its request once, the round trip of each, and the connection's state — a `PING` right
//! after the upgrade tells "connected" from "the proxy is there but Redis is not".

use redislab_sim::wire::{self, ErrBody, Incoming, LiveStatus};
use redislab_sim::Reply;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CloseEvent, MessageEvent, WebSocket};
use yew::Callback;

/// The id of the `PING` that checks Redis.
const PING: u64 = 0;

/// What the socket tells its owner.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The connection changed.
    Status(LiveStatus),
    /// The answer to request `id`, and its round trip in ms.
    Answer {
        /// The request's id.
        id: u64,
        /// The reply or the proxy's error.
        result: Result<Reply, ErrBody>,
        /// Milliseconds from sending to the answer.
        rtt_ms: f64,
    },
}

fn now() -> f64 {
    crate::dom::window().performance().map_or(0.0, |p| p.now())
}

/// The socket's open, message and close handlers (kept alive as long as the socket).
type Handlers = (
    Closure<dyn FnMut()>,
    Closure<dyn FnMut(MessageEvent)>,
    Closure<dyn FnMut(CloseEvent)>,
);

/// An open (or opening) connection; closed when dropped.
pub struct Socket {
    ws: WebSocket,
    next: u64,
    /// Request id → sent at.
    pending: Rc<RefCell<HashMap<u64, f64>>>,
    _handlers: Handlers,
}

impl Socket {
    /// Opens the proxy's socket beside the page; `on` hears every event. `None` when the
    /// browser refuses the address (then `on` has heard [`LiveStatus::NoProxy`]).
    pub fn open(on: Callback<Event>) -> Option<Socket> {
        on.emit(Event::Status(LiveStatus::Connecting));
        let Ok(ws) = WebSocket::new(&super::ws_url()) else {
            on.emit(Event::Status(LiveStatus::NoProxy));
            return None;
        };
        let pending: Rc<RefCell<HashMap<u64, f64>>> = Rc::default();
        let opened = Rc::new(std::cell::Cell::new(false));
        let on_open = {
            let (ws, opened, pending) = (ws.clone(), opened.clone(), pending.clone());
            Closure::<dyn FnMut()>::new(move || {
                opened.set(true);
                pending.borrow_mut().insert(PING, now());
                let _ = ws.send_with_str(&wire::request(PING, &[b"PING".to_vec()]));
            })
        };
        let on_message = {
            let (on, pending) = (on.clone(), pending.clone());
            Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                let Some(text) = e.data().as_string() else {
                    return;
                };
                let Some(Incoming::Answer {
                    id: Some(id),
                    result,
                }) = wire::parse(&text)
                else {
                    return;
                };
                let Some(sent) = pending.borrow_mut().remove(&id) else {
                    return;
                };
                if id == PING {
                    on.emit(Event::Status(if result.is_ok() {
                        LiveStatus::Connected
                    } else {
                        LiveStatus::RedisDown
                    }));
                    return;
                }
                on.emit(Event::Answer {
                    id,
                    result,
                    rtt_ms: now() - sent,
                });
            })
        };
        let on_close = {
            let (on, opened) = (on.clone(), opened.clone());
            Closure::<dyn FnMut(CloseEvent)>::new(move |e: CloseEvent| {
                on.emit(Event::Status(if opened.get() {
                    LiveStatus::Lost(format!("প্রক্সি সংযোগ বন্ধ করল (কোড {})", e.code()))
                } else {
                    LiveStatus::NoProxy
                }));
            })
        };
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        Some(Socket {
            ws,
            next: PING + 1,
            pending,
            _handlers: (on_open, on_message, on_close),
        })
    }

    /// Sends a command; its id, or `None` when the socket is not open.
    pub fn send(&mut self, words: &[String]) -> Option<u64> {
        if self.ws.ready_state() != WebSocket::OPEN {
            return None;
        }
        let id = self.next;
        self.next += 1;
        let words: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
        self.pending.borrow_mut().insert(id, now());
        self.ws
            .send_with_str(&wire::request(id, &words))
            .ok()
            .map(|_| id)
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.ws.set_onclose(None);
        self.ws.set_onmessage(None);
        self.ws.set_onopen(None);
        let _ = self.ws.close();
    }
}

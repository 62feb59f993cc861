//! A class-mode client (`/class`): typed ops up, typed pushes down, as the pages send and
//! read them (`redislab_sim::class`).

use futures_util::{SinkExt, StreamExt};
use redislab_sim::class::{Down, Op, Position, Refusal, Request, View};
use std::net::SocketAddr;
use std::time::Duration;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::MaybeTlsStream;

use super::Stream;

/// One page of a class.
pub struct ClassWs {
    pub ws: Stream,
    next: u64,
    /// The newest view received: (seq, q, open, set, view).
    pub view: Option<(u64, u64, bool, u64, View)>,
    /// Every push other than views and replies, in order.
    pub pushes: Vec<Down>,
    /// The class ended (how), or the socket closed (`Some(None)`).
    pub ended: Option<Option<redislab_sim::class::Ending>>,
}

/// How long a test waits for one message.
pub fn within() -> Duration {
    Duration::from_secs(if cfg!(debug_assertions) { 30 } else { 10 })
}

impl ClassWs {
    /// Connects to `addr`'s `/class` from `source` (a loopback address), as a page of
    /// `origin` would.
    pub async fn connect_from(
        addr: SocketAddr,
        source: std::net::Ipv4Addr,
    ) -> Result<ClassWs, tokio_tungstenite::tungstenite::Error> {
        let sock = tokio::net::TcpSocket::new_v4()?;
        sock.bind(SocketAddr::from((source, 0)))?;
        let tcp = sock.connect(addr).await?;
        tcp.set_nodelay(true)?;
        let mut req = format!("ws://{addr}/class").into_client_request().unwrap();
        req.headers_mut().insert(
            "origin",
            HeaderValue::from_str(&format!("http://{addr}")).unwrap(),
        );
        let (ws, _) = tokio_tungstenite::client_async(req, MaybeTlsStream::Plain(tcp)).await?;
        Ok(ClassWs {
            ws,
            next: 0,
            view: None,
            pushes: Vec::new(),
            ended: None,
        })
    }

    pub async fn connect(addr: SocketAddr) -> ClassWs {
        Self::connect_from(addr, std::net::Ipv4Addr::LOCALHOST)
            .await
            .expect("upgrade")
    }

    /// Sends an op; its id.
    pub async fn send(&mut self, op: Op) -> u64 {
        self.next += 1;
        let id = self.next;
        let text = Request { id, op }.to_text();
        self.send_text(text).await;
        id
    }

    pub async fn send_text(&mut self, text: String) {
        self.ws.send(Message::Text(text.into())).await.unwrap();
    }

    /// The next message (views and pushes are also recorded); `None` when the socket closed.
    pub async fn next(&mut self) -> Option<Down> {
        loop {
            let m = tokio::time::timeout(within(), self.ws.next())
                .await
                .expect("a message in time");
            let t = match m {
                Some(Ok(Message::Text(t))) => t,
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => {
                    self.ended.get_or_insert(None);
                    return None;
                }
                Some(Ok(_)) => continue,
            };
            let d = Down::parse(t.as_str()).unwrap_or_else(|| panic!("not a push: {t}"));
            match &d {
                Down::View {
                    seq,
                    q,
                    open,
                    set,
                    view,
                } => {
                    if let Some((s, ..)) = &self.view {
                        assert!(seq > s, "views only move forward: {seq} after {s}");
                    }
                    self.view = Some((*seq, *q, *open, *set, (**view).clone()));
                }
                Down::Ended { why } => self.ended = Some(Some(*why)),
                Down::Ok { .. }
                | Down::Err { .. }
                | Down::Created { .. }
                | Down::Taught { .. }
                | Down::Joined { .. }
                | Down::Answered { .. } => {}
                other => self.pushes.push(other.clone()),
            }
            return Some(d);
        }
    }

    /// Sends `op` and returns its reply (pushes before it are recorded).
    pub async fn call(&mut self, op: Op) -> Down {
        let id = self.send(op).await;
        loop {
            let d = self.next().await.expect("a reply before the close");
            let rid = match &d {
                Down::Ok { id }
                | Down::Created { id, .. }
                | Down::Taught { id, .. }
                | Down::Joined { id, .. }
                | Down::Answered { id, .. } => Some(*id),
                Down::Err { id, .. } => *id,
                _ => continue,
            };
            assert_eq!(rid, Some(id), "the reply to {id}: {d:?}");
            return d;
        }
    }

    /// Reads until the newest view has `seq` ≥ `want`.
    pub async fn until_seq(&mut self, want: u64) {
        while self.view.as_ref().is_none_or(|v| v.0 < want) {
            self.next().await.expect("a view before the close");
        }
    }

    /// Reads until `pred` holds of what was received.
    pub async fn until(&mut self, what: &str, pred: impl Fn(&ClassWs) -> bool) {
        while !pred(self) {
            if self.next().await.is_none() {
                assert!(pred(self), "closed before: {what}");
                return;
            }
        }
    }

    /// Reads until the socket closes.
    pub async fn until_closed(&mut self) {
        while self.next().await.is_some() {}
    }
}

/// The refusal in a reply (panics on success).
pub fn refusal(d: &Down) -> Refusal {
    match d {
        Down::Err { code, .. } => *code,
        other => panic!("refused, not {other:?}"),
    }
}

/// A view at slide `slide` of the production deck.
pub fn at(slide: u32, step: u32) -> View {
    View {
        at: Position {
            deck: "production".into(),
            slide,
            step,
        },
        ..View::default()
    }
}

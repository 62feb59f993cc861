//! [`Nodes`]: several Redis servers behind one world — independent primaries, or a primary
//! with an asynchronous replica — with faults planned in virtual time: a node crashes, a
//! replica is promoted, a node's wall clock jumps, a client cannot reach a node.
//!
//! **Routing by connection.** A client process keeps one connection per node (a Redlock
//! client does, and so does a client of a failover pair: its one connection follows the
//! primary). The engine's actor is a connection: with `n` nodes, actor `k·n + i` (Redis
//! client `k·n + i + 1`) is client `k`'s connection to node `i`, so a command needs no
//! extra word to say where it goes and each node sees its own clients. A model builds its
//! actor ids with [`Nodes::conn`].
//!
//! **Faults** are planned before the run ([`Nodes::plan`]) and happen exactly at their
//! time: before a command or a clock move past that time, every node is first brought to
//! it. A crashed node refuses connections ([`Sent::Refused`]: the client hears
//! [`super::Outcome::Refused`], as from a host whose Redis process died) and never comes
//! back. Crashing the primary of a pair cuts its replication stream at that moment: what it
//! had produced and the replica had not yet applied is lost ([`Replicated::promote`]); the
//! clients reach the replica only when [`Fault::Promote`] makes it the primary they talk
//! to. A clock jump moves one node's wall clock ([`SimRedis::jump_clock`]): its keys'
//! absolute deadlines come sooner (forward) while the other nodes and the clients keep
//! time. A cut ([`Nodes::cut`]) is a network partition between one client and one node:
//! that connection is refused for the whole run.
//!
//! [`Nodes::peek`] looks at a key on a node without running a command (for a lab's own
//! picture of who holds what), and [`Nodes::happened`] lists the faults applied so far.

use super::backend::{Backend, Delivery, Sent, To};
use super::engine::OpId;
use super::ActorId;
use crate::redis::{ClientId, Exec, Node as PairNode, Replicated, SimRedis};

/// A fault, at a virtual time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Node `i` dies (a pair: its primary; the stream to the replica is cut).
    Crash(usize),
    /// Node `i`, a pair whose primary crashed: its replica becomes the primary the clients
    /// reach (`REPLICAOF NO ONE`).
    Promote(usize),
    /// Node `i`'s wall clock jumps by `ms` (a pair: the node clients reach).
    ClockJump(usize, i64),
}

enum Slot {
    Solo(Box<SimRedis>),
    Pair(Box<Replicated>),
}

struct NodeState {
    slot: Slot,
    down: bool,
    promoted: bool,
}

impl NodeState {
    /// The server the clients reach (a pair: the primary, or the replica once promoted).
    fn serving(&self) -> &SimRedis {
        match &self.slot {
            Slot::Solo(r) => r,
            Slot::Pair(p) if self.promoted => p.node(PairNode::Replica),
            Slot::Pair(p) => p.node(PairNode::Primary),
        }
    }

    fn advance_to(&mut self, t: u64) {
        match &mut self.slot {
            Slot::Solo(r) => r.advance_to(t),
            Slot::Pair(p) => p.advance_to(t),
        }
    }

    fn next_timeout_ms(&self) -> Option<u64> {
        if self.down {
            return None;
        }
        self.serving().next_timeout_ms()
    }

    fn take_woken(&mut self) -> Vec<crate::redis::Woken> {
        match &mut self.slot {
            Slot::Solo(r) => r.take_woken(),
            Slot::Pair(p) => {
                let mut w = p.take_woken(PairNode::Primary);
                w.extend(p.take_woken(PairNode::Replica));
                w
            }
        }
    }
}

/// Several Redis servers behind one world; see the module doc.
pub struct Nodes {
    nodes: Vec<NodeState>,
    /// Planned faults, in time order; `next` is the first not yet applied.
    plan: Vec<(u64, Fault)>,
    next: usize,
    /// (client, node) pairs that cannot reach each other.
    cuts: Vec<(usize, usize)>,
}

impl Nodes {
    /// `n` independent primaries, fresh SimRedis servers seeded from `seed`, each with the
    /// named scripts loaded (as the proxy loads them on a real Redis).
    pub fn primaries(n: usize, seed: u32) -> Self {
        let nodes = (0..n.max(1))
            .map(|i| NodeState {
                slot: Slot::Solo(Box::new(fresh(seed, i))),
                down: false,
                promoted: false,
            })
            .collect();
        Nodes {
            nodes,
            plan: Vec::new(),
            next: 0,
            cuts: Vec::new(),
        }
    }

    /// One node: a primary with an asynchronous replica that applies what the primary
    /// produced `lag_ms` later.
    pub fn replicated(seed: u32, lag_ms: u64) -> Self {
        let pair = Replicated::attach(fresh(seed, 0), seed ^ 0x0005_EED5, lag_ms);
        Nodes {
            nodes: vec![NodeState {
                slot: Slot::Pair(Box::new(pair)),
                down: false,
                promoted: false,
            }],
            plan: Vec::new(),
            next: 0,
            cuts: Vec::new(),
        }
    }

    /// Plans `fault` at virtual time `at_ms` (faults at the same time apply in the order
    /// planned). Plan before the run: a fault planned in the past applies at the next move.
    pub fn plan(&mut self, at_ms: u64, fault: Fault) {
        let i = self.plan[self.next..].partition_point(|&(t, _)| t <= at_ms) + self.next;
        self.plan.insert(i, (at_ms, fault));
    }

    /// Client `client` cannot reach node `node` (a partition, for the whole run).
    pub fn cut(&mut self, client: usize, node: usize) {
        self.cuts.push((client, node));
    }

    /// How many nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Always false: there is at least one node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The actor id of client `client`'s connection to node `node`.
    pub fn conn(&self, client: usize, node: usize) -> ActorId {
        client * self.nodes.len() + node
    }

    /// Which (client, node) a Redis client id stands for.
    fn route(&self, c: ClientId) -> (usize, usize) {
        let a = (c - 1) as usize;
        (a / self.nodes.len(), a % self.nodes.len())
    }

    /// Whether node `i` has crashed (and, a pair, not yet been promoted).
    pub fn is_down(&self, i: usize) -> bool {
        self.nodes[i].down
    }

    /// Whether node `i` is a pair whose replica was promoted.
    pub fn is_promoted(&self, i: usize) -> bool {
        self.nodes[i].promoted
    }

    /// The server clients reach at node `i` (for a look; a crashed node's last state).
    pub fn server(&self, i: usize) -> &SimRedis {
        self.nodes[i].serving()
    }

    /// Node `i`'s replica, when it is a pair.
    pub fn replica(&self, i: usize) -> Option<&SimRedis> {
        match &self.nodes[i].slot {
            Slot::Pair(p) => Some(p.node(PairNode::Replica)),
            Slot::Solo(_) => None,
        }
    }

    /// The string at `key` on node `i` as the clients would read it now, with its deadline
    /// in virtual ms; `None` when absent, expired, or the node is down.
    pub fn peek(&self, i: usize, key: &[u8]) -> Option<(&[u8], Option<u64>)> {
        let n = &self.nodes[i];
        if n.down {
            return None;
        }
        n.serving().peek_string(key)
    }

    /// The faults applied so far, with their times.
    pub fn happened(&self) -> &[(u64, Fault)] {
        &self.plan[..self.next]
    }

    /// Applies the faults due by `t`, each after bringing every node to its time.
    fn faults_to(&mut self, t: u64) {
        while let Some(&(at, fault)) = self.plan.get(self.next) {
            if at > t {
                break;
            }
            for n in &mut self.nodes {
                n.advance_to(at);
            }
            match fault {
                Fault::Crash(i) => {
                    if let Some(n) = self.nodes.get_mut(i) {
                        n.down = true;
                        if let Slot::Pair(p) = &mut n.slot {
                            // The stream stops here: what had not arrived is lost.
                            p.promote();
                        }
                    }
                }
                Fault::Promote(i) => {
                    if let Some(n) = self.nodes.get_mut(i) {
                        if matches!(n.slot, Slot::Pair(_)) && n.down {
                            n.down = false;
                            n.promoted = true;
                        }
                    }
                }
                Fault::ClockJump(i, ms) => {
                    if let Some(n) = self.nodes.get_mut(i) {
                        let promoted = n.promoted;
                        match &mut n.slot {
                            Slot::Solo(r) => r.jump_clock(ms),
                            Slot::Pair(p) if promoted => p.jump_clock(PairNode::Replica, ms),
                            Slot::Pair(p) => p.jump_clock(PairNode::Primary, ms),
                        }
                    }
                }
            }
            self.next += 1;
        }
    }

    fn woken(&mut self) -> Vec<Delivery> {
        let mut out = Vec::new();
        for n in &mut self.nodes {
            out.extend(n.take_woken().into_iter().map(|w| Delivery {
                to: To::Client(w.client),
                reply: w.reply,
                at_ms: w.at_ms,
            }));
        }
        out
    }
}

fn fresh(seed: u32, i: usize) -> SimRedis {
    SimRedis::new(seed.wrapping_add(0x9E37_79B9u32.wrapping_mul(i as u32 + 1))).with_named_scripts()
}

impl Backend for Nodes {
    fn send(&mut self, now_ms: u64, _op: OpId, client: ClientId, cmd: &[Vec<u8>]) -> Sent {
        self.faults_to(now_ms);
        let (who, i) = self.route(client);
        if self.nodes[i].down || self.cuts.contains(&(who, i)) {
            return Sent::Refused;
        }
        let n = &mut self.nodes[i];
        n.advance_to(now_ms);
        let exec = match &mut n.slot {
            Slot::Solo(r) => r.execute(client, cmd),
            Slot::Pair(p) => {
                let side = if n.promoted {
                    PairNode::Replica
                } else {
                    PairNode::Primary
                };
                p.execute(side, client, cmd)
            }
        };
        match exec {
            Exec::Reply(r) => Sent::Reply(r),
            Exec::Blocked => Sent::Blocked,
        }
    }

    fn take_woken(&mut self) -> Vec<Delivery> {
        self.woken()
    }

    fn next_timeout_ms(&self) -> Option<u64> {
        self.nodes
            .iter()
            .filter_map(NodeState::next_timeout_ms)
            .min()
    }

    fn advance_to(&mut self, now_ms: u64) -> Vec<Delivery> {
        self.faults_to(now_ms);
        for n in &mut self.nodes {
            n.advance_to(now_ms);
        }
        self.woken()
    }

    fn disconnect(&mut self, client: ClientId) {
        let (_, i) = self.route(client);
        match &mut self.nodes[i].slot {
            Slot::Solo(r) => r.disconnect(client),
            Slot::Pair(p) => {
                p.disconnect(PairNode::Primary, client);
                p.disconnect(PairNode::Replica, client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{cmd, Action, Actor, Ctx, Hop, Input, What, World};
    use super::*;
    use crate::redis::Reply;

    /// Sends one command when it starts, then stops.
    struct Once(Vec<&'static str>);

    impl Actor for Once {
        fn name(&self) -> String {
            self.0.join(" ")
        }
        fn act(&mut self, input: &Input, _: &mut Ctx<'_>) -> Action {
            match input {
                Input::Start => Action::Send { cmd: cmd(&self.0) },
                _ => Action::Done,
            }
        }
    }

    /// Idles (a connection no command goes through).
    struct Idle;

    impl Actor for Idle {
        fn name(&self) -> String {
            "idle".into()
        }
        fn act(&mut self, _: &Input, _: &mut Ctx<'_>) -> Action {
            Action::Done
        }
    }

    /// Runs `conns` (actor id = connection; `None` idles) against `nodes`: each sends its
    /// command at its time. Returns what each command got: (actor, reply or None when
    /// refused).
    fn run(
        nodes: Nodes,
        conns: Vec<Option<(u64, Vec<&'static str>)>>,
    ) -> Vec<(usize, Option<Reply>)> {
        let mut w = World::new(7, nodes);
        for c in conns {
            match c {
                Some((at, words)) => w.add(Box::new(Once(words)), Hop::symmetric(1), at),
                None => w.add(Box::new(Idle), Hop::default(), 0),
            };
        }
        w.run(1_000);
        w.trace()
            .iter()
            .filter_map(|e| match &e.what {
                What::Exec { reply, .. } => Some((e.actor, reply.clone())),
                What::Refused { .. } => Some((e.actor, None)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_connection_reaches_its_own_node() {
        // Two nodes: actor 0 is client 0 → node 0, actor 1 client 0 → node 1, actor 2
        // client 1 → node 0.
        let got = run(
            Nodes::primaries(2, 1),
            vec![
                Some((0, vec!["SET", "k", "a", "NX"])),
                Some((5, vec!["SET", "k", "b", "NX"])),
                Some((10, vec!["SET", "k", "c", "NX"])),
            ],
        );
        assert_eq!(
            got,
            vec![
                (0, Some(Reply::ok())),
                (1, Some(Reply::ok())),
                (2, Some(Reply::Nil))
            ]
        );
        let n = Nodes::primaries(5, 1);
        assert_eq!((n.conn(1, 3), n.route(9)), (8, (1, 3)));
    }

    /// A's lock on the primary at 1 ms, the primary crashes at `crash`, the replica is
    /// promoted at 100 ms, B asks for the same lock at 200 ms.
    fn failover(lag: u64, crash: u64) -> Vec<(usize, Option<Reply>)> {
        let mut n = Nodes::replicated(3, lag);
        n.plan(crash, Fault::Crash(0));
        n.plan(100, Fault::Promote(0));
        run(
            n,
            vec![
                Some((0, vec!["SET", "lock", "a", "NX", "PX", "30000"])),
                Some((50, vec!["SET", "lock", "b", "NX", "PX", "30000"])),
                Some((200, vec!["SET", "lock", "b", "NX", "PX", "30000"])),
            ],
        )
    }

    #[test]
    fn a_crash_before_the_write_reaches_the_replica_loses_the_lock() {
        // Lag 50 ms > 10 − 1 ms: the write is lost with the primary; down at 51 ms (refused);
        // after the promotion B gets the same lock.
        assert_eq!(
            failover(50, 10),
            vec![(0, Some(Reply::ok())), (1, None), (2, Some(Reply::ok()))]
        );
        // Lag 5 ms: the replica had it by 6 ms; B is told nil.
        assert_eq!(
            failover(5, 10),
            vec![(0, Some(Reply::ok())), (1, None), (2, Some(Reply::Nil))]
        );
    }

    #[test]
    fn a_clock_jump_expires_a_key_early_on_that_node_only() {
        let mut n = Nodes::primaries(2, 1);
        n.plan(100, Fault::ClockJump(1, 1_000));
        let got = run(
            n,
            vec![
                Some((0, vec!["SET", "lock", "a", "NX", "PX", "1000"])),
                Some((0, vec!["SET", "lock", "a", "NX", "PX", "1000"])),
                Some((200, vec!["SET", "lock", "b", "NX", "PX", "1000"])),
                Some((200, vec!["SET", "lock", "b", "NX", "PX", "1000"])),
            ],
        );
        // Node 0 still holds A's lock (deadline 1001 ms); node 1's clock passed it.
        assert_eq!(
            got,
            vec![
                (0, Some(Reply::ok())),
                (1, Some(Reply::ok())),
                (2, Some(Reply::Nil)),
                (3, Some(Reply::ok()))
            ]
        );
    }

    #[test]
    fn peek_and_cuts() {
        let mut n = Nodes::primaries(2, 1);
        n.cut(0, 1);
        let mut w = World::new(1, n);
        w.add(
            Box::new(Once(vec!["SET", "k", "v", "PX", "500"])),
            Hop::symmetric(1),
            0,
        );
        w.add(Box::new(Once(vec!["SET", "k", "v"])), Hop::symmetric(1), 0);
        w.add(Box::new(Idle), Hop::default(), 0);
        w.add(Box::new(Once(vec!["SET", "k", "w"])), Hop::symmetric(1), 0);
        w.run(100);
        let b = w.backend();
        assert_eq!(b.peek(0, b"k"), Some((&b"v"[..], Some(501))));
        // Client 0 could not reach node 1; client 1 could.
        assert_eq!(b.peek(1, b"k"), Some((&b"w"[..], None)));
        assert!(w
            .trace()
            .iter()
            .any(|e| e.actor == 1 && matches!(e.what, What::Refused { .. })));
        let mut n = Nodes::primaries(1, 1);
        n.plan(5, Fault::Crash(0));
        n.advance_to(10);
        assert!(n.is_down(0) && n.peek(0, b"k").is_none());
        assert_eq!(n.happened(), &[(5, Fault::Crash(0))]);
    }
}

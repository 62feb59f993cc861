//! The consumer group's consumers: read a batch (`XREADGROUP … >`, now and then
//! `XAUTOCLAIM` of what another consumer left too long), save each message (the poison one
//! never saves and goes to the dead-letter stream after its retries), `XACK` what saved.

use super::*;

impl Streams {
    // --- consumers ------------------------------------------------------------------------

    pub(super) fn consumer_turn(&mut self, io: &mut Io<Timer>, k: usize) {
        let state = std::mem::replace(&mut self.consumers[k].state, State::Idle);
        match state {
            State::Idle => self.read(io, k),
            State::Saving(batch) => self.saved(io, k, batch),
            State::Retrying(batch, i) => self.retry(io, k, batch, i),
            // Nothing due: a command is on its way, or it crashed.
            other => self.consumers[k].state = other,
        }
    }

    pub(super) fn poison(&self, n: u64) -> bool {
        self.p.poison_every > 0 && (n + 1) % self.p.poison_every == 0
    }

    pub(super) fn save(&mut self, n: u64) {
        let s = &mut self.state[n as usize];
        match *s {
            SAVED => self.c.duplicates += 1,
            _ => {
                *s = SAVED;
                self.c.saved += 1;
            }
        }
    }

    /// The batch's save is done: it failed (then one at a time), or XACK — unless this is
    /// the consumer that crashes after saving, before its XACK.
    pub(super) fn saved(&mut self, io: &mut Io<Timer>, k: usize, batch: Vec<Msg>) {
        let me = self.consumer_actor(k);
        let fails = batch.iter().any(|m| self.poison(m.n))
            || (self.p.fail_rate > 0 && self.rng.below(100) < self.p.fail_rate);
        if fails {
            self.c.failed_batches += 1;
            if self.c.failed_batches == 1 {
                self.note(io, me, "ব্যাচ সেভ ব্যর্থ — এবার একটা একটা করে", false);
            }
            self.consumers[k].state = State::Retrying(batch, 0);
            let t = io.now() + self.p.retry_ms;
            self.at(io, t, Timer::Consumer(k));
            return;
        }
        for m in &batch {
            self.save(m.n);
        }
        let crash = self.p.crash_worker as usize == k + 1
            && self.crash_ms.is_none()
            && io.now() >= self.p.crash_at;
        if crash {
            self.crash_ms = Some(io.now());
            self.consumers[k].state = State::Crashed;
            io.disconnect(me);
            let m = format!(
                "{} ক্র্যাশ: {}টা মেসেজ সেভ হয়েছে, XACK হয়নি",
                self.consumers[k].name,
                batch.len()
            );
            self.note(io, me, &m, true);
            return;
        }
        let mut xack = std::mem::take(&mut self.xack);
        if xack.len() < 3 {
            xack = cmd(&["XACK", STREAM, GROUP]);
        }
        // The IDs into the words of the last XACK, then spare ones; the rest kept for later.
        let n = 3 + batch.len();
        while xack.len() > n {
            self.spare.extend(xack.pop());
        }
        let mut ms = (Vec::new(), None);
        for (i, m) in batch.iter().enumerate() {
            if 3 + i == xack.len() {
                xack.push(self.spare.pop().unwrap_or_default());
            }
            write_id(&mut xack[3 + i], &mut ms, m.id);
        }
        self.send_buf(io, me, xack, Buf::Ack, "");
        self.consumers[k].state = State::Acking;
    }

    /// One message of a failed batch: poison goes to the dead-letter stream, the rest is
    /// saved on its own; each then XACKed.
    pub(super) fn retry(&mut self, io: &mut Io<Timer>, k: usize, batch: Vec<Msg>, i: usize) {
        let me = self.consumer_actor(k);
        let m = batch[i];
        if self.poison(m.n) {
            let id = m.id.to_string();
            let n = m.n.to_string();
            let note = if self.c.dead < 3 { "dead-letter" } else { "" };
            let args = ["XADD", DEAD, "*", "id", &id, "n", &n, "reason", POISON];
            self.send(io, me, &args, note, Rule::Usual);
            self.state[m.n as usize] = DEAD_LETTERED;
            self.c.dead += 1;
            self.consumers[k].state = State::DeadLettering(batch, i);
            return;
        }
        self.save(m.n);
        self.c.retried += 1;
        self.ack_one(io, k, batch, i);
    }

    pub(super) fn ack_one(&mut self, io: &mut Io<Timer>, k: usize, batch: Vec<Msg>, i: usize) {
        let me = self.consumer_actor(k);
        let note = if self.c.retried + self.c.dead <= 3 {
            "একটা একটা করে"
        } else {
            ""
        };
        let id = batch[i].id.to_string();
        self.send(io, me, &["XACK", STREAM, GROUP, &id], note, Rule::Usual);
        self.consumers[k].state = State::AckingOne(batch, i);
    }

    /// XAUTOCLAIM when it is time, else XREADGROUP.
    pub(super) fn read(&mut self, io: &mut Io<Timer>, k: usize) {
        let now = io.now();
        let w = &mut self.consumers[k];
        if self.p.autoclaim == Switch::On && now >= w.next_claim {
            w.next_claim = now + self.p.claim_every;
            let cursor = w.cursor.to_string();
            let me = self.consumer_actor(k);
            let args: [&[u8]; 8] = [
                b"XAUTOCLAIM",
                STREAM.as_bytes(),
                GROUP.as_bytes(),
                self.consumers[k].name.as_bytes(),
                &self.idle,
                cursor.as_bytes(),
                b"COUNT",
                &self.count,
            ];
            io.send_words(me, &args);
            self.count_send(me, "", Rule::Claim);
            self.consumers[k].state = State::Claiming;
            return;
        }
        self.read_group(io, k);
    }

    /// `XREADGROUP … COUNT … BLOCK … STREAMS orders >`: a batch, or blocked until one comes
    /// (or the block times out).
    pub(super) fn read_group(&mut self, io: &mut Io<Timer>, k: usize) {
        let me = self.consumer_actor(k);
        let read = std::mem::take(&mut self.consumers[k].read);
        self.send_buf(io, me, read, Buf::Read(k), "");
        self.consumers[k].state = State::Reading;
    }

    pub(super) fn got_batch(
        &mut self,
        io: &mut Io<Timer>,
        k: usize,
        batch: Vec<Msg>,
        claimed: bool,
    ) {
        if batch.is_empty() {
            self.consumers[k].state = State::Idle;
            let t = io.now();
            self.at(io, t, Timer::Consumer(k));
            return;
        }
        for m in &batch {
            self.c.delivered += 1;
            if claimed {
                self.c.reclaimed += 1;
            }
            let s = &mut self.state[m.n as usize];
            if *s == NEW {
                *s = DELIVERED;
            }
        }
        self.consumers[k].state = State::Saving(batch);
        let t = io.now() + self.p.save_ms;
        self.at(io, t, Timer::Consumer(k));
    }

    /// Consumer `k`'s command came back with `reply`.
    pub(super) fn consumer_reply(&mut self, io: &mut Io<Timer>, k: usize, reply: &RawReply) {
        let state = std::mem::replace(&mut self.consumers[k].state, State::Idle);
        match state {
            State::Claiming => {
                let (next, batch, deleted) = parse_autoclaim(&tree(reply));
                self.consumers[k].cursor = next;
                self.c.claim_deleted += deleted.len() as u64;
                self.pending = self.pending.saturating_sub(deleted.len() as u64);
                if batch.is_empty() {
                    self.read_group(io, k);
                } else {
                    self.got_batch(io, k, batch, true);
                }
            }
            State::Reading => {
                let batch = read_entries(reply);
                self.pending += batch.len() as u64;
                self.got_batch(io, k, batch, false);
            }
            State::Acking => {
                self.acked(reply);
                self.read(io, k);
            }
            State::DeadLettering(batch, i) => self.ack_one(io, k, batch, i),
            State::AckingOne(batch, i) => {
                self.acked(reply);
                if i + 1 < batch.len() {
                    self.consumers[k].state = State::Retrying(batch, i + 1);
                    let t = io.now() + self.p.retry_ms;
                    self.at(io, t, Timer::Consumer(k));
                } else {
                    self.read(io, k);
                }
            }
            other => self.consumers[k].state = other,
        }
    }

    pub(super) fn acked(&mut self, reply: &RawReply) {
        let n = integer(reply).map_or(0, |n| n.max(0) as u64);
        self.c.acked += n;
        self.pending = self.pending.saturating_sub(n);
    }
}

/// `id` as `ms-seq` into `to`; `ms` is the milliseconds part with its dash last written
/// (the entries of a batch mostly share it) and which number that was.
pub(in crate::labs::streams) fn write_id(
    to: &mut Vec<u8>,
    ms: &mut (Vec<u8>, Option<u64>),
    id: StreamId,
) {
    if ms.1 != Some(id.ms) {
        ms.0.clear();
        ms.0.extend_from_slice(num::decimal(id.ms, &mut [0u8; 20]));
        ms.0.push(b'-');
        ms.1 = Some(id.ms);
    }
    to.clear();
    to.extend_from_slice(&ms.0);
    to.extend_from_slice(num::decimal(id.seq, &mut [0u8; 20]));
}

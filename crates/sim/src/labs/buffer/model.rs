//! The whole audience in aggregate: each viewer's seeded moment in the second and leaving
//! time, the presence counts per second (arithmetic on who is still there) and the progress
//! Map per user, moment by moment (each flush, the failed flush's requeue, the end).

use super::sample::{self, Sample};
use super::{BufferParams, PRESENCE_MS};
use crate::rng::Mulberry32;
use serde::{Deserialize, Serialize};

/// One design's counts over the whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Redis commands.
    pub redis_cmds: u64,
    /// Round trips to Redis (a pipeline is one).
    pub round_trips: u64,
    /// Sorted-set members Redis wrote (the same in both designs).
    pub members: u64,
    /// Rows written to the database.
    pub db_rows: u64,
    /// Database queries sent (a failed one included).
    pub db_queries: u64,
}

/// One progress flush of the buffered design.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flush {
    /// When, s.
    pub at_s: u32,
    /// Rows in the Map it took (written when `ok`).
    pub rows: u64,
    /// Queries it sent (a failed flush: its first, which failed).
    pub queries: u64,
    /// It was written.
    pub ok: bool,
    /// A failed flush: rows put back in the Map.
    pub requeued: u64,
    /// A failed flush (`newer-wins`): rows not put back, the user's newer event being there.
    pub kept_newer: u64,
    /// A failed flush (`blind`): rows put back over the user's newer event.
    pub overwrote_newer: u64,
    /// A failed flush (`drop`): rows thrown away.
    pub dropped: u64,
}

/// Per user at the end: does the database (or the Map, not yet flushed) hold the latest
/// progress?
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Users with at least one event.
    pub users: u64,
    /// The database holds their latest event.
    pub written: u64,
    /// The Map holds their latest event, for the next flush.
    pub pending: u64,
    /// Neither: their progress in the database is older than their latest event (or none).
    pub behind: u64,
}

impl Check {
    /// Every user's latest progress is written or waiting in the Map.
    pub fn all_kept(&self) -> bool {
        self.behind == 0 && self.written + self.pending == self.users
    }
}

/// The run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BufferResult {
    /// The parameters.
    pub params: BufferParams,
    /// Viewers still there in each second (each sends one heartbeat and one progress event
    /// in it).
    pub active: Vec<u32>,
    /// Direct writes.
    pub direct: Totals,
    /// Buffered.
    pub buffered: Totals,
    /// Every progress flush.
    pub flushes: Vec<Flush>,
    /// When the failed flush's rows went back, ms (none without a failure).
    pub requeue_at_ms: Option<u64>,
    /// The buffered design's progress at the end.
    pub check: Check,
    /// The commands themselves, spoken to a SimRedis by a sample of viewers.
    pub sample: Sample,
}

impl BufferResult {
    /// `v` per second of the run.
    pub fn per_s(&self, v: u64) -> f64 {
        v as f64 / f64::from(self.params.seconds.max(1))
    }

    /// Commands the buffered presence flush sends in second `s` (`⌈active / chunk⌉`).
    pub fn buffered_cmds_at(&self, s: usize) -> u64 {
        u64::from(self.active.get(s).copied().unwrap_or(0)).div_ceil(u64::from(self.params.chunk.max(1)))
    }
}

/// Viewer `i`'s schedule: its moment in the second (ms) and its events (one a second from
/// that moment, while it stays).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Viewer {
    /// Its events come at `offset + 1000·k`.
    pub offset: u32,
    /// How many it sends.
    pub events: u32,
}

impl Viewer {
    /// Its events sent strictly before `ms` (its progress then: seconds watched).
    pub fn before(&self, ms: u64) -> u32 {
        let o = u64::from(self.offset);
        if ms <= o {
            0
        } else {
            ((ms - o).div_ceil(PRESENCE_MS)).min(u64::from(self.events)) as u32
        }
    }
}

/// Every viewer's schedule, seeded: three draws per viewer, so the first `n` viewers are the
/// same whatever the audience's size.
pub fn viewers(p: &BufferParams, n: u32) -> Vec<Viewer> {
    let mut rng = Mulberry32::new(p.seed ^ 0x00B0_FFE4);
    let run_ms = u64::from(p.seconds) * PRESENCE_MS;
    (0..n)
        .map(|_| {
            let offset = rng.below(PRESENCE_MS as u32);
            let leaves = rng.below(100) < p.leave;
            let at = u64::from(rng.below(run_ms as u32));
            let events = if leaves {
                (at.saturating_sub(u64::from(offset))).div_ceil(PRESENCE_MS) as u32
            } else {
                p.seconds
            };
            Viewer {
                offset,
                events: events.min(p.seconds),
            }
        })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Moment {
    /// Progress flush number `.0` (1-based).
    Flush(u32),
    /// The failed flush's rows go back.
    Requeue,
    /// The run ends: the Map takes the last events, nothing is flushed.
    End,
}

/// The run of `p`.
pub fn run(p: &BufferParams) -> BufferResult {
    let vs = viewers(p, p.viewers);
    let secs = p.seconds as usize;
    let chunk = u64::from(p.chunk.max(1));
    // Presence: who is there each second.
    let mut ends = vec![0u32; secs + 1];
    for v in &vs {
        ends[v.events as usize] += 1;
    }
    let mut active = vec![0u32; secs];
    let mut left = p.viewers;
    for (s, a) in active.iter_mut().enumerate() {
        left -= ends[s];
        *a = left;
    }
    let events: u64 = active.iter().map(|&a| u64::from(a)).sum();
    let direct = Totals {
        redis_cmds: events,
        round_trips: events,
        members: events,
        db_rows: events,
        db_queries: events,
    };
    let mut buffered = Totals {
        redis_cmds: active.iter().map(|&a| u64::from(a).div_ceil(chunk)).sum(),
        round_trips: active.iter().filter(|&&a| a > 0).count() as u64,
        members: events,
        ..Totals::default()
    };
    // Progress: the Map per user, moment by moment.
    let period = u64::from(p.progress_s.max(1)) * PRESENCE_MS;
    let mut moments: Vec<(u64, Moment)> = (1..=p.flushes())
        .map(|k| (u64::from(k) * period, Moment::Flush(k)))
        .collect();
    let requeue_at_ms =
        (p.fail > 0).then(|| u64::from(p.fail) * period + u64::from(p.db_ms));
    if let Some(r) = requeue_at_ms {
        moments.push((r, Moment::Requeue));
    }
    moments.push((u64::from(p.seconds) * PRESENCE_MS, Moment::End));
    moments.sort_by_key(|&(t, m)| (t, matches!(m, Moment::End)));
    let n = vs.len();
    let (mut last, mut map, mut db, mut pending) =
        (vec![0u32; n], vec![0u32; n], vec![0u32; n], vec![0u32; n]);
    let mut flushes = Vec::new();
    let mut failed = Flush::default();
    let batch = u64::from(p.batch.max(1));
    for &(t, m) in &moments {
        // Events since the last moment: the newest overwrites the user's row.
        for i in 0..n {
            let c = vs[i].before(t);
            if c > last[i] {
                last[i] = c;
                map[i] = c;
            }
        }
        match m {
            Moment::Flush(k) => {
                let rows = map.iter().filter(|&&v| v > 0).count() as u64;
                let ok = k != p.fail;
                let f = Flush {
                    at_s: (t / PRESENCE_MS) as u32,
                    rows,
                    queries: if ok { rows.div_ceil(batch) } else { u64::from(rows > 0) },
                    ok,
                    ..Flush::default()
                };
                let into = if ok { &mut db } else { &mut pending };
                for i in 0..n {
                    if map[i] > 0 {
                        into[i] = map[i];
                        map[i] = 0;
                    }
                }
                if ok {
                    buffered.db_rows += rows;
                }
                buffered.db_queries += f.queries;
                if ok {
                    flushes.push(f);
                } else {
                    failed = f;
                    flushes.push(f);
                }
            }
            Moment::Requeue => {
                for i in 0..n {
                    let v = std::mem::take(&mut pending[i]);
                    if v == 0 {
                        continue;
                    }
                    match p.requeue.as_str() {
                        "drop" => failed.dropped += 1,
                        "blind" => {
                            if map[i] > 0 {
                                failed.overwrote_newer += 1;
                            }
                            map[i] = v;
                            failed.requeued += 1;
                        }
                        _ => {
                            if map[i] > 0 {
                                failed.kept_newer += 1;
                            } else {
                                map[i] = v;
                                failed.requeued += 1;
                            }
                        }
                    }
                }
                if let Some(f) = flushes.iter_mut().find(|f| !f.ok) {
                    *f = failed;
                }
            }
            Moment::End => {}
        }
    }
    let mut check = Check::default();
    for i in 0..n {
        let latest = vs[i].events;
        if latest == 0 {
            continue;
        }
        check.users += 1;
        if map[i] == latest {
            check.pending += 1;
        } else if map[i] == 0 && db[i] == latest {
            check.written += 1;
        } else {
            check.behind += 1;
        }
    }
    BufferResult {
        params: p.clone(),
        active,
        direct,
        buffered,
        flushes,
        requeue_at_ms,
        check,
        sample: sample::run(p),
    }
}

fn num(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The table `labsim buffer` prints.
pub fn text(r: &BufferResult) -> String {
    let p = &r.params;
    let mut out = format!(
        "{} viewers for {} s (a heartbeat and a progress event each a second); presence \
         buffered 1 s in ZADDs of at most {}; progress flushed every {} s in queries of {} rows\n\n",
        num(u64::from(p.viewers)),
        p.seconds,
        p.chunk,
        p.progress_s,
        p.batch
    );
    out.push_str(&format!(
        "{:<22} {:>14} {:>14}\n",
        "per second (average)", "direct", "buffered"
    ));
    let row = |name: &str, d: u64, b: u64| {
        format!(
            "{:<22} {:>14} {:>14}\n",
            name,
            format!("{:.2}", r.per_s(d)),
            format!("{:.2}", r.per_s(b))
        )
    };
    out.push_str(&row("Redis commands", r.direct.redis_cmds, r.buffered.redis_cmds));
    out.push_str(&row("round trips", r.direct.round_trips, r.buffered.round_trips));
    out.push_str(&row("ZSET members written", r.direct.members, r.buffered.members));
    out.push_str(&row("DB rows", r.direct.db_rows, r.buffered.db_rows));
    out.push_str(&row("DB queries", r.direct.db_queries, r.buffered.db_queries));
    out.push_str(&format!(
        "\nwhole run: Redis commands {} vs {}, round trips {} vs {}, DB rows {} vs {}, DB queries {} vs {}\n",
        num(r.direct.redis_cmds),
        num(r.buffered.redis_cmds),
        num(r.direct.round_trips),
        num(r.buffered.round_trips),
        num(r.direct.db_rows),
        num(r.buffered.db_rows),
        num(r.direct.db_queries),
        num(r.buffered.db_queries)
    ));
    out.push_str("\nprogress flushes:\n");
    for f in &r.flushes {
        if f.ok {
            out.push_str(&format!(
                "  {:>4} s  {} rows in {} queries\n",
                f.at_s,
                num(f.rows),
                num(f.queries)
            ));
        } else {
            out.push_str(&format!(
                "  {:>4} s  FAILED ({} rows, requeue {}): put back {}, newer kept {}, newer overwritten {}, dropped {}\n",
                f.at_s,
                num(f.rows),
                p.requeue,
                num(f.requeued),
                num(f.kept_newer),
                num(f.overwrote_newer),
                num(f.dropped)
            ));
        }
    }
    let c = &r.check;
    out.push_str(&format!(
        "\nat the end: {} users; latest progress written {}, waiting in the Map {}, behind {}\n",
        num(c.users),
        num(c.written),
        num(c.pending),
        num(c.behind)
    ));
    let s = &r.sample;
    out.push_str(&format!(
        "\nSimRedis sample: {} viewers for {} s — direct {} commands in {} round trips, \
         buffered {} commands in {} round trips; ZCARD {} / {}\n",
        s.viewers,
        s.seconds,
        num(s.direct.cmds),
        num(s.direct.round_trips),
        num(s.buffered.cmds),
        num(s.buffered.round_trips),
        s.direct.zcard,
        s.buffered.zcard
    ));
    out
}

//! What the labs with a live mode whose run is walked step by step (aside, queues, lock) share:
//! the simulation and the live run with the timeline over the output shown ([`use_walk`]), and
//! a command-by-command position's time, trace cut and scrubber label ([`CmdPos`]), and an
//! entry-by-entry one's ([`TracePos`], lock and redlock).

use super::transport::{use_steps, Time};
use super::work::{use_sim_live, SimLive};
use super::LabState;
use redislab_deck::bn;
use redislab_sim::labs::def::{RunDef, Steps};
use redislab_sim::labs::log::{CmdSteps, TraceSteps};
use redislab_sim::labs::ui::Open;
use yew::prelude::*;

/// `lab`'s run `R` simulated and (on its own page, switched on) live ([`use_sim_live`]), and
/// the timeline over the output shown, playing at `tick_ms` a step: a new output opens on the
/// whole run, ▶ replays it from the start.
#[hook]
pub fn use_walk<R>(lab: &LabState, tick_ms: u32) -> (SimLive<R::Output>, UseReducerHandle<Time>)
where
    R: RunDef<Part = ()>,
    R::Output: PartialEq + Steps,
{
    let sl = use_sim_live::<R>(lab, true, true);
    let t = use_steps(sl.shown(), tick_ms, Open::End);
    (sl, t)
}

/// The position the cursor shows on a run whose positions are its commands.
#[derive(Clone, Debug, PartialEq)]
pub struct CmdPos {
    /// The position (the commands shown).
    pub n: usize,
    /// Its time, ms.
    pub now: u64,
    /// The trace index up to which it shows ([`CmdSteps::cut`]).
    pub cut: usize,
    /// The scrubber's label: the time (as `ms` writes it) and the commands shown of all.
    pub label: String,
}

impl CmdPos {
    /// Position `cursor` of `r` (held to its steps).
    pub fn of<O: CmdSteps + Steps>(r: &O, cursor: usize, ms: fn(u64) -> String) -> Self {
        let n = cursor.min(r.steps());
        let now = r.time_at(n);
        CmdPos {
            n,
            now,
            cut: r.cut(n),
            label: format!(
                "{} · কমান্ড {}/{}",
                ms(now),
                bn::int(n as i64),
                bn::int(r.cmds().len() as i64)
            ),
        }
    }
}

/// The position the cursor shows on a run whose positions are its trace's entries.
#[derive(Clone, Debug, PartialEq)]
pub struct TracePos {
    /// The position (the entries shown).
    pub n: usize,
    /// Its time, ms.
    pub now: u64,
    /// The scrubber's label: the time of the run's `end_ms` and the steps shown of all.
    pub label: String,
}

impl TracePos {
    /// Position `cursor` of `r` (held to its steps), in a run that ends at `end_ms`.
    pub fn of<O: TraceSteps + Steps>(
        r: &O,
        cursor: usize,
        end_ms: u64,
        ms: fn(u64) -> String,
    ) -> Self {
        let n = cursor.min(r.steps());
        let now = r.time_at(n);
        TracePos {
            n,
            now,
            label: format!(
                "{} / {} · ধাপ {}/{}",
                ms(now),
                ms(end_ms),
                bn::int(n as i64),
                bn::int(r.steps() as i64)
            ),
        }
    }
}

//! Hit-ratio curves: hit ratio against cache size for chosen policies on one trace (the
//! "size vs hit" curve the seed points to in episode 17 §6).

use super::registry::{by_name, Spec, UnknownPolicy};
use super::runner::run;
use super::trace::Trace;
use super::Stats;
use crate::obj;
use serde_json::Value;

/// One policy's curve.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// Display name.
    pub name: &'static str,
    /// `(cache size, stats)` per point, in the order of the sizes asked for.
    pub points: Vec<(u32, Stats)>,
}

/// Runs every policy at every size on `trace`, scoring like the seed's runner.
///
/// # Errors
/// [`UnknownPolicy`] for an unknown name.
pub fn mrc(
    policies: &[&str],
    trace: &Trace,
    warmup: u64,
    sizes: &[u32],
    seed: u32,
) -> Result<Vec<Curve>, UnknownPolicy> {
    let mut curves = Vec::with_capacity(policies.len());
    for &name in policies {
        let mut points = Vec::with_capacity(sizes.len());
        let mut label = "";
        for &size in sizes {
            let spec = Spec {
                capacity: size,
                seed,
                future: &trace.keys,
            };
            let mut p = by_name(name, &spec)?;
            label = p.name();
            points.push((size, run(p.as_mut(), trace, warmup)));
        }
        curves.push(Curve {
            name: label,
            points,
        });
    }
    Ok(curves)
}

/// Table: one row per size, one column per policy (hit % with one decimal).
pub fn format_curves(curves: &[Curve]) -> String {
    use crate::jsfmt::{pad_end, pad_start, to_fixed};
    let mut out = pad_end("size", 8);
    for c in curves {
        out.push_str(&pad_start(c.name, 11));
    }
    out.push('\n');
    let rows = curves.first().map_or(0, |c| c.points.len());
    for i in 0..rows {
        out.push_str(&pad_end(&curves[0].points[i].0.to_string(), 8));
        for c in curves {
            let s = &c.points[i].1;
            out.push_str(&pad_start(
                &format!("{}%", to_fixed(s.hit_percent(), 1)),
                11,
            ));
        }
        out.push('\n');
    }
    out
}

/// Machine-readable curves.
pub fn curves_json(curves: &[Curve]) -> Value {
    Value::Array(
        curves
            .iter()
            .map(|c| {
                obj([
                    ("policy", Value::from(c.name)),
                    (
                        "points",
                        Value::Array(
                            c.points
                                .iter()
                                .map(|(size, s)| {
                                    obj([
                                        ("size", Value::from(*size)),
                                        ("hit_percent", Value::from(s.hit_percent())),
                                        ("scored_hits", Value::from(s.scored_hits)),
                                    ])
                                })
                                .collect(),
                        ),
                    ),
                ])
            })
            .collect(),
    )
}

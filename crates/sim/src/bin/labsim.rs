//! `labsim`: the command-line front end of the Redis Lab simulation core.
//!
//! Prints the tables of seed 001 to the last digit (`eviction`, `lru-trace`, `jitter`,
//! `stampede`) and runs any parameter sweep of them, plus miss-ratio curves (`mrc`) and the
//! sampled-LRU experiment (`sampling`), and `redis`: SimRedis driven line by line from stdin
//! with one JSON reply per line. `--json` switches any command to JSON. Bad input
//! prints a message and the usage to stderr and exits with code 2.
//!
//! Run with `cargo run -p redislab-sim --bin labsim -- eviction --cache 500`.

use redislab_sim::cli::{Args, CliError};
use redislab_sim::eviction::lru_trace::{format_table, parse_ops, policy_trace, steps_json};
use redislab_sim::eviction::mrc::{curves_json, format_curves};
use redislab_sim::eviction::registry::{info, POLICIES};
use redislab_sim::eviction::runner::{eviction_table, EvictionConfig};
use redislab_sim::eviction::sampling::{format_sampling, sampling_json, sampling_quality};
use redislab_sim::eviction::trace::{Scan, Shift, SEED_SCAN, SEED_SHIFT};
use redislab_sim::eviction::{TraceKind, TraceSpec};
use redislab_sim::labs::jitter;
use redislab_sim::labs::params::{
    self, EvictionParams, Field, JitterParams, LruParams, Params, SamplingParams, StampedeParams,
};
use redislab_sim::labs::stampede::{self, Mode, StampedeConfig};
use redislab_sim::{mrc, obj};
use serde_json::Value;
use std::process::ExitCode;

const USAGE: &str = "\
usage: labsim <command> [options] [--json]

commands (defaults reproduce seed 001's tables; the options of eviction, lru-trace, jitter,
stampede and sampling are the labs' own fields, with the labs' ranges and defaults):
  eviction   policy hit ratios on the seed's three traces
             [--keys 10000] [--alpha 0.9] [--cache 300] [--requests 60000]
             [--warmup 10000] [--seed 7] [--policy-seed 99]
             [--policies fifo,random,lru,lfu,opt] [--traces zipf,scan,shift]
             [--scan-period 5000] [--scan-keys 2] [--shift-period 20000] [--shift-amount 3000]
  lru-trace  the LRU step-through table
             [--capacity 3] [--ops \"put A, put B, get A, ...\"] [--policy lru] [--seed 1]
  jitter     TTL jitter: expirations per second (the seed's eight cases, or one
             --jitter J --round R, or --case J:ROUND...)
             [--keys 100000] [--ttl 3600] [--seed 5] [--series]
  stampede   one hot key at expiry: none / lock / stale / xfetch
             [--rate 2000] [--delta 0.05] [--ttl 10] [--duration 60] [--beta 1]
             [--seed 2026] [--modes none,lock,stale,xfetch] [--bucket W] [--series]
             (--bucket defaults to the lab's: a round width, at most 300 buckets)
  cache      the cache engine (production deck): API instances, the envelope, the four
             layers against a stampede; every layer off beside the chosen layers, same seed
             [--instances 6] [--concurrent 40] [--requests 800] [--loader 600]
             [--fresh 1500] [--stale 1000] [--lock-ttl 3000] [--wait 2000]
             [--singleflight on] [--lock on] [--poll on] [--rescue on] [--heartbeat on]
             [--recheck on] [--redis healthy|slow|down]
             [--start empty|fresh|stale|old-version|corrupt] [--seed 6] [--series]
  mrc        hit ratio against cache size
             [--policies fifo,lru,lfu,arc,w-tinylfu,opt] [--trace zipf|scan|shift]
             [--sizes 50,100,200,300,500,1000,2000] [--keys] [--alpha] [--requests]
             [--warmup] [--seed] [--policy-seed] [--scan-*] [--shift-*]
  sampling   mean age rank of the oldest of k sampled keys vs k/(k+1), k = 1..kmax
             [--keys 1000] [--kmax 16] [--trials 2000] [--seed 1] [--samples 1,2,5,...]
  lock       the lock race: workers A and B, SET NX PX, DEL or the token script,
             heartbeat, a pause, fencing, dedup (the trace, then the counters)
             [--preset plain-del|token|pause|fencing] [--ttl 1000] [--work 600]
             [--jobs 2] [--release del|token] [--heartbeat off|on] [--fencing off|on]
             [--dedup off|on] [--dedup-ex 900] [--pause-worker a|b] [--pause-at 200]
             [--pause 800] [--gap 20] [--seed 4]  (options override the preset)
  streams    Redis Streams: producers XADD MAXLEN ~, a consumer group of workers
             (XREADGROUP COUNT BLOCK, save, XACK), retry one by one, dead-letter,
             a crash taken over by XAUTOCLAIM, trimming losses; Pub/Sub beside it
             [--preset healthy|retry|poison|crash|crash-no-claim|trim|pubsub-away]
             [--messages 5000] [--rate 500] [--producers 2] [--workers 4] [--count 200]
             [--block 5000] [--save-ms 20] [--retry-ms 2] [--fail-rate 0]
             [--poison-every 0] [--crash-worker 0] [--crash-at 3000] [--autoclaim on]
             [--claim-idle 30000] [--claim-every 5000] [--maxlen 100000]
             [--away-at 4000] [--away-ms 0] [--seed 17]  (options override the preset)
  broadcast  seed 004's broadcast: one notification to 5,00,000 devices, the naive loop in
             the request or a BullMQ-style queue in SimRedis (paging, 500-token chunks, a
             throttle, dedup, retries with backoff, dead tokens, a worker crash)
             [--preset fixed|naive|queue|load-all|paging|no-chunks|chunks|all-at-once|
             throttle|double-click|dedup|no-retry|outage|crash|dead-tokens]
             [--mode naive|queue] [--tokens 500000] [--call-ms 200] [--chunk 500]
             [--throttle 10] [--attempts 3] [--backoff 10000] [--outage 0] … (every field
             of the lab, options override the preset) [--trace] (every event)
  policies   list the eviction policies
  redis      SimRedis: one command per line on stdin (redis-cli syntax), one JSON reply
             per line on stdout. Directives: '#advance <ms>' moves the virtual clock;
             '#node replica' / '#node primary' picks the node the next commands go to
             (the first '#node replica' attaches a replica with a full sync); '#lag <ms>'
             sets the replication lag; '#promote' fails over to the replica (what it had
             not received is lost). The clock starts on a fixed date, 2023-11-14
             (unix ms 1700000000000), so EXAT/PXAT/EXPIREAT of real dates are far ahead;
             --now <unix ms> starts it there instead. The named scripts are loaded, as
             the proxy loads them.  [--seed 1] [--now 1700000000000]
  help       this text

--json prints machine-readable JSON; --series adds the chart series (histogram / buckets).
";

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some("redis") {
        return redis_session(&argv[1..]);
    }
    match dispatch(&argv) {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("labsim: {e}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(argv: &[String]) -> Result<String, CliError> {
    let Some((cmd, rest)) = argv.split_first() else {
        return Err(CliError("no command given".into()));
    };
    if rest.iter().any(|a| a == "--help" || a == "-h") {
        return Ok(USAGE.to_string());
    }
    match cmd.as_str() {
        "eviction" => eviction(rest),
        "lru-trace" => lru_trace_cmd(rest),
        "jitter" => jitter_cmd(rest),
        "stampede" => stampede_cmd(rest),
        "cache" => cache_cmd(rest),
        "mrc" => mrc_cmd(rest),
        "sampling" => sampling_cmd(rest),
        "policies" => policies_cmd(rest),
        "lock" => lock_cmd(rest),
        "streams" => streams_cmd(rest),
        "broadcast" => broadcast_cmd(rest),
        "help" | "--help" | "-h" => Ok(USAGE.to_string()),
        other => Err(CliError(format!("unknown command '{other}'"))),
    }
}

/// `labsim redis`: streams stdin to SimRedis and its replies to stdout as JSON lines.
fn redis_session(argv: &[String]) -> ExitCode {
    if argv.iter().any(|a| a == "--help" || a == "-h") {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let opts = Args::parse(argv, &["seed", "now"], &[]).and_then(|a| {
        Ok(redislab_sim::redis::cli::SessionOptions {
            seed: a.num("seed", 1, 0, u32::MAX)?,
            now_ms: match a.value("now") {
                None => None,
                Some(_) => Some(a.num("now", 0, 0, i64::MAX / 2)?),
            },
        })
    });
    let opts = match opts {
        Ok(o) => o,
        Err(e) => {
            eprintln!("labsim: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    match redislab_sim::redis::cli::run_session(stdin, stdout, opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("labsim redis: {e}");
            ExitCode::from(2)
        }
    }
}

fn emit(args: &Args, text: String, json: impl FnOnce() -> Value) -> String {
    if args.flag("json") {
        format!("{}\n", json())
    } else {
        text
    }
}

const TRACE_FLAGS: &[&str] = &[
    "keys",
    "alpha",
    "requests",
    "warmup",
    "seed",
    "policy-seed",
    "scan-period",
    "scan-keys",
    "shift-period",
    "shift-amount",
];

/// Trace parameters shared by `eviction` and `mrc`; returns (spec, warmup, policy seed).
fn trace_params(a: &Args) -> Result<(TraceSpec, u64, u32), CliError> {
    let d = TraceSpec::default();
    let spec = TraceSpec {
        keys: a.num("keys", d.keys, 1, 10_000_000)?,
        alpha: a.num("alpha", d.alpha, 0.0, 10.0)?,
        requests: a.num("requests", d.requests, 1, 50_000_000)?,
        seed: a.num("seed", d.seed, 0, u32::MAX)?,
        scan: Some(Scan {
            period: a.num("scan-period", SEED_SCAN.period, 1, u32::MAX)?,
            keys_per_request: a.num("scan-keys", SEED_SCAN.keys_per_request, 0, 64)?,
        }),
        shift: Some(Shift {
            period: a.num("shift-period", SEED_SHIFT.period, 1, u32::MAX)?,
            amount: a.num("shift-amount", SEED_SHIFT.amount, 0, u32::MAX)?,
        }),
    };
    if u64::from(spec.keys)
        + u64::from(spec.requests) * u64::from(spec.scan.map_or(0, |s| s.keys_per_request))
        >= u64::from(u32::MAX)
    {
        return Err(CliError("too many scan keys for u32 key numbers".into()));
    }
    let warmup = a.num(
        "warmup",
        10_000u64.min(u64::from(spec.requests) - 1),
        0,
        u64::from(spec.requests) - 1,
    )?;
    let policy_seed = a.num("policy-seed", 99, 0, u32::MAX)?;
    Ok((spec, warmup, policy_seed))
}

/// A lab field's option name: `scan_period` → `scan-period`.
fn flag(key: &str) -> String {
    key.replace('_', "-")
}

/// The options of a lab's fields (those not in `skip`), plus `more`.
fn lab_options(fields: &'static [Field], skip: &[&str], more: &[&str]) -> Vec<String> {
    fields
        .iter()
        .filter(|f| !skip.contains(&f.key))
        .map(|f| flag(f.key))
        .chain(more.iter().map(|m| m.to_string()))
        .collect()
}

fn parse_lab(
    argv: &[String],
    fields: &'static [Field],
    skip: &[&str],
    more: &[&str],
    switches: &[&str],
) -> Result<Args, CliError> {
    let options = lab_options(fields, skip, more);
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    Args::parse(argv, &options, switches)
}

/// The lab's parameters from the options given, over its defaults, checked exactly as the
/// lab checks them (the same message a student sees beside the field).
fn lab_params(a: &Args, fields: &'static [Field]) -> Result<Params, CliError> {
    let pairs = fields.iter().filter_map(|f| {
        a.value(&flag(f.key))
            .map(|v| (f.key.to_string(), v.to_string()))
    });
    let (p, errors) = Params::from_pairs(fields, pairs);
    match errors.first() {
        Some(e) => Err(CliError(format!("--{}: {}", flag(&e.key), e.message))),
        None => Ok(p),
    }
}

fn check_policies(names: &[String]) -> Result<(), CliError> {
    for n in names {
        if info(n).is_none() {
            let known: Vec<&str> = POLICIES.iter().map(|p| p.name).collect();
            return Err(CliError(format!(
                "--policies: unknown policy '{n}' (known: {})",
                known.join(", ")
            )));
        }
    }
    Ok(())
}

fn trace_kinds(a: &Args, name: &str, default: &[&str]) -> Result<Vec<TraceKind>, CliError> {
    a.words(name, default)?
        .iter()
        .map(|w| {
            TraceKind::parse(w).ok_or_else(|| {
                CliError(format!("--{name}: unknown trace '{w}' (zipf, scan, shift)"))
            })
        })
        .collect()
}

fn with(flags: &[&'static str], more: &[&'static str]) -> Vec<&'static str> {
    flags.iter().chain(more).copied().collect()
}

fn eviction(argv: &[String]) -> Result<String, CliError> {
    // `trace` and `focus` choose what the lab's timeline shows: not part of the table.
    let a = parse_lab(
        argv,
        params::EVICTION,
        &["trace", "focus"],
        &["traces"],
        &["json"],
    )?;
    let p: EvictionParams = lab_params(&a, params::EVICTION)?.typed();
    let cfg = EvictionConfig {
        traces: trace_kinds(&a, "traces", &["zipf", "scan", "shift"])?,
        ..p.config()
    };
    let table = eviction_table(&cfg).map_err(|e| CliError(e.to_string()))?;
    Ok(emit(&a, table.to_text(), || table.to_json()))
}

fn lru_trace_cmd(argv: &[String]) -> Result<String, CliError> {
    let a = parse_lab(argv, params::LRU, &[], &[], &["json"])?;
    let p: LruParams = lab_params(&a, params::LRU)?.typed();
    let ops = parse_ops(&p.ops).map_err(|e| CliError(format!("--ops: {e}")))?;
    let steps =
        policy_trace(&p.policy, p.capacity, p.seed, &ops).map_err(|e| CliError(e.to_string()))?;
    let is_lru = info(&p.policy).is_some_and(|i| i.name == "lru");
    let label = if is_lru {
        "MRU ... LRU"
    } else {
        "kept ... next victim"
    };
    Ok(emit(&a, format_table(&steps, label), || {
        steps_json(&p.policy, p.capacity, &steps)
    }))
}

fn jitter_cmd(argv: &[String]) -> Result<String, CliError> {
    let a = parse_lab(argv, params::JITTER, &[], &["case"], &["json", "series"])?;
    let p: JitterParams = lab_params(&a, params::JITTER)?.typed();
    let cfg = p.config();
    let one = a.value("jitter").is_some() || a.value("round").is_some();
    let cases = match a.all("case") {
        v if v.is_empty() && one => vec![p.case()],
        v if v.is_empty() => jitter::seed_cases(),
        v => v
            .into_iter()
            .map(|c| {
                let (j, r) = c.split_once(':').ok_or_else(|| {
                    CliError(format!("--case: '{c}' is not J:ROUND (e.g. 0.1:2)"))
                })?;
                let (p, errors) = Params::from_pairs(
                    params::JITTER,
                    [("jitter".into(), j.into()), ("round".into(), r.into())],
                );
                match errors.first() {
                    Some(e) => Err(CliError(format!("--case: {}: {}", e.key, e.message))),
                    None => Ok(p.typed::<JitterParams>().case()),
                }
            })
            .collect::<Result<Vec<_>, CliError>>()?,
    };
    let (waves, text) = jitter::table(&cfg, &cases);
    Ok(emit(&a, text, || {
        jitter::table_json(&cfg, &waves, a.flag("series"))
    }))
}

fn stampede_cmd(argv: &[String]) -> Result<String, CliError> {
    let a = parse_lab(
        argv,
        params::STAMPEDE,
        &[],
        &["modes", "bucket"],
        &["json", "series"],
    )?;
    let p: StampedeParams = lab_params(&a, params::STAMPEDE)?.typed();
    let d = p.config();
    let cfg = StampedeConfig {
        bucket: a.num("bucket", d.bucket, 1e-3, 1e7)?,
        ..d
    };
    if cfg.duration / cfg.bucket > 1e6 {
        return Err(CliError("--bucket: more than 10^6 buckets".into()));
    }
    let modes = a
        .words("modes", &["none", "lock", "stale", "xfetch"])?
        .iter()
        .map(|m| {
            Mode::parse(m).ok_or_else(|| {
                CliError(format!(
                    "--modes: unknown mode '{m}' (none, lock, stale, xfetch)"
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (runs, text) = stampede::table(&cfg, &modes);
    Ok(emit(&a, text, || {
        stampede::table_json(&cfg, &runs, a.flag("series"))
    }))
}

fn mrc_cmd(argv: &[String]) -> Result<String, CliError> {
    let a = Args::parse(
        argv,
        &with(TRACE_FLAGS, &["policies", "trace", "sizes"]),
        &["json"],
    )?;
    let (spec, warmup, policy_seed) = trace_params(&a)?;
    let policies = a.words(
        "policies",
        &["fifo", "lru", "lfu", "arc", "w-tinylfu", "opt"],
    )?;
    check_policies(&policies)?;
    let kind = match a.value("trace") {
        None => TraceKind::Zipf,
        Some(t) => TraceKind::parse(t)
            .ok_or_else(|| CliError(format!("--trace: unknown trace '{t}' (zipf, scan, shift)")))?,
    };
    let sizes = a.num_list(
        "sizes",
        &[50, 100, 200, 300, 500, 1000, 2000],
        1,
        10_000_000,
    )?;
    let trace = spec.with_kind(kind).generate();
    let names: Vec<&str> = policies.iter().map(String::as_str).collect();
    let curves =
        mrc(&names, &trace, warmup, &sizes, policy_seed).map_err(|e| CliError(e.to_string()))?;
    let text = format!(
        "trace {}, keys {}, alpha {}, {} user requests (first {} = warm-up)\n{}",
        kind.name(),
        spec.keys,
        redislab_sim::jsfmt::js_string(spec.alpha),
        spec.requests,
        warmup,
        format_curves(&curves)
    );
    Ok(emit(&a, text, || curves_json(&curves)))
}

fn sampling_cmd(argv: &[String]) -> Result<String, CliError> {
    let a = parse_lab(argv, params::SAMPLING, &[], &["samples"], &["json"])?;
    let p: SamplingParams = lab_params(&a, params::SAMPLING)?.typed();
    let all: Vec<u32> = (1..=p.kmax).collect();
    let ks = a.num_list("samples", &all, 1, 1000)?;
    let pts = sampling_quality(p.keys, &ks, p.trials, p.seed);
    Ok(emit(&a, format_sampling(&pts), || sampling_json(&pts)))
}

fn policies_cmd(argv: &[String]) -> Result<String, CliError> {
    let a = Args::parse(argv, &[], &["json"])?;
    let mut text = String::new();
    for p in POLICIES {
        text.push_str(&format!("{:<18}{}\n", p.name, p.summary));
    }
    Ok(emit(&a, text, || {
        Value::Array(
            POLICIES
                .iter()
                .map(|p| {
                    obj([
                        ("name", Value::from(p.name)),
                        ("summary", Value::from(p.summary)),
                        ("offline", Value::from(p.offline)),
                    ])
                })
                .collect(),
        )
    }))
}

fn cache_cmd(argv: &[String]) -> Result<String, CliError> {
    use redislab_sim::labs::cache;
    let a = parse_lab(argv, params::CACHE, &[], &[], &["json", "series"])?;
    let p: params::CacheParams = lab_params(&a, params::CACHE)?.typed();
    let lab = cache::pair(&p.config());
    Ok(emit(&a, cache::table(&lab), || {
        cache::table_json(&lab, a.flag("series"))
    }))
}

fn lock_cmd(argv: &[String]) -> Result<String, CliError> {
    use redislab_sim::labs::lock;
    let a = parse_lab(argv, lock::FIELDS, &[], &["preset"], &["json"])?;
    let p = preset_params(&a, lock::FIELDS, lock::PRESETS)?;
    let mut run = lock::LockRun::new(&p.typed());
    while run.step() {}
    Ok(emit(&a, run.text(), || run.result().to_json()))
}

fn streams_cmd(argv: &[String]) -> Result<String, CliError> {
    use redislab_sim::labs::streams;
    let a = parse_lab(argv, streams::FIELDS, &[], &["preset"], &["json"])?;
    let p = preset_params(&a, streams::FIELDS, streams::PRESETS)?;
    let r = streams::run(&p.typed());
    Ok(emit(&a, r.text(), || r.to_json()))
}

fn broadcast_cmd(argv: &[String]) -> Result<String, CliError> {
    use redislab_sim::labs::broadcast;
    let a = parse_lab(
        argv,
        broadcast::FIELDS,
        &[],
        &["preset"],
        &["json", "trace"],
    )?;
    let p = preset_params(&a, broadcast::FIELDS, broadcast::PRESETS)?;
    let mut run = broadcast::BroadcastRun::new(&p.typed());
    while run.step() {}
    let r = run.result();
    let mut text = if a.flag("trace") {
        run.trace_text()
    } else {
        String::new()
    };
    text.push_str(&r.text());
    Ok(emit(&a, text, || r.to_json()))
}

/// A lab's parameters from `--preset` (its pairs first) and the options given, checked as
/// the lab checks them.
fn preset_params(
    a: &Args,
    fields: &'static [Field],
    presets: &'static [redislab_sim::labs::preset::Preset],
) -> Result<Params, CliError> {
    let base = match a.value("preset") {
        None => Vec::new(),
        Some(id) => redislab_sim::labs::preset::find(presets, id)
            .ok_or_else(|| {
                let ids: Vec<&str> = presets.iter().map(|p| p.id).collect();
                CliError(format!(
                    "--preset: unknown preset '{id}' ({})",
                    ids.join(", ")
                ))
            })?
            .pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    };
    let given = fields.iter().filter_map(|f| {
        a.value(&flag(f.key))
            .map(|v| (f.key.to_string(), v.to_string()))
    });
    let (p, errors) = Params::from_pairs(fields, base.into_iter().chain(given));
    match errors.first() {
        Some(e) => Err(CliError(format!("--{}: {}", flag(&e.key), e.message))),
        None => Ok(p),
    }
}

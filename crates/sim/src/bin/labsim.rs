//! `labsim`: the command-line front end of the Redis Lab simulation core.
//!
//! One command per lab of the registry (`labsim <lab>`, its options the lab's own fields with
//! the lab's ranges, defaults and messages, `--preset` where it has presets), so the same
//! numbers come out as in the lab; the defaults reproduce the seeds' tables to the last digit.
//! Beside the labs: miss-ratio curves (`mrc`), the policy list (`policies`) and `redis`,
//! SimRedis driven line by line from stdin with one JSON reply per line. `--json` switches any
//! command to JSON. Bad input prints a message and the usage to stderr and exits with code 2.
//!
//! Run with `cargo run -p redislab-sim --bin labsim -- eviction --cache 500`.

use redislab_sim::cli::{emit, Args, CliError};
use redislab_sim::eviction::mrc::{curves_json, format_curves};
use redislab_sim::eviction::registry::{info, POLICIES};
use redislab_sim::eviction::trace::{Scan, Shift, SEED_SCAN, SEED_SHIFT};
use redislab_sim::eviction::{TraceKind, TraceSpec};
use redislab_sim::labs::lab::Lab;
use redislab_sim::labs::params::{Kind, Params};
use redislab_sim::labs::registry::LABS;
use redislab_sim::{mrc, obj};
use serde_json::Value;
use std::process::ExitCode;

/// The usage text: every lab of the registry with its options, then the tools.
fn usage() -> String {
    let mut out = String::from(
        "usage: labsim <command> [options] [--json]\n\n\
         labs (one per lab of the app; the options are the lab's own fields, with its ranges\n\
         and defaults; the defaults reproduce the seeds' tables):\n",
    );
    for lab in LABS {
        let info = lab.info();
        let spec = lab.cli_spec();
        let name = match spec.alias {
            Some(a) => format!("{} | {a}", info.id),
            None => info.id.to_string(),
        };
        out.push_str(&format!("  {name}\n"));
        let mut words: Vec<String> = spec.summary.split_whitespace().map(String::from).collect();
        if !info.presets.is_empty() {
            let ids: Vec<&str> = info.presets.iter().map(|p| p.id).collect();
            words.push(format!("[--preset {}]", ids.join("|")));
        }
        for f in info.fields.iter().filter(|f| !spec.skip.contains(&f.key)) {
            let shown = match f.kind {
                Kind::Ops => format!("\"{}\"", f.default),
                _ => f.default.to_string(),
            };
            words.push(format!("[--{} {shown}]", flag(f.key)));
        }
        words.extend(spec.usage.iter().map(|u| u.to_string()));
        out.push_str(&wrap(&words, 13, 92));
    }
    out.push_str(TOOLS);
    out
}

/// `words` as lines of at most `width` columns, each indented by `indent` spaces.
fn wrap(words: &[String], indent: usize, width: usize) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::new();
    let mut line = pad.clone();
    for w in words {
        if line.len() > indent && line.len() + 1 + w.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line = pad.clone();
        }
        if line.len() > indent {
            line.push(' ');
        }
        line.push_str(w);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

const TOOLS: &str = "\
tools:
  mrc        hit ratio against cache size
             [--policies fifo,lru,lfu,arc,w-tinylfu,opt] [--trace zipf|scan|shift]
             [--sizes 50,100,200,300,500,1000,2000] [--keys] [--alpha] [--requests]
             [--warmup] [--seed] [--policy-seed] [--scan-*] [--shift-*]
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
  practice   practice questions and their answers, for an instructor preparing a class:
             --lab lru [--kind evicted] --seed N [--n 10] [--json]; question i+1 is the
             page's 'next' of question i (the address of each is printed).
             --labs lru,lock|all --seed N [--n 10] [--json]: the set the class link
             #/practice?labs=…&seed=N&n=… gives everyone, with its answers.
             --check <result code>: makes the code's set again and grades its answers;
             prints the score, or why the code is refused (exit 2)
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
            eprintln!("labsim: {e}\n\n{}", usage());
            ExitCode::from(2)
        }
    }
}

/// The lab a command names (its id or its alias).
fn find(cmd: &str) -> Option<&'static dyn Lab> {
    LABS.iter()
        .copied()
        .find(|l| l.info().id == cmd || l.cli_spec().alias == Some(cmd))
}

fn dispatch(argv: &[String]) -> Result<String, CliError> {
    let Some((cmd, rest)) = argv.split_first() else {
        return Err(CliError("no command given".into()));
    };
    if rest.iter().any(|a| a == "--help" || a == "-h") {
        return Ok(usage());
    }
    if let Some(lab) = find(cmd) {
        return lab_cmd(lab, rest);
    }
    match cmd.as_str() {
        "mrc" => mrc_cmd(rest),
        "policies" => policies_cmd(rest),
        "practice" => practice_cmd(rest),
        "help" | "--help" | "-h" => Ok(usage()),
        other => Err(CliError(format!("unknown command '{other}'"))),
    }
}

/// A lab field's option name: `scan_period` → `scan-period`.
fn flag(key: &str) -> String {
    key.replace('_', "-")
}

/// `labsim <lab>`: its fields (and `--preset`) as options, checked exactly as the lab checks
/// them (the same message a student sees beside the field), then the lab's own output.
fn lab_cmd(lab: &'static dyn Lab, argv: &[String]) -> Result<String, CliError> {
    let info = lab.info();
    let spec = lab.cli_spec();
    let mut options: Vec<String> = info
        .fields
        .iter()
        .filter(|f| !spec.skip.contains(&f.key))
        .map(|f| flag(f.key))
        .chain(spec.more.iter().map(|m| m.to_string()))
        .collect();
    if !info.presets.is_empty() {
        options.push("preset".into());
    }
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let switches: Vec<&str> = ["json"]
        .into_iter()
        .chain(spec.switches.iter().copied())
        .collect();
    let a = Args::parse(argv, &options, &switches)?;
    let preset = a
        .value("preset")
        .map(|v| ("preset".to_string(), v.to_string()));
    if let Some((_, id)) = &preset {
        if !info.presets.iter().any(|p| p.id == id) {
            let ids: Vec<&str> = info.presets.iter().map(|p| p.id).collect();
            return Err(CliError(format!(
                "--preset: unknown preset '{id}' ({})",
                ids.join(", ")
            )));
        }
    }
    let given = info.fields.iter().filter_map(|f| {
        a.value(&flag(f.key))
            .map(|v| (f.key.to_string(), v.to_string()))
    });
    let (p, errors) = Params::from_pairs(info, preset.into_iter().chain(given));
    if let Some(e) = errors.first() {
        return Err(CliError(format!("--{}: {}", flag(&e.key), e.message)));
    }
    lab.cli(&p, &a)
}

/// `labsim redis`: streams stdin to SimRedis and its replies to stdout as JSON lines.
fn redis_session(argv: &[String]) -> ExitCode {
    if argv.iter().any(|a| a == "--help" || a == "-h") {
        print!("{}", usage());
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
            eprintln!("labsim: {e}\n\n{}", usage());
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

fn with(flags: &[&'static str], more: &[&'static str]) -> Vec<&'static str> {
    flags.iter().chain(more).copied().collect()
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

/// `labsim practice --check <code>`: the score a result code's answers earn, or why it is
/// refused.
fn practice_check(code: &str, json: bool) -> Result<String, CliError> {
    use redislab_sim::practice::set;
    let r = set::check(code).map_err(CliError)?;
    if json {
        return serde_json::to_string_pretty(&r)
            .map(|s| s + "\n")
            .map_err(|e| CliError(e.to_string()));
    }
    let mut out = format!(
        "valid: {} of {} right — set {} (#/practice?{})\n",
        r.score,
        r.answers.len(),
        r.spec.labs_word(),
        r.spec.query(r.seed)
    );
    for (i, (q, a, right)) in r.answers.iter().enumerate() {
        out.push_str(&format!(
            "{:>2}. {:<8} {}/{} seed {}: {} (answer: {})\n",
            i + 1,
            if *right { "right" } else { "wrong" },
            q.topic,
            q.kind,
            q.seed,
            a.as_deref().unwrap_or("—"),
            redislab_sim::bn::ascii(&q.draft.answer.right_text())
        ));
    }
    Ok(out)
}

/// `labsim practice --labs lru,lock --seed N [--n 10] [--json]`: a class link's set.
fn practice_set(labs: &str, a: &Args) -> Result<String, CliError> {
    use redislab_sim::practice::{self, set};
    let seed = a
        .value("seed")
        .ok_or_else(|| CliError("--seed is needed".into()))
        .and_then(|v| redislab_sim::cli::parse_num("seed", v, 0, u32::MAX))?;
    let n: u32 = a.num("n", set::DEFAULT_N, 1, set::MAX_N)?;
    let spec = set::Spec::parse(&format!("labs={labs}&n={n}"))
        .map_err(|e| CliError(format!("--labs: {e}")))?;
    let qs: Vec<practice::Question> = set::picks(&spec, seed)
        .into_iter()
        .map(|(t, k, s)| practice::generate(&t, &k, s).map_err(CliError))
        .collect::<Result<_, _>>()?;
    if a.flag("json") {
        return serde_json::to_string_pretty(&qs)
            .map(|s| s + "\n")
            .map_err(|e| CliError(e.to_string()));
    }
    let mut out = format!("#/practice?{}\n\n", spec.query(seed));
    for (i, q) in qs.iter().enumerate() {
        out.push_str(&format!("{}. {}\n", i + 1, practice::text(q)));
    }
    Ok(out)
}

/// `labsim practice --lab <id> [--kind <k>] --seed N [--n 10] [--json]`: the questions a
/// student meets from that address on, each followed by its answer.
fn practice_cmd(argv: &[String]) -> Result<String, CliError> {
    use redislab_sim::practice;
    let a = Args::parse(
        argv,
        &["lab", "labs", "kind", "seed", "n", "check"],
        &["json"],
    )?;
    if let Some(code) = a.value("check") {
        return practice_check(code, a.flag("json"));
    }
    if let Some(labs) = a.value("labs") {
        return practice_set(labs, &a);
    }
    let lab = a
        .value("lab")
        .ok_or_else(|| CliError("--lab is needed (practice topics: lru)".into()))?;
    let topic = practice::topic(lab).ok_or_else(|| {
        let ids: Vec<&str> = practice::topics().iter().map(|t| t.id).collect();
        CliError(format!(
            "--lab: no practice questions for '{lab}' ({})",
            ids.join(", ")
        ))
    })?;
    let kind = a.value("kind").unwrap_or(topic.kinds[0].id);
    let seed = a
        .value("seed")
        .ok_or_else(|| CliError("--seed is needed".into()))
        .and_then(|v| redislab_sim::cli::parse_num("seed", v, 0, u32::MAX))?;
    let n: usize = a.num("n", 10, 1, 100)?;
    let mut q =
        practice::generate(topic.id, kind, seed).map_err(|e| CliError(format!("--kind: {e}")))?;
    let mut qs = Vec::with_capacity(n);
    for _ in 0..n {
        let (t, k, s) = practice::next(&q);
        let after = practice::generate(&t, &k, s).map_err(CliError)?;
        qs.push(std::mem::replace(&mut q, after));
    }
    if a.flag("json") {
        return serde_json::to_string_pretty(&qs)
            .map(|s| s + "\n")
            .map_err(|e| CliError(e.to_string()));
    }
    Ok(qs
        .iter()
        .enumerate()
        .map(|(i, q)| {
            format!(
                "{}. {}\n{}",
                i + 1,
                practice::address(&q.topic, &q.kind, q.seed),
                practice::text(q)
            )
        })
        .collect::<Vec<_>>()
        .join("\n"))
}

//! `cargo xtask <command>`: the project's commands, runnable on a machine that has nothing but
//! the Rust toolchain. Every command first installs what it needs and is missing, saying what it
//! does; a step already done is skipped; a failure names the missing piece.
//!
//! - `serve`: build the app and serve it at http://127.0.0.1:8080 (trunk serve); with
//!   `--redis <url>`, the release app through the proxy (`crates/proxy`) instead
//! - `build`: release build into `dist/`
//! - `test`: formatting and lints (seconds), native tests, release build, end-to-end tests in
//!   headless Chromium
//! - `bench`: size of the release app, browser timings, the simulator's and the proxy's
//!   budgets (each against redis-benchmark in the same run), class mode's, printed as figures
//! - `noto`: Debian's Noto fonts in the cache, as fontconfig files for a browser "with the
//!   fonts installed" (`browser-bench phone`, the fit tests)
//! - `fingerprints`: hashes of the seeds' 8-word runs, for the copied-prose test

mod fingerprints;
mod tools;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("serve") => serve(&args[1..]),
        Some("build") => build(),
        Some("test") => test(&args[1..]),
        Some("bench") => bench(),
        Some("setup") => tools::ensure_build_tools().map(|_| ()),
        Some("noto") => tools::ensure_noto_fonts().map(|dir| {
            for set in ["android", "all"] {
                println!("{}", dir.join(set).join("fonts.conf").display());
            }
        }),
        Some("fingerprints") => fingerprints::fingerprints(&args[1..]),
        None | Some("help" | "-h" | "--help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(other) => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "usage: cargo xtask <command>

  serve   install what is missing, build, serve at http://127.0.0.1:8080
          (--redis URL: through the proxy, live mode against that Redis)
  build   release build into dist/
  test    cargo fmt --check and clippy -D warnings, native tests, release build,
          end-to-end tests in headless Chromium
  bench   release size (gzip), browser timings (first paint, key to next slide), the
          simulator's and the proxy's figures against redis-benchmark
  setup   only install the build tools
  noto    fetch Debian's Noto fonts into the cache (never installed) and print the two
          fontconfig files that give a browser Android's (Noto Sans Bengali) or every face:
          FONTCONFIG_FILE=<file> runs a browser test or bench with those fonts on the device
  fingerprints [SEEDS_DIR]  hash the seeds' 8-word runs for the copied-prose test";

/// The workspace root (the parent of `xtask/`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// Runs a command in the workspace root, failing with its name when it fails.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}").replace('"', "");
    let status = cmd
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot start {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

fn serve(extra: &[String]) -> Result<(), String> {
    let path = tools::ensure_build_tools()?;
    if extra.iter().any(|a| a == "--redis") {
        return serve_with_redis(&path, extra);
    }
    println!("xtask: serving at http://127.0.0.1:8080 (Ctrl-C stops)");
    run(Command::new("trunk")
        .arg("serve")
        .args(extra)
        .env("PATH", path))
}

fn build() -> Result<(), String> {
    let path = tools::ensure_build_tools()?;
    release_build(&path)
}

fn release_build(path: &str) -> Result<(), String> {
    println!("xtask: building the release app into dist/");
    run(Command::new("trunk")
        .args(["build", "--release"])
        .env("PATH", path))
}

fn test(extra: &[String]) -> Result<(), String> {
    lint()?;
    let path = tools::ensure_build_tools()?;
    let browser = tools::ensure_test_tools()?;
    println!("xtask: native tests");
    let mut total = Counts::default();
    // --no-fail-fast: every test binary runs and counts, so one red file hides nothing else.
    let native = run_counted(Command::new("cargo").args([
        "test",
        "--no-fail-fast",
        "--workspace",
        "--exclude",
        "redislab",
        "--exclude",
        "redislab-e2e",
    ]));
    total.add(&native);
    native.result?;
    release_build(&path)?;
    // The live-mode browser tests start the proxy binary in front of their own redis-server.
    run(Command::new("cargo").args([
        "build",
        "-q",
        "-p",
        "redislab-proxy",
        "--bin",
        "redislab-proxy",
    ]))?;
    println!("xtask: end-to-end tests in headless Chromium");
    let e2e = run_counted(
        Command::new("cargo")
            .args(["test", "--no-fail-fast", "-p", "redislab-e2e", "--"])
            // Each test drives its own Chromium (and a lab page its worker): on a 2-core machine,
            // two at a time keeps the waits honest without starving the browsers.
            .arg("--test-threads=2")
            .args(extra)
            .env("REDISLAB_DIST", root().join("dist"))
            .env("REDISLAB_CHROMIUM", &browser.chromium)
            .env("REDISLAB_CHROMEDRIVER", &browser.chromedriver)
            .env("REDISLAB_AXE", &browser.axe)
            .env("REDISLAB_PROXY", root().join("target/debug/redislab-proxy")),
    );
    total.add(&e2e);
    println!("\nxtask: {} passed, {} failed", total.passed, total.failed);
    e2e.result
}

/// `cargo fmt --check` and clippy with warnings as errors, before anything long: a slip fails
/// in seconds, not after the browser tests. A native clippy run checks every file of the
/// workspace: the app's binaries (the page, the labs module, the simulation worker) run only
/// as wasm, but no code is behind a `cfg` on the target, so they compile natively too
/// (wasm-bindgen and web-sys have native stand-ins), and `--all-targets` adds the tests. A
/// `cfg` on the target architecture would hide wasm-only code from this run: [`target_cfgs`]
/// refuses one.
fn lint() -> Result<(), String> {
    tools::ensure_lint_tools()?;
    println!("xtask: cargo fmt --check, cargo clippy -D warnings");
    let hidden = target_cfgs(&root());
    if !hidden.is_empty() {
        return Err(format!(
            "code behind a target cfg is not linted by the native clippy run (add a \
             `--target wasm32-unknown-unknown` run to `lint`): {}",
            hidden.join(", ")
        ));
    }
    run(Command::new("cargo").args(["fmt", "--all", "--", "--check"]))
        .map_err(|e| format!("{e}: `cargo fmt --all` formats the tree"))?;
    run(Command::new("cargo").args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))
}

/// The Rust files under `top` (outside `target/`) that put code behind a `cfg` on the target
/// architecture or family.
fn target_cfgs(top: &Path) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.filter_map(Result::ok) {
            let path = e.path();
            let name = e.file_name();
            if path.is_dir() {
                if name != "target" && name != "dist" && !name.to_string_lossy().starts_with('.') {
                    walk(&path, out);
                }
            } else if path.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                let flat: String = text.split_whitespace().collect();
                // `target_os` and `unix` stay: the proxy's signal handling runs natively.
                let needles = ["target_arch", "target_family"].map(|k| format!("{k}="));
                if needles.into_iter().any(|n| flat.contains(&n)) {
                    out.push(path.display().to_string());
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(top, &mut out);
    for p in &mut out {
        if let Some(rel) = Path::new(p)
            .strip_prefix(top)
            .ok()
            .map(|r| r.display().to_string())
        {
            *p = rel;
        }
    }
    out.sort();
    out
}

/// Test counts summed from cargo's `test result:` lines.
struct Counts {
    passed: u64,
    failed: u64,
    result: Result<(), String>,
}

impl Default for Counts {
    fn default() -> Self {
        Counts {
            passed: 0,
            failed: 0,
            result: Ok(()),
        }
    }
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.passed += other.passed;
        self.failed += other.failed;
    }
}

/// Runs `cargo test …`, echoing its output and counting what passed and failed.
fn run_counted(cmd: &mut Command) -> Counts {
    use std::io::{BufRead, BufReader};
    let shown = format!("{cmd:?}").replace('"', "");
    let mut counts = Counts::default();
    let child = cmd
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            counts.result = Err(format!("cannot start {shown}: {e}"));
            return counts;
        }
    };
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            println!("{line}");
            if let Some(rest) = line.strip_prefix("test result: ") {
                let num = |word: &str| {
                    rest.split(';')
                        .find_map(|part| {
                            let part = part.trim();
                            let part = part.strip_prefix("ok. ").unwrap_or(part);
                            let part = part.strip_prefix("FAILED. ").unwrap_or(part);
                            part.strip_suffix(word)
                        })
                        .and_then(|n| n.trim().parse::<u64>().ok())
                        .unwrap_or(0)
                };
                counts.passed += num(" passed");
                counts.failed += num(" failed");
            }
        }
    }
    counts.result = match child.wait() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("{shown} failed ({s})")),
        Err(e) => Err(format!("{shown}: {e}")),
    };
    counts
}

fn bench() -> Result<(), String> {
    let path = tools::ensure_build_tools()?;
    let browser = tools::ensure_test_tools()?;
    release_build(&path)?;
    let dist = root().join("dist");
    // The first load is the app's wasm and its JS glue; the labs module (labs.js,
    // labs_bg.wasm) comes the first time a lab is shown, and the simulator's worker (worker.js,
    // worker_bg.wasm, worker_loader.js) when a lab first needs a run.
    let (mut wasm, mut js, mut worker, mut labs, mut sw) = (0, 0, 0, 0, 0);
    for entry in std::fs::read_dir(&dist).map_err(|e| format!("dist/: {e}"))? {
        let p = entry.map_err(|e| e.to_string())?.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let ext = p.extension().and_then(|e| e.to_str());
        if name.starts_with("worker") && matches!(ext, Some("wasm" | "js")) {
            worker += gzip_len(&p)?;
            continue;
        }
        if name.starts_with("labs") && matches!(ext, Some("wasm" | "js")) {
            labs += gzip_len(&p)?;
            continue;
        }
        // The service worker and the page's side of it (offline.js): fetched once the app
        // has started, the worker registered when the page is idle after its first slide.
        if name == "sw.js" || name == "offline.js" {
            sw += gzip_len(&p)?;
            continue;
        }
        match ext {
            Some("wasm") => wasm += gzip_len(&p)?,
            Some("js") => js += gzip_len(&p)?,
            _ => {}
        }
    }
    let kb = |n: usize| n as f64 / 1000.0;
    println!("\n== size (gzip -9) ==");
    println!("first load: app wasm     {:>8.1} KB", kb(wasm));
    println!("first load: app js glue  {:>8.1} KB", kb(js));
    let first = wasm + js;
    println!(
        "first load: wasm + js    {:>8.1} KB   (budget 200 KB: {})",
        kb(first),
        if first <= 200_000 { "met" } else { "OVER" }
    );
    println!(
        "labs module              {:>8.1} KB   (wasm + js, fetched when a lab is first shown)",
        kb(labs)
    );
    println!(
        "simulator worker         {:>8.1} KB   (wasm + js + loader, started when a lab is shown)",
        kb(worker)
    );
    println!(
        "service worker           {:>8.1} KB   (sw.js with the release's file list, offline.js; after the first slide)",
        kb(sw)
    );
    run(Command::new("cargo")
        .args([
            "run",
            "--release",
            "-q",
            "-p",
            "redislab-e2e",
            "--bin",
            "browser-bench",
        ])
        .env("REDISLAB_DIST", &dist)
        .env("REDISLAB_CHROMIUM", &browser.chromium)
        .env("REDISLAB_CHROMEDRIVER", &browser.chromedriver)
        // The phone with Noto on the device (REDISLAB_DIST_BEFORE, when set, is passed on:
        // another build's dist/ measured beside this one).
        .env("REDISLAB_NOTO", tools::ensure_noto_fonts()?))?;
    // The simulator's own budgets, natively: SimRedis against redis-benchmark in the same run,
    // the cache engine's 6-instance, 10,000-request run, the streams lab's 1,000,000
    // entries through a group of 4 and the 5,00,000-token broadcast.
    println!("\n== simulator, natively ==");
    for case in ["redis", "cache", "streams", "broadcast"] {
        run(Command::new("cargo").args([
            "run",
            "--release",
            "-q",
            "-p",
            "redislab-sim",
            "--example",
            "bench",
            "--",
            case,
        ]))?;
    }
    // The proxy's budgets against redis-benchmark in the same run: throughput (GET/SET, 50
    // clients, no pipelining) as a share of redis-benchmark's, the latency it adds (p50/p99,
    // measured side by side with direct requests), its memory per idle WebSocket.
    println!("\n== proxy (crates/proxy), natively, loopback ==");
    // Then class mode (issue 31): 1,000 students over 2 proxies — a move reaching every
    // student (p50, p99), 1,000 answers counted, proxy memory per student, Redis memory per
    // class.
    for example in ["proxy-bench", "class-bench"] {
        run(proxy_release(Command::new("cargo").args([
            "run",
            "--release",
            "-q",
            "-p",
            "redislab-proxy",
            "--example",
            example,
        ])))?;
    }
    // The hostile soak (issue 22) with the figures: 300 attackers beside 50 students,
    // 60 s of attack windows, then 60 s for every session's key to go. A release-build test
    // only (crates/proxy/tests/soak.rs; about four minutes).
    println!("\n== proxy: the hostile soak (release) ==");
    run(proxy_release(
        Command::new("cargo")
            .args([
                "test",
                "--release",
                "-q",
                "-p",
                "redislab-proxy",
                "--test",
                "soak",
                "--",
                "--nocapture",
            ])
            .env("REDISLAB_SOAK_SECS", "60")
            .env("REDISLAB_SOAK_AFTER_SECS", "60"),
    ))?;
    Ok(())
}

/// The proxy built for speed without the app's size-first release profile (fat LTO, one
/// codegen unit, opt-level z for the dependencies), which takes long to build on a small
/// machine and is slower.
fn proxy_release(cmd: &mut Command) -> &mut Command {
    cmd.env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "3")
}

fn gzip_len(p: &Path) -> Result<usize, String> {
    let out = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(p)
        .output()
        .map_err(|e| format!("gzip is needed to measure sizes: {e}"))?;
    Ok(out.stdout.len())
}

/// `serve --redis <url> [proxy options]`: the release app served by the proxy
/// (`crates/proxy`), with its WebSocket to that Redis. The proxy is built at opt-level 3
/// without LTO (the workspace's release profile is tuned for a small wasm file).
fn serve_with_redis(path: &str, extra: &[String]) -> Result<(), String> {
    release_build(path)?;
    println!("xtask: serving dist/ and /ws at http://127.0.0.1:8080 (Ctrl-C stops)");
    run(proxy_release(
        Command::new("cargo")
            .args(["run", "--release", "-p", "redislab-proxy", "--"])
            .args(extra)
            .env("PATH", path),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_cfg_is_found_and_the_tree_has_none() {
        let dir = std::env::temp_dir().join(format!("xtask-cfg-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src")).unwrap();
        // Spelled in two pieces so that this file is not one of them.
        let arch = format!(
            "#[cfg(all(test, {} = \"wasm32\"))]\nfn f() {{}}\n",
            "target_arch"
        );
        let family = format!("#[cfg(not({} = \"wasm\"))]\nfn g() {{}}\n", "target_family");
        std::fs::write(dir.join("src/a.rs"), arch).unwrap();
        std::fs::write(dir.join("src/b.rs"), family).unwrap();
        std::fs::write(dir.join("src/c.rs"), "#[cfg(unix)]\nfn h() {}\n").unwrap();
        assert_eq!(target_cfgs(&dir), ["src/a.rs", "src/b.rs"]);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(target_cfgs(&root()), Vec::<String>::new());
    }
}

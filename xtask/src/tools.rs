//! Finds or installs the tools the build and the tests need. Versions are pinned: trunk
//! 0.21.14, wasm-bindgen-cli equal to Cargo.lock's wasm-bindgen, binaryen 132 from npm (its
//! wasm-opt reads today's rustc output; Debian's 108 does not), Debian's chromium and
//! chromium-driver for the browser tests, axe-core 4.14.1 from npm for their accessibility
//! checks, and Debian's redis-server for the sim crate's differential test against a real
//! Redis 7.

use crate::{root, run};
use std::path::PathBuf;
use std::process::Command;

const TRUNK: &str = "0.21.14";
const BINARYEN: &str = "132.0.0";
const WASM_OPT_VERSION: &str = "version_132";
const AXE: &str = "4.14.1";

fn home() -> PathBuf {
    PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/root".into()))
}

fn cargo_bin() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map_or_else(|| home().join(".cargo"), PathBuf::from)
        .join("bin")
}

/// Where npm packages go (outside the checkout, so fresh clones reuse them).
fn cache_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map_or_else(|| home().join(".cache"), PathBuf::from)
        .join("redislab")
}

/// Where the npm binaryen package goes.
fn binaryen_dir() -> PathBuf {
    cache_dir().join(format!("binaryen-{BINARYEN}"))
}

/// The first line a tool prints for `--version`, if it runs.
fn version_of(cmd: &str, path: &str) -> Option<String> {
    let out = Command::new(cmd)
        .arg("--version")
        .env("PATH", path)
        .output()
        .ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string()
    })
}

fn step(what: &str) {
    println!("xtask: {what}");
}

/// The `version` of `name` in Cargo.lock.
fn locked_version(name: &str) -> Result<String, String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock"))
        .map_err(|e| format!("Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l == format!("name = \"{name}\"") {
            if let Some(v) = lines.next().and_then(|v| v.strip_prefix("version = \"")) {
                return Ok(v.trim_end_matches('"').to_string());
            }
        }
    }
    Err(format!("Cargo.lock has no `{name}` package"))
}

/// Installs what building needs; returns the PATH to run trunk with.
pub fn ensure_build_tools() -> Result<String, String> {
    let path = format!(
        "{}:{}:{}",
        binaryen_dir().join("node_modules/.bin").display(),
        cargo_bin().display(),
        std::env::var("PATH").unwrap_or_default()
    );

    // The wasm32 target.
    let targets = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output();
    match targets {
        Ok(out) if String::from_utf8_lossy(&out.stdout).contains("wasm32-unknown-unknown") => {}
        Ok(_) => {
            step("installing the wasm32-unknown-unknown target (rustup target add)");
            run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
        }
        Err(e) => {
            return Err(format!(
                "rustup is needed to add the wasm32-unknown-unknown target: {e}"
            ))
        }
    }

    // trunk.
    if version_of("trunk", &path).as_deref() != Some(&format!("trunk {TRUNK}")) {
        step(&format!(
            "installing trunk {TRUNK} (cargo install; a few minutes on 2 cores)"
        ));
        run(Command::new("cargo").args([
            "install",
            "trunk",
            "--version",
            &format!("={TRUNK}"),
            "--locked",
        ]))
        .map_err(|e| format!("could not install trunk {TRUNK}: {e}"))?;
    }

    // wasm-bindgen-cli, exactly Cargo.lock's wasm-bindgen.
    let wb = locked_version("wasm-bindgen")?;
    let trunk_toml = std::fs::read_to_string(root().join("Trunk.toml"))
        .map_err(|e| format!("Trunk.toml: {e}"))?;
    if !trunk_toml.contains(&format!("wasm_bindgen = \"{wb}\"")) {
        return Err(format!(
            "Trunk.toml must pin `wasm_bindgen = \"{wb}\"` (the version in Cargo.lock)"
        ));
    }
    if !trunk_toml.contains(&format!("wasm_opt = \"{WASM_OPT_VERSION}\"")) {
        return Err(format!(
            "Trunk.toml must pin `wasm_opt = \"{WASM_OPT_VERSION}\"` (binaryen {BINARYEN})"
        ));
    }
    if version_of("wasm-bindgen", &path).as_deref() != Some(&format!("wasm-bindgen {wb}")) {
        step(&format!(
            "installing wasm-bindgen-cli {wb} (cargo install; matches Cargo.lock)"
        ));
        run(Command::new("cargo").args([
            "install",
            "wasm-bindgen-cli",
            "--version",
            &format!("={wb}"),
        ]))
        .map_err(|e| format!("could not install wasm-bindgen-cli {wb}: {e}"))?;
    }

    // wasm-opt from the npm package binaryen.
    let want = format!("({WASM_OPT_VERSION})");
    if !version_of("wasm-opt", &path).is_some_and(|v| v.contains(&want)) {
        if version_of("npm", &path).is_none() {
            if is_root() {
                apt_install(&["nodejs", "npm"])?;
            } else {
                return Err("npm is needed to install wasm-opt (binaryen); install Node.js and npm (Debian: apt-get install nodejs npm)".into());
            }
        }
        step(&format!(
            "installing wasm-opt (npm package binaryen@{BINARYEN}) into {}",
            binaryen_dir().display()
        ));
        std::fs::create_dir_all(binaryen_dir())
            .map_err(|e| format!("{}: {e}", binaryen_dir().display()))?;
        run(Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(binaryen_dir())
            .arg(format!("binaryen@{BINARYEN}")))
        .map_err(|e| format!("could not install binaryen {BINARYEN} from npm: {e}"))?;
        if !version_of("wasm-opt", &path).is_some_and(|v| v.contains(&want)) {
            return Err(format!("wasm-opt {WASM_OPT_VERSION} is still not on PATH after installing binaryen@{BINARYEN}"));
        }
    }
    Ok(path)
}

/// Installs rustfmt and clippy when `cargo fmt` or `cargo clippy` does not run.
pub fn ensure_lint_tools() -> Result<(), String> {
    let runs = |sub: &str| {
        Command::new("cargo")
            .args([sub, "--version"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !runs("fmt") || !runs("clippy") {
        step("installing rustfmt and clippy (rustup component add)");
        run(Command::new("rustup").args(["component", "add", "rustfmt", "clippy"]))
            .map_err(|e| format!("could not add rustfmt and clippy: {e}"))?;
    }
    Ok(())
}

/// Paths of the browser and its driver.
pub struct Browser {
    /// Chromium's executable.
    pub chromium: PathBuf,
    /// ChromeDriver's executable.
    pub chromedriver: PathBuf,
    /// axe-core's `axe.min.js`, injected into pages by the accessibility tests.
    pub axe: PathBuf,
}

/// Installs what the browser tests need (Debian's chromium and chromium-driver).
pub fn ensure_test_tools() -> Result<Browser, String> {
    ensure_redis_server()?;
    let b = Browser {
        chromium: "/usr/bin/chromium".into(),
        chromedriver: "/usr/bin/chromedriver".into(),
        axe: ensure_axe()?,
    };
    if !b.chromium.exists() || !b.chromedriver.exists() {
        if is_root() {
            apt_install(&["chromium", "chromium-driver"])?;
        } else {
            return Err("the browser tests need Debian's packages `chromium` and `chromium-driver` (as root: apt-get install chromium chromium-driver)".into());
        }
    }
    for p in [&b.chromium, &b.chromedriver] {
        if !p.exists() {
            return Err(format!(
                "{} is missing after installing chromium and chromium-driver",
                p.display()
            ));
        }
    }
    Ok(b)
}

/// axe-core from npm, pinned, into the cache (like wasm-opt).
fn ensure_axe() -> Result<PathBuf, String> {
    let dir = cache_dir().join(format!("axe-core-{AXE}"));
    let js = dir.join("node_modules/axe-core/axe.min.js");
    if js.exists() {
        return Ok(js);
    }
    step(&format!(
        "installing axe-core {AXE} (npm) into {}",
        dir.display()
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    run(Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&dir)
        .arg(format!("axe-core@{AXE}")))
    .map_err(|e| format!("could not install axe-core {AXE} from npm: {e}"))?;
    if js.exists() {
        Ok(js)
    } else {
        Err(format!("{} is missing after npm install", js.display()))
    }
}

/// Installs Debian's `redis-server` (7.x on bookworm) and `redis-tools` when one of their
/// commands is not on PATH: the sim crate's differential test
/// (`crates/sim/tests/redis_differential.rs`) and the proxy's tests start their own
/// `redis-server`; the proxy's cluster test (`crates/proxy/tests/cluster.rs`) makes a cluster
/// with `redis-cli --cluster create`; the benches run `redis-benchmark`. (Debian's
/// `redis-server` depends on `redis-tools`, which has `redis-cli` and `redis-benchmark`.)
pub fn ensure_redis_server() -> Result<(), String> {
    const NEEDED: [&str; 3] = ["redis-server", "redis-cli", "redis-benchmark"];
    let path = std::env::var("PATH").unwrap_or_default();
    let missing = || -> Vec<&str> {
        NEEDED
            .into_iter()
            .filter(|c| version_of(c, &path).is_none())
            .collect()
    };
    if missing().is_empty() {
        return Ok(());
    }
    if is_root() {
        apt_install(&["redis-server", "redis-tools"])?;
    } else {
        return Err(format!(
            "the tests and benches need {} from Debian's packages `redis-server` and \
             `redis-tools` (as root: apt-get install redis-server redis-tools)",
            missing().join(", ")
        ));
    }
    let still = missing();
    if !still.is_empty() {
        return Err(format!(
            "{} still not on PATH after installing redis-server and redis-tools",
            still.join(", ")
        ));
    }
    Ok(())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn apt_install(pkgs: &[&str]) -> Result<(), String> {
    step(&format!("installing {} with apt-get", pkgs.join(" ")));
    run(Command::new("apt-get").arg("update").arg("-q"))?;
    run(Command::new("apt-get")
        .args(["install", "-y", "-q"])
        .args(pkgs)
        .env("DEBIAN_FRONTEND", "noninteractive"))
    .map_err(|e| format!("could not install {}: {e}", pkgs.join(" ")))
}

/// The fonts a device may carry, for `browser-bench phone`'s "installed" cases: Debian's
/// `fonts-noto-core` and `fonts-noto-mono` (the release our subsets in `static/fonts` come
/// from), fetched with `apt-get download` and unpacked into the cache, never installed on
/// the machine (the other cases and the other tests must not see them). Two folders, each
/// with a `fonts.conf` that adds it to the system's fontconfig (Chromium reads
/// `FONTCONFIG_FILE`): `android/` holds what an Android phone has of our faces (Noto Sans
/// Bengali, regular and bold: Android's Latin is Roboto and its monospace Droid Sans Mono),
/// `all/` every face the style sheet names (a Linux desktop with fonts-noto). Returns the
/// folder that holds both.
pub fn ensure_noto_fonts() -> Result<PathBuf, String> {
    const ANDROID: &[&str] = &["NotoSansBengali-Regular.ttf", "NotoSansBengali-Bold.ttf"];
    const ALL: &[&str] = &[
        "NotoSansBengali-Regular.ttf",
        "NotoSansBengali-Bold.ttf",
        "NotoSans-Regular.ttf",
        "NotoSans-Bold.ttf",
        "NotoSansMono-Regular.ttf",
        "NotoSansSymbols-Regular.ttf",
        "NotoSansSymbols2-Regular.ttf",
    ];
    let root = cache_dir().join("fonts-noto");
    let ready = |set: &str, files: &[&str]| {
        files.iter().all(|f| root.join(set).join(f).exists())
            && root.join(set).join("fonts.conf").exists()
    };
    if ready("android", ANDROID) && ready("all", ALL) {
        return Ok(root);
    }
    let debs = root.join("debs");
    std::fs::create_dir_all(&debs).map_err(|e| format!("{}: {e}", debs.display()))?;
    step(&format!(
        "fetching Debian's fonts-noto-core and fonts-noto-mono (apt-get download) into {}",
        debs.display()
    ));
    // Not `run`: that starts in the workspace, and apt-get download writes where it starts.
    let ok = Command::new("apt-get")
        .args(["download", "fonts-noto-core", "fonts-noto-mono"])
        .current_dir(&debs)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return Err(
            "apt-get download fonts-noto-core fonts-noto-mono failed (run apt-get update first)"
                .into(),
        );
    }
    let unpacked = root.join("unpacked");
    for deb in std::fs::read_dir(&debs)
        .map_err(|e| e.to_string())?
        .flatten()
    {
        if deb.path().extension().is_some_and(|e| e == "deb") {
            run(Command::new("dpkg-deb")
                .arg("-x")
                .arg(deb.path())
                .arg(&unpacked))?;
        }
    }
    let noto = unpacked.join("usr/share/fonts/truetype/noto");
    for (set, files) in [("android", ANDROID), ("all", ALL)] {
        let dir = root.join(set);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for f in files {
            std::fs::copy(noto.join(f), dir.join(f))
                .map_err(|e| format!("{}: {e}", noto.join(f).display()))?;
        }
        let conf = format!(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"fonts.dtd\">\n<fontconfig>\n  <include ignore_missing=\"yes\">/etc/fonts/fonts.conf</include>\n  <dir>{d}</dir>\n  <cachedir>{d}/cache</cachedir>\n</fontconfig>\n",
            d = dir.display()
        );
        std::fs::write(dir.join("fonts.conf"), conf).map_err(|e| e.to_string())?;
    }
    Ok(root)
}

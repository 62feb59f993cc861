//! The app offline after the first visit, its releases and its development builds, in a real
//! headless Chromium with the service worker the build writes (`static/sw.js`,
//! `crates/deck/src/release.rs`, `src/offline.rs`).
//!
//! "Offline" is both halves of a network that is gone: the page is told (Chromium's network
//! emulation through the DevTools protocol, which sets `navigator.onLine`) and the cable
//! between the browser and the server is pulled out (`redislab_e2e::net::Cable`: open
//! connections close, new ones are refused), so nothing the service worker or a worker
//! fetches can reach the server either.

use redislab_deck::release;
use redislab_e2e::net::{Cable, Live};
use redislab_e2e::{data, decks, dist_dir, key, screenshot_dir, serve_dir, Browser};
use serde_json::json;
use std::path::{Path, PathBuf};

/// Tells the page it is offline (or online again).
fn emulate_offline(b: &Browser, offline: bool) {
    b.cdp("Network.enable", json!({}));
    b.cdp(
        "Network.emulateNetworkConditions",
        json!({"offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}),
    );
}

/// Waits until the whole release is on the device, as the page says it (the note at the
/// foot of the screen; `data-offline` on the root stays for later checks).
fn wait_until_kept(b: &Browser) {
    b.wait(120, "the note that the app now works offline", |b| {
        b.exists("[data-testid=offline-note]")
    });
    let note = b.text("[data-testid=offline-note]").unwrap_or_default();
    assert!(note.contains("নেটওয়ার্ক ছাড়াও চলবে"), "{note}");
    assert_eq!(
        b.js("return document.documentElement.dataset.offline", json!([])),
        json!("ready")
    );
}

/// The release the page names.
fn page_release(b: &Browser) -> Option<String> {
    b.js(
        "const m = document.querySelector('meta[name=redislab-release]'); return m ? m.content : null",
        json!([]),
    )
    .as_str()
    .map(str::to_string)
}

/// Moves the page to `hash` (inside the app: no request for the page).
fn go(b: &Browser, hash: &str) {
    b.js("location.hash = arguments[0]", json!([hash]));
}

#[test]
fn every_deck_lab_question_and_handout_opens_offline_after_the_first_visit() {
    let live = Live::start();
    let cable = Cable::to(live.pport);
    let b = Browser::new(412, 915);
    let dir = screenshot_dir().join("offline");
    b.open_url(&format!("{}#/production/1", cable.url));
    b.wait_counter("০১ / ২২");
    wait_until_kept(&b);
    b.screenshot(&dir.join("kept-412x915.png"));
    // Opened from the home screen (the manifest's start_url), the app goes to the last slide
    // the student was on.
    go(&b, "#/patterns/3");
    b.wait_counter("০৩ / ২৬");
    b.open_url(&format!("{}?launch=app", cable.url));
    b.wait_counter("০৩ / ২৬");
    assert!(b.url().ends_with("?launch=app#/patterns/3"), "{}", b.url());
    go(&b, "#/production/1");
    b.wait_counter("০১ / ২২");

    // The network goes.
    cable.cut();
    emulate_offline(&b, true);
    assert_eq!(b.js("return navigator.onLine", json!([])), json!(false));
    b.reload();
    b.wait_counter("০১ / ২২");
    let title = b.text(".stage .slide-title").unwrap_or_default();
    assert!(title.contains("প্রোডাকশনে Redis"), "{title}");

    // Every deck's first slide.
    for d in decks() {
        let n = d.slides.len();
        go(&b, &format!("#/{}/1", d.id));
        b.wait_counter(&redislab_deck::bn::counter(0, n));
        assert!(
            b.text(".stage .slide-title")
                .is_some_and(|t| !t.trim().is_empty()),
            "{}: no title",
            d.id
        );
    }
    // A handout: every slide of the deck laid out.
    go(&b, "#/production/print");
    b.wait(20, "the handout", |b| {
        b.js(
            "return document.querySelectorAll('.print-page').length",
            json!([]),
        ) == json!(22)
    });
    // A lab on its own page: the labs module, the simulation worker and a run, all from the
    // device.
    go(&b, "#/lab/lru");
    b.wait(60, "the LRU lab's run", |b| {
        b.exists(".lab[aria-busy=false]") && b.exists(".scrubber")
    });
    b.screenshot(&dir.join("lab-offline-412x915.png"));
    // A practice question, answered and graded.
    go(&b, "#/practice/lru/order?seed=7");
    b.wait(60, "the question", |b| b.exists("#practice-answer"));
    b.click("#practice-answer");
    b.press("A B");
    b.press(key::ENTER);
    b.wait(20, "the verdict", |b| b.exists(".practice-verdict"));

    // The parts that need the network say so, plainly.
    go(&b, "#/lab/lock");
    b.wait(60, "the lock lab", |b| {
        b.exists("[data-testid=live-switch]")
    });
    let says = b.text("[data-testid=needs-network]").unwrap_or_default();
    assert!(says.contains("আসল Redis নেটওয়ার্ক ছাড়া চলে না"), "{says}");
    assert_eq!(
        b.js(
            "return document.querySelector('[data-testid=live-switch]').disabled",
            json!([])
        ),
        json!(true)
    );
    b.js(
        "document.querySelector('[data-testid=needs-network]').scrollIntoView({block: 'center'})",
        json!([]),
    );
    b.screenshot(&dir.join("live-switch-offline-412x915.png"));
    go(&b, "#/console");
    b.wait(60, "the console", |b| {
        b.exists("[data-testid=console-input]")
    });
    let says = b.text("[data-testid=needs-network]").unwrap_or_default();
    assert!(says.contains("কনসোল নেটওয়ার্ক ছাড়া চলে না"), "{says}");
    b.screenshot(&dir.join("console-offline-412x915.png"));

    // The network comes back: the console connects and answers, the switch runs live.
    cable.mend();
    emulate_offline(&b, false);
    b.wait(30, "the console to connect", |b| {
        data(b, "[data-testid=live-indicator]", "state").as_deref() == Some("connected")
    });
    assert!(!b.exists("[data-testid=needs-network]"));
    b.click("[data-testid=console-input]");
    b.press("PING");
    b.press(key::ENTER);
    b.wait(10, "PING's answer", |b| {
        b.text(".console-entry [data-testid=console-out]")
            .is_some_and(|t| t.contains("PONG"))
    });
    go(&b, "#/lab/lock");
    b.wait(60, "the lock lab", |b| {
        b.exists("[data-testid=live-switch]")
    });
    assert!(!b.exists("[data-testid=needs-network]"));
    b.click("[data-testid=live-switch]");
    b.wait(30, "the live run to connect", |b| {
        data(b, "[data-testid=live-indicator]", "state").as_deref() == Some("connected")
    });
}

/// A copy of `from` at `to` (a fresh folder).
fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let q = to.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &q);
        } else {
            std::fs::copy(&p, &q).unwrap();
        }
    }
}

/// The service worker's source (what the build writes `sw.js` from).
fn template() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../static/sw.js"))
        .expect("static/sw.js")
}

/// Two releases in temporary folders: the build as it is, and the same build with its fixed
/// names changed (the page, the labs module's script, the simulation worker's loader), made
/// into a release of its own the way the build makes one. Returns both folders and ids.
fn two_releases(tag: &str) -> ((PathBuf, String), (PathBuf, String)) {
    let tmp = std::env::temp_dir().join(format!("redislab-offline-{tag}-{}", std::process::id()));
    let (a, b) = (tmp.join("a"), tmp.join("b"));
    copy_dir(&dist_dir(), &a);
    copy_dir(&dist_dir(), &b);
    let ida = release::write(&a, &template(), true).unwrap().unwrap();
    for f in ["labs.js", "worker_loader.js"] {
        let mut s = std::fs::read_to_string(b.join(f)).unwrap();
        s.push_str("\n// the next release\n");
        std::fs::write(b.join(f), s).unwrap();
    }
    let page = std::fs::read_to_string(b.join("index.html"))
        .unwrap()
        .replace(
            "<title>",
            "<meta name=\"test-build\" content=\"next\">\n  <title>",
        );
    std::fs::write(b.join("index.html"), page).unwrap();
    let idb = release::write(&b, &template(), true).unwrap().unwrap();
    assert_ne!(ida, idb);
    ((a, ida), (b, idb))
}

#[test]
fn a_new_release_is_offered_and_after_the_reload_every_file_is_its_own_at_a_sub_path() {
    let ((a, ida), (next, idb)) = two_releases("update");
    let served = serve_dir(a.clone(), "/redis-lab/", false);
    let b = Browser::new(1366, 768);
    b.open_url(&format!("{}#/production/1", served.url));
    b.wait_counter("০১ / ২২");
    wait_until_kept(&b);
    assert_eq!(page_release(&b).as_deref(), Some(ida.as_str()));
    // Installable: the browser reads the manifest without errors and finds nothing missing.
    let manifest = b.cdp("Page.getAppManifest", json!({}));
    assert_eq!(manifest["errors"], json!([]), "{manifest}");
    assert!(
        manifest["data"]
            .as_str()
            .is_some_and(|d| d.contains("\"display\": \"standalone\"")),
        "{manifest}"
    );
    let installable = b.cdp("Page.getInstallabilityErrors", json!({}));
    assert_eq!(
        installable["installabilityErrors"],
        json!([]),
        "{installable}"
    );
    assert_eq!(
        b.js(
            "return navigator.serviceWorker.controller && navigator.serviceWorker.controller.scriptURL",
            json!([])
        ),
        json!(format!("{}sw.js", served.url))
    );

    // The host gets the next build; the page, reloaded, is still the release it has, and
    // offers the new one.
    served.set_root(next.clone());
    b.reload();
    b.wait_counter("০১ / ২২");
    assert_eq!(page_release(&b).as_deref(), Some(ida.as_str()));
    b.wait(60, "the offer of the new release", |b| {
        b.exists("[data-testid=update-reload]")
    });
    assert_eq!(
        b.text("[data-testid=update-reload]").as_deref(),
        Some("নতুন সংস্করণ — রিলোড")
    );
    // Still the old release's files meanwhile: the labs module the page would load now is
    // its own, not the host's.
    let labs = b.js_async(
        "const done = arguments[0]; fetch('labs.js').then(r => r.text()).then(t => done(t.includes('the next release'))).catch(e => done(String(e)));",
        json!([]),
    );
    assert_eq!(labs, json!(false));
    b.screenshot(&screenshot_dir().join("offline/update-offered-1366x768.png"));
    b.set_viewport(360, 740);
    b.screenshot(&screenshot_dir().join("offline/update-offered-360x740.png"));
    let banner = b.rect("[data-testid=update-banner]").expect("the banner");
    assert!(
        banner.x >= 0.0 && banner.x + banner.width <= 360.0 && banner.y + banner.height <= 740.0,
        "{banner:?}"
    );

    b.click("[data-testid=update-reload]");
    b.wait(30, "the page of the new release", |b| {
        page_release(b).as_deref() == Some(idb.as_str())
    });
    b.wait_counter("০১ / ২২");
    // Every file of the new release, as the page gets it now, is byte for byte the host's.
    let files: Vec<String> = walk(&next);
    b.script_timeout(120_000);
    let got = b.js_async(
        "const [paths, done] = arguments;
         Promise.all(paths.map(p => fetch(p).then(r => r.arrayBuffer()).then(buf => crypto.subtle.digest('SHA-256', buf))
           .then(d => [p, Array.from(new Uint8Array(d), x => x.toString(16).padStart(2, '0')).join('')])))
           .then(done).catch(e => done(String(e)));",
        json!([files
            .iter()
            .filter(|f| f.as_str() != release::SW)
            .collect::<Vec<_>>()]),
    );
    let got = got.as_array().unwrap_or_else(|| panic!("{got}"));
    assert!(got.len() > 20, "{got:?}");
    for pair in got {
        let (p, h) = (pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
        let want = release::sha256(&std::fs::read(next.join(p)).unwrap());
        assert_eq!(h, want, "{p} is not the new release's");
    }
    // Only the new release is kept.
    let kept = b.js_async(
        "const done = arguments[0]; caches.keys().then(done);",
        json!([]),
    );
    assert_eq!(kept, json!([format!("redislab-{idb}")]));
    let _ = std::fs::remove_dir_all(a.parent().unwrap());
}

/// Every file under `dir`, relative, `/`-separated.
fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_dir() {
            out.extend(walk(&p).into_iter().map(|f| format!("{name}/{f}")));
        } else {
            out.push(name);
        }
    }
    out
}

#[test]
fn a_development_build_over_a_release_removes_the_worker_and_its_caches() {
    let ((a, ida), (dev, _)) = two_releases("dev");
    // The development build: the worker that removes itself, no release in the page.
    release::write(&dev, &template(), false).unwrap();
    let served = serve_dir(a.clone(), "/", false);
    let b = Browser::new(1366, 768);
    b.open_url(&format!("{}#/production/1", served.url));
    b.wait_counter("০১ / ২২");
    wait_until_kept(&b);
    assert_eq!(page_release(&b).as_deref(), Some(ida.as_str()));

    served.set_root(dev);
    b.reload();
    b.wait(60, "the development build's page from the server", |b| {
        b.exists("meta[name=test-build]") && page_release(b).is_none()
    });
    b.wait_counter("০১ / ২২");
    b.script_timeout(30_000);
    b.wait(30, "no worker and no cache", |b| {
        b.js_async(
            "const done = arguments[0]; Promise.all([navigator.serviceWorker.getRegistrations(), caches.keys()]).then(([r, c]) => done(r.length + c.length));",
            json!([]),
        ) == json!(0)
    });
    assert!(!b.exists("[data-testid=update-banner]"));
    let _ = std::fs::remove_dir_all(a.parent().unwrap());
}

//! The harness for Redis Lab's end-to-end tests: a small static file server for the built app
//! (`serve`), a ChromeDriver process, and a minimal W3C WebDriver client driving a real headless Chromium.
//!
//! `cargo xtask test` builds the app and sets `REDISLAB_DIST`, `REDISLAB_CHROMIUM` and
//! `REDISLAB_CHROMEDRIVER`; run through it, not with a bare `cargo test`.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

mod driver;
pub mod net;
mod serve;
pub mod slides;
use driver::{base64_decode, env_path, http};
pub use serve::{app_url, dist_dir, free_port, serve_dir, serve_dist, serve_dist_as, Sent, Served};

/// A browser session: one headless Chromium window.
pub struct Browser {
    id: String,
    _profile: TempDir,
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// WebDriver key codes.
pub mod key {
    /// ←
    pub const LEFT: &str = "\u{E012}";
    /// →
    pub const RIGHT: &str = "\u{E014}";
    /// Home
    pub const HOME: &str = "\u{E011}";
    /// End
    pub const END: &str = "\u{E010}";
    /// Escape
    pub const ESCAPE: &str = "\u{E00C}";
    /// PageDown
    pub const PAGE_DOWN: &str = "\u{E00F}";
    /// PageUp
    pub const PAGE_UP: &str = "\u{E00E}";
    /// ↓
    pub const DOWN: &str = "\u{E015}";
    /// Space
    pub const SPACE: &str = "\u{E00D}";
    /// Enter
    pub const ENTER: &str = "\u{E007}";
    /// Tab
    pub const TAB: &str = "\u{E004}";
    /// Shift (held until released in the same `press`)
    pub const SHIFT: &str = "\u{E008}";
}

/// An element's box on screen, in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

impl Browser {
    /// Opens a headless Chromium window of `width`×`height` CSS pixels.
    pub fn new(width: u32, height: u32) -> Browser {
        let profile = std::env::temp_dir().join(format!(
            "redislab-chromium-{}-{}",
            std::process::id(),
            free_port()
        ));
        std::fs::create_dir_all(&profile).expect("profile dir");
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {
                "binary": env_path("REDISLAB_CHROMIUM"),
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-quic", "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--disable-extensions",
                    "--hide-scrollbars", "--force-device-scale-factor=1",
                    // The hidden window's own omnibox popup is a web page of Chromium's
                    // (`--top-chrome-webui`): unasked, it spends about 1.2 s of CPU in a
                    // renderer of its own in the browser's first two seconds, which on a 2-core
                    // machine stretched the app's tasks past 50 ms. A phone's browser has done
                    // its start-up long before a student opens a link.
                    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup",
                    format!("--window-size={width},{height}"),
                    format!("--user-data-dir={}", profile.display()),
                ]
            }
        }}});
        let v = http("POST", "/session", Some(&caps));
        let id = v["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {v}"))
            .to_string();
        let b = Browser {
            id,
            _profile: TempDir(profile),
        };
        b.set_viewport(width, height);
        b
    }

    fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let v = http(
            method,
            &format!("/session/{}{path}", self.id),
            body.as_ref(),
        );
        if let Some(err) = v["value"].get("error") {
            panic!(
                "webdriver {method} {path}: {err}: {}",
                v["value"]["message"]
            );
        }
        v["value"].clone()
    }

    /// Makes the page's viewport exactly `width`×`height` (the window has chrome around it).
    pub fn set_viewport(&self, width: u32, height: u32) {
        self.cmd(
            "POST",
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        );
        let inner = self.js("return [window.innerWidth, window.innerHeight]", json!([]));
        let (iw, ih) = (
            inner[0].as_u64().unwrap_or(0) as u32,
            inner[1].as_u64().unwrap_or(0) as u32,
        );
        if (iw, ih) != (width, height) && iw > 0 {
            self.cmd(
                "POST",
                "/window/rect",
                Some(json!({"width": 2 * width - iw, "height": 2 * height - ih})),
            );
        }
    }

    /// Navigates to `path` under the app's URL (e.g. `#/production/1`).
    pub fn open(&self, path: &str) {
        self.open_url(&format!("{}{path}", app_url()));
    }

    /// Navigates to a full URL.
    pub fn open_url(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({"url": url})));
    }

    /// Reloads the page.
    pub fn reload(&self) {
        self.cmd("POST", "/refresh", Some(json!({})));
    }

    /// Browser back.
    pub fn back(&self) {
        self.cmd("POST", "/back", Some(json!({})));
    }

    /// Browser forward.
    pub fn forward(&self) {
        self.cmd("POST", "/forward", Some(json!({})));
    }

    /// The current URL.
    pub fn url(&self) -> String {
        self.cmd("GET", "/url", None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Runs a script (`return …`) in the page.
    pub fn js(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": args})),
        )
    }

    /// Runs an async script; it must call `arguments[arguments.length - 1](result)`.
    pub fn js_async(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "/execute/async",
            Some(json!({"script": script, "args": args})),
        )
    }

    /// Sends a Chrome DevTools Protocol command (e.g. `Emulation.setCPUThrottlingRate`).
    pub fn cdp(&self, cmd: &str, params: Value) -> Value {
        self.cmd(
            "POST",
            "/goog/cdp/execute",
            Some(json!({"cmd": cmd, "params": params})),
        )
    }

    /// Slows the page's CPU down `rate` times (4 is a mid-range phone), as DevTools does.
    pub fn throttle_cpu(&self, rate: f64) {
        self.cdp("Emulation.setCPUThrottlingRate", json!({"rate": rate}));
    }

    /// Sets the script timeout (ms).
    pub fn script_timeout(&self, ms: u64) {
        self.cmd("POST", "/timeouts", Some(json!({"script": ms})));
    }

    /// Presses and releases keys, as a person would (trusted events).
    pub fn press(&self, keys: &str) {
        let mut actions = Vec::new();
        for k in keys.chars() {
            actions.push(json!({"type": "keyDown", "value": k.to_string()}));
            actions.push(json!({"type": "keyUp", "value": k.to_string()}));
        }
        self.cmd(
            "POST",
            "/actions",
            Some(json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})),
        );
        self.cmd("DELETE", "/actions", None);
    }

    /// Presses `key` with Shift held (Shift+Tab).
    pub fn press_shift(&self, key: &str) {
        let actions = json!([
            {"type": "keyDown", "value": key::SHIFT},
            {"type": "keyDown", "value": key},
            {"type": "keyUp", "value": key},
            {"type": "keyUp", "value": key::SHIFT},
        ]);
        self.cmd(
            "POST",
            "/actions",
            Some(json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})),
        );
        self.cmd("DELETE", "/actions", None);
    }

    /// Moves the mouse to (x, y) in the viewport.
    pub fn move_mouse(&self, x: i64, y: i64) {
        let actions =
            json!([{"type": "pointerMove", "duration": 0, "origin": "viewport", "x": x, "y": y}]);
        self.cmd(
            "POST",
            "/actions",
            Some(json!({"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": actions}]})),
        );
    }

    /// Makes this window a touch screen, as DevTools' device mode does: the page's primary
    /// pointer is then coarse and cannot hover (`@media (hover: none) and (pointer: coarse)`
    /// matches), and it hears touch events.
    pub fn touch_screen(&self) {
        self.cdp(
            "Emulation.setTouchEmulationEnabled",
            json!({"enabled": true, "maxTouchPoints": 5}),
        );
    }

    /// A finger put down at `from`, drawn to `to` in ten moves, and lifted: real touch events
    /// through Chromium's input pipeline (`Input.dispatchTouchEvent`), so the browser scrolls
    /// what such a finger scrolls and the page hears `touchstart` … `touchend`.
    pub fn swipe(&self, from: (f64, f64), to: (f64, f64)) {
        let point = |x: f64, y: f64| json!([{"x": x, "y": y, "id": 1}]);
        self.cdp(
            "Input.dispatchTouchEvent",
            json!({"type": "touchStart", "touchPoints": point(from.0, from.1)}),
        );
        for i in 1..=10 {
            let f = f64::from(i) / 10.0;
            let (x, y) = (from.0 + (to.0 - from.0) * f, from.1 + (to.1 - from.1) * f);
            self.cdp(
                "Input.dispatchTouchEvent",
                json!({"type": "touchMove", "touchPoints": point(x, y)}),
            );
        }
        self.cdp(
            "Input.dispatchTouchEvent",
            json!({"type": "touchEnd", "touchPoints": []}),
        );
    }

    /// A finger's tap at (x, y) in the viewport (real touch events, see [`Browser::swipe`]).
    pub fn tap(&self, x: f64, y: f64) {
        self.cdp(
            "Input.dispatchTouchEvent",
            json!({"type": "touchStart", "touchPoints": [{"x": x, "y": y, "id": 1}]}),
        );
        self.cdp(
            "Input.dispatchTouchEvent",
            json!({"type": "touchEnd", "touchPoints": []}),
        );
    }

    /// Brings the first element matching `css` into view and taps its middle.
    pub fn tap_on(&self, css: &str) {
        self.js(
            "document.querySelector(arguments[0]).scrollIntoView({block: 'center'})",
            json!([css]),
        );
        let r = self
            .rect(css)
            .unwrap_or_else(|| panic!("nothing to tap: {css}"));
        self.tap(r.x + r.width / 2.0, r.y + r.height / 2.0);
    }

    /// Opens the lab's folded parameter form (if it is closed) and waits for its fields.
    pub fn open_form(&self) {
        if !self.exists(".lab-form-box[open]") {
            self.click(".lab-form-box summary");
        }
        self.wait(10, "the lab's fields", |b| {
            b.rect(".lab-form-box .lab-field")
                .is_some_and(|r| r.width > 0.0 && r.height > 0.0)
        });
    }

    /// Clicks the first element matching a CSS selector.
    pub fn click(&self, css: &str) {
        let el = self.cmd(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        let id = el
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .expect("element id")
            .to_string();
        self.cmd("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    /// Text content of the first element matching `css`, or None.
    pub fn text(&self, css: &str) -> Option<String> {
        self.js(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : null",
            json!([css]),
        )
        .as_str()
        .map(str::to_string)
    }

    /// The number a lab shows in the element `css` (its `data-n`); panics naming `css` if
    /// there is none.
    pub fn counter(&self, css: &str) -> u64 {
        let v = self.js(
            "const e = document.querySelector(arguments[0]); return e ? e.dataset.n : null;",
            json!([css]),
        );
        v.as_str()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no counter {css}: {v}"))
    }

    /// From now on, records the page's main-thread tasks of 50 ms or more (`longtask`
    /// entries) with the address they happened at; a hash change keeps the record.
    pub fn watch_long_tasks(&self) {
        self.js(
            "window.__long = []; new PerformanceObserver(l => l.getEntries().forEach(e => window.__long.push([location.hash, e.duration]))).observe({type: 'longtask'});",
            json!([]),
        );
    }

    /// Opens `hash` from a light page of the app (the not-found view: taking down the home
    /// page's slide previews is the home page's cost, not the lab's) up to `tries` times;
    /// `done` waits until the opening's work is over (and may act, e.g. scrub). Stops at the
    /// first opening without a long task; returns the long tasks of each opening that had
    /// some. A loaded 2-core machine can stall any task once; a lab that really blocks the
    /// main thread does so every time. Call [`Browser::watch_long_tasks`] first.
    pub fn long_task_openings(
        &self,
        hash: &str,
        tries: usize,
        done: impl Fn(&Browser),
    ) -> Vec<Value> {
        let mut attempts = Vec::new();
        for _ in 0..tries {
            self.js("location.hash = '#/nope'", json!([]));
            self.wait(10, "a light page", |b| b.exists(".notfound"));
            self.js(
                "window.__long.length = 0; location.hash = arguments[0]",
                json!([hash]),
            );
            done(self);
            let long = self.js("return window.__long", json!([]));
            if long == json!([]) {
                break;
            }
            attempts.push(long);
        }
        attempts
    }

    /// Moves the scrubber of the lab `lab` (a CSS scope) to the middle and back to the end,
    /// as a person dragging it would: two renders of the run's state.
    pub fn scrub_middle_and_end(&self, lab: &str) {
        self.js(
            "const s = document.querySelector(arguments[0] + ' .scrubber'); for (const v of [s.max / 2, s.max]) { s.value = String(Math.round(v)); s.dispatchEvent(new Event('input', {bubbles: true})); }",
            json!([lab]),
        );
    }

    /// Every text inside `scope` that is drawn (text and SVG) with an ASCII digit in it,
    /// outside code (`code`, `pre`, a command log, the form and its menus): a lab writes its
    /// numbers in Bengali digits, its axes included (issue 35 item 16). Empty: none.
    pub fn ascii_digits_drawn(&self, scope: &str) -> Vec<String> {
        let v = self.js(
            "const out = []; for (const root of document.querySelectorAll(arguments[0])) { const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT); for (let n = w.nextNode(); n; n = w.nextNode()) { const e = n.parentElement; if (!/[0-9]/.test(n.data) || e.closest('code, pre, kbd, samp, .cmd-log, select, textarea, script, style, .lab-form')) continue; if (e.getClientRects().length === 0 || getComputedStyle(e).visibility === 'hidden') continue; out.push(n.data.trim()); } } return out;",
            json!([scope]),
        );
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// At a `width`×`height` window (after the layout it brings is painted), how many pixels
    /// the stage's slide is taller than its box (0 or less: it fits).
    pub fn slide_overflow_at(&self, width: u32, height: u32) -> i64 {
        self.set_viewport(width, height);
        self.js_async(
            "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)))",
            json!([]),
        );
        self.js(
            "const s = document.querySelector('.stage .slide'); return s.scrollHeight - s.clientHeight",
            json!([]),
        )
        .as_i64()
        .unwrap_or(99)
    }

    /// Does an element match `css`?
    pub fn exists(&self, css: &str) -> bool {
        self.js(
            "return !!document.querySelector(arguments[0])",
            json!([css]),
        )
        .as_bool()
        .unwrap_or(false)
    }

    /// The box of the first element matching `css`, or None.
    pub fn rect(&self, css: &str) -> Option<Rect> {
        let v = self.js(
            "const e = document.querySelector(arguments[0]); if (!e) return null; const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]",
            json!([css]),
        );
        let a = v.as_array()?;
        let f = |i: usize| a[i].as_f64().unwrap_or(0.0);
        Some(Rect {
            x: f(0),
            y: f(1),
            width: f(2),
            height: f(3),
        })
    }

    /// The viewport's size in CSS pixels.
    pub fn viewport(&self) -> (f64, f64) {
        let v = self.js("return [window.innerWidth, window.innerHeight]", json!([]));
        (v[0].as_f64().unwrap_or(0.0), v[1].as_f64().unwrap_or(0.0))
    }

    /// The handle of the current window.
    pub fn window_handle(&self) -> String {
        self.cmd("GET", "/window", None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Opens a new window in this session and returns its handle (focus stays where it was).
    pub fn new_window(&self) -> String {
        self.cmd("POST", "/window/new", Some(json!({"type": "window"})))["handle"]
            .as_str()
            .expect("a window handle")
            .to_string()
    }

    /// Handles of every open window of this session.
    pub fn handles(&self) -> Vec<String> {
        self.cmd("GET", "/window/handles", None)
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|h| h.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Makes the window with this handle the one commands go to.
    pub fn switch_to(&self, handle: &str) {
        self.cmd("POST", "/window", Some(json!({"handle": handle})));
    }

    /// Prints the page to PDF (Chromium's print-to-PDF) on pages of this size in cm, no
    /// margins, backgrounds on.
    pub fn print_pdf(&self, width_cm: f64, height_cm: f64) -> Vec<u8> {
        let b64 = self.cmd(
            "POST",
            "/print",
            Some(json!({
                "background": true,
                "shrinkToFit": false,
                "page": {"width": width_cm, "height": height_cm},
                "margin": {"top": 0, "bottom": 0, "left": 0, "right": 0}
            })),
        );
        base64_decode(b64.as_str().expect("pdf data"))
    }

    /// Runs axe-core (WCAG 2.1 A/AA and best practice) on the page and returns its serious
    /// and critical violations as `rule: target — summary` lines.
    pub fn axe_serious(&self) -> Vec<String> {
        static AXE: OnceLock<String> = OnceLock::new();
        let src = AXE.get_or_init(|| {
            std::fs::read_to_string(env_path("REDISLAB_AXE")).expect("read axe.min.js")
        });
        if self.js("return typeof window.axe", json!([])) != json!("object") {
            self.js(&format!("{src}\n;return true"), json!([]));
        }
        self.script_timeout(60_000);
        let v = self.js_async(
            "const done = arguments[arguments.length - 1];
             axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}})
               .then(r => done(r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
                 .flatMap(v => v.nodes.map(n => v.id + ': ' + n.target.join(' ') + ' — ' + (n.failureSummary || '').split(String.fromCharCode(10)).slice(0, 2).join(' ')))))
               .catch(e => done(['axe failed: ' + e]));",
            json!([]),
        );
        v.as_array()
            .map(|a| {
                a.iter()
                    .map(|x| x.as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Waits until `check` holds (polling), or panics with `what` after `secs`.
    pub fn wait(&self, secs: u64, what: &str, check: impl FnMut(&Browser) -> bool) {
        assert!(
            self.wait_for(secs, check),
            "timed out after {secs} s waiting for {what}"
        );
    }

    /// Waits until `check` holds (polling) for at most `secs`; whether it came to hold (the
    /// caller then says what it found instead).
    pub fn wait_for(&self, secs: u64, mut check: impl FnMut(&Browser) -> bool) -> bool {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while !check(self) {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(40));
        }
        true
    }

    /// Waits for the slide counter to read `expected`.
    pub fn wait_counter(&self, expected: &str) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while self.text(".counter").as_deref() != Some(expected) {
            assert!(
                Instant::now() < deadline,
                "timed out after 15 s waiting for counter `{expected}`: it reads {:?} at {}",
                self.text(".counter"),
                self.url()
            );
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    /// Saves a PNG screenshot of the viewport.
    pub fn screenshot(&self, path: &Path) {
        let b64 = self.cmd("GET", "/screenshot", None);
        let png = base64_decode(b64.as_str().expect("screenshot data"));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("screenshot dir");
        }
        std::fs::write(path, png).expect("write screenshot");
    }

    /// Console messages at level SEVERE since the last call (errors, panics, failed loads).
    pub fn console_errors(&self) -> Vec<String> {
        let v = http(
            "POST",
            &format!("/session/{}/se/log", self.id),
            Some(&json!({"type": "browser"})),
        );
        v["value"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|e| e["level"] == "SEVERE")
                    .map(|e| e["message"].as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = http("DELETE", &format!("/session/{}", self.id), None);
    }
}

/// The deck `id` as the build parses it (`src/decks/<id>.md`).
pub fn deck(id: &str) -> redislab_deck::Deck {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../src/decks/{id}.md"));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    redislab_deck::parse::parse_deck(&src, id).unwrap_or_else(|e| panic!("{id}: {e}"))
}

/// Every deck, in home-page order, loaded the way the build loads them.
pub fn decks() -> Vec<redislab_deck::Deck> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../src/decks");
    redislab_deck::parse::load_dir(&dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .0
}

/// `data-<key>` of the first element matching `css` (`key` in camelCase, as `dataset` names
/// it), or None.
pub fn data(b: &Browser, css: &str, key: &str) -> Option<String> {
    b.js(
        "const e = document.querySelector(arguments[0]); return e ? e.dataset[arguments[1]] : null;",
        json!([css, key]),
    )
    .as_str()
    .map(str::to_string)
}

/// Fails with the page's console errors, if it logged any.
pub fn assert_no_console_errors(b: &Browser) {
    let errors = b.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
}

/// Fails when the page is wider than its window (a phone would scroll sideways).
pub fn assert_no_sideways_scroll(b: &Browser) {
    assert!(!scrolls_sideways(b), "the page scrolls sideways");
}

/// Whether the page is wider than its window (for a test that lists every page that is).
pub fn scrolls_sideways(b: &Browser) -> bool {
    b.js(
        "return document.documentElement.scrollWidth > window.innerWidth",
        serde_json::json!([]),
    ) == serde_json::json!(true)
}

/// Where screenshots go: `target/screenshots/…` in the workspace.
pub fn screenshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/screenshots")
}

pub use net::{proxy_binary, wait_port, Live};

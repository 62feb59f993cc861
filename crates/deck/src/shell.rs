//! Each deck's first slide as plain HTML, written into `index.html` at build time, so a
//! student who opens a deck's link sees its first slide as soon as the page, its stylesheet
//! and its fonts are in — before the app's wasm has arrived (on a slow phone, a second or
//! more later). The app removes it in the same task as it draws itself, in the same layout
//! (`src/main.rs`); until then keys do nothing, as the shell's footer says.
//!
//! The markup is the app's own `PlayerShell` (`src/deck/player.rs`) and `SlideView`
//! (`src/deck/slide.rs`), written out for the few blocks a cover uses (lead, paragraph,
//! note, bullets, stats). A deck whose cover uses anything else, or has fragments, gets no
//! shell: the app draws it as before. The end-to-end test
//! `the_first_slide_shows_before_the_app_and_matches_it` keeps the two in step: with the
//! wasm blocked the shell shows, and its boxes and text equal the app's.

use crate::{bn, Block, DeckInfo, Inline, Layout, Slide};

/// Where the shell's pieces go in `index.html`.
const MARK: &str = "</body>";

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn inline(text: &[Inline]) -> String {
    text.iter()
        .map(|i| match i {
            Inline::Text(s) => esc(s),
            Inline::Bold(s) => format!("<strong>{}</strong>", esc(s)),
            Inline::Em(s) => format!("<em>{}</em>", esc(s)),
            Inline::Code(s) => format!("<code>{}</code>", esc(s)),
            Inline::Mark(s) => format!("<mark>{}</mark>", esc(s)),
        })
        .collect()
}

fn block(b: &Block) -> Option<String> {
    Some(match b {
        Block::Para(t) => format!("<p>{}</p>", inline(t)),
        Block::Lead(t) => format!("<p class=\"lead\">{}</p>", inline(t)),
        Block::Note(t) => format!("<p class=\"note\">{}</p>", inline(t)),
        Block::Fix(t) => format!(
            "<p class=\"fix\"><span class=\"fix-tag\">সংশোধন</span> {}</p>",
            inline(t)
        ),
        Block::Bullets(items) => format!(
            "<ul class=\"bullets\">{}</ul>",
            items
                .iter()
                .map(|t| format!("<li>{}</li>", inline(t)))
                .collect::<String>()
        ),
        Block::Container { kind, items, .. } if kind == "stats" => format!(
            "<div class=\"stats\">{}</div>",
            items
                .iter()
                .map(|it| {
                    let f = |i: usize| it.get(i).map(|t| inline(t)).unwrap_or_default();
                    format!(
                        "<div class=\"stat\"><span class=\"stat-num\">{}</span><span class=\"stat-label\">{}</span></div>",
                        f(0),
                        f(1)
                    )
                })
                .collect::<String>()
        ),
        _ => return None,
    })
}

fn slide(s: &Slide) -> Option<String> {
    if !s.frags.is_empty() {
        return None;
    }
    let layout = match s.layout {
        Layout::Default => "layout-default",
        Layout::Cover => "layout-cover",
        Layout::End => "layout-end",
    };
    let title: String = s
        .title
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let accent = if i > 0 { " title-accent" } else { "" };
            format!("<span class=\"title-line{accent}\">{}</span>", esc(line))
        })
        .collect();
    let body = s.body.iter().map(block).collect::<Option<String>>()?;
    Some(format!(
        "<div class=\"slide {layout}\"><div class=\"slide-inner\"><p class=\"kicker\">{}</p><h1 class=\"slide-title\">{title}</h1><div class=\"slide-body\">{body}</div></div></div>",
        esc(&s.kicker)
    ))
}

/// Deck `info`'s first slide in the player's frame, or `None` when its cover uses a block
/// this page does not write.
pub fn cover(info: &DeckInfo) -> Option<String> {
    let len = info.steps.len();
    let counter = bn::counter(0, len);
    Some(format!(
        concat!(
            "<div class=\"player app-shell\" aria-busy=\"true\">",
            "<header class=\"topbar\"><a class=\"brand\" href=\"#/\" title=\"সব ডেক\"><span class=\"brand-mark\" aria-hidden=\"true\">◆</span> Redis Lab</a>",
            "<span class=\"deck-name\">{title}</span>",
            "<nav class=\"tools\" aria-label=\"প্রেজেন্টেশনের নিয়ন্ত্রণ\">",
            "<button class=\"tool\" disabled title=\"সব স্লাইড (O)\">▦<span class=\"tool-label\"> সব স্লাইড</span></button>",
            "<button class=\"tool\" disabled title=\"প্রেজেন্টারের স্ক্রিপ্ট (N)\">✎<span class=\"tool-label\"> স্ক্রিপ্ট</span></button>",
            "<button class=\"tool\" disabled title=\"স্পিকার উইন্ডো (S)\"><svg class=\"tool-icon\" viewBox=\"0 0 16 16\" aria-hidden=\"true\"><rect x=\"1.5\" y=\"4.5\" width=\"9\" height=\"9\" rx=\"1.5\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\"/><path d=\"M5.5 2.5h7a1.5 1.5 0 0 1 1.5 1.5v7\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\"/></svg><span class=\"tool-label\"> স্পিকার</span></button>",
            "<button class=\"tool\" disabled title=\"অটোপ্লে (A)\">▶<span class=\"tool-label\"> অটোপ্লে</span></button>",
            "<button class=\"tool\" disabled title=\"ফুলস্ক্রিন (F)\">⛶<span class=\"tool-label\"> ফুলস্ক্রিন</span></button>",
            "<button class=\"tool\" disabled title=\"কি-বোর্ড শর্টকাট (?)\" aria-label=\"কি-বোর্ড শর্টকাট\">?</button>",
            "</nav></header>",
            "<main class=\"stage-wrap\"><section class=\"stage\" aria-roledescription=\"স্লাইড\" aria-label=\"স্লাইড {counter}\" data-step=\"0\">{slide}</section></main>",
            "<footer class=\"bar\"><button class=\"nav-btn\" disabled aria-label=\"আগের স্লাইড\">←</button>",
            "<div class=\"bar-mid\"><span class=\"counter-pending\">{counter}</span>",
            "<div class=\"progress\" aria-hidden=\"true\"><div class=\"progress-fill\" style=\"width: {progress:.3}%\"></div></div>",
            "<span class=\"key-hint\" role=\"status\">বাকি স্লাইডগুলো আসছে…</span></div>",
            "<button class=\"nav-btn\" disabled aria-label=\"পরের স্লাইড\">→</button></footer>",
            "</div>"
        ),
        title = esc(&info.title),
        counter = counter,
        progress = 100.0 / len.max(1) as f64,
        slide = slide(&info.cover)?,
    ))
}

/// What goes before `</body>`: a `<template>` per deck with a shell, and the few lines that
/// (first) move an app opened from the home screen (the manifest's `start_url`, `?launch=app`,
/// with no address) to the last slide the student was on (`redislab.last`, kept by
/// `static/offline.js`; a slide that no longer exists gets the app's not-found page), then
/// show the one the address names (`#/<deck>`, `#/<deck>/1`, `#/<deck>/1.0`); on a lab's own
/// page (`#/lab/…`) they start fetching and compiling the labs module beside the app instead
/// of after it.
///
/// They also define `redislabStartWorker`, which starts the simulation worker ahead of the
/// labs module and keeps what it says (`redislabEarlyWorker`: the worker, the messages it has
/// posted, its errors) until the labs module adopts it (`src/labs/worker.rs`): the worker's
/// wasm then compiles while the labs module loads, not after. A lab's own page calls it at
/// once; the app calls it when a lab is shown (`src/labs/host.rs`).
///
/// They load every font face of the style sheets (seven, 126 KB; `redislabFonts`): on a lab's
/// page at once, when a lab is shown (`src/labs/host.rs`), and on other pages when the browser
/// is idle after the app has started (not sooner: on a slow line the faces the first slide
/// does not use would share it with the app's wasm). A face that is still loading when text
/// is first laid out makes the browser look up the next families in the list
/// (`sans-serif`, `monospace`, and what those resolve to) among the system's fonts: on Linux
/// each such lookup is a round trip to the browser's font service, and together they made
/// one layout of a lab's page take 130–150 ms on the test machine; a second layout followed
/// when the faces arrived. With the faces loaded first neither happens. (The preloads above
/// only fetch the bytes; a face starts loading when something asks for it.)
///
/// Once the app has started they load `offline.js` (`static/offline.js`): the service
/// worker's page side, which waits for the page to be idle before it registers anything.
///
/// And `redislabCompile(url)`: a promise of the `WebAssembly.Module` at `url`, compiled in a
/// throw-away worker (`static/compile-worker.js`) and posted back (a compiled module is
/// shared, not copied), so that the main thread only instantiates it. Compiled on the main
/// thread, the labs module's 0.9 MB held it for 30–45 ms in one task, beside the module's
/// start. A lab's own page starts the labs module's compilation at once (it replaces the old
/// `preload` of `labs_bg.wasm`: a worker cannot use the page's preload cache);
/// `src/labs/host.rs` takes the promise, or falls back to wasm-bindgen's own loading if it
/// fails (no `Worker`, a strict CSP).
pub fn snippet(decks: &[DeckInfo]) -> String {
    let mut out = String::from("<!-- Each deck's first slide, shown before the app arrives (crates/deck/src/shell.rs). -->\n");
    for d in decks {
        if let Some(html) = cover(d) {
            out.push_str(&format!(
                "<template data-cover=\"{}\">{html}</template>\n",
                esc(&d.id)
            ));
        }
    }
    out.push_str(concat!(
        "<script>(function () {\n",
        "  try { var last = localStorage.getItem('redislab.last');\n",
        "    if (/[?&]launch=app/.test(location.search) && /^#?\\/?$/.test(location.hash) && /^#\\/[a-z0-9-]+\\/[0-9]+(\\.[0-9]+)?$/.test(last)) history.replaceState(null, '', last);\n",
        "  } catch (x) {}\n",
        "  var m = /^#\\/([a-z0-9-]+)(\\/1(\\.0)?)?$/.exec(location.hash);\n",
        "  var t = m && document.querySelector('template[data-cover=\"' + m[1] + '\"]');\n",
        "  if (t) document.body.appendChild(t.content.cloneNode(true));\n",
        "  window.redislabStartWorker = function () {\n",
        "    if (window.redislabEarlyWorker || typeof Worker !== 'function') return;\n",
        "    var e = { held: [], failed: [] };\n",
        "    try { e.worker = new Worker('worker_loader.js'); } catch (x) { return; }\n",
        "    e.worker.onmessage = function (m) { e.held.push(m.data); };\n",
        "    e.worker.onerror = function (m) { e.failed.push(String(m.message)); };\n",
        "    window.redislabEarlyWorker = e;\n",
        "  };\n",
        "  var compiled = {};\n",
        "  window.redislabCompile = function (url) {\n",
        "    if (compiled[url]) return compiled[url];\n",
        "    return compiled[url] = new Promise(function (ok, no) {\n",
        "      var w = new Worker('compile-worker.js');\n",
        "      w.onmessage = function (m) { w.terminate(); m.data instanceof WebAssembly.Module ? ok(m.data) : no(m.data); };\n",
        "      w.onerror = function (m) { w.terminate(); no(String(m.message)); };\n",
        "      w.postMessage(new URL(url, location.href).href);\n",
        "    }).catch(function (x) { delete compiled[url]; throw x; });\n",
        "  };\n",
        "  var fonts = window.redislabFonts = function () { if (document.fonts) document.fonts.forEach(function (f) { f.load().catch(function () {}); }); };\n",
        "  if (/^#\\/lab\\//.test(location.hash)) {\n",
        "    fonts();\n",
        "    var l = document.createElement('link'); l.rel = 'preload'; l.href = 'labs.js'; l.as = 'script';\n",
        "    document.head.appendChild(l);\n",
        "    window.redislabCompile('labs_bg.wasm').catch(function () {});\n",
        "    window.redislabStartWorker();\n",
        "  } else {\n",
        "    addEventListener('TrunkApplicationStarted', function () { (window.requestIdleCallback || setTimeout)(fonts); });\n",
        "  }\n",
        "  addEventListener('TrunkApplicationStarted', function () { var s = document.createElement('script'); s.src = 'offline.js'; document.head.appendChild(s); });\n",
        "})();</script>\n"
    ));
    out
}

/// `index` with the shells before its `</body>` (an older shell, from a previous run over
/// the same file, replaced), and without trunk's `<link rel="preload">` of the app's wasm: on
/// a slow line that preload would share the first second with the first slide's fonts; the
/// wasm is fetched by the app's script as soon as that runs.
pub fn insert(index: &str, decks: &[DeckInfo]) -> Result<String, String> {
    let index = &drop_wasm_preload(index);
    const START: &str = "<!-- Each deck's first slide";
    let base = match index.find(START) {
        Some(at) => {
            let end = index[at..]
                .find(MARK)
                .map(|e| at + e)
                .ok_or("index.html: no </body>")?;
            format!("{}{}", &index[..at], &index[end..])
        }
        None => index.to_string(),
    };
    let at = base.rfind(MARK).ok_or("index.html: no </body>")?;
    Ok(format!("{}{}{}", &base[..at], snippet(decks), &base[at..]))
}

/// `index` without its `<link rel="preload" … type="application/wasm">` tags.
fn drop_wasm_preload(index: &str) -> String {
    let mut out = String::with_capacity(index.len());
    let mut rest = index;
    while let Some(at) = rest.find("<link rel=\"preload\"") {
        let Some(len) = rest[at..].find('>') else {
            break;
        };
        let tag = &rest[at..at + len + 1];
        out.push_str(&rest[..at]);
        if !tag.contains("type=\"application/wasm\"") {
            out.push_str(tag);
        }
        rest = &rest[at + len + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decks() -> Vec<DeckInfo> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src/decks");
        let (decks, _) = crate::parse::load_dir(&dir).expect("the decks parse");
        decks.iter().map(|d| d.info(&d.to_json())).collect()
    }

    #[test]
    fn covers_with_simple_blocks_get_a_shell_with_their_text() {
        let decks = decks();
        let prod = decks
            .iter()
            .find(|d| d.id == "production")
            .expect("production");
        let html = cover(prod).expect("production's cover is lead + stats");
        assert!(
            html.contains("<span class=\"title-line\">প্রোডাকশনে Redis</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"counter-pending\">০১ / ২২</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"stat-num\">২৩</span>"),
            "{html}"
        );
        // A cover with a diagram is left to the app.
        let bc = decks
            .iter()
            .find(|d| d.id == "broadcast")
            .expect("broadcast");
        assert!(cover(bc).is_none());
    }

    #[test]
    fn insert_puts_the_shells_before_body_once() {
        let decks = decks();
        let page = "<html><body><noscript>x</noscript>\n</body></html>";
        let once = insert(page, &decks).unwrap();
        let twice = insert(&once, &decks).unwrap();
        assert_eq!(once, twice);
        assert_eq!(
            once.matches("<template data-cover=\"production\">").count(),
            1
        );
        assert!(once.ends_with("</script>\n</body></html>"));
        assert!(insert("<html>no end</html>", &decks).is_err());
    }

    #[test]
    fn the_wasm_preload_goes_and_the_font_preloads_stay() {
        let page = "<head><link rel=\"preload\" href=\"f.woff2\" as=\"font\"><link rel=\"modulepreload\" href=\"./a.js\"><link rel=\"preload\" href=\"./a_bg.wasm\" crossorigin=\"anonymous\" as=\"fetch\" type=\"application/wasm\"></head><body></body>";
        let out = insert(page, &[]).unwrap();
        assert!(!out.contains("a_bg.wasm"), "{out}");
        assert!(
            out.contains("<link rel=\"preload\" href=\"f.woff2\" as=\"font\">"),
            "{out}"
        );
        assert!(out.contains("modulepreload"), "{out}");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            esc("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
    }
}

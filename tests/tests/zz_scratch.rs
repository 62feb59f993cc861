use redislab_e2e::Browser;
use serde_json::json;
#[test]
fn diag() {
    let b = Browser::new(1366, 768);
    for h in ["#/production/5.3", "#/production/8", "#/production/12", "#/production/20"] {
        b.open(h);
        b.wait(15, "slide", |b| b.exists(".stage .slide"));
        b.js_async("const done = arguments[0]; document.fonts.ready.then(() => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))", json!([]));
        let v = b.js("const s = document.querySelector('.stage .slide'); const i = s.firstElementChild; const cs = getComputedStyle(s); return {fit: cs.getPropertyValue('--fit'), sh: s.scrollHeight, ch: s.clientHeight, ih: i.offsetHeight, pt: cs.paddingTop, pb: cs.paddingBottom, fonts: document.fonts.status}", json!([]));
        println!("{h}: {v}");
        // re-run a fit-like measurement now
        let v2 = b.js("const s = document.querySelector('.stage .slide'); const i = s.firstElementChild; const body = i.querySelector('.slide-body'); i.style.minHeight='0'; body.style.flex='none'; const r = i.offsetHeight; i.style.minHeight=''; body.style.flex=''; return r", json!([]));
        println!("  natural inner now: {v2}");
    }
}

use redislab_e2e::{screenshot_dir, Browser};
#[test]
fn scratch() {
    let b = Browser::new(1366, 768);
    b.open("#/production/6.2/speaker");
    b.wait(10, "speaker", |b| b.exists(".speaker"));
    b.screenshot(&screenshot_dir().join("scratch/speaker-1366.png"));
    b.open("#/");
    b.wait(10, "home", |b| b.exists(".deck-card"));
    b.screenshot(&screenshot_dir().join("scratch/home-1366.png"));
    b.open("#/broadcast/16");
    b.wait(10, "slide", |b| b.exists(".stage .slide-title"));
    b.screenshot(&screenshot_dir().join("scratch/broadcast16.png"));
    b.open("#/production/7.2");
    b.wait(10, "slide", |b| b.exists(".stage .slide-title"));
    b.screenshot(&screenshot_dir().join("scratch/prod7.png"));
    let p = Browser::new(360, 740);
    p.open("#/production/6.2/speaker");
    p.wait(10, "speaker", |b| b.exists(".speaker"));
    p.screenshot(&screenshot_dir().join("scratch/speaker-phone.png"));
    p.open("#/production/print");
    p.wait(10, "print", |b| b.exists(".print-page"));
    p.screenshot(&screenshot_dir().join("scratch/print-phone.png"));
}

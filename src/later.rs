//! [`Later`]: children drawn one task after the component first appears.
//!
//! V8 compiles a wasm function the first time it is called, on the thread that calls it, so
//! the first render of a view pays for compiling all the code it runs. Mounted and drawn at
//! once, a lab was one task of 50–70 ms on a cold load; with the lab inside a `Later` it is
//! two (`src/bin/labs.rs`). Not for a slide, which must replace the page's first slide in the
//! same task.

use yew::prelude::*;

/// Props of [`Later`].
#[derive(Properties, PartialEq)]
pub struct LaterProps {
    /// What is drawn a task later.
    pub children: Html,
    /// What stands in its place until then.
    #[prop_or_default]
    pub placeholder: Html,
}

/// Shows `placeholder`, then, from the next task on, `children`.
#[component]
pub fn Later(props: &LaterProps) -> Html {
    let ready = use_state_eq(|| false);
    {
        let ready = ready.clone();
        use_effect_with((), move |_| {
            let next = gloo_timers::callback::Timeout::new(0, move || ready.set(true));
            move || drop(next)
        });
    }
    if *ready {
        props.children.clone()
    } else {
        props.placeholder.clone()
    }
}

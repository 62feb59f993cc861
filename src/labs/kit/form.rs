//! A lab's parameters as its view holds them: the props every lab takes, the form's state
//! (checked values, drafts, messages) and the form that edits them.

use redislab_sim::labs::lab::LabInfo;
use redislab_sim::labs::params::{Kind, Params};
use redislab_sim::labs::ui::ParamState;
use redislab_sim::labs::work::Job;
use std::rc::Rc;
use yew::prelude::*;

/// Props every lab component takes.
#[derive(Properties, PartialEq, Clone, Default)]
pub struct LabProps {
    /// Initial parameters as a query (`alpha=0.9&cache=300`), from the URL or a deck preset.
    #[prop_or_default]
    pub query: AttrValue,
    /// Drawn inside a slide: compact, with a link to the full lab.
    #[prop_or_default]
    pub embedded: bool,
    /// Called with the new query whenever the parameters change (the lab page puts it in the URL).
    #[prop_or_default]
    pub on_query: Callback<String>,
}

/// A parameter form's state ([`ParamState`]) as a Yew reducer.
#[derive(Clone, PartialEq)]
pub struct Form(pub ParamState);

impl std::ops::Deref for Form {
    type Target = ParamState;
    fn deref(&self) -> &ParamState {
        &self.0
    }
}

/// What changes a lab's form.
pub enum FormAction {
    /// A field and what was typed into it.
    Set(&'static str, String),
    /// A preset's button.
    Preset(&'static str),
}

impl Reducible for Form {
    type Action = FormAction;

    fn reduce(self: Rc<Self>, action: FormAction) -> Rc<Self> {
        Rc::new(Form(match action {
            FormAction::Set(key, value) => self.0.apply(key, value),
            FormAction::Preset(id) => self.0.preset(id),
        }))
    }
}

/// A lab as its view starts from it: what the lab is, its parameters and how to change them.
#[derive(Clone, PartialEq)]
pub struct LabState {
    /// What the lab is.
    pub info: &'static LabInfo,
    /// The form: the last good values (what the lab shows), drafts and messages.
    pub form: ParamState,
    /// Set a field from what was typed (applied to the newest state, so several sets in one
    /// event all count).
    pub set: Callback<(&'static str, String)>,
    /// Choose a preset.
    pub preset: Callback<&'static str>,
    /// Drawn inside a slide.
    pub embedded: bool,
    /// The query it was opened with (a deck's preset, a link).
    pub query: AttrValue,
}

impl LabState {
    /// The last good parameters.
    pub fn params(&self) -> &Params {
        &self.form.good
    }

    /// The lab's main run of the current parameters.
    pub fn job(&self) -> Job {
        Job::new(self.info, &self.form.good)
    }
}

/// The preamble every lab view starts with: lab `info`'s parameters from the query it was
/// opened with. Its page hears the query of every new good state (not the first).
#[hook]
pub fn use_lab(info: &'static LabInfo, props: &LabProps) -> LabState {
    let q = props.query.to_string();
    let on_query = props.on_query.clone();
    let state = use_reducer(move || Form(ParamState::from_query(info, &q)));
    let mounted = use_mut_ref(|| false);
    use_effect_with(state.good.to_query(), move |q| {
        // The first run is the query we were given: nothing to tell.
        if std::mem::replace(&mut *mounted.borrow_mut(), true) {
            on_query.emit(q.clone());
        }
    });
    let set = {
        let d = state.dispatcher();
        Callback::from(move |(k, v): (&'static str, String)| d.dispatch(FormAction::Set(k, v)))
    };
    let preset = {
        let d = state.dispatcher();
        Callback::from(move |id: &'static str| d.dispatch(FormAction::Preset(id)))
    };
    LabState {
        info,
        form: state.0.clone(),
        set,
        preset,
        embedded: props.embedded,
        query: props.query.clone(),
    }
}

/// Props of [`ParamForm`].
#[derive(Properties, PartialEq)]
pub struct ParamFormProps {
    /// Parameter state.
    pub state: ParamState,
    /// Set a field.
    pub set: Callback<(&'static str, String)>,
    /// Which fields to show (all when empty).
    #[prop_or_default]
    pub only: Vec<&'static str>,
    /// Also list messages about unknown keys (one form of a lab should).
    #[prop_or(true)]
    pub unknown: bool,
}

/// The parameter fields, each with its message when the value is bad.
#[component]
pub fn ParamForm(props: &ParamFormProps) -> Html {
    let fields = props.state.good.fields();
    let unknown: Vec<(&String, &String)> = props
        .state
        .errors
        .iter()
        .filter(|(k, _)| props.unknown && !fields.iter().any(|f| f.key == k.as_str()))
        .collect();
    html! {
        <div class="lab-form">
            { for fields.iter().filter(|f| props.only.is_empty() || props.only.contains(&f.key)).map(|f| {
                let key = f.key;
                let set = props.set.clone();
                let value = props.state.drafts.get(key).cloned().unwrap_or_default();
                let err = props.state.errors.get(key).cloned();
                let id = format!("lab-field-{key}");
                let onchange = Callback::from(move |e: Event| {
                    let v = e.target_unchecked_into::<web_sys::HtmlInputElement>().value();
                    set.emit((key, v));
                });
                let input = match f.kind {
                    Kind::Choice { words, labels } => {
                        let set = props.set.clone();
                        let onchange = Callback::from(move |e: Event| {
                            let v = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
                            set.emit((key, v));
                        });
                        html! {
                            <select id={id.clone()} {onchange} aria-invalid={err.is_some().to_string()}>
                                { for words.iter().enumerate().map(|(i, w)| html! { <option value={*w} selected={*w == value}>{ labels.get(i).copied().unwrap_or(w) }</option> }) }
                            </select>
                        }
                    }
                    Kind::Int { .. } | Kind::Float { .. } => html! {
                        <input id={id.clone()} type="text" inputmode="decimal" value={value} {onchange} size="7"
                            aria-invalid={err.is_some().to_string()} />
                    },
                    Kind::Many(_) | Kind::Ops => html! {
                        <input id={id.clone()} type="text" class="wide" value={value} {onchange}
                            aria-invalid={err.is_some().to_string()} />
                    },
                };
                html! {
                    <div class={classes!("lab-field", err.is_some().then_some("bad"), matches!(f.kind, Kind::Many(_) | Kind::Ops).then_some("wide"))} data-field={key}>
                        <label for={id}>{ f.label }</label>
                        { input }
                        if let Some(m) = err { <span class="field-error" role="alert">{ m }</span> }
                    </div>
                }
            }) }
            { for unknown.into_iter().map(|(k, m)| html! { <p class="field-error" role="alert">{ format!("{k}: {m}") }</p> }) }
        </div>
    }
}

//! CSS classes that carry the engine's values to the stylesheet (`style.css`):
//! `attention-<value>` on attention indicators (the treatment table of
//! `docs/lifecycle-attention.md#attention`),
//! `lifecycle-<value>` on lifecycle labels.

use crate::model::{Attention, Lifecycle};
use gtk4 as gtk;
use gtk4::prelude::*;

/// Base class of every attention indicator.
pub const INDICATOR: &str = "attention-indicator";

/// Replaces the widget's `attention-*` value class with the one for `a`.
pub fn set_attention(w: &impl IsA<gtk::Widget>, a: Attention) {
    replace(w, "attention-", &format!("attention-{}", a.as_str()));
}

/// Replaces the widget's `lifecycle-*` class with the one for `l`.
pub fn set_lifecycle(w: &impl IsA<gtk::Widget>, l: Lifecycle) {
    replace(w, "lifecycle-", &format!("lifecycle-{}", l.as_str()));
}

fn replace(w: &impl IsA<gtk::Widget>, prefix: &str, class: &str) {
    let w = w.as_ref();
    for c in w.css_classes() {
        if c.starts_with(prefix) && c != INDICATOR && c != class {
            w.remove_css_class(&c);
        }
    }
    w.add_css_class(class);
}

/// The widget's CSS classes, for the test dump.
pub fn classes(w: &impl IsA<gtk::Widget>) -> Vec<String> {
    w.as_ref()
        .css_classes()
        .iter()
        .map(|c| c.to_string())
        .collect()
}

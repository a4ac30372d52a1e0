//! CSS classes that carry the engine's values to the stylesheet (`style.css`), the one
//! mapping from value to look: `attention-<value>` on attention indicators (the
//! treatment table of `docs/lifecycle-attention.md#attention`), `lifecycle-<value>` on
//! lifecycle labels. `<value>` is the wire name `attend ls` prints
//! ([`Attention::as_str`], [`Lifecycle::as_str`]).

use crate::model::{Attention, Lifecycle};
use gtk4 as gtk;
use gtk4::prelude::*;

/// Base class of every attention indicator.
pub const INDICATOR: &str = "attention-indicator";

/// The CSS class of attention value `a`: `attention-` and its wire name.
pub fn attention_class(a: Attention) -> String {
    format!("attention-{}", a.as_str())
}

/// The CSS class of lifecycle value `l`: `lifecycle-` and its wire name.
pub fn lifecycle_class(l: Lifecycle) -> String {
    format!("lifecycle-{}", l.as_str())
}

/// Replaces the widget's `attention-*` value class with the one for `a`.
pub fn set_attention(w: &impl IsA<gtk::Widget>, a: Attention) {
    replace(w, "attention-", &attention_class(a));
}

/// Replaces the widget's `lifecycle-*` class with the one for `l`.
pub fn set_lifecycle(w: &impl IsA<gtk::Widget>, l: Lifecycle) {
    replace(w, "lifecycle-", &lifecycle_class(l));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The declarations of the rule for `.class` in `style.css` (one rule per class).
    fn rule(class: &str) -> String {
        let css = include_str!("style.css");
        let start = css
            .find(&format!(".{class} {{"))
            .unwrap_or_else(|| panic!("style.css has no rule for .{class}"));
        let body = &css[start..];
        body[body.find('{').unwrap() + 1..body.find('}').unwrap()].to_string()
    }

    #[test]
    fn classes_are_the_wire_names_the_cli_prints() {
        assert_eq!(
            attention_class(Attention::PermissionRequired),
            "attention-permission_required"
        );
        assert_eq!(lifecycle_class(Lifecycle::Blocked), "lifecycle-blocked");
        for a in Attention::ALL {
            assert_eq!(attention_class(a), format!("attention-{}", a.as_str()));
        }
    }

    #[test]
    fn every_attention_value_has_its_own_treatment() {
        let rules: Vec<String> = Attention::ALL
            .iter()
            .map(|a| rule(&attention_class(*a)))
            .collect();
        for (i, a) in rules.iter().enumerate() {
            for b in &rules[i + 1..] {
                assert_ne!(a, b, "two values look the same");
            }
        }
        let r = |a| rule(&attention_class(a));
        // unread: a subtle dot, filled, no ring.
        assert!(
            r(Attention::Unread).contains("background-color")
                && !r(Attention::Unread).contains("border")
        );
        // input: a ring (hollow); permission: a strong ring, thicker, in its own colour
        // (not the accent blue of unread and input).
        let input = r(Attention::InputRequired);
        let permission = r(Attention::PermissionRequired);
        assert!(
            input.contains("border: 2px solid") && input.contains("background-color: transparent")
        );
        assert!(permission.contains("border: 3px solid"));
        assert!(
            !permission.contains("accent"),
            "a gate is not blue: {permission}"
        );
        // warning amber, error red.
        assert!(r(Attention::Warning).contains("@warning_color"));
        assert!(r(Attention::Error).contains("@error_color"));
        assert!(r(Attention::None).contains("transparent"));
    }
}

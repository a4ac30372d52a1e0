//! Screen-reader labels for widgets built at run time.
//!
//! `gtk_accessible_update_property` is GTK 4.0 API, but gtk4-rs 0.11 exposes
//! `Accessible::update_property` only with its `v4_10` feature, which needs GTK ≥ 4.10 at
//! build time; this machine has 4.8. So the one C call is declared here. Static widgets
//! get their labels in their `.ui` files (`<accessibility>`).

use gtk4 as gtk;
use gtk4::prelude::*;
use std::ffi::{c_int, c_void, CString};

/// `GTK_ACCESSIBLE_PROPERTY_DESCRIPTION` (gtkenums.h, GTK 4.0).
const DESCRIPTION: c_int = 1;
/// `GTK_ACCESSIBLE_PROPERTY_LABEL` (gtkenums.h, GTK 4.0).
const LABEL: c_int = 4;

extern "C" {
    /// `void gtk_accessible_update_property (GtkAccessible *self, GtkAccessibleProperty
    /// first_property, ...)`: pairs of property and value, terminated by -1.
    fn gtk_accessible_update_property(accessible: *mut c_void, first_property: c_int, ...);
}

fn update(w: &impl IsA<gtk::Widget>, property: c_int, text: &str) {
    let text = CString::new(text.replace('\0', "")).expect("no NUL left");
    let widget: *mut gtk::ffi::GtkWidget = w.as_ref().as_ptr();
    // SAFETY: every GtkWidget implements GtkAccessible; LABEL and DESCRIPTION take a
    // `const char *` that GTK copies; the list ends with -1 as the C API requires.
    unsafe {
        gtk_accessible_update_property(widget.cast(), property, text.as_ptr(), -1 as c_int);
    }
}

/// Sets the accessible label (the name a screen reader speaks) of `w`.
pub fn set_label(w: &impl IsA<gtk::Widget>, text: &str) {
    update(w, LABEL, text);
}

/// Sets the accessible description of `w`.
pub fn set_description(w: &impl IsA<gtk::Widget>, text: &str) {
    update(w, DESCRIPTION, text);
}

//! Screen-reader labels for widgets built at run time, and their reading back for the
//! panel's test hook (`ATTEND_PANEL_DUMP`).
//!
//! `gtk_accessible_update_property` is GTK 4.0 API, but gtk4-rs 0.11 exposes
//! `Accessible::update_property` only with its `v4_10` feature, which needs GTK ≥ 4.10 at
//! build time; this machine has 4.8. So the C calls are declared here. Static widgets get
//! their labels in their `.ui` files (`<accessibility>`).
//!
//! GTK 4.8 has no getter for an accessible property; its testing API
//! (`gtk_test_accessible_*`, GTK 4.0, in every build of the library) compares a property
//! or relation with a value. [`label`] uses it to confirm that the label [`set_label`]
//! set is the one the widget's accessibility context holds.

use gtk4 as gtk;
use gtk4::prelude::*;
use std::ffi::{c_char, c_int, c_void, CString};

/// `GTK_ACCESSIBLE_PROPERTY_DESCRIPTION` (gtkenums.h, GTK 4.0).
const DESCRIPTION: c_int = 1;
/// `GTK_ACCESSIBLE_PROPERTY_LABEL` (gtkenums.h, GTK 4.0).
const LABEL: c_int = 4;
/// `GTK_ACCESSIBLE_RELATION_LABELLED_BY` (gtkenums.h, GTK 4.0).
const LABELLED_BY: c_int = 10;
/// Where [`set_label`] keeps the text it set, for [`label`].
const KEY: &str = "attend-a11y-label";

extern "C" {
    /// `void gtk_accessible_update_property (GtkAccessible *self, GtkAccessibleProperty
    /// first_property, ...)`: pairs of property and value, terminated by -1.
    fn gtk_accessible_update_property(accessible: *mut c_void, first_property: c_int, ...);
    /// `char *gtk_test_accessible_check_property (GtkAccessible *accessible,
    /// GtkAccessibleProperty property, ...)`: NULL when the property has the value
    /// given, else a message to free with `g_free`.
    fn gtk_test_accessible_check_property(
        accessible: *mut c_void,
        property: c_int,
        ...
    ) -> *mut c_char;
    /// `gboolean gtk_test_accessible_has_property (GtkAccessible *, GtkAccessibleProperty)`.
    fn gtk_test_accessible_has_property(accessible: *mut c_void, property: c_int) -> c_int;
    /// `gboolean gtk_test_accessible_has_relation (GtkAccessible *, GtkAccessibleRelation)`.
    fn gtk_test_accessible_has_relation(accessible: *mut c_void, relation: c_int) -> c_int;
}

fn ptr(w: &impl IsA<gtk::Widget>) -> *mut c_void {
    let widget: *mut gtk::ffi::GtkWidget = w.as_ref().as_ptr();
    widget.cast()
}

fn c_text(text: &str) -> CString {
    CString::new(text.replace('\0', "")).expect("no NUL left")
}

fn update(w: &impl IsA<gtk::Widget>, property: c_int, text: &str) {
    let text = c_text(text);
    // SAFETY: every GtkWidget implements GtkAccessible; LABEL and DESCRIPTION take a
    // `const char *` that GTK copies; the list ends with -1 as the C API requires.
    unsafe {
        gtk_accessible_update_property(ptr(w), property, text.as_ptr(), -1 as c_int);
    }
}

/// Sets the accessible label (the name a screen reader speaks) of `w`.
pub fn set_label(w: &impl IsA<gtk::Widget>, text: &str) {
    update(w, LABEL, text);
    // SAFETY: the key holds a `String` only, set and read in this module.
    unsafe { w.as_ref().set_data(KEY, text.replace('\0', "")) };
}

/// Sets the accessible description of `w`.
pub fn set_description(w: &impl IsA<gtk::Widget>, text: &str) {
    update(w, DESCRIPTION, text);
}

/// The accessible label [`set_label`] gave `w`, when the widget's accessibility context
/// holds exactly that text; `None` otherwise.
pub fn label(w: &impl IsA<gtk::Widget>) -> Option<String> {
    // SAFETY: the key holds a `String` (set in `set_label`); the reference is copied out
    // at once, while `w` keeps the data alive.
    let text = unsafe { w.as_ref().data::<String>(KEY).map(|p| p.as_ref().clone()) }?;
    let c = c_text(&text);
    // SAFETY: LABEL takes a `const char *`; a non-NULL result is GTK's message, freed
    // with g_free.
    let differs = unsafe {
        let m = gtk_test_accessible_check_property(ptr(w), LABEL, c.as_ptr());
        let differs = !m.is_null();
        gtk4::glib::ffi::g_free(m.cast());
        differs
    };
    (!differs).then_some(text)
}

/// Whether `w` has a name for screen readers: an accessible label (set here or in a
/// `.ui` file), or a label widget that names it (`labelled-by`: a mnemonic label does).
pub fn is_named(w: &impl IsA<gtk::Widget>) -> bool {
    // SAFETY: both take any GtkAccessible and a property or relation of GTK 4.0.
    unsafe {
        gtk_test_accessible_has_property(ptr(w), LABEL) != 0
            || gtk_test_accessible_has_relation(ptr(w), LABELLED_BY) != 0
    }
}

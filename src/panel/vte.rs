//! The few calls of VTE for GTK 4 (`libvte-2.91-gtk4`, Debian 12's 0.70) the live
//! terminal makes, as a safe [`Terminal`] widget over `vte4-sys`.
//!
//! Why not the `vte4` crate: its 0.10 (the one built on gtk4 0.11) declares its widget as
//! implementing `gtk::Accessible`, which gtk4 0.11 only has with its `v4_10` feature,
//! and that needs GTK 4.10 to build; Debian 12 has 4.8
//! (`docs/decisions/0017-panel-terminal-over-the-attach-socket.md`). Its C bindings,
//! `vte4-sys`, build as they are; this module is the part of `vte4` the panel uses,
//! written the way gtk-rs writes its bindings (`a11y.rs` does the same for one GTK call).

use gtk4 as gtk;
use gtk4::glib;
use gtk4::glib::translate::*;
use gtk4::prelude::*;
use std::ffi::{c_char, c_uint};

use vte_sys as ffi;

glib::wrapper! {
    /// A `VteTerminal` widget.
    pub struct Terminal(Object<ffi::VteTerminal, ffi::VteTerminalClass>)
        @extends gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget, gtk::Scrollable;

    match fn {
        type_ => || ffi::vte_terminal_get_type(),
    }
}

// SAFETY: VteTerminal is a GtkWidget subclass whose class struct starts with
// GtkWidgetClass; a subclass only overrides GtkWidget's virtual functions (the default
// class_init chains to GtkWidget's).
unsafe impl<T: gtk::subclass::prelude::WidgetImpl> glib::subclass::types::IsSubclassable<T>
    for Terminal
{
}

/// The methods of [`Terminal`] and its subclasses.
pub trait TerminalExt: IsA<Terminal> + 'static {
    /// The raw `VteTerminal *`.
    fn raw(&self) -> *mut ffi::VteTerminal {
        self.as_ref().to_glib_none().0
    }

    /// Interprets `data` as output of the program (`vte_terminal_feed`).
    fn feed(&self, data: &[u8]) {
        // SAFETY: a live terminal; VTE copies `length` bytes from `data`.
        unsafe { ffi::vte_terminal_feed(self.raw(), data.as_ptr(), data.len() as isize) }
    }

    /// Resets the terminal's state, its tab stops and its scrollback
    /// (`vte_terminal_reset`).
    fn reset_all(&self) {
        // SAFETY: a live terminal.
        unsafe { ffi::vte_terminal_reset(self.raw(), true.into_glib(), true.into_glib()) }
    }

    /// Whether keys and pastes go to the program (`vte_terminal_set_input_enabled`).
    fn set_input_enabled(&self, enabled: bool) {
        // SAFETY: a live terminal.
        unsafe { ffi::vte_terminal_set_input_enabled(self.raw(), enabled.into_glib()) }
    }

    /// Rows of the grid (`vte_terminal_get_row_count`).
    fn row_count(&self) -> i64 {
        // SAFETY: a live terminal.
        unsafe { ffi::vte_terminal_get_row_count(self.raw()) as i64 }
    }

    /// Columns of the grid (`vte_terminal_get_column_count`).
    fn column_count(&self) -> i64 {
        // SAFETY: a live terminal.
        unsafe { ffi::vte_terminal_get_column_count(self.raw()) as i64 }
    }

    /// Copies the selection to the clipboard as text.
    fn copy_text(&self) {
        // SAFETY: a live terminal.
        unsafe { ffi::vte_terminal_copy_clipboard_format(self.raw(), ffi::VTE_FORMAT_TEXT) }
    }

    /// Pastes the clipboard into the program (as typed: through `commit`).
    fn paste_clipboard(&self) {
        // SAFETY: a live terminal.
        unsafe { ffi::vte_terminal_paste_clipboard(self.raw()) }
    }

    /// Sets the foreground, background and the 16-colour palette.
    fn set_colors(
        &self,
        foreground: &gtk::gdk::RGBA,
        background: &gtk::gdk::RGBA,
        palette: &[gtk::gdk::RGBA],
    ) {
        // SAFETY: `gdk::RGBA` is a transparent wrapper of `GdkRGBA`, so the slice is a C
        // array of `palette.len()` of them; VTE copies the colours.
        unsafe {
            ffi::vte_terminal_set_colors(
                self.raw(),
                foreground.to_glib_none().0,
                background.to_glib_none().0,
                palette.as_ptr() as *const gtk::gdk::ffi::GdkRGBA,
                palette.len(),
            )
        }
    }

    /// The text of the screen and the scrollback, rows joined by newlines
    /// (`vte_terminal_get_text`).
    fn text(&self) -> String {
        // SAFETY: with no callback, no user data and no attribute array, VTE returns a
        // newly allocated string (or NULL), which from_glib_full takes and frees.
        let text: Option<glib::GString> = unsafe {
            from_glib_full(ffi::vte_terminal_get_text(
                self.raw(),
                None,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            ))
        };
        text.map(|s| s.to_string()).unwrap_or_default()
    }

    /// Calls `f` with the bytes VTE sends to the program: typed keys, pastes, mouse
    /// reports (the `commit` signal).
    fn connect_commit<F: Fn(&[u8]) + 'static>(&self, f: F) -> glib::SignalHandlerId {
        unsafe extern "C" fn trampoline<F: Fn(&[u8]) + 'static>(
            _this: *mut ffi::VteTerminal,
            text: *mut c_char,
            size: c_uint,
            f: glib::ffi::gpointer,
        ) {
            // SAFETY: `f` is the boxed closure connected below; VTE passes `size` bytes.
            let f: &F = unsafe { &*(f as *const F) };
            let bytes = if text.is_null() {
                &[][..]
            } else {
                unsafe { std::slice::from_raw_parts(text as *const u8, size as usize) }
            };
            f(bytes)
        }
        // SAFETY: the trampoline has the signal's C signature (terminal, text, size,
        // data); glib frees the box when the handler is disconnected.
        unsafe {
            let f: Box<F> = Box::new(f);
            glib::signal::connect_raw(
                self.as_ptr() as *mut _,
                c"commit".as_ptr() as *const _,
                Some(std::mem::transmute::<*const (), unsafe extern "C" fn()>(
                    trampoline::<F> as *const (),
                )),
                Box::into_raw(f),
            )
        }
    }

    /// Calls `f` whenever the visible contents changed (`contents-changed`).
    fn connect_contents_changed<F: Fn() + 'static>(&self, f: F) -> glib::SignalHandlerId {
        self.as_ref()
            .connect_local("contents-changed", false, move |_| {
                f();
                None
            })
    }
}

impl<O: IsA<Terminal>> TerminalExt for O {}

//! The VTE terminal of the panel's live terminal ([`super::pane_terminal`]): a
//! `VteTerminal` that says when its grid (rows × columns) changes, so the pane follows the
//! widget's size. VTE has no signal for that in 0.70 (it sizes the grid in its own
//! `size_allocate`), so the allocation is overridden: VTE's, then a look at the grid.
//! No template: it has no children (`pane_terminal.ui` places it).

use super::vte::{Terminal, TerminalExt};
use gtk4 as gtk;
use gtk4::glib;
use gtk4::subclass::prelude::*;

mod imp {
    use super::*;
    use std::cell::{Cell, RefCell};

    /// The grid last reported, and who is told of a change.
    #[derive(Default)]
    pub struct TerminalView {
        pub grid: Cell<(u16, u16)>,
        #[allow(clippy::type_complexity)]
        pub on_grid: RefCell<Option<Box<dyn Fn(u16, u16)>>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for TerminalView {
        const NAME: &str = "AttendTerminalView";
        type Type = super::TerminalView;
        type ParentType = Terminal;
    }

    impl ObjectImpl for TerminalView {}

    impl WidgetImpl for TerminalView {
        fn size_allocate(&self, width: i32, height: i32, baseline: i32) {
            self.parent_size_allocate(width, height, baseline);
            let grid = self.obj().grid();
            if grid != self.grid.replace(grid) {
                if let Some(f) = self.on_grid.borrow().as_ref() {
                    f(grid.0, grid.1);
                }
            }
        }
    }
}

glib::wrapper! {
    /// A `VteTerminal` that reports its grid size ([`TerminalView::connect_grid`]).
    pub struct TerminalView(ObjectSubclass<imp::TerminalView>)
        @extends Terminal, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget, gtk::Scrollable;
}

impl Default for TerminalView {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl TerminalView {
    /// (rows, columns) of the grid now, each at least 1 and at most `u16::MAX`.
    pub fn grid(&self) -> (u16, u16) {
        let clamp = |n: i64| n.clamp(1, i64::from(u16::MAX)) as u16;
        (clamp(self.row_count()), clamp(self.column_count()))
    }

    /// Calls `f(rows, columns)` whenever an allocation changes the grid (one callback;
    /// a second call replaces the first).
    pub fn connect_grid(&self, f: impl Fn(u16, u16) + 'static) {
        self.imp().on_grid.replace(Some(Box::new(f)));
    }
}

//! The window's columns (`docs/desktop-surfaces.md#layout`): workspaces | panes | detail
//! in two nested `AdwLeaflet`s. A wide window shows all three, a medium one the sidebar
//! and one of the other two, a narrow one a single column; the columns have fixed widths
//! (the detail takes the rest), so no width is remembered across resizes. Activating a
//! row moves a folded window one column on; Escape or the back button moves it back.
//!
//! Also: scrolling a list to a row, and what the layout looks like for the test dump
//! (widget allocations, read back from GTK). Widgets only: the window hands them in.

use adw::prelude::*;
use gtk4 as gtk;
use gtk4::glib;
use serde_json::{json, Value};

/// How many frames a scroll request waits for the row to be allocated.
const SCROLL_FRAMES: u32 = 120;

/// The column a folded window shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Workspaces,
    Panes,
    Detail,
}

/// The window's two leaflets and the three columns they hold.
#[derive(Debug, Clone)]
pub struct Columns {
    /// Workspaces | inner.
    pub outer: adw::Leaflet,
    /// Panes | detail.
    pub inner: adw::Leaflet,
    pub workspaces: gtk::Widget,
    pub panes: gtk::Widget,
    pub detail: gtk::Widget,
}

impl Columns {
    /// Shows `column` (a folded leaflet moves to it; an unfolded one shows it anyway).
    pub fn show(&self, column: Column) {
        match column {
            Column::Workspaces => self.outer.set_visible_child(&self.workspaces),
            Column::Panes => {
                self.outer.set_visible_child(&self.inner);
                self.inner.set_visible_child(&self.panes);
            }
            Column::Detail => {
                self.outer.set_visible_child(&self.inner);
                self.inner.set_visible_child(&self.detail);
            }
        }
    }

    /// True when `column` is on screen: its leaflets are unfolded or show it.
    pub fn is_shown(&self, column: Column) -> bool {
        let on = |l: &adw::Leaflet, w: &gtk::Widget| {
            !l.is_folded() || l.visible_child().as_ref() == Some(w)
        };
        match column {
            Column::Workspaces => on(&self.outer, &self.workspaces),
            Column::Panes => {
                on(&self.outer, self.inner.upcast_ref()) && on(&self.inner, &self.panes)
            }
            Column::Detail => {
                on(&self.outer, self.inner.upcast_ref()) && on(&self.inner, &self.detail)
            }
        }
    }

    /// The column "back" leads to, when the window is folded and not on its first
    /// column.
    pub fn back_target(&self) -> Option<Column> {
        let outer_on_inner = self.outer.visible_child().as_ref() == Some(self.inner.upcast_ref());
        let inner_on_detail = self.inner.visible_child().as_ref() == Some(&self.detail);
        if self.inner.is_folded() && inner_on_detail && (!self.outer.is_folded() || outer_on_inner)
        {
            return Some(Column::Panes);
        }
        (self.outer.is_folded() && outer_on_inner).then_some(Column::Workspaces)
    }

    /// Moves a folded window one column back; false when there is nothing to go back to.
    pub fn go_back(&self) -> bool {
        match self.back_target() {
            Some(c) => {
                self.show(c);
                true
            }
            None => false,
        }
    }

    /// Calls `f` whenever a leaflet folds, unfolds or changes its visible column.
    pub fn watch(&self, f: impl Fn() + Clone + 'static) {
        for leaflet in [&self.outer, &self.inner] {
            let g = f.clone();
            leaflet.connect_folded_notify(move |_| g());
            let g = f.clone();
            leaflet.connect_visible_child_notify(move |_| g());
        }
    }

    /// What the layout is, for `ATTEND_PANEL_DUMP`: the window's size (allocation and X
    /// surface), which leaflets are folded, which columns are on screen, and where
    /// `buttons` lie in window coordinates.
    pub fn dump(&self, window: &gtk::Window, buttons: &[(&str, gtk::Button)]) -> Value {
        let win = window.upcast_ref::<gtk::Widget>();
        let surface = window
            .surface()
            .map(|s| json!([s.width(), s.height()]))
            .unwrap_or(Value::Null);
        let columns: Vec<Value> = [
            ("workspaces", &self.workspaces),
            ("panes", &self.panes),
            ("detail", &self.detail),
        ]
        .into_iter()
        .filter(|(_, w)| w.is_mapped())
        .filter_map(|(name, w)| bounds(w, win).map(|b| json!({"name": name, "bounds": b})))
        .collect();
        let buttons: serde_json::Map<String, Value> = buttons
            .iter()
            .map(|(name, b)| {
                let w = b.upcast_ref::<gtk::Widget>();
                (
                    name.to_string(),
                    json!({"mapped": w.is_mapped(), "bounds": bounds(w, win)}),
                )
            })
            .collect();
        json!({
            "width": win.width(),
            "height": win.height(),
            "surface": surface,
            "outer_folded": self.outer.is_folded(),
            "inner_folded": self.inner.is_folded(),
            "columns": columns,
            "buttons": buttons,
        })
    }
}

/// `w`'s allocation in `relative`'s coordinates as `[x, y, width, height]`, rounded;
/// `None` when it has none (never allocated, or not in the same tree).
pub fn bounds(w: &gtk::Widget, relative: &gtk::Widget) -> Option<[i64; 4]> {
    let r = w.compute_bounds(relative)?;
    Some([r.x(), r.y(), r.width(), r.height()].map(|v| v.round() as i64))
}

/// True when `row` lies wholly inside the visible part of `scrolled`.
pub fn in_view(row: &gtk::Widget, scrolled: &gtk::ScrolledWindow) -> bool {
    match bounds(row, scrolled.upcast_ref()) {
        Some([_, y, _, h]) => h > 0 && y >= 0 && y + h <= i64::from(scrolled.height()),
        None => false,
    }
}

/// Scrolls `scrolled` so that `row` (a row of the list it holds) is wholly visible, as
/// soon as the row has its allocation (a row just added gets it at the next frame).
pub fn scroll_into_view(scrolled: &gtk::ScrolledWindow, row: &gtk::Widget) {
    let row = row.clone();
    let frames = std::cell::Cell::new(0u32);
    scrolled.add_tick_callback(move |scrolled, _| {
        frames.set(frames.get() + 1);
        // Where the row is on screen, relative to the scrolled window's top.
        if let Some([_, y, _, h]) = bounds(&row, scrolled.upcast_ref()).filter(|b| b[3] > 0) {
            let adj = scrolled.vadjustment();
            let view = i64::from(scrolled.height());
            let delta = if y < 0 {
                y
            } else if y + h > view {
                (y + h - view).min(y)
            } else {
                return glib::ControlFlow::Break;
            };
            adj.set_value(adj.value() + delta as f64);
        }
        if frames.get() >= SCROLL_FRAMES {
            glib::ControlFlow::Break
        } else {
            glib::ControlFlow::Continue
        }
    });
}

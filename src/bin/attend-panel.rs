//! `attend-panel`: the GTK panel of Attend (see [`attend::panel`]).

fn main() {
    std::process::exit(attend::panel::main());
}

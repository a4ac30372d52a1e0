//! `attend-holder`: see the crate docs (src/lib.rs).

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    std::process::exit(attend_holder::main_with_args(&args));
}

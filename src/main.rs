fn main() {
    std::process::exit(attend::entry::main());
}

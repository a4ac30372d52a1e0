fn main() {
    std::process::exit(attend::cli::main());
}

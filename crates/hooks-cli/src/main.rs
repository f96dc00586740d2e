//! The `hooks` binary: parses the command line and acts, through [`hooks_cli::run`].

fn main() {
    std::process::exit(hooks_cli::run());
}

//! The `dayrun` binary: parse arguments, run, exit with the code the run chose.

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let code = match dayrun::cli::parse(&argv) {
        Ok(args) => dayrun::run(args),
        Err((text, 0)) => {
            println!("{text}");
            0
        }
        Err((text, code)) => {
            eprintln!("{text}");
            code
        }
    };
    std::process::exit(code);
}

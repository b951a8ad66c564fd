use std::io::{self, Read, Write};

fn main() {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    let line = format!("{}\n", "7".repeat(1000));
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    loop {
        // endless output; stops only when killed or stdout is closed
        if out.write_all(line.as_bytes()).is_err() {
            std::process::exit(1);
        }
    }
}

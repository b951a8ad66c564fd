use std::io::{self, Read, Write};

fn read_input() -> String {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    s
}

fn main() {
    let y: u32 = read_input().trim().parse().unwrap();
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    writeln!(io::stdout(), "{}", if leap { "Yes" } else { "No" }).unwrap();
}

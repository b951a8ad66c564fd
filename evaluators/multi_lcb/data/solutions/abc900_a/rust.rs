use std::io::{self, Read, Write};

fn read_input() -> String {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    s
}

fn main() {
    let input = read_input();
    let v: Vec<i64> = input.split_ascii_whitespace().map(|x| x.parse().unwrap()).collect();
    let mut out = io::stdout();
    writeln!(out, "{}", v[0] + v[1]).unwrap();
}

use std::io::{self, Read, Write};

fn read_input() -> String {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    s
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn main() {
    let input = read_input();
    let v: Vec<u64> = input.split_ascii_whitespace().map(|x| x.parse().unwrap()).collect();
    let g = gcd(v[0], v[1]);
    writeln!(io::stdout(), "{} {}", g, v[0] / g * v[1]).unwrap();
}

use std::io::{self, Read, Write};

fn read_input() -> String {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    s
}

fn main() {
    let input = read_input();
    let mut it = input.split_ascii_whitespace().map(|x| x.parse::<i64>().unwrap());
    let n = it.next().unwrap();
    let sum: i64 = it.take(n as usize).sum();
    writeln!(io::stdout(), "{:.10}", sum as f64 / n as f64).unwrap();
}

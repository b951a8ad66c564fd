use std::io::{self, Read, Write};

fn read_input() -> String {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    s
}

fn main() {
    let input = read_input();
    let mut it = input.split_ascii_whitespace();
    let n: usize = it.next().unwrap().parse().unwrap();
    let best = it.take(n).map(|x| x.parse::<i64>().unwrap()).max().unwrap();
    writeln!(io::stdout(), "{}", best).unwrap();
}

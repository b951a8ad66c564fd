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
    let mut words: Vec<&str> = it.take(n).collect();
    words.sort_unstable();
    let mut out = String::with_capacity(input.len() + n);
    for w in words {
        out.push_str(w);
        out.push('\n');
    }
    io::stdout().write_all(out.as_bytes()).unwrap();
}

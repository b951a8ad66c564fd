use std::io::{self, Read, Write};

fn read_input() -> String {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    s
}

fn main() {
    let input = read_input();
    let mut it = input.split_ascii_whitespace().map(|x| x.parse::<i64>().unwrap());
    let n = it.next().unwrap() as usize;
    let mut tails: Vec<i64> = Vec::with_capacity(n);
    for _ in 0..n {
        let x = it.next().unwrap();
        let i = tails.partition_point(|&t| t < x);
        if i == tails.len() {
            tails.push(x);
        } else {
            tails[i] = x;
        }
    }
    writeln!(io::stdout(), "{}", tails.len()).unwrap();
}

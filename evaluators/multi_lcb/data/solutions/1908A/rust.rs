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
    let mut a: Vec<i64> = it.take(n).collect();
    a.sort_unstable();
    let sums: Vec<i64> = (0..n / 2).map(|i| a[i] + a[n - 1 - i]).collect();
    let hi = *sums.iter().max().unwrap();
    let lo = *sums.iter().min().unwrap();
    writeln!(io::stdout(), "{}", hi - lo).unwrap();
}

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
    let cap = it.next().unwrap() as usize;
    let mut dp = vec![0i64; cap + 1];
    for _ in 0..n {
        let w = it.next().unwrap() as usize;
        let v = it.next().unwrap();
        if w > cap {
            continue;
        }
        for c in (w..=cap).rev() {
            dp[c] = dp[c].max(dp[c - w] + v);
        }
    }
    writeln!(io::stdout(), "{}", dp[cap]).unwrap();
}

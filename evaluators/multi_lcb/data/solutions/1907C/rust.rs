use std::io::{self, Read, Write};

fn read_input() -> String {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    s
}

fn main() {
    let input = read_input();
    let mut it = input.split_ascii_whitespace().map(|x| x.parse::<usize>().unwrap());
    let n = it.next().unwrap();
    let amount = it.next().unwrap();
    const INF: usize = usize::MAX / 2;
    let mut dp = vec![INF; amount + 1];
    dp[0] = 0;
    for _ in 0..n {
        let c = it.next().unwrap();
        for a in c..=amount {
            dp[a] = dp[a].min(dp[a - c] + 1);
        }
    }
    if dp[amount] >= INF {
        writeln!(io::stdout(), "-1").unwrap();
    } else {
        writeln!(io::stdout(), "{}", dp[amount]).unwrap();
    }
}

use std::io::{self, Read, Write};

fn read_input() -> String {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    s
}

fn main() {
    const MOD: u64 = 1_000_000_007;
    let n: u64 = read_input().trim().parse().unwrap();
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        let c = (a + b) % MOD;
        a = b;
        b = c;
    }
    writeln!(io::stdout(), "{}", a).unwrap();
}

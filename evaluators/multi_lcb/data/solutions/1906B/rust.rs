use std::io::{self, Read, Write};

fn read_input() -> String {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    s
}

fn main() {
    let n: usize = read_input().trim().parse().unwrap();
    let mut composite = vec![false; n + 1];
    let mut count = 0;
    for i in 2..=n {
        if composite[i] {
            continue;
        }
        count += 1;
        let mut j = i * i;
        while j <= n {
            composite[j] = true;
            j += i;
        }
    }
    writeln!(io::stdout(), "{}", count).unwrap();
}

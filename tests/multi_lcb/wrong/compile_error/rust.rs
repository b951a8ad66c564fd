use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let sum: i64 = "not a number"; // mismatched types: expected i64, found &str
    println!("{}", sum);
}

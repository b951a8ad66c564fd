use std::io;

fn main() {
    let mut line = String::new();
    io::stdin().read_line(&mut line).unwrap();
    let words: Vec<&str> = line.split_ascii_whitespace().rev().collect();
    println!("{}", words.join(" "));
}

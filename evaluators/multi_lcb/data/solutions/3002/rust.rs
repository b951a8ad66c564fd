use std::io::{self, Read};

fn read_lines() -> Vec<String> {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    s.split('\n')
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[allow(dead_code)]
fn parse_int_list(line: &str) -> Vec<i64> {
    let a = line.find('[').unwrap();
    let b = line.rfind(']').unwrap();
    line[a + 1..b]
        .split(',')
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .map(|p| p.parse().unwrap())
        .collect()
}

#[allow(dead_code)]
fn parse_string(line: &str) -> String {
    match (line.find('"'), line.rfind('"')) {
        (Some(a), Some(b)) if b > a => line[a + 1..b].to_string(),
        _ => String::new(),
    }
}

struct Solution;

impl Solution {
    fn is_palindrome(s: &str) -> bool {
        s.bytes().eq(s.bytes().rev())
    }
}

fn main() {
    let lines = read_lines();
    println!("{}", Solution::is_palindrome(&parse_string(&lines[0])));
}

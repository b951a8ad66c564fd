use std::collections::HashMap;
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
    fn count_pairs(nums: &[i64], k: i64) -> i64 {
        let mut seen: HashMap<i64, i64> = HashMap::new();
        let mut count = 0;
        for &x in nums {
            count += seen.get(&(k - x)).copied().unwrap_or(0);
            *seen.entry(x).or_insert(0) += 1;
        }
        count
    }
}

fn main() {
    let lines = read_lines();
    let nums = parse_int_list(&lines[0]);
    let k: i64 = lines[1].parse().unwrap();
    println!("{}", Solution::count_pairs(&nums, k));
}

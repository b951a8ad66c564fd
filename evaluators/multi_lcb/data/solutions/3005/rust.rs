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
    fn min_distance(a: &str, b: &str) -> usize {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        let m = b.len();
        let mut prev: Vec<usize> = (0..=m).collect();
        let mut cur = vec![0usize; m + 1];
        for i in 1..=a.len() {
            cur[0] = i;
            for j in 1..=m {
                cur[j] = if a[i - 1] == b[j - 1] {
                    prev[j - 1]
                } else {
                    1 + prev[j - 1].min(prev[j]).min(cur[j - 1])
                };
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        prev[m]
    }
}

fn main() {
    let lines = read_lines();
    let a = parse_string(&lines[0]);
    let b = parse_string(&lines[1]);
    println!("{}", Solution::min_distance(&a, &b));
}

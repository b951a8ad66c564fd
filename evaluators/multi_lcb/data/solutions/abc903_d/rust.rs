use std::collections::VecDeque;
use std::io::{self, Read, Write};

fn read_input() -> String {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    s
}

fn main() {
    let input = read_input();
    let mut it = input.split_ascii_whitespace();
    let h: usize = it.next().unwrap().parse().unwrap();
    let w: usize = it.next().unwrap().parse().unwrap();
    let g: Vec<&[u8]> = (0..h).map(|_| it.next().unwrap().as_bytes()).collect();
    if g[0][0] != b'.' || g[h - 1][w - 1] != b'.' {
        writeln!(io::stdout(), "-1").unwrap();
        return;
    }
    let mut dist = vec![-1i64; h * w];
    let mut queue = VecDeque::new();
    dist[0] = 0;
    queue.push_back((0usize, 0usize));
    while let Some((r, c)) = queue.pop_front() {
        let d = dist[r * w + c];
        let mut try_cell = |nr: usize, nc: usize, queue: &mut VecDeque<(usize, usize)>| {
            if g[nr][nc] == b'.' && dist[nr * w + nc] < 0 {
                dist[nr * w + nc] = d + 1;
                queue.push_back((nr, nc));
            }
        };
        if r > 0 {
            try_cell(r - 1, c, &mut queue);
        }
        if r + 1 < h {
            try_cell(r + 1, c, &mut queue);
        }
        if c > 0 {
            try_cell(r, c - 1, &mut queue);
        }
        if c + 1 < w {
            try_cell(r, c + 1, &mut queue);
        }
    }
    writeln!(io::stdout(), "{}", dist[h * w - 1]).unwrap();
}

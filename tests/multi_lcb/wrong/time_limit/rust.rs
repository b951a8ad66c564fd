use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let mut x: u64 = 0;
    loop {
        // busy loop, never prints; black_box keeps the optimiser from removing the work
        x = std::hint::black_box(x.wrapping_add(1));
    }
}

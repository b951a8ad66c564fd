use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    loop {
        // vec![1; n] writes every byte, so the memory is really used
        let chunk = std::hint::black_box(vec![1u8; 64 << 20]);
        chunks.push(chunk);
        std::hint::black_box(&chunks);
    }
}

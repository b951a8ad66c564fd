import sys

a, b = map(int, sys.stdin.read().split())
chunks = []
while True:
    # 64 MB of non-zero bytes: the memory is written, so the RSS really grows
    chunks.append(b"\x01" * (64 << 20))

import sys


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    total = sum(map(int, data[1:1 + n]))
    print(f"{total / n:.10f}")


main()

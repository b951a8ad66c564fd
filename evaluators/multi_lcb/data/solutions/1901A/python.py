import sys


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    print(max(map(int, data[1:1 + n])))


main()

import sys


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = sorted(map(int, data[1:1 + n]))
    sums = [a[i] + a[n - 1 - i] for i in range(n // 2)]
    print(max(sums) - min(sums))


main()

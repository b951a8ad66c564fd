import sys

MOD = 1_000_000_007


def main() -> None:
    n = int(sys.stdin.read().split()[0])
    a, b = 0, 1
    for _ in range(n):
        a, b = b, (a + b) % MOD
    print(a)


main()

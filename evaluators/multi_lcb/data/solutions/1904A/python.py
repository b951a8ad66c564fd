import sys
from math import gcd


def main() -> None:
    a, b = map(int, sys.stdin.read().split()[:2])
    g = gcd(a, b)
    print(g, a // g * b)


main()

import sys


def main() -> None:
    words = sys.stdin.readline().split()
    print(" ".join(reversed(words)))


main()

import sys


def main() -> None:
    y = int(sys.stdin.read().split()[0])
    leap = (y % 4 == 0 and y % 100 != 0) or y % 400 == 0
    print("Yes" if leap else "No")


main()

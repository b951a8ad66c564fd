import sys


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    words = sorted(data[1:1 + n])
    sys.stdout.write(b"\n".join(words).decode() + "\n")


main()

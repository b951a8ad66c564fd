import sys

def main(:  # SyntaxError
    a, b = map(int, sys.stdin.read().split())
    print(a + b)

main()

import sys

a, b = map(int, sys.stdin.read().split())
print(a - b)  # wrong: difference instead of sum

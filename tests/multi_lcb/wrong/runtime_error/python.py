import sys

a, b = map(int, sys.stdin.read().split())
print(a + b)  # the right answer...
sys.exit(3)  # ...but a non-zero exit code: the verdict is runtime error

import sys

a, b = map(int, sys.stdin.read().split())
x = 0
while True:  # busy loop, never prints
    x += 1

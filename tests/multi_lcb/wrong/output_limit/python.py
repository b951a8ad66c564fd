import sys

a, b = map(int, sys.stdin.read().split())
line = (str(a + b) + " ") * 200 + "\n"
while True:  # endless output; ends only when killed or stdout is closed
    sys.stdout.write(line)

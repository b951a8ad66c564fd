import sys


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n, cap = int(data[0]), int(data[1])
    dp = [0] * (cap + 1)
    for i in range(n):
        w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
        if w > cap:
            continue
        dp = dp[:w] + [a if a >= b + v else b + v for a, b in zip(dp[w:], dp)]
    print(dp[cap])


main()

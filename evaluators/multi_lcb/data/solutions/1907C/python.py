import sys


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n, amount = int(data[0]), int(data[1])
    coins = [int(x) for x in data[2:2 + n]]
    inf = amount + 1
    dp = [0] + [inf] * amount
    for c in coins:
        for a in range(c, amount + 1):
            cand = dp[a - c] + 1
            if cand < dp[a]:
                dp[a] = cand
    print(dp[amount] if dp[amount] <= amount else -1)


main()

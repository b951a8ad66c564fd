t = STDIN.read.split
n = t[0].to_i
amount = t[1].to_i
inf = 1 << 30
dp = Array.new(amount + 1, inf)
dp[0] = 0
n.times do |k|
  c = t[2 + k].to_i
  x = c
  while x <= amount
    v = dp[x - c] + 1
    dp[x] = v if v < dp[x]
    x += 1
  end
end
puts(dp[amount] >= inf ? -1 : dp[amount])

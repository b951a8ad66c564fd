t = STDIN.read.split
n = t[0].to_i
cap = t[1].to_i
dp = Array.new(cap + 1, 0)
p = 2
n.times do
  w = t[p].to_i
  v = t[p + 1].to_i
  p += 2
  j = cap
  while j >= w
    c = dp[j - w] + v
    dp[j] = c if c > dp[j]
    j -= 1
  end
end
puts dp[cap]

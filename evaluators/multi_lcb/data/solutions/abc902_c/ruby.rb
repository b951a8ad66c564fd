t = STDIN.read.split
n = t[0].to_i
q = t[1].to_i
pre = Array.new(n + 1, 0)
i = 0
while i < n
  pre[i + 1] = pre[i] + t[2 + i].to_i
  i += 1
end
p = 2 + n
out = Array.new(q)
i = 0
while i < q
  l = t[p].to_i
  r = t[p + 1].to_i
  p += 2
  out[i] = pre[r] - pre[l - 1]
  i += 1
end
puts out.join("\n")

lines = STDIN.read.split("\n").reject { |x| x.strip.empty? }
def str_arg(line)
  a = line.index('"')
  b = line.rindex('"')
  a && b && b > a ? line[(a + 1)...b] : ''
end
a = str_arg(lines[0]).bytes
b = str_arg(lines[1]).bytes
m = b.size
prev = (0..m).to_a
cur = Array.new(m + 1, 0)
i = 1
while i <= a.size
  cur[0] = i
  ai = a[i - 1]
  j = 1
  while j <= m
    best = prev[j - 1] + (ai == b[j - 1] ? 0 : 1)
    x = prev[j] + 1
    best = x if x < best
    x = cur[j - 1] + 1
    best = x if x < best
    cur[j] = best
    j += 1
  end
  prev, cur = cur, prev
  i += 1
end
puts prev[m]

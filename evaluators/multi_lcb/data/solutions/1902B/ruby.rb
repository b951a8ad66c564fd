t = STDIN.read.split
n = t[0].to_i
m = 1_000_000_007
a = 0
b = 1
i = 0
while i < n
  c = a + b
  c -= m if c >= m
  a = b
  b = c
  i += 1
end
puts a

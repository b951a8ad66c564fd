t = STDIN.read.split
n = t[0].to_i
s = t[1, n].sum(&:to_i)
puts format('%.10f', s.to_f / n)

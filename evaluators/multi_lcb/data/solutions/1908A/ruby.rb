t = STDIN.read.split
n = t[0].to_i
a = t[1, n].map(&:to_i).sort
sums = (0...(n / 2)).map { |i| a[i] + a[n - 1 - i] }
puts sums.max - sums.min

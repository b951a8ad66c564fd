t = STDIN.read.split
n = t[0].to_i
puts t[1, n].map(&:to_i).uniq.size

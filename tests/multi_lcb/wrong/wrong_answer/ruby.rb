t = STDIN.read.split
puts t[0].to_i - t[1].to_i

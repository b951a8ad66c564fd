t = STDIN.read.split
y = t[0].to_i
puts((y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 'Yes' : 'No')

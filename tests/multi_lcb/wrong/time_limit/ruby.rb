t = STDIN.read.split
x = 0
loop do
  x += 1
end

t = STDIN.read.split
a = t[0].to_i
b = t[1].to_i
g = a.gcd(b)
puts "#{g} #{a / g * b}"

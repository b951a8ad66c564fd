t = STDIN.read.split
# Syntax error: rejected by `ruby -c`.
def add(a, b
  a + b
end
puts add(t[0].to_i, t[1].to_i

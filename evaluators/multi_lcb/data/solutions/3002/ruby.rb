lines = STDIN.read.split("\n").map(&:strip).reject(&:empty?)
def str_arg(line)
  a = line.index('"')
  b = line.rindex('"')
  a && b && b > a ? line[(a + 1)...b] : ''
end
s = lines.empty? ? '' : str_arg(lines[0])
puts s == s.reverse ? 'true' : 'false'

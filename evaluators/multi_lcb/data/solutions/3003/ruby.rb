lines = STDIN.read.split("\n").map(&:strip).reject(&:empty?)
def str_arg(line)
  a = line.index('"')
  b = line.rindex('"')
  a && b && b > a ? line[(a + 1)...b] : ''
end
nums = lines[0].scan(/-?\d+/).map(&:to_i)
best = nil
cur = 0
nums.each do |x|
  cur = cur + x > x ? cur + x : x
  best = cur if best.nil? || cur > best
end
puts best

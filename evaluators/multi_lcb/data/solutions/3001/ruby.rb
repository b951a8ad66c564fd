lines = STDIN.read.split("\n").map(&:strip).reject(&:empty?)
def str_arg(line)
  a = line.index('"')
  b = line.rindex('"')
  a && b && b > a ? line[(a + 1)...b] : ''
end
nums = lines[0].scan(/-?\d+/).map(&:to_i)
k = lines[1].to_i
seen = Hash.new(0)
cnt = 0
nums.each do |x|
  cnt += seen[k - x]
  seen[x] += 1
end
puts cnt

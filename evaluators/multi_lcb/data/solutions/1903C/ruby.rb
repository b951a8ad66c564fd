t = STDIN.read.split
n = t[0].to_i
tails = []
i = 1
while i <= n
  v = t[i].to_i
  idx = tails.bsearch_index { |x| x >= v }
  if idx.nil?
    tails << v
  else
    tails[idx] = v
  end
  i += 1
end
puts tails.size
